#!/usr/bin/env bash
# The tuner's failure path on the GPU: with a child timeout too short for any
# candidate, every timing child is killed, recorded as failed, and the tune
# goes on; a rerun with --retry-failed and the default timeout re-times them
# from the same DB.
#   usage (device): bash bench/h200-tune-kill.sh build-carry
C=${1:-build-carry}; G=$C/gemmgen
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
S="specs/sm90/05_fast_f16.yaml --m 4096 --n 4096 --k 4096 --dtype f16 pipeline.depth=3,4 scheduler.group=8,16"
echo "== child timeout 0.2 s"
timeout 120 $G tune $S --db "$OUT/kill.jsonl" --child-timeout 0.2 --rounds 5 2>&1 | grep -vE '^\s*$' | tail -8
echo "rc=${PIPESTATUS[0]}"
echo "== rerun: --retry-failed, default timeout"
timeout 120 $G tune $S --db "$OUT/kill.jsonl" --retry-failed --rounds 5 2>&1 | grep -vE '^\s*$' | tail -6
echo "rc=${PIPESTATUS[0]}"

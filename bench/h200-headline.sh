#!/usr/bin/env bash
# The issue-4 headline alone, repeated: 05 (f16) and 06 (bf16) at 4096^3 and
# 8192^3 vs cuBLAS, R times in one command (default 3).
#   usage (device): bash bench/h200-headline.sh build-carry [R]
C=${1:-build-carry}; R=${2:-3}
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
for r in $(seq 1 "$R"); do for s in 05_fast_f16 06_fast_bf16; do
  echo "-- repeat $r $s"
  "$C/gemmgen" bench specs/sm90/$s.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 30 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+' | cut -c1-100
done; done

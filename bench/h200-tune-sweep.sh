#!/usr/bin/env bash
# Tunes every shape of the docs/PERF.md sweep for one dtype on the H200 and
# writes the tuned-defaults file. One DB for all shapes; reports and the
# tuned specs come back as tarballs (the device returns at most 8 files).
#   usage (device): bash bench/h200-tune-sweep.sh build-carry f16 [seconds-per-shape]
set -u
C=${1:-build-carry}; DT=${2:-f16}; PER=${3:-25}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT/reports"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
SHAPES="2048x2048x2048 4096x4096x4096 8192x8192x8192 8192x8192x2048 4096x4096x16384 16384x4096x4096 4096x14336x4096 1024x8192x8192 128x8192x8192 4000x4000x4000"
for s in $SHAPES; do
  IFS=x read -r m n k <<< "$s"
  timeout $((PER + 90)) "$C/gemmgen" tune specs/sm90/05_fast_f16.yaml --m "$m" --n "$n" --k "$k" \
    --dtype "$DT" --space bench/tune/space-sweep.yaml --db "$OUT/tune-sweep-$DT.jsonl" \
    --report "$OUT/reports/$s-$DT" --time-budget "$PER" --rounds 8 > "$OUT/reports/$s-$DT.log" 2>&1
  echo "$s $DT rc=$? $(grep -E '^best:' "$OUT/reports/$s-$DT.log" | cut -c1-170)"
done
"$C/gemmgen" tune-db defaults --db "$OUT/tune-sweep-$DT.jsonl" --out-dir "$OUT/tuned" > "$OUT/defaults-$DT.log" 2>&1
echo "defaults rc=$?"; cat "$OUT/tuned/defaults.yaml" 2>/dev/null | head -40
tar czf "$OUT/tuned-$DT.tgz" -C "$OUT" tuned && tar czf "$OUT/reports-$DT.tgz" -C "$OUT" reports
rm -rf "$OUT/reports" "$OUT/tuned"

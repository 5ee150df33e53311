#!/usr/bin/env bash
# Tunes one shape (default 128x8192x8192; f16, bf16) over smaller tiles (bench/tune/space-small-m.yaml),
# then benches the best spec against cuBLAS in the same process.
#   usage (device): bash bench/h200-tune-one-wave.sh build-carry [M N K]
C=${1:-build-carry}; G=$C/gemmgen; M=${2:-128}; N=${3:-8192}; K=${4:-8192}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
for dt in f16 bf16; do
  timeout 200 $G tune specs/sm90/01_ws_1consumer.yaml --m $M --n $N --k $K --dtype $dt \
    --space bench/tune/space-small-m.yaml --db "$OUT/tune-small-$M.jsonl" --time-budget 60 --rounds 8 \
    > "$OUT/tune-small-$M-$dt.log" 2>&1
  grep -E '^best:' "$OUT/tune-small-$M-$dt.log" | cut -c1-200
done
$G tune-db defaults --db "$OUT/tune-small-$M.jsonl" --out-dir "$OUT/tuned" > /dev/null 2>&1
for dt in f16 bf16; do
  GEMMGEN_TUNED_DEFAULTS=$OUT/tuned/defaults.yaml $G bench tuned --dtype $dt --m $M --n $N --k $K --rounds 15 2>&1 | grep -E 'tuned defaults|^ *[0-9]+x' | cut -c1-110
done
tar czf "$OUT/tuned-small-$M.tgz" -C "$OUT" tuned && rm -rf "$OUT/tuned"

#!/usr/bin/env bash
# Calibration data for a tile family of the cost model: each given spec
# against cuBLAS on the sweep's 41 shapes (not the validation set), one
# bench process per spec and dtype (f16, bf16). bench/h200-wide.sh was the
# first such run (two 128x192 specs).
#   usage (device, nvidia-h200, from the repository root):
#     bash bench/h200-family.sh CARRY SPEC...     (CARRY: gemmgen, cache/)
# Output: $OUT/family-<spec>-<dtype>.{log,json}; a line per run last.
set -u
C=${1:-build-carry}; shift; OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
case $C in /*) ;; *) C=$PWD/$C ;; esac
export GEMMGEN_CACHE_DIR=$C/cache
list=$(grep -E '^[0-9]+x[0-9]+x[0-9]+ +[^ ]+$' bench/h200-sweep.sh | grep -v ' val-' | awk '{print $1}' | paste -sd, -)
for spec in "$@"; do
  n=$(basename "$spec" .yaml)
  for dt in f16 bf16; do
    timeout 200 "$C/gemmgen" bench "$spec" --dtype $dt --shapes "$list" --rounds 12 \
      --json "$OUT/family-$n-$dt.json" > "$OUT/family-$n-$dt.log" 2>&1
    echo "$n $dt rc=$? $(grep -cE '^[0-9]+x' "$OUT/family-$n-$dt.log") shapes"
  done
done

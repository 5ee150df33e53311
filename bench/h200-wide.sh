#!/usr/bin/env bash
# Calibration data for a 128x192 tile family of the cost model: both
# candidate specs (bench/families/) against cuBLAS on the sweep's 41 shapes
# (not the validation set), one bench process each, f16 and bf16.
#   usage (device, nvidia-h200, from the repository root):
#     bash bench/h200-wide.sh CARRY        (CARRY: gemmgen, cache/)
# Output: $OUT/wide-<spec>-<dtype>.{log,json}; a line per run last.
set -u
C=${1:-build-carry}; OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
case $C in /*) ;; *) C=$PWD/$C ;; esac
export GEMMGEN_CACHE_DIR=$C/cache
list=$(grep -E '^[0-9]+x[0-9]+x[0-9]+ +[^ ]+$' bench/h200-sweep.sh | grep -v ' val-' | awk '{print $1}' | paste -sd, -)
for spec in wide_d5_c64 wide_d4_c192; do
  for dt in f16 bf16; do
    timeout 200 "$C/gemmgen" bench bench/families/$spec.yaml --dtype $dt --shapes "$list" --rounds 12 \
      --json "$OUT/wide-$spec-$dt.json" > "$OUT/wide-$spec-$dt.log" 2>&1
    echo "$spec $dt rc=$? $(grep -cE '^[0-9]+x' "$OUT/wide-$spec-$dt.log") shapes"
  done
done

#!/usr/bin/env bash
# `auto` with a column-major D, chosen in the row-major problem's frame (choiceShape: N×M, as the
# cost model, its rules and the tuned DB speak) against the old call (the user's M×N with the
# row-major problem's layouts). At 16x4096x4096 --layout row,col,col OLD takes decode_d16, which
# the runtime runs untransposed (kernel D column-major = the user's): 16 rows padded to the 64-row
# tile, 256 tiles of 16 weight columns; NEW takes tall_d16, run transposed: the 4096 weight rows on
# the MMA's M side, 64 tiles, as decode_d16 runs a row-major D. col,col,col: OLD decode_d16
# untransposed, NEW the model's small 64x128 tile on 4096x16 (its tall twin needs B N-major in
# 64-column boxes). Prediction: row,col,col NEW at least as fast as OLD at every shape (0-30%
# ahead: a quarter of the tiles, no padded rows) and within 5% of the same shape with D row-major
# (row,col,row, decode_d16: the same orientation); col,col,col not predicted (both pad).
# First the GPU tests of a column-major D (ChosenKernelColumnMajorD: the choice as run makes it,
# eight cases; ColumnMajorD: every layout's spec). Each run: `run auto --verify` (every element
# against the reference), then 200 timed launches; two passes, the second in reverse order.
#   usage (device): bash bench/h200-col-d-choice.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init col_d_choice "$2"
gpu_tests '*ChosenKernelColumnMajorD*:*ColumnMajorD*'
run_one() { # pass, binary tag, MxNxK:LAYOUT
  local bin=$OLD m n k log s=${3%%:*} l=${3#*:}; [ "$2" = new ] && bin=$C
  IFS=x read -r m n k <<< "$s"
  log=$L/${2}_$1_${s}_${l//,/_}.txt
  GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" run auto --m "$m" --n "$n" --k "$k" \
    --layout "$l" --verify --iters 200 > "$log" 2>&1
  echo "pass $1 $2 $s $l rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$log" | head -1) $(grep -o 'median [0-9.]* ms' "$log") $(grep -o 'auto_[a-z0-9_]*' "$log" | head -1)" >> "$S"
}
SHAPES="16x4096x4096 8x14336x4096 32x4096x4096 16x6144x4096 4x28672x4096 64x4096x4096 1x4096x14336"
ITEMS=""
for s in $SHAPES; do
  for l in row,col,col col,col,col row,col,row; do ITEMS="$ITEMS $s:$l"; done
done
old_new_passes run_one $ITEMS
bench_finish

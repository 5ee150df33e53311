#!/usr/bin/env bash
# The transposing copy's cost, OLD against NEW binaries (carry folders): `run --iters 30`
# medians of spec 13 with both operands copied (--layout col,row) and with none (row,col, NEW's
# binary), at 4096^3, 8192^3 and a decode shape, two passes (the second in reverse order),
# plus `run --verify` of NEW at the four layouts.
#   usage (device): bash bench/h200-fp8-transpose-ab.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1; case $OLD in /*) ;; *) OLD=$PWD/$OLD ;; esac
bench_init fp8_transpose_ab "$2"
for l in col,col row,row col,row; do
  verify e4m3_$l specs/sm90/13_fast_e4m3.yaml 1000x1001x528 --layout $l --beta 0.5
done
time_one() { # PASS old|new|base SHAPE
  local bin=$C l=col,row m n k log; [ "$2" = old ] && bin=$OLD; [ "$2" = base ] && l=row,col
  IFS=x read -r m n k <<< "$3"
  log=$L/time_$1_$2_$3.txt
  GEMMGEN_CACHE_DIR=$bin/cache timeout 60 "$bin/gemmgen" run specs/sm90/13_fast_e4m3.yaml \
    --m "$m" --n "$n" --k "$k" --layout "$l" --iters 30 > "$log" 2>&1
  echo "pass $1 $2 $3 $l rc=$? $(grep -o 'median [0-9.]* ms' "$log")" >> "$S"
}
for s in 4096x4096x4096 8192x8192x8192 16x7168x2048; do time_one 1 base $s; done
old_new_passes time_one 4096x4096x4096 8192x8192x8192 16x7168x2048
bench_finish

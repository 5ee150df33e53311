#!/usr/bin/env bash
# The session's final blockwise binaries (b4e1404): every GPU test, then the blockwise chooser
# (`bench auto`) against cuBLASLt's blockwise mode on the eight DeepSeek-V3 shapes, one pass.
#   usage (device): bash bench/h200-blockwise-final.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_final "$1"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log"); blockwise cases OK: $(grep -cE '^\[       OK \] .*(lockwise|blockwise)' "$L/gpu_tests.log")" >> "$S"
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168; do
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench auto --dtype e4m3 --scaling blockwise --m $m --n $n --k $k --rounds 10 > "$L/auto_$s.txt" 2>&1
  echo "auto $(table "$L/auto_$s.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/auto_$s.txt" | head -1)" >> "$S"
done
bench_finish

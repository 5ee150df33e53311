#!/usr/bin/env bash
# Blockwise e4m3 with the k-blocks in pairs, as shipped (spec 15, 17 and the chooser's 128x128,
# 128x64 and 64x128 blockwise families: mma_in_flight 1): every GPU test; spec 15 against the
# one-partial form (bench/variants/15_blockwise_one_partial.yaml) and cuBLASLt's blockwise mode,
# two passes (the second reversed); the chooser (`bench auto`) on the eight DeepSeek-V3 shapes
# with this binary and with the one before the pairs (OLD: a carry whose gemmgen predates them).
# Prediction (2026-12-04, before the run): spec 15 +6-10% over one partial at every shape (as in
# bench/h200-blockwise-pair.sh); the chooser +5-10% where it picks a 128x128/128x64/64x128 tile,
# level where it picks the 192-column one (spec 19, unchanged).
#   usage (device): bash bench/h200-blockwise-pairs.sh CARRY OLD   (CARRY: gemmgen,
#   gemmgen_gpu_tests, cache/; OLD: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_pairs "$1"
O=${2:-.devrun/exp}; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$S"
echo "blockwise GPU cases: $(grep -cE '^\[       OK \] .*(lockwise|blockwise)' "$L/gpu_tests.log")" >> "$S"
S15=specs/sm90/15_blockwise_e4m3.yaml
ONE=bench/variants/15_blockwise_one_partial.yaml
SH="4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168"
RSH=$(echo $SH | tr ' ' '\n' | tac | tr '\n' ' ')
for pass in 1 2; do
  list=$SH; [ $pass = 2 ] && list=$RSH
  for s in $list; do
    IFS=x read -r m n k <<< "$s"
    for v in pairs one auto auto_old; do
      case $v in
        pairs) cmd=("$G" bench $S15) ;;
        one) cmd=("$G" bench $ONE) ;;
        auto) cmd=("$G" bench auto --dtype e4m3 --scaling blockwise) ;;
        auto_old) cmd=(env GEMMGEN_CACHE_DIR=$O/cache "$O/gemmgen" bench auto --dtype e4m3 --scaling blockwise) ;;
      esac
      timeout 90 "${cmd[@]}" --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/${v}_${pass}_$s.txt" | head -1)" >> "$S"
    done
  done
done
bench_finish

#!/usr/bin/env bash
# scheduler.ctas_per_sm as shipped (7cda01d): spec 25 and the chooser's unsplit decode family.
#  1. every GPU test of the new binary (spec 25 in the generic suites: random inputs, D's
#     surroundings poisoned, every element; the chosen-kernel cases 1x6144x4096, 9x7000x1000);
#  2. the chooser before (one CTA per SM, binary of 1210c8d) and after, one `bench auto` process
#     each, in the order old new new old, at the decode shapes the family takes.
# Prediction: as the experiment (bench/h200-decode-occ2.sh): 16x10240x8192 -5-7%, 1x11008x4096
# -3-4%, 8x14336x4096 -2%, the rest level (+-1%).
#   usage (device): bash bench/h200-decode-two-ctas.sh NEW OLD   (each: gemmgen[, gemmgen_gpu_tests])
source "$(dirname "$0")/lib.sh"
bench_init decode-two-ctas "$1"
O=${2:-.devrun/old}; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gtest_all.txt" 2>&1
echo "gtest all rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gtest_all.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \]' "$L/gtest_all.txt" | head -20 >> "$S"
DEC="1x57344x8192 1x11008x4096 4x28672x4096 1x6144x4096 8x14336x4096 16x10240x8192 16x8192x28672 16x7168x16384"
for who in old new new old; do
  B=$C/gemmgen; [ $who = old ] && B=$O/gemmgen
  echo "== $who" >> "$S"
  for s in $DEC; do
    IFS=x read -r m n k <<< "$s"
    GEMMGEN_CACHE_DIR=$C/cache-$who timeout 60 "$B" bench auto --m $m --n $n --k $k --rounds 20 > "$L/${who}_$s.txt" 2>&1
    echo "$(table "$L/${who}_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/${who}_$s.txt" | head -1)" >> "$S"
  done
done
bench_finish

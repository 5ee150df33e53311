#!/usr/bin/env bash
# The chain's entry (KernelPlan::chainEntry; issue 12's bias + GELU): a leading bias joins
# alpha's multiply in one FMA and gelu_tanh takes the value halved (alpha, the bias and beta carry
# the 1/2). Correctness first: every GPU test (the Epilogue suite, ZeroK, specs 14 and 21 in
# every suite), then memcheck over the Epilogue suite. Then specs 21, 14, 05, 20 and 13 at 4096^3
# with OLD's binary (cd04d05, the chain as written; .devrun/old holds 7b7318a's, whose kernels are
# the same but for comment lines) and NEW's, three passes alternating order,
# each against cuBLASLt's fused GELU_BIAS and the unfused pair in the same process.
# Prediction (static SASS, bench/results/2026-12-04_chain_entry_sass): the chain's instructions
# per element 8 -> 6.25 (FMUL 4 -> 2.25, FADD 1 -> 0, FFMA 2 -> 3), 26.45 M warp instructions at
# 4096^3 -> ~25.3 M (-4.3%); spec 21 is clock-bound (1.52-1.54 GHz against cuBLASLt's 1.59), so
# 1-3% less time: 0.973-0.987 of GELU_BIAS -> 0.99-1.01. Spec 14 the same direction.
# NEW also zeroes an empty tile's accumulators under a real branch (zero_acc_reg): one FSEL per
# accumulator register per tile gone from every sm_90a kernel (bench/results/
# 2026-12-04_zero_acc_sass; 128 per consumer thread per tile, an estimated ~3% of a warp's instructions at
# 4096^3), and chooses the store's form (D = acc, alpha * acc, or with beta * C) once per chunk,
# not a multiply and a branch per 8 values (bench/results/2026-12-0{4_plain,5_forms}_store_sass).
# Specs 05 and 20 have only those changes: predicted spec 05 0.5-2.5% less time at 4096^3 (its
# epilogue is not under wgmmas), spec 20 0-1%. Spec 13 (e4m3, scales 0.5 and 3: alpha != 1) the
# alpha-only form: 0-1.5% (0.986-0.998 of cuBLASLt before).
# Two calls (each under the 10-minute limit): PART check (the tests), then PART bench.
#   usage (device): bash bench/h200-chain-entry.sh OLD NEW check|bench
#                   (OLD: gemmgen; NEW: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init "chain_entry_$3" "$2"
if [ "$3" = check ]; then
  gpu_tests  # every GPU test: the zeroing change reaches every sm_90a kernel
  memcheck '*Epilogue.*'
  bench_finish
  exit 0
fi
for pass in 1 2 3; do
  for v in old new; do
    [ $pass = 2 ] && v=$([ $v = old ] && echo new || echo old)
    bin=$OLD; [ $v = new ] && bin=$C
    for spec in 21_pingpong_bf16_bias_gelu 14_fast_bf16_bias_gelu 05_fast_f16 20_pingpong_f16 13_fast_e4m3; do
      log=$L/${v}_${pass}_$spec.txt
      scales=(); [ $spec = 13_fast_e4m3 ] && scales=(--scale-a 0.5 --scale-b 3)
      GEMMGEN_CACHE_DIR=$bin/cache timeout 120 "$bin/gemmgen" bench specs/sm90/$spec.yaml \
        --shapes 4096x4096x4096 --rounds 20 "${scales[@]}" > "$log" 2>&1
      echo "== pass $pass $v $spec rc=$?" >> "$S"
      grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror|cuBLASLt fused:|unfused:' "$log" | cut -c1-150 >> "$S"
    done
  done
done
bench_finish

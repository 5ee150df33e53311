#!/usr/bin/env bash
# HEAD's binaries after pipeline.l2_promotion and the plan's chunk columns (issue 13): every GPU
# test; memcheck over specs 25 (L2 promotion) and 26 (the printed LAST_CHUNK_COL0) and the chosen
# decode kernels; `run auto --verify` at decode shapes of both promoted families (β 0.5, in place).
# Then where spec 21's instructions go (issue 12: it runs fewer cycles than cuBLASLt's gelubias
# kernel at a lower clock, with 30% more instructions; bench/h200-issue12-profile.sh): ncu's
# per-instruction executed counts of spec 21 and of spec 20 (the same ping-pong kernel without the
# chain), the top SASS lines. Prediction: all pass, 0 errors; the chain ~5M of spec 21's 26.4M
# warp instructions, the try_wait loops < 1M.
#   usage (device): bash bench/h200-session6-final.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init session6_final "$1"
gpu_tests
memcheck '*25_decode*:*26_wave*-*4096*:*ChosenKernel*'
for s in 1x57344x8192 16x6080x4096 3x5000x1000 16x4100x520; do verify auto auto $s --beta 0.5 --c-in-place; done
for f in "$L"/verify_auto*; do echo "$(basename $f): $(grep -o "gemm_sm90_auto_[a-z0-9_]*" $f | head -1)" >> "$S"; done
for spec in 21_pingpong_bf16_bias_gelu 20_pingpong_f16; do
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section InstructionStats -o "$L/src_$spec" \
    "$G" run specs/sm90/$spec.yaml --m 4096 --n 4096 --k 4096 --iters 2 --warmup 1 > "$L/ncu_$spec.txt" 2>&1
  echo "== ncu $spec rc=$?" >> "$S"
  ncu --import "$L/src_$spec.ncu-rep" --page source --print-source sass --csv > "$L/sass_$spec.csv" 2>&1
  echo "sass csv lines: $(wc -l < "$L/sass_$spec.csv")" >> "$S"
  head -2 "$L/sass_$spec.csv" | cut -c1-400 >> "$S"
done
bench_finish

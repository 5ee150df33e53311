#!/usr/bin/env bash
# Where spec 26's 35% more instructions than cuBLAS's kernel go at 3000x5000x2048
# (bench/h200-n152-profile.sh): ncu's instruction mix (sass__inst_executed per opcode) for both
# kernels, one launch each. Prediction: the excess in integer/address and barrier instructions
# of the producer and the epilogue, not in HGMMA.
#   usage (device): bash bench/h200-n152-instmix.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init n152_instmix "$1"
timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 3 --launch-count 1 --section InstructionStats \
  --metrics sass__inst_executed_per_opcode --print-details all \
  "$G" run specs/sm90/26_wave_fit_n152_f16.yaml --m 3000 --n 5000 --k 2048 --iters 3 --warmup 2 > "$L/mix_ours.txt" 2>&1
echo "== ours rc=$?" >> "$S"
timeout 200 ncu --clock-control none -k regex:nvjet --launch-skip 3 --launch-count 1 --section InstructionStats \
  --metrics sass__inst_executed_per_opcode --print-details all \
  "$G" bench specs/sm90/26_wave_fit_n152_f16.yaml --m 3000 --n 5000 --k 2048 --rounds 3 > "$L/mix_cublas.txt" 2>&1
echo "== cublas rc=$?" >> "$S"
for w in ours cublas; do
  echo "-- $w" >> "$S"
  grep -E 'opcode|inst_executed' "$L/mix_$w.txt" | head -5 >> "$S"
  awk '/sass__inst_executed_per_opcode/{f=1} f' "$L/mix_$w.txt" | grep -E '^ +[A-Z]' | sort -k3 -n -r -t' ' | head -40 >> "$S"
done
bench_finish

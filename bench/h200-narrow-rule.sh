#!/usr/bin/env bash
# The narrow rule as built (KernelChoice.cpp pickNarrow, 636a474): `auto` for many rows of at most
# 16 columns takes narrow_n16 (bench/narrow-n/m64n16_c2_rowd.yaml's kernel) from 96 tiles of 64
# rows and narrow_n16_d16 (m64n16_d16_rowd.yaml's) for 64-95. Correctness first: the ChosenKernel
# GPU tests (three new narrow cases with residues in M, N and K), memcheck over those three, `run
# auto --verify` with beta and C in place. Then `bench auto` at the experiment's shapes, two
# passes, f16 and (four shapes) bf16. Prediction: the spec figures of bench/h200-narrow-n.sh
# (0.93-1.13 of cuBLAS) where `auto` ran 0.47-0.81; 28672x4x4096 unchanged (N < 8: the SIMT tail
# computes all of D). Last, issue 12's e4m3 spec 13 at 8192^3 with scales whose product is 1 and
# with 0.5 x 3 (the alpha-only store form).
#   usage (device): bash bench/h200-narrow-rule.sh CARRY   (gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init narrow_rule "$1"
gpu_tests '*ChosenKernel*'
memcheck '*ChosenKernel*/8200x13x520*:*ChosenKernel*/6080x16x1000*:*ChosenKernel*/4096x1x4100*'
verify auto_beta auto 8200x13x520 --beta 0.5
verify auto_beta_inplace_bf16 auto 6080x16x1000 --beta 0.5 --c-in-place --dtype bf16
verify auto_n1 auto 4096x1x4100
SHAPES="57344x16x8192 57344x8x8192 28672x16x4096 28672x4x4096 14336x16x8192 11008x16x4096 6144x16x4096 4096x16x4096 4096x8x14336"
for pass in 1 2; do
  echo "== pass $pass f16" >> "$S"
  for s in $SHAPES; do bench_auto "p${pass}_f16" "$s"; done
  echo "== pass $pass bf16" >> "$S"
  for s in 57344x16x8192 14336x16x8192 6144x16x4096 4096x8x14336; do
    bench_auto "p${pass}_bf16" "$s" --dtype bf16
  done
done
for scales in "0.5 2" "0.5 3"; do
  set -- $scales
  timeout 120 "$G" bench specs/sm90/13_fast_e4m3.yaml --shapes 8192x8192x8192,4096x4096x4096 \
    --rounds 20 --scale-a "$1" --scale-b "$2" > "$L/e4m3_$1_$2.txt" 2>&1
  echo "== e4m3 spec 13, scales $1 x $2 rc=$?" >> "$S"; table "$L/e4m3_$1_$2.txt" >> "$S"
done
bench_finish

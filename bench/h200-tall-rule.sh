#!/usr/bin/env bash
# The decode rule on the transposed problem (KernelChoice.cpp pickTall): many rows of at most 64
# columns take the decode families' twins storing D row-major: tall (two CTAs per SM, or one with
# K split), tall_d16, tall32 (64x32), tall64 (64x64). OLD: the binary of 636a474 (only <= 16
# columns and >= 64 tiles: narrow_n16 / narrow_n16_d16, unsplit); NEW: every twin. Correctness
# first (the ChosenKernel GPU tests: six tall cases with residues; memcheck over them; `run auto
# --verify` with beta), then `bench auto` with OLD and NEW, two passes in alternating order.
# Prediction (the decode figures, bench/h200-decode-col*.sh, read transposed): 17-32 columns
# tall32 0.93-1.07 of cuBLAS where the model's families ran ~0.5-0.8; 33-64 columns of 40-128
# tiles tall64 0.83-1.13; 24-63 tiles of <= 8 columns split 4 / 2 0.92-0.99 (OLD: the model's
# split tiles, ~0.85-0.9); 4096x8x14336 and 4096x16x14336 split 2: 0.95-0.97 (OLD's tall_d16 ran
# 1.12 at 4096x8x14336: if NEW is behind there, the K > 8192 split is not for the twin). N < 8:
# 28672x4x4096 0.69 -> ~1.3 (the tall kernel's ~0.06 ms at 16 columns plus a copy of 229 KB),
# 4096x1x4100 and 8192x2x8192 likewise ahead of the tail's ~1.8 TB/s.
#   usage (device): bash bench/h200-tall-rule.sh OLD NEW   (carry folders: gemmgen; NEW also
#                   gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init tall_rule "$2"
gpu_tests '*ChosenKernel*:*Bounds*:*Tail*:*Staging*'
memcheck '*ChosenKernel*/4100x30x1000*:*ChosenKernel*/3000x50x2000*:*ChosenKernel*/1601x8x2048*:*ChosenKernel*/4096x1x4100*:*Bounds*64x5x64*'
verify tall32_beta auto 4100x30x1000 --beta 0.5 --c-in-place
verify tall64_beta auto 3000x50x2000 --beta 0.5 --dtype bf16
verify tall_s4_beta auto 2112x8x7168 --beta 0.5
verify tall_s2 auto 4096x8x14336
verify staged_n4_beta auto 28672x4x4096 --beta 0.5 --c-in-place
verify staged_n1 specs/sm90/05_fast_f16.yaml 1000x1x520
verify staged_n7_beta specs/sm90/05_fast_f16.yaml 1000x7x520 --beta 0.5
ab_bench "$OLD" "$C" "57344x32x8192 28672x32x4096 14336x24x8192 4096x32x14336 10240x32x8192 \
  4096x64x4096 6144x48x4096 8192x64x4096 5120x64x8192 3072x40x4096 2112x1x7168 3072x4x4096 \
  1536x8x7168 4096x8x14336 4096x16x14336 57344x16x8192 28672x4x4096 4096x1x4100 8192x2x8192" auto
bench_finish

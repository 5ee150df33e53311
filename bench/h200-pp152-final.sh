#!/usr/bin/env bash
# The chooser with pingpong152 (128x152 on ping-pong consumers where 152-column tiles fill the
# rounds better than 256x160; issue 13) on the H200: the GPU tests of the chosen kernels and the
# overlapping chunks (ChosenKernel now runs 3000x5000x2048 f16 and 2000x5000x2048 bf16), memcheck
# over the new chosen cases, then `bench auto` at 3000x5000x2048 in f16 and bf16, three processes
# each, and 2048x5000x2048 / 6000x5000x2048 once. Prediction: all pass, memcheck 0; auto 1.02-1.04
# of cuBLAS at 3000x5000x2048 (0.943-0.950 with 256x152).
#   usage (device): bash bench/h200-pp152-final.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init pp152_final "$1"
gpu_tests '*ChosenKernel*:*OverlappingChunks*:*n152*:*26_wave*'
memcheck '*ChosenKernel*5000x2048*'
for pass in 1 2 3; do
  for t in f16 bf16; do bench_auto "$t-pass$pass" 3000x5000x2048 --dtype $t; done
done
for s in 2048x5000x2048 6000x5000x2048 3000x5000x4096 3000x5000x8192; do bench_auto f16 $s; done
bench_finish

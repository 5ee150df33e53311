#!/usr/bin/env bash
# HEAD's binaries after the final-check call (the chooser refitted, the GPU test helper shared by
# the Epilogue and RaggedChunks cases, the 16-byte-slab warning): every GPU test, memcheck over
# the new and fp8 cases. Prediction: all pass, 0 errors.
#   usage (device): bash bench/h200-last-check.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init last_check "$1"
gpu_tests
memcheck '*Fp8Gemm*:*RaggedChunks*:*26_wave_fit*:*n152*:*Epilogue*-*4096*:*7168*:*8192*:*4000x4000x4000*:*large*:*3000*'
bench_finish

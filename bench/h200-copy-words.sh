#!/usr/bin/env bash
# The staging copy (gg_copy2d, TailColumns.cpp) in the widest words every address, pitch and run
# allows (16, 8, 4, 2 or 1 bytes), a block per long line: it copied element by element with two
# 64-bit divisions per element wherever a line was not whole 16-byte words; 4096x1x4100 (A's rows
# of 8200 bytes staged) ran 0.104 ms against cuBLAS's 0.020 (bench/h200-tall-rule.sh). Also the
# tall rule's 64-95 tiles at K > 8192 unsplit (tall_d16, as OLD's 636a474 ran them at 1.02-1.08).
# OLD: the binary of 3c42573; NEW: this tree. Every GPU test (the copy serves every staged
# operand), memcheck over the staging and bounds tests, `run --verify` of staged shapes in each
# word size, then `bench` OLD and NEW, two passes alternating. Prediction: 4096x1x4100 0.104 ->
# ~0.04 ms (A's 33 MB copied at ~2.5 TB/s), 4096x4096x4100 and 2048x2048x2050 a few % faster,
# 4096x4095x4096 (D staged in 2-byte words) a few %; 4096x8x14336 / 4096x16x14336 0.0343 ->
# 0.0329 ms; shapes without staging unchanged.
#   usage (device): bash bench/h200-copy-words.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init copy_words "$2"
gpu_tests
memcheck '*Bounds*:*Stag*:*ChosenKernel*/4096x1x4100*:*ChosenKernel*/7x4100x1000*'
verify w8_a auto 4096x1x4100 --beta 0.5
verify w2_d specs/sm90/05_fast_f16.yaml 1000x1001x520 --beta 0.5 --c-in-place
verify w4_k specs/sm90/06_fast_bf16.yaml 300x256x514 --dtype bf16
verify w16 specs/sm90/05_fast_f16.yaml 4096x4096x4104
verify w1_fp8 specs/sm90/13_fast_e4m3.yaml 1000x1000x1001 --dtype e4m3
ab_bench "$OLD" "$C" "4096x1x4100 4096x4096x4100 2048x2048x2050 4096x4095x4096 4096x8x14336 \
  4096x16x14336 1000x1000x1001 4096x4096x4096" auto
bench_finish

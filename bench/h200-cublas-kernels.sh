#!/usr/bin/env bash
# Which kernels cuBLAS / cuBLASLt run where gemmgen is still slower (issues 12 and 13), read
# with ncu from one `bench` process per shape (clocks as found): every kernel of the process
# (no name filter), its grid, block, registers, shared memory, duration and DRAM traffic.
# The question before building anything more for these shapes: how does the library's kernel
# differ from ours — split K and a second kernel at decode, a tile that avoids K = 4104's
# straddling rows, the blockwise fp8 kernel's warp layout and tile.
#   usage (device): bash bench/h200-cublas-kernels.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init kernels "$1"
one() { ncu_kernels "$@"; }
one decode_1x6144x4096 auto --m 1 --n 6144 --k 4096
one decode_16x4096x4096 auto --m 16 --n 4096 --k 4096
one decode_1x2112x7168 auto --m 1 --n 2112 --k 7168
one decode_4x28672x4096 auto --m 4 --n 28672 --k 4096
one decode_1x57344x8192 auto --m 1 --n 57344 --k 8192
one kres_4096x4096x4104 auto --m 4096 --n 4096 --k 4104
one wave_768x3072x3072 auto --m 768 --n 3072 --k 3072
one odd_3000x5000x2048 auto --m 3000 --n 5000 --k 2048
one dsv3_4096x2112x7168 auto --m 4096 --n 2112 --k 7168
one sq_4096 specs/sm90/05_fast_f16.yaml --m 4096 --n 4096 --k 4096
one sq_8192 specs/sm90/05_fast_f16.yaml --m 8192 --n 8192 --k 8192
one fp8_4096 specs/sm90/13_fast_e4m3.yaml --m 4096 --n 4096 --k 4096
one fp8_blockwise_4096x7168x2048 specs/sm90/15_blockwise_e4m3.yaml --m 4096 --n 7168 --k 2048
bench_finish

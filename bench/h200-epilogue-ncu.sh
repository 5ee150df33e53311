#!/usr/bin/env bash
# Where the epilogue's cycles go, per instruction (docs/PERF.md, twenty-second session: by
# subtraction, a one-tile CTA's staging ~1.8k cycles, the fence ~0.8k, the store ~0.9k; the store
# path ~2% of the time at 4096^3): ncu's warp-stall sampling per SASS instruction of one launch of
# the 128x224 c32 kernel at 512x7168x2048 and of spec 05 at 2048^3 (one tile a CTA: the epilogue is
# a large share), the 30 instructions with the most samples and their stall reasons into S.
# Prediction: the samples after the last HGMMA sit on the named barriers (BAR.SYNC), the fence's
# MEMBAR and the leader's DEPBAR (the wait for the previous store's read), not on STSM.
# (Written 2026-12-06; first run 2026-12-07 on an H100, whose CSVs fixed the parsing: ncu puts a
# "Kernel Name" row before the header.)
#   usage (device): bash bench/h200-epilogue-ncu.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_ncu "$1"
ncu_source fit224 gemm_sm90 "" bench/wave-fit/m128n224_c32.yaml --m 512 --n 7168 --k 2048
ncu_source large gemm_sm90 "" specs/sm90/05_fast_f16.yaml --m 2048 --n 2048 --k 2048
bench_finish

#!/usr/bin/env bash
# What bounds 3000x5000x2048 now (issue 13's worst non-decode shape, 0.943-0.950 of cuBLAS with
# 256x152): ncu on our kernel (spec 26, f16) and on cuBLAS's (nvjet, 256x152 tiles per
# docs/PERF.md) at the same shape, one launch each after warm-up: duration, SM and memory
# throughput, tensor pipe, issue slots, the warp-state breakdown. Prediction: level tensor-pipe
# busy per tile; cuBLAS's lead in the fixed part per tile (prologue fill, epilogue tail of the
# last wave), so shorter active cycles at equal pipe rate.
#   usage (device): bash bench/h200-n152-profile.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init n152_profile "$1"
SECT="--section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
MET="--metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,sm__cycles_elapsed.max,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,dram__bytes.sum"
timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 3 --launch-count 1 $SECT $MET \
  "$G" run specs/sm90/26_wave_fit_n152_f16.yaml --m 3000 --n 5000 --k 2048 --iters 3 --warmup 2 > "$L/ncu_ours.txt" 2>&1
echo "== ncu ours rc=$?" >> "$S"
timeout 200 ncu --clock-control none -k regex:nvjet --launch-skip 3 --launch-count 1 $SECT $MET \
  "$G" bench specs/sm90/26_wave_fit_n152_f16.yaml --m 3000 --n 5000 --k 2048 --rounds 3 > "$L/ncu_cublas.txt" 2>&1
echo "== ncu cublas rc=$?" >> "$S"
for w in ours cublas; do
  echo "-- $w" >> "$S"
  grep -E '^  [a-z_]*nvjet|^  gemm_sm90|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|hmma_cycles|cycles_active.avg|cycles_elapsed.max|inst_executed.sum|sector_hit_rate|dram__bytes|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Grid Size|Registers Per|Shared Memory Configuration Size|Dynamic Shared' "$L/ncu_$w.txt" | head -30 >> "$S"
done
bench_finish

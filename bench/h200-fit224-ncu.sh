#!/usr/bin/env bash
# What makes cuBLAS's 112x128 kernel (nvjet, 7 stages, 2x1 cluster, two tiles a CTA) 4-6% faster
# than gemmgen's 128x224 tile at 512x7168x2048 on the H100 (2026-12-06_cublas_bf16_h100), where
# 128x112 tiles of ours (ping-pong, cooperative, clustered) were not (2026-12-06_pingpong_widths_h100):
# ncu of one launch of each in one `bench auto` process, f16 — duration, SM and tensor-pipe
# throughput, issue, warp stalls, L2 and DRAM.
# Prediction: both at the same DRAM bytes (31.5 MB); cuBLAS's tensor pipe busier over the same
# duration share (its mainloop starts earlier or its epilogue is shorter), not its L2 traffic.
#   usage (device): bash bench/h200-fit224-ncu.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init fit224_ncu "$1"
SECT="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SchedulerStats"
MET="--metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,lts__t_bytes.sum"
for k in gemm_sm90 "nvjet|sm90_xmma|cutlass"; do
  log=$L/ncu_${k%%|*}.txt
  timeout 120 ncu --clock-control none -k "regex:$k" --launch-count 1 --launch-skip 2 $SECT $MET \
    "$G" bench auto --m 512 --n 7168 --k 2048 --rounds 2 --warmup 1 > "$log" 2>&1
  echo "== ncu ${k%%|*} rc=$?" >> "$S"
  grep -E '^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|L2 Hit|Issue Slots Busy|No Eligible|Registers Per|Warp Cycles Per Issued|SM Frequency|hmma_cycles|sm__cycles_active|lts__t_bytes|Executed Ipc A' \
    "$log" | head -20 >> "$S"
done
bench_finish

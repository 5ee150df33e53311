#!/usr/bin/env bash
# Why 256x152 (spec 26) ran 17% behind 256x160 at 3000x5000x2048 (bench/h200-wave-fit152.sh,
# 15:15 UTC): its time per K was 7% higher and its fixed part 10 us higher. Two suspects: the
# 16-byte TMA store boxes (19 per consumer per tile, against 5 of 64 bytes) and the n152 wgmma.
# Variants at 3000x5000 with K = 2048, 4096, 8192 (f16, 20 rounds): spec 26; 256x160 in chunks of
# 24 (16-byte slabs on whole 16-column blocks: isolates the slabs); 256x160 in chunks of 32
# (the chooser's); 256x144 in chunks of 48 (32-byte slabs; the wgmma width below). Then ncu on
# spec 26 and 256x160 at 3000x5000x4096 (tensor pipe, warp stalls).
# Prediction: 256x160_c24 as slow as spec 26 if the slabs are the cost; 256x144 per tile
# column level with 256x160.
#   usage (device): bash bench/h200-wave-fit152-why.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init wave_fit152_why "$1"
SH="3000x5000x2048,3000x5000x4096,3000x5000x8192"
for v in specs/sm90/26_wave_fit_n152_f16 bench/wave-fit/m256n160_c24 bench/wave-fit/m256n160 bench/wave-fit/m256n144; do
  n=$(basename $v)
  timeout 120 "$G" bench $v.yaml --dtype f16 --shapes $SH --rounds 20 > "$L/f16_$n.txt" 2>&1
  echo "== $n f16 rc=$?" >> "$S"; table "$L/f16_$n.txt" >> "$S"
done
for v in specs/sm90/26_wave_fit_n152_f16 bench/wave-fit/m256n160; do
  n=$(basename $v)
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum \
    "$G" run $v.yaml --m 3000 --n 5000 --k 4096 --iters 2 --warmup 2 > "$L/ncu_$n.txt" 2>&1
  echo "== ncu $n rc=$?" >> "$S"
  grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|hmma_cycles|bank_conflicts|inst_executed|Issue Slots Busy|No Eligible|Stall|Warp Cycles Per Issued' "$L/ncu_$n.txt" | head -30 >> "$S"
done
bench_finish

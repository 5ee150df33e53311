#!/usr/bin/env bash
# What the epilogue chain costs the narrow kernels: ncu of one launch of the chained kernel (spec
# 14 + simt_narrow: 2, bias per column and gelu_tanh) and of the plain one (spec 06 + simt_narrow:
# 2) at 8192x2x4096 (two rows a warp) and 1x6144x4096 (one row a warp), with CARRY's binaries.
# Prediction: the same DRAM bytes and duration within 3% where the chain's bias is loaded before
# the k-loop; a longer duration with the same bytes (long-scoreboard stalls after the loop) where
# it is loaded after it.
# Then the per-instruction source page of both at 1x6144x4096 (CSV, in the logs).
#   usage (device): bash bench/h200-narrow-chain-ncu.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init narrow_chain_ncu "$1"
mkdir -p "$L/specs"
for v in 14_fast_bf16_bias_gelu:chained 06_fast_bf16:plain; do
  simt_spec "${v%%:*}" 2 "$L/specs/${v#*:}.yaml"
done
SECT="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
for s in 8192x2x4096 1x6144x4096; do
  IFS=x read -r m n k <<< "$s"
  for v in chained plain; do
    log=$L/ncu_${s}_$v.txt
    timeout 120 ncu --clock-control none -k 'regex:gg_narrow' --launch-count 1 $SECT \
      "$G" bench "$L/specs/$v.yaml" --m "$m" --n "$n" --k "$k" --rounds 1 --warmup 0 > "$log" 2>&1
    echo "== ncu $s $v rc=$?" >> "$S"
    grep -E '^  gg_narrow|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Active Threads Per Warp|SM Active Cycles' \
      "$log" | head -14 >> "$S"
  done
done
# Per SASS instruction (the source page, CSV): where the warps of each kernel at 1x6144x4096
# stall (warp state samples), for the one-output-a-warp kernels whose chain still costs ~8%.
for v in chained plain; do
  timeout 120 ncu --clock-control none -k 'regex:gg_narrow' --launch-count 1 \
    --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
    "$G" bench "$L/specs/$v.yaml" --m 1 --n 6144 --k 4096 --rounds 1 --warmup 0 \
    > "$L/source_1x6144x4096_$v.csv" 2>&1
  echo "== ncu source 1x6144x4096 $v rc=$? lines $(wc -l < "$L/source_1x6144x4096_$v.csv")" >> "$S"
done
bench_finish

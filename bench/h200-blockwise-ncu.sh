#!/usr/bin/env bash
# Why two partial sums run slower than one (spec 15 vs bench/variants/15_blockwise_two_partials.yaml):
# ncu (clocks as found) on one launch each at 4096x7168x2048, speed of light and warp stall reasons,
# with spec 13 (per-tensor) beside them.
#   usage (device): bash bench/h200-blockwise-ncu.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/ncu; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
for s in specs/sm90/15_blockwise_e4m3.yaml bench/variants/15_blockwise_two_partials.yaml specs/sm90/13_fast_e4m3.yaml; do
  n=$(basename $s .yaml)
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    "$G" run $s --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu_$n.txt" 2>&1
  echo "== $n rc=$?"; grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall|Executed Ipc' "$L/ncu_$n.txt" | head -24
done | tee "$L/summary.txt"
tar czf "${OUT:-/tmp}/ncu-logs.tgz" -C "$L" .

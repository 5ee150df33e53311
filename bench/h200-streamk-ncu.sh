#!/usr/bin/env bash
# Where stream-K's time goes: ncu on spec 18 (stream-K hybrid) and spec 05
# (persistent, same tile) at 768x3072x3072 (all shared) and 4096^3 (two whole
# waves, then shared), one launch each, clocks as found.
#   usage (device): bash bench/h200-streamk-ncu.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/skn; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
run() { # name spec m n k
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section Occupancy \
    "$G" run "$2" --m "$3" --n "$4" --k "$5" --iters 2 --warmup 2 > "$L/ncu_$1.txt" 2>&1
  echo "== $1 ($2 $3x$4x$5) rc=$?"
  grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Grid Size|Waves Per SM|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall [A-Z]|Achieved Active' "$L/ncu_$1.txt" | head -30
}
{
  run sk_768 specs/sm90/18_streamk_f16.yaml 768 3072 3072
  run dp_768 specs/sm90/05_fast_f16.yaml 768 3072 3072
  run sk_4096 specs/sm90/18_streamk_f16.yaml 4096 4096 4096
  run dp_4096 specs/sm90/05_fast_f16.yaml 4096 4096 4096
} > "$L/summary.txt" 2>&1
tar -C "$L" -czf "${OUT:-/tmp}/streamk_ncu_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# What bounds the shapes the cost model's choice leaves below cuBLAS: ncu
# (clocks as found) on one launch of the chosen kernel per shape — decode
# (1x6144x4096: the small tile, and spec 12's split_k 8 beside it), a shape
# past a wave (768x3072x3072: the wide tile), the headline (8192^3) —
# speed of light, memory workload and warp stall reasons.
#   usage (device): bash bench/h200-choice-ncu.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=${OUT:-/tmp}/ncu; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
run() { # name spec m n k
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats \
    "$G" run "$2" --m "$3" --n "$4" --k "$5" --iters 2 --warmup 2 > "$L/ncu_$1.txt" 2>&1
  echo "== $1 ($2 $3x$4x$5) rc=$?"
  grep -E 'chosen by|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|Grid Size|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall [A-Z]' "$L/ncu_$1.txt" | head -30
}
{
  run decode_auto auto 1 6144 4096
  run decode_split8 specs/sm90/12_splitk_f16.yaml 1 6144 4096
  run wave_auto auto 768 3072 3072
  run headline_8192 specs/sm90/05_fast_f16.yaml 8192 8192 8192
} | tee "$L/summary.txt"
tar czf "${OUT:-/tmp}/ncu-logs.tgz" -C "$L" .

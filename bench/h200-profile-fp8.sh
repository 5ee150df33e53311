#!/usr/bin/env bash
# ncu per-instruction warp-stall sampling of the fp8 and epilogue kernels where
# issue 12's targets are missed: spec 15 (blockwise e4m3) at 4096x7168x2048,
# spec 13 (per-tensor e4m3 -> bf16) at 4096^3, spec 14 (bias + GELU) at 4096^3.
#   usage (device): bash bench/h200-profile-fp8.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/pf8; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
prof() { # name spec m n k [extra run args]
  local n=$1 s=$2 m=$3 nn=$4 k=$5; shift 5
  timeout 200 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --section ComputeWorkloadAnalysis --import-source no -o "$L/$n" -f "$G" run "$s" --m $m --n $nn --k $k --iters 2 --warmup 2 "$@" \
    > "$L/ncu_$n.log" 2>&1
  echo "== $n ($s ${m}x${nn}x${k}) rc=$?"
  ncu -i "$L/$n.ncu-rep" --print-details all > "$L/ncu_$n.txt" 2>&1
  ncu -i "$L/$n.ncu-rep" --page source --print-source sass --csv > "$L/src_$n.csv" 2>"$L/src_$n.err"
  grep -E 'Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|No Eligible|Warp Cycles Per Issued' "$L/ncu_$n.txt" | head -8
}
{
  prof bw15 specs/sm90/15_blockwise_e4m3.yaml 4096 7168 2048
  prof pt13 specs/sm90/13_fast_e4m3.yaml 4096 4096 4096
  prof bg14 specs/sm90/14_fast_bf16_bias_gelu.yaml 4096 4096 4096
} > "$L/summary.txt" 2>&1
tar -C "$L" -czf "${OUT:-/tmp}/profile_fp8_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

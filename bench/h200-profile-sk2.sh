#!/usr/bin/env bash
# ncu per-instruction stall sampling after the drain fix (no wgmma serialised):
# stream-K (spec 18) and the persistent kernel (spec 05) at 768x3072x3072 and
# 4096^3, and stream-K with the 64x128 tile at the decode shape 1x6144x4096,
# with the memory tables (L2 sectors per request, DRAM bytes).
#   usage (device): bash bench/h200-profile-sk2.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/pf2; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
prof() { # name spec m n k
  timeout 200 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats \
    --import-source no -o "$L/$1" -f "$G" run "$2" --m "$3" --n "$4" --k "$5" --iters 2 --warmup 2 \
    > "$L/ncu_$1.log" 2>&1
  echo "== $1 ($2 $3x$4x$5) rc=$?"
  ncu -i "$L/$1.ncu-rep" --print-details all > "$L/ncu_$1.txt" 2>&1
  ncu -i "$L/$1.ncu-rep" --page source --print-source sass --csv > "$L/src_$1.csv" 2>"$L/src_$1.err"
  grep -E 'Duration|DRAM Throughput|L2 Hit|Grid Size|Warp Cycles Per Issued|No Eligible' "$L/ncu_$1.txt" | head -8
}
{
  prof sk_768 specs/sm90/18_streamk_f16.yaml 768 3072 3072
  prof dp_768 specs/sm90/05_fast_f16.yaml 768 3072 3072
  prof sk_4096 specs/sm90/18_streamk_f16.yaml 4096 4096 4096
  prof dp_4096 specs/sm90/05_fast_f16.yaml 4096 4096 4096
  prof sksmall_decode bench/families/streamk_small.yaml 1 6144 4096
} > "$L/summary.txt" 2>&1
tar -C "$L" -czf "${OUT:-/tmp}/profile2_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

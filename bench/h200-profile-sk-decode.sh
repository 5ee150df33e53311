#!/usr/bin/env bash
# Where the time goes, with ncu's per-instruction stall sampling: stream-K
# (spec 18) at 768x3072x3072, where the schedule's arithmetic predicts no long
# waits (every share's parts end by the share's length) and the kernel takes
# 1.1x spec 05's time; and the decode kernels (the chooser's 64x128 tile at
# 1x6144x4096, the 128x64 proxy on the transposed 6144x16x4096). Then the
# sensitivity of decode to wgmma groups in flight (0 against 1), in bench.
#   usage (device): bash bench/h200-profile-sk-decode.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/pf; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
prof() { # name spec m n k
  timeout 200 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --import-source no -o "$L/$1" -f "$G" run "$2" --m "$3" --n "$4" --k "$5" --iters 2 --warmup 2 \
    > "$L/ncu_$1.log" 2>&1
  echo "== $1 ($2 $3x$4x$5) rc=$?"
  ncu -i "$L/$1.ncu-rep" --print-details all > "$L/ncu_$1.txt" 2>&1
  ncu -i "$L/$1.ncu-rep" --page source --print-source sass --csv > "$L/src_$1.csv" 2>"$L/src_$1.err"
  echo "   source page rc=$? $(wc -l < "$L/src_$1.csv") lines"
  grep -E 'Duration|DRAM Throughput|L2 Hit|Warp Cycles Per Issued|No Eligible|Stall [A-Z]|stall' "$L/ncu_$1.txt" | head -14
}
{
  prof sk_768 specs/sm90/18_streamk_f16.yaml 768 3072 3072
  prof dp_768 specs/sm90/05_fast_f16.yaml 768 3072 3072
  prof small_decode specs/tuned/nvidia_h200/f16_128x8192x8192.yaml 1 6144 4096
  prof proxy_t16 bench/families/decode_proxy_m128_d7.yaml 6144 16 4096
  for s in specs/tuned/nvidia_h200/f16_128x8192x8192.yaml bench/families/small_inflight0.yaml; do
    timeout 100 "$G" bench $s --shapes 1x6144x4096,16x4096x4096,1x2112x7168,16x10240x8192 --rounds 20 > "$L/bench_$(basename $s .yaml).txt" 2>&1
    echo "bench $s rc=$?"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$(basename $s .yaml).txt" | awk '{print $1, $3, $5, $7}'
  done
} > "$L/summary.txt" 2>&1
rm -f "$L"/*.ncu-rep.tmp
tar -C "$L" -czf "${OUT:-/tmp}/profile_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

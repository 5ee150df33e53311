#!/usr/bin/env bash
# Fixed cost against per-k-block cost at decode: time against K at M = 1 (and
# 16), N = 6144, for the chooser's 64x128 kernel (persistent), the same tile
# with stream-K, and cuBLAS (same call). The intercept is what a launch costs
# before any weight streams (launch, prologue, first load, epilogue).
#   usage (device): bash bench/h200-decode-overhead.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/do; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
SH=1x6144x64,1x6144x256,1x6144x1024,1x6144x2048,1x6144x4096,1x6144x8192,16x6144x64,16x6144x4096,1x768x64,1x768x4096
: > "$L/summary.txt"
for s in specs/tuned/nvidia_h200/f16_128x8192x8192.yaml bench/families/streamk_small.yaml; do
  n=$(basename $s .yaml)
  timeout 120 "$G" bench $s --shapes $SH --rounds 30 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
  echo "bench $n rc=$?: shape, gemmgen ms, cuBLAS ms, ratio" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/decode_overhead_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Does a decode GEMM stream faster with more CTAs? The chooser's 64x128
# persistent kernel at M = 1 on weight matrices of 48, 96 and 132 tiles, at
# the same K (so every CTA streams the same bytes per tile), against cuBLAS
# in the same call. If 96 tiles at K = 2048 cost about what 48 do, a split of
# K in two inside a cluster (no workspace, no second launch) would halve a
# 48-tile decode GEMM's streaming time.
#   usage (device): bash bench/h200-decode-ctas.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/dc; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
SH=1x6144x4096,1x6144x2048,1x12288x2048,1x16896x2048,1x6144x1024,1x12288x1024,1x16896x1024,1x24576x1024,1x4096x14336,1x16384x3584,1x2112x7168,1x8448x1792,16x4096x4096,16x16384x1024
: > "$L/summary.txt"
for s in specs/tuned/nvidia_h200/f16_128x8192x8192.yaml bench/families/decode_proxy_d12.yaml; do
  n=$(basename $s .yaml)
  timeout 150 "$G" bench $s --shapes $SH --rounds 30 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
  echo "bench $n rc=$?: shape, gemmgen ms, cuBLAS ms, ratio" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/decode_ctas_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

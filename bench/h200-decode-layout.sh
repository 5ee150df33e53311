#!/usr/bin/env bash
# Does the weights' DRAM pattern set the decode time? The chooser's 64x128
# kernel with B K-major (each stage reads 128 bytes of each of 128 weight rows)
# against B N-major (each stage reads 256 contiguous bytes of each of 64 K
# rows), cuBLAS with the matching transpose, at the decode shapes; twice.
#   usage (device): bash bench/h200-decode-layout.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/dl; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S=specs/tuned/nvidia_h200/f16_128x8192x8192.yaml
SH=1x6144x4096,16x4096x4096,1x2112x7168,1x4096x14336,16x10240x8192,1x11008x4096
: > "$L/summary.txt"
for pass in 1 2; do
  for lay in row,col row,row; do
    n=${lay/,/_}_$pass
    timeout 120 "$G" bench $S --layout $lay --shapes $SH --rounds 20 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "bench small --layout $lay pass $pass rc=$?: shape, gemmgen ms, cuBLAS ms, ratio" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/decode_layout_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Split-K variants on the H200 for the decode shapes (f16): spec 12 (128x256, split_k 8) against
# split_k 16, and the tuned 64x128 one-consumer spec with split_k 8 and 16, each with cuBLAS in
# the same process.
#   usage (device): bash bench/h200-splitk-variants.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/splitk-variants; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S=1x6144x4096,16x4096x4096,1x4096x14336,16x10240x8192,1x57344x8192,16x8192x28672,1x2112x7168,16x7168x16384
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
for spec in specs/sm90/12_splitk_f16.yaml bench/splitk-variants/*.yaml; do
  echo "-- $(basename $spec)"
  timeout 200 "$G" bench $spec --shapes $S --rounds 20 > "$L/bench_$(basename $spec .yaml).txt" 2>&1
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$(basename $spec .yaml).txt" | cut -c1-100
done | tee "$L/bench.txt"
tar czf "${OUT:-/tmp}/splitk-variants-logs.tgz" -C "$L" . && rm -rf "$L"

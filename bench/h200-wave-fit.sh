#!/usr/bin/env bash
# Tiles whose width fits a wave (issue 13, shapes below 0.95 of cuBLAS by wave quantization).
# cuBLAS's kernels there (bench/h200-cublas-kernels.sh, 2026-12-03) use widths such as 144,
# 152 and 176 so that the tile count is a multiple of 132 (768x3072x3072: 6 x 22 = 132 tiles of
# 128x144); gemmgen's tile.n was a multiple of 64 (the 16-bit D's 64-column TMA store slab) until
# slabs of 32 and 16 columns (64- and 32-byte swizzle) let it be any multiple of 16.
# Each bench/wave-fit variant is verified (`run --verify`, odd shapes, beta) and benched against
# cuBLAS on the shapes, with the cost model's choice (`bench auto`) in the same call.
# Predictions (before the run), ratio cuBLAS / gemmgen: 768x3072x3072 128x144 ~1.02 (auto 0.82);
# 1536^3 128x160 ~0.97 (0.82); 4096x2112x7168 128x176 ~1.0 (0.93); 384x12288x4096 128x112
# ~0.92 (0.81); 3000x5000x2048 256x160 ~0.99 (0.935).
#   usage (device): bash bench/h200-wave-fit.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/wavefit; rm -rf "$L"; mkdir -p "$L"
S=$OUT/wavefit-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
V="m128n144 m128n160 m128n176 m128n112 m128n208 m256n160"
for v in $V; do
  for s in 768x3072x3072 1000x1001x640 300x449x520 129x4000x4096; do
    IFS=x read -r m n k <<< "$s"
    for beta in 0 0.5; do
      timeout 60 "$G" run bench/wave-fit/$v.yaml --m $m --n $n --k $k --beta $beta --verify --iters 5 \
        > "$L/verify_${v}_${s}_b$beta.txt" 2>&1
      echo "verify $v $s beta $beta rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${v}_${s}_b$beta.txt" | head -1)" >> "$S"
    done
  done
done
SH=768x3072x3072,1536x1536x1536,3072x768x3072,384x12288x4096,3000x5000x2048,4096x2112x7168,2048x2048x2048,7168x2048x4096,2304x4608x4608,256x14336x4096,512x7168x2048,128x36864x7168
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
echo "== bench auto (shape, gemmgen ms, cuBLAS ms, ratio)" >> "$S"
for s in ${SH//,/ }; do  # `auto` chooses for one shape at a time
  IFS=x read -r m n k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/auto_$s.txt" 2>&1
  echo "rc=$? $(table "$L/auto_$s.txt")" >> "$S"
done
for v in $V; do
  timeout 300 "$G" bench bench/wave-fit/$v.yaml --shapes $SH --rounds 20 > "$L/bench_$v.txt" 2>&1
  echo "== $v rc=$?" >> "$S"; table "$L/bench_$v.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/wavefit-logs.tgz" .
cat "$S"

#!/usr/bin/env bash
# The decode proxy again with 16 tokens' columns and a 16-bit D (16-column output slabs since
# 0de604b): the transposed problems N x 16 x K with 64x16 and 128x16 tiles, against cuBLAS on
# the same problem (f16 D), after bench/h200-decode-swap.sh's 32-column proxies (0.92-1.07).
# Prediction (before the run): 64x16 with 16 stages a further 5-10% faster than 64x32 with 16
# (6144x16x4096 ~17 us, ~1.0 of cuBLAS).
#   usage (device): bash bench/h200-decode-swap16.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/swap16; rm -rf "$L"; mkdir -p "$L"
S=$OUT/swap16-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
V="m64n16_d8 m64n16_d16 m128n16_d12c1"
for v in $V; do
  for s in 6144x16x4096 1000x16x640 300x8x520; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" run bench/decode-swap/$v.yaml --m $m --n $n --k $k --beta 0.5 --verify --iters 5 > "$L/verify_${v}_$s.txt" 2>&1
    echo "verify $v $s beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${v}_$s.txt" | head -1)" >> "$S"
  done
done
T16=6144x16x4096,4096x16x4096,4096x16x14336,10240x16x8192,2112x16x7168,7168x16x16384,11008x16x4096,28672x16x4096,57344x16x8192
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
for v in $V m64n32_d16; do
  timeout 150 "$G" bench bench/decode-swap/$v.yaml --shapes $T16 --rounds 20 > "$L/t16_$v.txt" 2>&1
  echo "== $v transposed, 16 tokens rc=$?" >> "$S"; table "$L/t16_$v.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/swap16-logs.tgz" .
cat "$S"

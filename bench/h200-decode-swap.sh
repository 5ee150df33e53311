#!/usr/bin/env bash
# Decode with the weights on wgmma's M side and a narrow tokens' side (issue 13, M <= 16).
# cuBLAS's decode kernels (bench/h200-cublas-kernels.sh, 2026-12-03) all put the weights on
# the MMA's M side and 8 or 16 tokens on N (nvjet ..._64x8_64x16_4x1: a 64x8 tile, 16 stages);
# ours put 1-16 tokens on M and pad them to 64 rows. Before building a swapped-operand kernel,
# this times the transposed problems N x T x K (T tokens as the kernel's N) with tiles 32
# columns wide (f32 D: 32-column slabs) against the 64-column tile, and `bench auto` on the real
# decode shapes (the current choice and cuBLAS with a 16-bit D) in the same call.
# Prediction (before the run): if the padded tokens' box is what slows the stream, the
# 64x32 tile with 16 stages runs 6144x16x4096 in ~17-18 us against ~23 for 64x64.
#   usage (device): bash bench/h200-decode-swap.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/swap; rm -rf "$L"; mkdir -p "$L"
S=$OUT/swap-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
REAL=1x6144x4096,16x4096x4096,1x4096x14336,16x10240x8192,1x2112x7168,16x7168x16384,1x11008x4096,4x28672x4096,1x57344x8192
T16=6144x16x4096,4096x16x4096,4096x16x14336,10240x16x8192,2112x16x7168,7168x16x16384,11008x16x4096,28672x16x4096,57344x16x8192
for v in m64n32_d16 m128n32_d10; do
  for s in 6144x16x4096 1000x16x640 300x8x520; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" run bench/decode-swap/$v.yaml --m $m --n $n --k $k --verify --iters 20 > "$L/verify_${v}_$s.txt" 2>&1
    echo "verify $v $s rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${v}_$s.txt" | head -1)" >> "$S"
  done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
echo "== bench auto, real decode shapes (shape, gemmgen ms, cuBLAS ms, ratio)" >> "$S"
for s in ${REAL//,/ }; do  # `auto` chooses for one shape at a time
  IFS=x read -r m n k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/real_auto_$s.txt" 2>&1
  echo "rc=$? $(table "$L/real_auto_$s.txt")" >> "$S"
done
for v in m64n64_d12 m64n32_d8 m64n32_d16 m128n32_d10 m128n32_d10c1; do
  timeout 200 "$G" bench bench/decode-swap/$v.yaml --shapes $T16 --rounds 20 > "$L/t16_$v.txt" 2>&1
  echo "== $v transposed, 16 tokens rc=$?" >> "$S"; table "$L/t16_$v.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/swap-logs.tgz" .
cat "$S"

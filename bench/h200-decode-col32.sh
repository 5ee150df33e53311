#!/usr/bin/env bash
# 17-32 tokens: the 64x32 column-major-D tile (bench/decode-col/m64n32_d12.yaml) against the
# chooser's choice for M = 32 and 24 (the small family, 64x128, with its split) on more weight
# shapes than bench/h200-decode-col.sh had (there: 0.925 against 0.927 at 32x4096x14336, 0.992
# against 0.921 at 32x7168x2048). Prediction: the 64x32 tile ahead where the weights make >= 96
# tiles and K <= 8192, level elsewhere.
#   usage (device): bash bench/h200-decode-col32.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-col32; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-col32-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
SH="32x6144x4096 32x4096x4096 24x10240x8192 32x28672x4096 32x57344x8192 32x7168x16384 32x11008x4096 24x8192x28672"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
timeout 150 "$G" bench bench/decode-col/m64n32_d12.yaml --shapes $(echo $SH | tr ' ' ',') --rounds 20 > "$L/m64n32_d12.txt" 2>&1
echo "== m64n32_d12 rc=$?" >> "$S"; table "$L/m64n32_d12.txt" >> "$S"
echo "== auto (the chooser)" >> "$S"
for s in $SH; do
  IFS=x read -r m n k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/auto_$s.txt" 2>&1
  echo "$(table "$L/auto_$s.txt") $(grep -oE 'gemm_sm90_auto_[a-z0-9_]+' "$L/auto_$s.txt" | head -1)" >> "$S"
done
tar -C "$L" -czf "$OUT/decode-col32-logs.tgz" .
cat "$S"

#!/usr/bin/env bash
# 33-64 tokens: the column-major-D 64x64 tile (bench/decode-col/m64n64_d8.yaml) against the
# chooser (the small family, 64x128 with the model's split) on weight shapes of 33-240 tiles; the
# validation set's 64x4096x4096 runs at 0.77 of cuBLAS with the small family, and
# bench/h200-decode-col.sh measured 64x64 at 0.86 there but behind at 64x11008x4096.
# Prediction (before the run): 64x64 ahead where the weights make < 96 tiles, behind above.
#   usage (device): bash bench/h200-decode64.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode64; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode64-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
W="4096x4096 4096x14336 6144x4096 11008x4096 15360x5120 2112x7168"
for t in 40 64; do
  shapes=$(for w in $W; do printf '%s,' "${t}x$w"; done); shapes=${shapes%,}
  timeout 120 "$G" bench bench/decode-col/m64n64_d8.yaml --shapes $shapes --rounds 20 > "$L/t${t}_m64n64.txt" 2>&1
  echo "== m64n64_d8, $t tokens rc=$?" >> "$S"; table "$L/t${t}_m64n64.txt" >> "$S"
  echo "== auto (the chooser), $t tokens" >> "$S"
  for w in $W; do
    IFS=x read -r nn k <<< "$w"
    timeout 60 "$G" bench auto --m $t --n $nn --k $k --rounds 20 > "$L/auto_${t}x$w.txt" 2>&1
    table "$L/auto_${t}x$w.txt" >> "$S"
  done
done
tar -C "$L" -czf "$OUT/decode64-logs.tgz" . && rm -rf "$L"
cat "$S"

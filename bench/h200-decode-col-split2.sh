#!/usr/bin/env bash
# Where the split column-major-D kernel pays (after bench/h200-decode-col-split.sh: 1x2112x7168
# 0.988 with spec 24 against the chooser's 0.904, but 0.914 against 0.957 at 16 tokens; 64 weight
# tiles of K = 14336 0.96 / 0.95 with 8 stages and 2 slices against 0.90 / 0.92): tokens 1, 4 and
# 8 on weights of 24-80 tiles of 64 rows and K 4096-14336, spec 24 (4 slices), 2 slices, the
# unsplit 16-stage kernel and the chooser, each against cuBLAS in the same process.
# Prediction: the split kernels ahead where the weights make < 64 tiles at every token count up
# to 8, and at 64-95 tiles only where K > 8192.
#   usage (device): bash bench/h200-decode-col-split2.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-col-split2; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-col-split2-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
W="2112x7168 1536x7168 3072x4096 2048x8192 4096x14336 4096x7168 5120x8192 1024x8192"
V="specs/sm90/24_decode_col_d_split_f16 bench/decode-col/m64n16_d8_s2 bench/decode-col/m64n16_d16"
for t in 1 4 8; do
  shapes=$(for w in $W; do printf '%s,' "${t}x$w"; done); shapes=${shapes%,}
  for v in $V; do
    n=$(basename $v)
    timeout 120 "$G" bench $v.yaml --shapes $shapes --rounds 20 > "$L/t${t}_$n.txt" 2>&1
    echo "== $n, $t tokens rc=$?" >> "$S"; table "$L/t${t}_$n.txt" >> "$S"
  done
  echo "== auto (the chooser), $t tokens" >> "$S"
  for w in $W; do
    IFS=x read -r nn k <<< "$w"
    timeout 60 "$G" bench auto --m $t --n $nn --k $k --rounds 20 > "$L/auto_${t}x$w.txt" 2>&1
    table "$L/auto_${t}x$w.txt" >> "$S"
  done
done
tar -C "$L" -czf "$OUT/decode-col-split2-logs.tgz" .
cat "$S"

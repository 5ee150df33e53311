#!/usr/bin/env bash
# Issue 12's fp8 targets on the binaries with wgmma descriptors by an add (edc08b8), the chooser's
# kernel (`bench auto`) against cuBLASLt in one process per shape, 10 rounds: blockwise e4m3 at the
# DeepSeek-V3 projection shapes (M 128 and 4096) against cuBLASLt's blockwise mode, and per-tensor
# e4m3 -> bf16 at 4096^3 and 8192^3 against cuBLASLt fp8.
# Prediction (before the run): blockwise 1-3% faster than on 2026-12-02/03 (0.841 -> 0.860 at
# 4096x7168x2048 in bench/h200-desc-advance.sh), the 64-row tiles at M = 128 up to 5%; per-tensor
# level (0.99-1.00).
#   usage (device): bash bench/h200-fp8-issue12.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/fp8-issue12; rm -rf "$L"; mkdir -p "$L"
S=$OUT/fp8-issue12-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
for s in 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 4096x7168x2048 4096x4096x7168 \
         4096x7168x18432 4096x2112x7168; do
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench auto --dtype e4m3 --scaling blockwise --m $m --n $n --k $k --rounds 10 > "$L/bw_$s.txt" 2>&1
  echo "blockwise $(table "$L/bw_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/bw_$s.txt" | head -1)" >> "$S"
done
for s in 4096x4096x4096 8192x8192x8192; do
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench auto --dtype e4m3 --m $m --n $n --k $k --rounds 10 > "$L/pt_$s.txt" 2>&1
  echo "per_tensor $(table "$L/pt_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/pt_$s.txt" | head -1)" >> "$S"
done
tar -C "$L" -czf "$OUT/fp8-issue12-logs.tgz" . && rm -rf "$L"
cat "$S"

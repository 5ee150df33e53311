#!/usr/bin/env bash
# 17-32 tokens on 64-95 weight tiles (32x4096x14336: 0.90-0.92 with decode32, 64x32 and 12
# stages, the sweep's worst shape): 16 stages, and 8 stages with K in 2 slices, against 12
# stages; and 1-4 tokens on the largest weights (1x57344x8192: 0.93-0.97 with spec 23) against
# the 128x16 tile (bench/decode-col/m128n16_d12c1.yaml: 0.976 against 0.944 at 1 token in
# bench/h200-decode-col.sh). `run --verify` of the new variants first, then one sweep pass with
# the binaries of this commit (the margin's third measurement).
# Prediction (before the run): 16 stages 3-6% faster than 12 at 64 tiles (as 64x16's 16 stages
# against 8 were), the split level; 128x16 2-3% ahead at 1 token of 57344x8192 only.
#   usage (device): bash bench/h200-decode32-deep.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode32-deep; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode32-deep-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
for v in bench/decode-col/m64n32_d16 bench/decode-col/m64n32_d8_s2; do
  n=$(basename $v)
  for s in 32x4096x14336 21x1000x520; do
    IFS=x read -r m nn k <<< "$s"
    timeout 60 "$G" run $v.yaml --m $m --n $nn --k $k --beta 0.5 --verify --iters 3 > "$L/verify_${n}_$s.txt" 2>&1
    echo "verify $n $s beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_$s.txt" | head -1)" >> "$S"
  done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
SH="32x4096x14336,24x4096x14336,32x4096x7168,32x5120x8192,32x4096x4096,24x6016x8192"
for v in bench/decode-col/m64n32_d12 bench/decode-col/m64n32_d16 bench/decode-col/m64n32_d8_s2; do
  n=$(basename $v)
  timeout 120 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/m32_$n.txt" 2>&1
  echo "== $n rc=$?" >> "$S"; table "$L/m32_$n.txt" >> "$S"
done
SH="1x57344x8192,4x57344x8192,1x28672x4096,1x28672x8192"
for v in specs/sm90/23_decode_col_d_f16 bench/decode-col/m128n16_d12c1; do
  n=$(basename $v)
  timeout 120 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/big_$n.txt" 2>&1
  echo "== $n rc=$?" >> "$S"; table "$L/big_$n.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/decode32-deep-logs.tgz" . && rm -rf "$L"
OUT=$OUT/sweep-3 BUDGET=${BUDGET:-250} bash bench/h200-sweep.sh "$C" 12 > /dev/null 2>&1
echo "sweep rc=$?" >> "$S"
cat "$S"
tail -6 "$OUT/sweep-3/sweep-summary.txt"

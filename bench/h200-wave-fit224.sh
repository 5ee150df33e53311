#!/usr/bin/env bash
# A 224-column tile for shapes whose 128x256 tiles leave a fifth of the SMs idle: 512x7168x2048
# (0.87 of cuBLAS in bf16, 0.97 in f16: 112 tiles of 128x256 for 132 SMs) and 256x14336x4096
# (bf16 0.94) make 128 tiles of 128x224. `run --verify` of both variants first, then time against
# cuBLAS in the same process, f16 and bf16, with spec 05 (the default's tile) alongside.
# Prediction (before the run): 128x224 ~12% faster than 128x256 where the tile count goes from
# 112 to 128 (a round of tiles 224/256 as long), i.e. 512x7168x2048 bf16 0.87 -> ~0.98, f16
# 0.97 -> ~1.08; slower where 224 adds a partial wave (1024x7168x2048: 256 tiles against 224).
#   usage (device): bash bench/h200-wave-fit224.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/wave-fit224; rm -rf "$L"; mkdir -p "$L"
S=$OUT/wave-fit224-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
V="bench/wave-fit/m128n224_c112 bench/wave-fit/m128n224_c32 specs/sm90/05_fast_f16"
for v in bench/wave-fit/m128n224_c112 bench/wave-fit/m128n224_c32; do
  n=$(basename $v)
  for s in 1000x1001x520 129x4100x72 512x7168x2048; do
    IFS=x read -r m nn k <<< "$s"
    timeout 60 "$G" run $v.yaml --m $m --n $nn --k $k --beta 0.5 --verify --iters 3 > "$L/verify_${n}_$s.txt" 2>&1
    echo "verify $n $s beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_$s.txt" | head -1)" >> "$S"
  done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
SH="512x7168x2048,256x14336x4096,512x7168x4096,384x7168x4096,128x28672x4096,1024x7168x2048"
for t in bf16 f16; do
  for v in $V; do
    n=$(basename $v)
    timeout 120 "$G" bench $v.yaml --dtype $t --shapes $SH --rounds 20 > "$L/${t}_$n.txt" 2>&1
    echo "== $n $t rc=$?" >> "$S"; table "$L/${t}_$n.txt" >> "$S"
  done
done
tar -C "$L" -czf "$OUT/wave-fit224-logs.tgz" .
cat "$S"

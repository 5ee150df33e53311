#!/usr/bin/env bash
# Decode with few weight tiles: the column-major-D kernel with K split (spec 24; its slices store
# row-major f32 partial sums, the reduction writes D column-major). GPU tests first (spec 24 in
# every spec suite, the f32-output and split specs whose store now derives its slab address, every
# element against the reference with D's surroundings poisoned), `run --verify` of the variants
# and of f32 outputs in 64-byte slabs, then time against cuBLAS in the same process and the
# chooser (`bench auto`, no split for the column-major-D kernel yet).
# Prediction (before the run): 1x2112x7168 (33 weight tiles; the chooser's split small tile 0.90)
# 0.95-1.05 with 4 slices (132 CTAs stream W as spec 23 does from 96 tiles, plus ~1-2 us of
# reduction); 1x4096x14336 and 16x4096x14336 (64 tiles, 0.88-0.92 with 16 stages) 0.95-1.00 with
# 2 slices; 32x4096x14336 (0.91) ~0.95 with the 64x32 tile split in 2; shapes with >= 96 tiles
# slower with a split than without (the reduction and W's traffic, nothing gained).
#   usage (device): bash bench/h200-decode-col-split.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-col-split; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-col-split-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
F='*24_decode_col_d_split*:*SplitK*:*SpecShape*10_fast*:*SpecShape*12_splitk*:*SpecShape*17_splitk*'
timeout 240 "$C/gemmgen_gpu_tests" --gtest_filter="$F" > "$L/gpu-tests.txt" 2>&1
echo "gpu tests $F rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu-tests.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \]' "$L/gpu-tests.txt" | head -20 >> "$S"
verify() { # spec shape extra-args...
  local v=$1 s=$2; shift 2; local n; n=$(basename "$v" .yaml)
  IFS=x read -r m nn k <<< "$s"
  timeout 60 "$G" run "$v" --m $m --n $nn --k $k --verify --iters 3 "$@" > "$L/verify_${n}_${s}_$*.txt" 2>&1
  echo "verify $n $s $* rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_${s}_$*.txt" | head -1)" | tr -s ' ' >> "$S"
}
for v in specs/sm90/24_decode_col_d_split_f16.yaml bench/decode-col/m64n16_d16_s2.yaml bench/decode-col/m64n32_d12_s2.yaml; do
  for s in 1x2112x7168 16x4096x14336 5x300x520 13x4104x136; do
    verify $v $s --beta 0.5 --layout row,col
    verify $v $s --beta 0.5 --layout row,col,col
  done
done
for v in bench/epilogue-variants/f32_n48_narrow_slabs.yaml bench/epilogue-variants/f32_n64_chunk16.yaml; do
  for s in 1000x1000x520 129x4100x72; do verify $v $s --beta 0.5; done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
W="2112x7168 4096x14336 4096x7168 4096x4096 6144x4096 7168x2048"
V="specs/sm90/23_decode_col_d_f16 bench/decode-col/m64n16_d16 specs/sm90/24_decode_col_d_split_f16 bench/decode-col/m64n16_d8_s2 bench/decode-col/m64n16_d16_s2 bench/decode-col/m64n16_d16_s4"
for t in 1 16; do
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
M2="32x4096x14336 32x2112x7168 32x4096x7168 24x4096x4096"
shapes=$(echo $M2 | tr ' ' ',')
for v in bench/decode-col/m64n32_d12 bench/decode-col/m64n32_d12_s2; do
  n=$(basename $v)
  timeout 120 "$G" bench $v.yaml --shapes $shapes --rounds 20 > "$L/m2_$n.txt" 2>&1
  echo "== $n rc=$?" >> "$S"; table "$L/m2_$n.txt" >> "$S"
done
echo "== auto (the chooser), M = 24..32" >> "$S"
for s in $M2; do
  IFS=x read -r m nn k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $nn --k $k --rounds 20 > "$L/auto_m2_$s.txt" 2>&1
  table "$L/auto_m2_$s.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/decode-col-split-logs.tgz" .
cat "$S"

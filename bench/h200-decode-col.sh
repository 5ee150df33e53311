#!/usr/bin/env bash
# Decode with a kernel that stores D column-major (layout.d: col, spec 23): the user's problem
# M tokens x N weights x K (D row-major) runs as D^T = W·X^T with the weights on the MMA's M side,
# against cuBLAS on the same problem, and `bench auto` (the chooser's decode family since 7494fe6)
# in the same call. GPU tests of spec 23 and of the chosen decode kernels first (every element,
# D's surroundings poisoned), then `run --verify`.
# Prediction (before the run): the same times as the transposed proxy of bench/h200-decode-swap16.sh
# (0.92-1.04 of cuBLAS at 16 tokens where the weights have >= 64 row tiles; N = 2112 ~0.68),
# and at 1 token about the same time as at 16 (the stream of W bounds both).
#   usage (device): bash bench/h200-decode-col.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-col; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-col-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
F='*23_decode_col_d*:*ChosenKernel*/16x4096x4096*:*ChosenKernel*/1x4096x14336*:*ChosenKernel*/7x4100x1000*'
timeout 240 "$C/gemmgen_gpu_tests" --gtest_filter="$F" > "$L/gpu-tests.txt" 2>&1
echo "gpu tests $F rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu-tests.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \]' "$L/gpu-tests.txt" | head -20 >> "$S"
V="specs/sm90/23_decode_col_d_f16 bench/decode-col/m64n16_d16 bench/decode-col/m128n16_d12c1"
for v in $V; do
  n=$(basename $v)
  for s in 16x6144x4096 1x1000x640 5x300x520 13x4104x136; do
    IFS=x read -r m nn k <<< "$s"
    for lay in row,col row,col,col; do
      timeout 60 "$G" run $v.yaml --m $m --n $nn --k $k --beta 0.5 --layout $lay --verify --iters 3 > "$L/verify_${n}_${s}_$lay.txt" 2>&1
      echo "verify $n $s D ${lay##*,} beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_${s}_$lay.txt" | head -1)" >> "$S"
    done
  done
done
W="6144x4096 4096x4096 4096x14336 10240x8192 2112x7168 7168x16384 11008x4096 28672x4096 57344x8192"
for t in 16 1; do
  shapes=$(for w in $W; do printf '%s,' "${t}x$w"; done); shapes=${shapes%,}
  table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
  for v in $V; do
    n=$(basename $v)
    timeout 150 "$G" bench $v.yaml --shapes $shapes --rounds 20 > "$L/t${t}_$n.txt" 2>&1
    echo "== $n, $t tokens rc=$?" >> "$S"; table "$L/t${t}_$n.txt" >> "$S"
  done
  for w in $W; do
    IFS=x read -r nn k <<< "$w"
    timeout 60 "$G" bench auto --m $t --n $nn --k $k --rounds 20 > "$L/auto_${t}x$w.txt" 2>&1
  done
  echo "== auto (the chooser), $t tokens" >> "$S"
  for w in $W; do table "$L/auto_${t}x$w.txt"; done >> "$S"
done
# More tokens: 64-row weight tiles with 32 and 64 tokens' columns against the chooser's
# 64x128 tile (the small family), at the sweep's M = 32..64 shapes.
M2="32x4096x14336 64x4096x4096 48x15360x5120 32x7168x2048 64x11008x4096"
shapes=$(echo $M2 | tr ' ' ',')
for v in bench/decode-col/m64n32_d12 bench/decode-col/m64n64_d8; do
  n=$(basename $v)
  timeout 60 "$G" run $v.yaml --m 37 --n 1000 --k 520 --beta 0.5 --verify --iters 3 > "$L/verify_${n}.txt" 2>&1
  echo "verify $n 37x1000x520 beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}.txt" | head -1)" >> "$S"
  timeout 120 "$G" bench $v.yaml --shapes $shapes --rounds 20 > "$L/m2_$n.txt" 2>&1
  echo "== $n rc=$?" >> "$S"; table "$L/m2_$n.txt" >> "$S"
done
echo "== auto (the chooser), M = 32..64" >> "$S"
for s in $M2; do
  IFS=x read -r m nn k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $nn --k $k --rounds 20 > "$L/auto_m2_$s.txt" 2>&1
  table "$L/auto_m2_$s.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/decode-col-logs.tgz" .
cat "$S"

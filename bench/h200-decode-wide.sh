#!/usr/bin/env bash
# 17-64 tokens where the chooser is furthest behind cuBLAS (2026-12-03, fifth session), after
# ncu (bench/h200-worst-shapes.sh): at 32x4096x14336 our 64x32 tile (64 CTAs) streams the
# weights at 67% of DRAM peak and its consumers wait on the full barrier, while cuBLAS runs a
# 128x32 tile with K split on 128 CTAs at 80% (+ a 4 us reduction); at 64x4096x4096 cuBLAS runs
# 64 weights x 32 tokens on 128 CTAs where our small 64x128 tile has 32.
#  1. the GPU tests of every chosen kernel (with the new ping-pong rule's two cases);
#  2. `run --verify` (beta 0.5) of the 128x32 variants at 32x4096x14336 and 21x1000x520;
#  3. 17-32 tokens: 64x32 (the decode32 family) against 128x32 split in 4 (one or two consumers)
#     and in 2;
#  4. 33-64 tokens: the chooser against the 64x32 tile (two tiles of tokens, 128 CTAs at 4096
#     weights) with 12 and 16 stages.
# Predictions (before the run): 3. 128x32 in 4 slices 0.97-1.00 at 32x4096x14336 (0.92 now),
# ahead wherever 64x32 has <= 64 CTAs; 4. 64x32 ahead of the chooser (0.77) at 64x4096x4096,
# ~0.95, and behind it where the small tile already has >= 96 CTAs (N >= 12288).
#   usage (device): bash bench/h200-decode-wide.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-wide; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-wide-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
timeout 300 "$C/gemmgen_gpu_tests" --gtest_filter='*ChosenKernel*' > "$L/gtest_chosen.txt" 2>&1
echo "gtest ChosenKernel rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gtest_chosen.txt" | tr '\n' ' ')" >> "$S"
W="bench/decode-col/m128n32_c2_d9_s4 bench/decode-col/m128n32_c1_d10_s4 bench/decode-col/m128n32_c2_d9_s2"
for v in $W; do
  n=$(basename $v)
  for s in 32x4096x14336 21x1000x520; do
    IFS=x read -r m nn k <<< "$s"
    timeout 60 "$G" run $v.yaml --m $m --n $nn --k $k --beta 0.5 --verify --iters 3 > "$L/verify_${n}_$s.txt" 2>&1
    echo "verify $n $s beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_$s.txt" | head -1)" >> "$S"
  done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
SH="32x4096x14336,24x4096x14336,32x4096x7168,32x4096x4096,32x6144x4096,32x5120x8192,32x2112x7168,32x14336x4096"
for v in bench/decode-col/m64n32_d12 $W; do
  n=$(basename $v)
  timeout 150 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/t32_$n.txt" 2>&1
  echo "== t32 $n rc=$?" >> "$S"; table "$L/t32_$n.txt" >> "$S"
done
SH="64x4096x4096,48x4096x4096,40x4096x4096,64x6144x4096,64x4096x14336,64x11008x4096,64x2112x7168,64x14336x4096"
echo "== t64 auto" >> "$S"
for s in ${SH//,/ }; do
  IFS=x read -r m nn k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $nn --k $k --rounds 20 > "$L/t64_auto_$s.txt" 2>&1
  echo "$(table "$L/t64_auto_$s.txt") $(grep -o 'auto_[a-z0-9]*_s[0-9]' "$L/t64_auto_$s.txt" | head -1)" >> "$S"
done
for v in bench/decode-col/m64n32_d12 bench/decode-col/m64n32_d16; do
  n=$(basename $v)
  timeout 150 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/t64_$n.txt" 2>&1
  echo "== t64 $n rc=$?" >> "$S"; table "$L/t64_$n.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/decode-wide-logs.tgz" . && rm -rf "$L"
cat "$S"

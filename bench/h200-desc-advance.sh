#!/usr/bin/env bash
# wgmma descriptors by an add (2026-12-03, fifth session). The profile of decode32 at
# 32x4096x14336 (bench/h200-worst-shapes.sh) showed the producer spinning on empty stages and the
# consumers spending ~80% of their samples in their own k-block loop, not waiting for data: 70
# instructions per k-block per warp, 40 of them rebuilding a shared-memory descriptor for each of
# the four wgmmas (add, mask, shift, or, move on the uniform datapath). The printer now builds the
# stage's two descriptors once and advances them by an add (smem_desc_advance): 48 instructions.
#  1. every GPU test with the new binaries (the change is in every sm_90a kernel);
#  2. the old and the new binary side by side (ABBA, one bench process each) on decode shapes
#     (`bench auto`) and the headline kernels (specs 05, 13, 15).
# Prediction (before the run): decode kernels, whose wgmmas are short (64x16, 64x32), 5-15% faster
# where the consumer's loop bounds them (32x4096x14336, 64-95 tiles); the large tiles (64x256
# wgmmas ~4x longer than the loop) within 1%.
#   usage (device): bash bench/h200-desc-advance.sh NEW OLD   (NEW: gemmgen, gemmgen_gpu_tests; OLD: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
O=${2:-.devrun/before}; case $O in /*) ;; *) O=$PWD/$O ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/desc; rm -rf "$L"; mkdir -p "$L"
S=$OUT/desc-summary.txt
export GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
GEMMGEN_CACHE_DIR=$C/cache timeout 420 "$C/gemmgen_gpu_tests" > "$L/gtest_all.txt" 2>&1
echo "gtest all rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gtest_all.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \]' "$L/gtest_all.txt" | head -20 >> "$S"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
DEC="1x4096x14336 1x6144x4096 16x4096x4096 32x4096x14336 4x28672x4096 1x57344x8192 64x4096x4096 1x2112x7168"
for pass in old new new old; do
  B=$O; [ $pass = new ] && B=$C
  export GEMMGEN_CACHE_DIR=$B/cache
  echo "== $pass decode (auto)" >> "$S"
  for s in $DEC; do
    IFS=x read -r m nn k <<< "$s"
    timeout 60 "$B/gemmgen" bench auto --m $m --n $nn --k $k --rounds 20 > "$L/${pass}_$s.txt" 2>&1
    echo "$(table "$L/${pass}_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/${pass}_$s.txt" | head -1)" >> "$S"
  done
  echo "== $pass headline" >> "$S"
  timeout 120 "$B/gemmgen" bench specs/sm90/05_fast_f16.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 12 > "$L/${pass}_05.txt" 2>&1
  table "$L/${pass}_05.txt" | sed 's/^/05 /' >> "$S"
  timeout 120 "$B/gemmgen" bench specs/sm90/13_fast_e4m3.yaml --shapes 4096x4096x4096 --rounds 12 > "$L/${pass}_13.txt" 2>&1
  table "$L/${pass}_13.txt" | sed 's/^/13 /' >> "$S"
  timeout 120 "$B/gemmgen" bench specs/sm90/15_blockwise_e4m3.yaml --shapes 4096x7168x2048 --rounds 12 > "$L/${pass}_15.txt" 2>&1
  table "$L/${pass}_15.txt" | sed 's/^/15 /' >> "$S"
done
tar -C "$L" -czf "$OUT/desc-logs.tgz" . && rm -rf "$L"
cat "$S"

#!/usr/bin/env bash
# Issue 13's shapes still below 0.95 of cuBLAS, and two loose ends (2026-12-03, fifth session):
#  1. the GPU cases of the chooser not yet run on the H200 (GpuFp8Test's chosen blockwise
#     128x7168x2048 and 2048x7168x2048) with every other chosen case;
#  2. what bounds 32x4096x14336 (decode32, 0.92), 3000x5000x2048 (fit256x160, 0.94), 2048^3
#     (0.95) and 64x4096x4096 (small, 0.77): ncu on both libraries' kernels in one `bench`
#     process per shape (speed of light, memory, warp states, launch), then warp-stall sampling
#     per SASS line of our kernel at 32x4096x14336 and 2048^3;
#  3. 2048^3 re-tuned (bench/tune/space-2048.yaml): its tuned-defaults entry (2026-11-29, one
#     consumer, 128x128) ran 1.3-1.7% slower than the default 128x256 tile in every sweep since;
#  4. ping-pong 128x128 (spec 20) against the default and the chooser where K is short and D
#     large (16384x32768x512: 1.14 against 0.97 in 2026-12-03_pingpong_family_h200).
# Predictions (before the run): 3. the re-tune picks a 128x256 two-consumer tile (+1.5% at
# 2048^3); 4. spec 20 >= 5% ahead of the default at K = 512 on >= 8 waves of its tiles, level
# to +3% at K = 1024, behind at K >= 2048.
#   usage (device): bash bench/h200-worst-shapes.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/worst; rm -rf "$L"; mkdir -p "$L"
S=$OUT/worst-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
# 1. chosen kernels
timeout 400 "$C/gemmgen_gpu_tests" --gtest_filter='*ChosenKernel*:*chosen*' > "$L/gtest_chosen.txt" 2>&1
echo "gtest chosen rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gtest_chosen.txt" | tr '\n' ' ')" >> "$S"
# 3. 2048^3 re-tuned
for dt in f16 bf16; do
  timeout 150 "$G" tune specs/sm90/05_fast_f16.yaml --m 2048 --n 2048 --k 2048 --dtype $dt \
    --space bench/tune/space-2048.yaml --db "$OUT/tune-2048-$dt.jsonl" --rounds 10 > "$L/tune_2048_$dt.txt" 2>&1
  echo "tune 2048 $dt rc=$? $(grep -E '^best:' "$L/tune_2048_$dt.txt" | cut -c1-200)" >> "$S"
done
# 4. ping-pong at short K
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
SH="16384x32768x512,8192x8192x512,32768x4096x512,4096x4096x512,16384x16384x1024,8192x8192x1024,12288x12288x1024,4096x14336x1024,8192x8192x2048"
for dt in f16 bf16; do
  for v in auto specs/sm90/05_fast_f16.yaml specs/sm90/20_pingpong_f16.yaml; do
    n=$(basename $v .yaml)
    timeout 200 "$G" bench $v --dtype $dt --shapes $SH --rounds 12 > "$L/pp_${n}_$dt.txt" 2>&1
    echo "== pp $n $dt rc=$?" >> "$S"; table "$L/pp_${n}_$dt.txt" >> "$S"
  done
done
# 2. profiles
KR='regex:gemm|nvjet|splitK|reduce|cutlass|sm90'
for s in 32x4096x14336 3000x5000x2048 2048x2048x2048 64x4096x4096; do
  IFS=x read -r m n k <<< "$s"
  timeout 200 ncu --clock-control none -k "$KR" --launch-skip 2 --launch-count 4 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis \
    "$G" bench auto --m $m --n $n --k $k --rounds 2 --warmup 1 > "$L/ncu_$s.txt" 2>&1
  echo "== ncu $s rc=$?" >> "$S"
  grep -E '^  [^ ].*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|L2 Hit Rate  |Registers Per|Grid Size|Issue Slots Busy|No Eligible' "$L/ncu_$s.txt" | head -60 >> "$S"
done
for s in 32x4096x14336 2048x2048x2048; do
  IFS=x read -r m n k <<< "$s"
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --import-source no -o "$L/src_$s" -f \
    "$G" run auto --m $m --n $n --k $k --iters 2 --warmup 2 > "$L/ncu_src_$s.log" 2>&1
  echo "== ncu source $s rc=$?" >> "$S"
  ncu -i "$L/src_$s.ncu-rep" --page source --print-source sass --csv > "$L/src_$s.csv" 2>"$L/src_$s.err"
  ncu -i "$L/src_$s.ncu-rep" --print-details all > "$L/src_$s.txt" 2>&1
done
tar -C "$L" -czf "$OUT/worst-logs.tgz" . && rm -rf "$L"
cat "$S"

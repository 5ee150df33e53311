#!/usr/bin/env bash
# What bounds the fp8 transposing copy (gg_transpose2d, runtime/lib/TailColumns.cpp) at ~1.7 TB/s
# on the H100 (half its DRAM bandwidth; docs/PERF.md "twenty-ninth"): ncu's speed-of-light,
# memory, occupancy and warp-state sections of the copy's launches in spec 13 with A column-major
# and B row-major (both copied), at 4096^3 (words: pitches of 4096 bytes) and 4095x4093x4096
# (bytes: odd pitches), and `run --iters 30` of both for the copy's share of the time.
#   usage (device): bash bench/h200-fp8-transpose-ncu.sh CARRY
# Prediction: a short kernel (~20 us a copy) with a tail; the warp-state samples on the
# loads' scoreboard (stall_long_sb) and the __syncthreads between the tile's load and store
# (stall_barrier); DRAM throughput 55-65% of peak in the word form.
source "$(dirname "$0")/lib.sh"
bench_init fp8_transpose_ncu "$1"
for s in 4096x4096x4096 4095x4093x4096; do
  IFS=x read -r m n k <<< "$s"
  timeout 60 "$G" run specs/sm90/13_fast_e4m3.yaml --m "$m" --n "$n" --k "$k" --layout col,row \
    --iters 30 > "$L/time_$s.txt" 2>&1
  echo "time $s col,row rc=$? $(grep -o 'median [0-9.]* ms' "$L/time_$s.txt")" >> "$S"
  timeout 150 ncu --clock-control none -k regex:gg_transpose2d --launch-count 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats \
    "$G" run specs/sm90/13_fast_e4m3.yaml --m "$m" --n "$n" --k "$k" --layout col,row \
    --iters 1 > "$L/ncu_$s.txt" 2>&1
  echo "== ncu $s rc=$?" >> "$S"
  grep -E "gg_transpose2d|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Stall|Warp Cycles Per Issued" \
    "$L/ncu_$s.txt" | sed 's/^ *//' | head -40 >> "$S"
done
bench_finish

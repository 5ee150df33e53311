#!/usr/bin/env bash
# Why four columns stream slower than one on the narrow path: ncu of one launch each of the
# one-column kernel at 1x28672x4096, the four-column kernel at 4x28672x4096 (both one row a warp)
# and `auto`'s MMA decode tile at 4x28672x4096 (spec 06 bf16 with `simt_narrow: 4`, and `auto`),
# then the four-column kernel's per-instruction stall samples (CSV). The H100 streamed them at 3.04,
# 2.77 and 2.76 TB/s (2026-12-06_narrow_rows_h100); two or four rows a warp, which cut its L1 words
# and instructions per weight, were slower, so neither count is its bound.
# Prediction: the four-column kernel's warps stall mostly on its L1 loads of B (short scoreboard
# or MIO throttle), the one-column kernel's on DRAM (long scoreboard).
# Measured (H100, 2026-12-06_narrow_cols_ncu_h100): the four-column kernel issues 0.59
# instructions a scheduler a cycle (one column 0.32), 45% of them conversions, and stalls on long
# scoreboard (61%); the tile 0.11.
#   usage (device): bash bench/h200-narrow-cols-ncu.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init narrow_cols_ncu "$1"
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 4 "$L/specs/plain4.yaml"
SECT="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats"
prof() { # NAME KERNEL-REGEX SPEC MxNxK
  local m n k log=$L/ncu_$1.txt
  IFS=x read -r m n k <<< "$4"
  timeout 120 ncu --clock-control none -k "regex:$2" --launch-count 1 $SECT \
    "$G" bench "$3" --m "$m" --n "$n" --k "$k" --rounds 1 --warmup 0 --dtype bf16 > "$log" 2>&1
  echo "== ncu $1 $4 rc=$?" >> "$S"
  grep -E '^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Issue Slots Busy|No Eligible|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|SM Frequency' \
    "$log" | head -18 >> "$S"
}
prof narrow1 gg_narrow "$L/specs/plain4.yaml" 1x28672x4096
prof narrow4 gg_narrow "$L/specs/plain4.yaml" 4x28672x4096
prof tile4 gemm auto 4x28672x4096
timeout 120 ncu --clock-control none -k 'regex:gg_narrow' --launch-count 1 \
  --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
  "$G" bench "$L/specs/plain4.yaml" --m 4 --n 28672 --k 4096 --rounds 1 --warmup 0 \
  > "$L/source_narrow4.csv" 2>&1
echo "== ncu source narrow4 rc=$? lines $(wc -l < "$L/source_narrow4.csv")" >> "$S"
bench_finish

#!/usr/bin/env bash
# What bounds spec 15 at M = 4096 now that its scales come from shared memory: ncu at
# 4096x7168x2048 (one launch, clocks as found; the same sections as bench/h200-blockwise-profile2.sh,
# whose figures with global scale loads were 113.7 us, 41.3 M warp instructions; with constant
# scales 96.7 us, 31.6 M), then the tile order: scheduler.group 8 / 32 and raster along N beside
# spec 15 (group 16, along M) at the three M = 4096 shapes below 1.00, one pass.
# Prediction (before the run): duration ~105 us, instructions ~33-35 M (the loads' address
# arithmetic gone); the tile orders within +-2%.
#   usage (device): bash bench/h200-blockwise-profile3.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init blockwise_profile3 "$1"
ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 --section SpeedOfLight \
  --section WarpStateStats --section SourceCounters --section SchedulerStats --section InstructionStats \
  --import-source no -o "$L/spec15" -f "$G" run specs/sm90/15_blockwise_e4m3.yaml \
  --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu_spec15.log" 2>&1
echo "== ncu rc=$?" >> "$S"
ncu -i "$L/spec15.ncu-rep" --print-details all > "$L/ncu_spec15.txt" 2>&1
ncu -i "$L/spec15.ncu-rep" --page source --print-source sass --csv 2>/dev/null | gzip > "$OUT/src_spec15.csv.gz"
grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Executed Instructions  |No Eligible|Warp Cycles Per Issued|Stall' "$L/ncu_spec15.txt" | head -24 >> "$S"
V=bench/variants/blockwise/smem
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432; do
  IFS=x read -r m n k <<< "$s"
  for v in specs/sm90/15_blockwise_e4m3.yaml $V/medium_g8.yaml $V/medium_g32.yaml $V/medium_along_n.yaml; do
    b=$(basename $v .yaml)
    timeout 90 "$G" bench $v --m $m --n $n --k $k --rounds 10 > "$L/${b}_$s.txt" 2>&1
    echo "$b $(table "$L/${b}_$s.txt")" >> "$S"
  done
done
bench_finish

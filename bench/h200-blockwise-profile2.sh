#!/usr/bin/env bash
# ncu on spec 15 in pairs (CARRY: as shipped) and on the same kernel with constant scales
# (NEW: built from bench/results/2026-12-04_blockwise_pairs_h200/noload-experiment.patch, run
# with GEMMGEN_EXP_NOLOAD=1; D wrong, timing only) at 4096x7168x2048, one launch each, clocks as
# found: duration, issue slots, instructions executed, warp states, and the per-instruction
# stall samples (SASS CSV) to see where the 14-18% the scales cost goes.
#   usage (device): bash bench/h200-blockwise-profile2.sh CARRY NEW
source "$(dirname "$0")/lib.sh"
bench_init blockwise_profile2 "$1"
N=${2:-.devrun/ahead}; case $N in /*) ;; *) N=$PWD/$N ;; esac
prof() { # name bin env...
  local n=$1 bin=$2; shift 2
  env GEMMGEN_CACHE_DIR=$bin/cache "$@" timeout 200 ncu --clock-control none -k regex:gemm_sm90 \
    --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --section SchedulerStats --section InstructionStats \
    --import-source no -o "$L/$n" -f "$bin/gemmgen" run specs/sm90/15_blockwise_e4m3.yaml \
    --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu_$n.log" 2>&1
  echo "== $n rc=$?" >> "$S"
  ncu -i "$L/$n.ncu-rep" --print-details all > "$L/ncu_$n.txt" 2>&1
  ncu -i "$L/$n.ncu-rep" --page source --print-source sass --csv > "$OUT/src_$n.csv" 2>/dev/null
  grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Executed Instructions  |No Eligible|Warp Cycles Per Issued|Stall' "$L/ncu_$n.txt" | head -24 >> "$S"
}
prof pairs "$C"
prof noload "$N" GEMMGEN_EXP_NOLOAD=1
bench_finish

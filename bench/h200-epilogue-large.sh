#!/usr/bin/env bash
# What the epilogue costs the default 128x256 tile (spec 05: two consumers, chunks of 128, the TMA
# store overlapping the next tile) where a CTA computes one tile (2048^3), four (4096^3) or sixteen
# (8192^3): the trace's stamps (bench/experiments/edit_kernel.py; `mma_done` is the CTA's last
# tile's), the same with no store and no fence (`nostore,nofence`: the staging alone; D unwritten),
# and each one's time over 30 launches (`run`, the median; the no-store kernel computes a wrong D,
# so it is only the bound of what a cheaper epilogue could give).
# Prediction: ~3k cycles of a ~70k-cycle tile at 4096^3 (4%); the no-store bound 2-4% faster there
# and at 8192^3, ~5% at 2048^3.
#   usage (device): bash bench/h200-epilogue-large.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_large "$1"
E=$L/src
SPEC=specs/sm90/05_fast_f16.yaml
emit_edits "$SPEC" "$E" trace nostore,nofence nostore,nofence,trace nostore,nofence,twice,trace
verify trace "$SPEC" 4096x4096x4096 --source "$E/trace.cu"
trace_runs "$SPEC" "$E" "2048x2048x2048 4096x4096x4096 8192x8192x8192" trace \
  nostore,nofence,trace nostore,nofence,twice,trace
for pass in 1 2; do
  for s in 2048x2048x2048 4096x4096x4096 8192x8192x8192; do
    IFS=x read -r m n k <<< "$s"
    for e in emitted nostore,nofence; do
      log=$L/time_${e}_${pass}_$s.txt
      timeout 90 "$G" run "$SPEC" --m "$m" --n "$n" --k "$k" --iters 30 --warmup 5 \
        --source "$E/$e.cu" > "$log" 2>&1
      echo "pass $pass $e $s $(grep -o 'median [0-9.]* ms' "$log")" >> "$S"
    done
  done
done
bench_finish

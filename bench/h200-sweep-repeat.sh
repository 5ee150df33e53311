#!/usr/bin/env bash
# The issue-13 sweep (bench/h200-sweep.sh) repeated: PASSES more passes in one device call, each
# into $OUT/sweep-N (N from FIRST, default 2), so that a change's sweep is measured three times.
#   usage (device): bash bench/h200-sweep-repeat.sh CARRY [PASSES] [ROUNDS]
C=${1:-.devrun/k}; PASSES=${2:-2}; ROUNDS=${3:-12}; FIRST=${FIRST:-2}
OUT=${OUT:-/tmp/gemmgen-out}
for i in $(seq $FIRST $((FIRST + PASSES - 1))); do
  OUT=$OUT/sweep-$i BUDGET=${BUDGET:-250} bash bench/h200-sweep.sh "$C" "$ROUNDS" > /dev/null 2>&1
  echo "== sweep-$i rc=$?"; tail -6 "$OUT/sweep-$i/sweep-summary.txt"
done

#!/usr/bin/env bash
# Perf experiment on the H200: every spec in bench/variants/ verified once on
# a residue shape, then benchmarked side by side with cuBLAS at 4096^3 and
# 8192^3 in f16 and bf16 (gemmgen bench, DESIGN.md §10). Logs and JSON under
# $OUT; a short table last.
#   usage (device): bash bench/h200-variants.sh build-carry
set -u
C=${1:-build-carry}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
S=$SECONDS; left(){ local r=$(( ${BUDGET:-400} - (SECONDS - S) )); [ $r -lt 5 ] && r=5; echo $(( $1 < r ? $1 : r )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
for v in bench/variants/*.yaml; do
  name=$(basename "$v" .yaml)
  timeout "$(left 30)" "$C/gemmgen" run "$v" --m 4000 --n 4000 --k 4000 --verify --iters 0 --seed 11 > "$OUT/run_$name.log" 2>&1
  echo "$name verify rc=$? $(grep -iE 'error|rel' "$OUT/run_$name.log" | head -1 | cut -c1-90)" >> "$OUT/verify.txt"
  for dt in f16 bf16; do
    timeout "$(left 60)" "$C/gemmgen" bench "$v" --dtype $dt --shapes 4096x4096x4096,8192x8192x8192 \
      --rounds 15 --json "$OUT/bench_${name}_$dt.json" > "$OUT/bench_${name}_$dt.log" 2>&1
  done
done
echo "===== $(date -u) $(tail -1 "$OUT/smi.txt")"
cat "$OUT/verify.txt"
for f in "$OUT"/bench_*.log; do echo "-- $(basename "$f" .log)"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$f" | cut -c1-150; done

#!/usr/bin/env bash
# What the sessions of 2026-12-05 owe the H200, in one call, most important first (each step
# has its own time budget; the summaries are printed at the end):
#   1. bench/h200-narrow-ab.sh: the SIMT narrow kernels against the decode/tall tiles they
#      replace (on the H200 the experiment's form trailed the tiles at 1x4096x14336 and
#      1x11008x4096: if the built kernels do too, kSimtNarrowRows = 0 or a rule);
#   2. one pass of the sweep (issue 13's table) on these binaries;
#   3. bench/h200-narrow-mn.sh and bench/h200-tall-nmajor2.sh (the column-major decode on the
#      narrow kernels and on the twins with 32/64-byte boxes), OLD against NEW.
#   usage (device): bash bench/h200-owed.sh OLD NEW   (NEW also gemmgen_gpu_tests)
OUT=${OUT:-/tmp/gemmgen-out}; export OUT
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 bash bench/h200-narrow-ab.sh "$2" > /dev/null 2>&1
FIRST=1 BUDGET=240 timeout 290 bash bench/h200-sweep-repeat.sh "$2" 1 12 > "$OUT/sweep-repeat.txt" 2>&1
SHAPES="4096x1x14336 2112x1x7168 57344x1x8192 4096x2x4096" timeout 200 \
  bash bench/h200-narrow-mn.sh "$1" "$2" > /dev/null 2>&1
timeout 240 bash bench/h200-tall-nmajor2.sh "$1" "$2" > /dev/null 2>&1
for f in narrow_ab narrow_mn tall_nmajor2; do
  echo "== $f"; cat "$OUT/$f-summary.txt" 2>/dev/null
done
cat "$OUT/sweep-repeat.txt"

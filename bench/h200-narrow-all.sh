#!/usr/bin/env bash
# The narrow path's three changes of 2026-12-05 (fifteenth session) in one call: the GPU tests and
# memcheck of the narrow path, then bench/h200-narrow-words.sh (rows not 16-byte aligned),
# -narrow-split.sh (2 or 4 warps a row) and -narrow-pair.sh (two rows a warp), each OLD against
# NEW; the summaries last.
#   usage (device): bash bench/h200-narrow-all.sh OLD NEW
OUT=${OUT:-/tmp/gemmgen-out}; export OUT
nvidia-smi --query-gpu=name --format=csv,noheader
timeout ${WORDS_S:-220} bash bench/h200-narrow-words.sh "$1" "$2" > /dev/null 2>&1
timeout 140 bash bench/h200-narrow-split.sh "$1" "$2" > /dev/null 2>&1
# PAIR=0: not the pair A/B (measured on the H100 already) where device time is short.
[ "${PAIR:-1}" = 1 ] && SHAPES="1x11008x4096 1x12288x4096 8192x2x4096 1x10240x8192 14336x2x4096" \
  SKIP_TESTS=1 timeout 170 bash bench/h200-narrow-pair.sh "$1" "$2" > /dev/null 2>&1
for f in narrow_words narrow_split narrow_pair; do echo "== $f"; cat "$OUT/$f-summary.txt" 2>/dev/null; done

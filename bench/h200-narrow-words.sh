#!/usr/bin/env bash
# Rows not 16-byte aligned on the narrow path: 8-byte loads where K and the rows are multiples
# of 4 elements, 2-byte loads where K is odd. Before, such launches staged the long operand
# through the workspace and ran the MMA tiles (4096x1x4100: 0.47 of cuBLAS on the H200,
# 2026-12-05). The GPU tests of the narrow path, `run auto --verify` at three shapes, then `bench
# auto` OLD against NEW, two passes (f16; bf16 at two shapes).
# Prediction: 8-byte words within 5% of the aligned shape's time (4096x1x4096, 1x4096x4096 run
# alongside); 2-byte words (K odd) 0.7-0.9 of it; both ahead of OLD by 1.5-2x.
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-narrow-words.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init narrow_words "$2"
gpu_tests '*NarrowPath*'
memcheck '*NarrowPath*'
for s in 4096x1x4100 1x4096x4099 2x11008x1001; do verify auto auto "$s" --beta 0.5; done
SHAPES=${SHAPES:-"4096x1x4100 4096x1x4096 1x4096x4099 1x4096x4096 2x11008x4100"}
ab_bench "$OLD" "$C" "$SHAPES" auto
echo "bf16:" >> "$S"; L0=$L; L=$L/bf16; mkdir -p "$L"
ab_bench "$OLD" "$C" "4096x1x4100" auto --dtype bf16
L=$L0
bench_finish

#!/usr/bin/env bash
# Two rows a warp on the narrow path (narrowGrid): where one row a warp takes more than
# one wave of blocks (1 < waves, 8448 rows per wave at one column on 132 SMs, 6336 at two) and
# two fit in one, each warp streams two rows. The GPU tests (every one: spec 27 had not run
# through the per-spec suites), memcheck over the narrow path, then `bench auto` OLD against NEW,
# two passes, f16 and bf16.
# Prediction (H200; the experiment's s-u2r2 against s-u4r1, bench/h200-gemv-simt.sh):
# 1x11008x4096 0.0273 -> ~0.0238 ms (the decode tiles 0.0256), 1x12288x4096 and 8192x2x4096
# 10-15% faster; the controls (one row a warp in both: 1x6144x4096, 1x8448x14336,
# 14336x2x4096) level within 1%.
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-narrow-pair.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init narrow_pair "$2"
if [ -z "$SKIP_TESTS" ]; then gpu_tests "${TESTS:-*}"; memcheck '*NarrowPath*'; fi
SHAPES=${SHAPES:-"1x11008x4096 1x12288x4096 8192x2x4096 1x10240x8192 1x6144x4096 \
  1x8448x14336 14336x2x4096"}
ab_bench "$OLD" "$C" "$SHAPES" auto
echo "bf16:" >> "$S"; L0=$L; L=$L/bf16; mkdir -p "$L"
ab_bench "$OLD" "$C" "1x11008x4096 8192x2x4096" auto --dtype bf16
L=$L0
bench_finish

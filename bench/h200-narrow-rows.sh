#!/usr/bin/env bash
# Three and four columns with two or four rows a warp: the narrow kernels at 3-4 columns load
# B's COLS words through L1 and convert them per row they meet, so one row a warp costs 5 L1
# words and 9 conversions and FMAs per weight word at 4 columns (4x14336x4096 ran at 2.6 TB/s on
# the H100 where one column streams 3.0). Two rows a warp share B's words (3 L1 words, 7
# instructions a weight word), four rows 2 and 6. Spec 06 (bf16) with `simt_narrow: 4` on OLD
# (one row a warp, or a shared row), R2 (two rows a warp at 3-4 columns, every grid) and R4 (four
# rows), one after the other at each shape, two passes (the second in reverse order); `bench
# auto` (the MMA decode tile `auto` runs at 3-4 tokens) on OLD beside them. GPU tests of the
# narrow path on R2 and R4 first (3-4 column cases there run their kernels).
# Prediction (H100): R2 4-6% faster than OLD at 4x14336x4096 and 4x28672x4096, ahead of the tile
# (0.0427 and 0.0808 ms); R4 like R2 (fewer warps an SM: 3 blocks).
# Measured (H100, 2026-12-06_narrow_rows_h100): R2 slower at 8 of 9 shapes, R4 at 7 (up to 20%);
# not kept (the results hold the experiment's diff).
#   usage (device): [SKIP_TESTS=1] bash bench/h200-narrow-rows.sh OLD R2 R4
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1 R2=$PWD/$2 R4=$PWD/$3
bench_init narrow_rows "$2"
if [ -z "$SKIP_TESTS" ]; then
  for c in $R2 $R4; do
    C=$c GEMMGEN_CACHE_DIR=$c/cache gpu_tests '*NarrowPath*'
    mv "$L/gpu_tests.log" "$L/gpu_tests_$(basename "$c").log"
  done
  C=$R2
fi
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 4 "$L/specs/plain4.yaml"
SHAPES=${SHAPES:-"4x28672x4096 4x14336x4096 4x12672x4096 3x2048x4096 4x4096x4096 3x6144x4096 \
  4x57344x8192 8192x4x4096 4x4096x14336"}
for pass in 1 2; do
  order="old r2 r4"; [ $pass = 2 ] && order="r4 r2 old"
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    for v in $order; do
      bin=$OLD; [ $v = r2 ] && bin=$R2; [ $v = r4 ] && bin=$R4
      log=$L/${v}_${pass}_$s.txt
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench "$L/specs/plain4.yaml" \
        --m $m --n $n --k $k --rounds 20 > "$log" 2>&1
      echo "pass $pass $v $(table "$log")" >> "$S"
    done
  done
done
G=$OLD/gemmgen; export GEMMGEN_CACHE_DIR=$OLD/cache
for s in $SHAPES; do bench_auto auto "$s" --dtype bf16; done
bench_finish

#!/usr/bin/env bash
# Rows of any alignment on the narrow path read in 16-byte words, B's elements realigned (`_u`
# kernels, 969ea75) against OLD's 2-byte loads of every element (0.58 of cuBLAS at 1x4096x4099 on
# the H100, 2026-12-05): the GPU tests of the narrow path, memcheck over them, `run auto --verify`
# at four shapes, then `bench auto` OLD, NEW and (optional) NEW2 one after the other at each shape,
# two passes (the second in reverse order). NEW2: NEW with 8-byte rows (K a multiple of 4)
# realigned too, where NEW loads them in 8-byte words.
# Prediction (H100): K odd 2-2.5x faster than OLD, 1x4096x4099 within 20% of the aligned
# 1x4096x4096 and >= 1.00 of cuBLAS; NEW2 at 4096x1x4100 within 10% of 4096x1x4096 (NEW's
# 8-byte words 31% behind it).
# Measured (H100, 2026-12-06_narrow_realign_h100): K odd 1.24-4.3x faster, 1x4096x4099 1.37 of
# cuBLAS and 6% behind the aligned shape; NEW2 at 4096x1x4100 1.39 (NEW 1.10), 6% behind K = 4096:
# NEW2's rule kept (the 8-byte kernels removed), so later runs need no NEW2.
#   usage (device): [SKIP_TESTS=1] bash bench/h200-narrow-realign.sh OLD NEW [NEW2]
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1 NEW2=${3:+$PWD/$3}
bench_init narrow_realign "$2"
if [ -z "$SKIP_TESTS" ]; then gpu_tests '*NarrowPath*'; memcheck '*NarrowPath*'; fi
for s in 1x4096x4099 2x11008x1001 1x3000x1001 4096x1x4100; do
  verify auto auto "$s" --beta 0.5
  grep -o 'path simt_narrow[^:]*' "$L/verify_auto_$s.txt" | head -1 >> "$S"
done
SHAPES=${SHAPES:-"1x4096x4099 1x4096x4096 2x11008x1001 1x2112x7169 1x2112x7168 1x57344x8191 \
  4096x1x4100 4096x1x4096"}
VARIANTS="old new${NEW2:+ new2}"
for pass in 1 2; do
  order=$VARIANTS; [ $pass = 2 ] && order=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    for v in $order; do
      bin=$C; [ $v = old ] && bin=$OLD; [ $v = new2 ] && bin=$NEW2
      log=$L/${v}_${pass}_$s.txt
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench auto --m $m --n $n --k $k \
        --rounds 20 > "$log" 2>&1
      echo "pass $pass $v $(table "$log") $(grep -o 'auto_[a-z0-9_]*' "$log" | head -1)" >> "$S"
    done
  done
done
# The chain (spec 14: bf16, bias per column, gelu_tanh, simt_narrow: 2): OLD ran K odd on the
# spec's tile (its chained narrow kernels were 16-byte words only), NEW on `_u_c`; against
# cuBLASLt's fused GELU_BIAS and the unfused pair in the same process.
mkdir -p "$L/specs"
simt_spec 14_fast_bf16_bias_gelu 2 "$L/specs/simt.yaml"
for pass in 1 2; do
  for s in ${CHAIN_SHAPES:-1x4096x4099 1x4096x4096 4096x2x4100}; do
    IFS=x read -r m n k <<< "$s"
    order="old new"; [ $pass = 2 ] && order="new old"
    for v in $order; do
      bin=$C; [ $v = old ] && bin=$OLD
      log=$L/chain_${v}_${pass}_$s.txt
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench "$L/specs/simt.yaml" --m $m \
        --n $n --k $k --rounds 10 > "$log" 2>&1
      # shape, gemmgen ms, cuBLASLt fused ms, ratio, unfused ms, ratio to the unfused pair
      echo "chain pass $pass $v rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$log" |
        awk '{print $1, $3, $5, $7, $8, $10}')" >> "$S"
    done
  done
done
bench_finish

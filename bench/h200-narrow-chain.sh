#!/usr/bin/env bash
# The spec's epilogue chain on the narrow path (`_c` kernels: one row a warp, 16-byte words,
# 1-4 columns). Before, a chained spec with simt_narrow was refused, so a chained decode ran on
# spec 14's 128x256 tile (the decode families store D column-major, where a chain's bias is
# refused). The GPU tests of the narrow path and the chains, memcheck over the narrow path, then
# spec 14 (bf16, bias per column, gelu_tanh) with `simt_narrow: 2` (the narrow kernel) and as it
# is (its tile), `bench` each against cuBLASLt's fused GELU_BIAS and the unfused pair (GEMM, then
# an elementwise pass) in the same process, two passes (the second in reverse order); and spec 06
# (bf16, no chain) with `simt_narrow: 2` ("plain", against cuBLAS): what the chain costs.
# Prediction (H200): at M = 1-2 the tile pads 1-2 rows to 128 and streams B through 16-48 CTAs
# (0.3-0.8 of cuBLAS without a chain, as the sweep's fixed spec); the narrow kernel streams B at
# the unchained one-row-a-warp rate (1.0-1.1 of cuBLAS): >= 1.00 of cuBLASLt's GELU_BIAS, 1.5-3x
# the tile. At 8192x2x4096 (rows of A, the bias along the kernel's columns) the same. With the
# chained grids of d2b1cf0 (1x2112x7168 2 warps a row, 1x11008x4096 two rows a warp): "simt"
# within 3% of "plain" at every shape (the chain is one value per row of the long operand).
# With OLD (a second carry folder): "old", OLD's binary on the simt spec, beside them (an A/B of
# the chained kernels). Used for a prefetch of the store's inputs (the bias value and C's element
# asked of L1 before the k-loop, 7da898a against 3824818): predicted the chain's cost against
# "plain" 4-9% -> <= 2%; measured 2-34% slower on the H100 (2026-12-06_narrow_chain_prefetch_h100),
# reverted. Then the chain's bias loaded (its bits) into a register before the k-loop and
# converted after it (2bf2b63 against OLD c13280f, whose SASS loads it after the loop): predicted
# "simt" within 3% of "plain" where it was 4-9% behind; measured on the H100 (2026-12-06_narrow_
# chain_early_bias_h100) the same as "old" at six shapes, 16% slower at 2x4096x4096: reverted.
# ncu (bench/h200-narrow-chain-ncu.sh) found the cost instead: the chained kernel's warps ran
# 26 active threads on average against the plain one's 32 (one lane at a time applies the chain).
# So the store in one pass: lane t < rows x columns stores (and chains) output t (OLD 51cd9ce):
# predicted "simt" at 8192x2x4096 (two rows, two columns: four passes -> one) within 4% of
# "plain" (11% behind), 2x4096x4096 (two passes -> one) within 3% (5%); one column unchanged.
# Measured on the H100 (2026-12-06_narrow_store_one_pass_h100): 3% and 2%, one column unchanged;
# the fast activations (tanh.approx) no change. Then the chained one-column kernels with a row
# shared by 2 or 4 warps at eight blocks an SM (no spill now; OLD 143f6ff at six): predicted
# 1x4096x14336 (one row a warp -> 2 warps a row, as "plain") 7% behind "plain" -> <= 3%,
# 1x2112x7168 (2 -> 4 warps a row) 4% -> <= 2%, the others unchanged. Measured (H100,
# 2026-12-06_narrow_chain_bounds_h100): 1.5% and 3%. ncu's source page then showed the one-row
# kernel's cost in its k-loop (11% more warp samples there, ptxas's schedule moved by the
# inlined chain), so the chain out of line (__noinline__, the Chain a __grid_constant__) and
# every chained kernel at the plain one's bounds (OLD c95a426): predicted the one-column shapes
# 5-8% behind "plain" -> <= 2%, the rest unchanged. Measured (H100, 2026-12-06_narrow_chain_
# noinline_h100): 1x6144x4096 -2% and 1x57344x8192 -1.5%, but 2x4096x4096 +4%, 1x2112x7168 +3%,
# three more +1-1.5%: wrong, reverted.
#   usage (device): [SHAPES="MxNxK ..."] [SKIP_TESTS=1] bash bench/h200-narrow-chain.sh CARRY [OLD]
source "$(dirname "$0")/lib.sh"
OLD=${2:+$PWD/$2}
bench_init narrow_chain "$1"
if [ -z "$SKIP_TESTS" ]; then gpu_tests '*NarrowPath*:*Epilogue*'; memcheck '*NarrowPath*'; fi
SHAPES=${SHAPES:-"1x6144x4096 1x4096x14336 1x2112x7168 1x57344x8192 1x11008x4096 2x4096x4096 \
  8192x2x4096"}
mkdir -p "$L/specs"
cp specs/sm90/14_fast_bf16_bias_gelu.yaml "$L/specs/tiles.yaml"
simt_spec 14_fast_bf16_bias_gelu 2 "$L/specs/simt.yaml"
simt_spec 06_fast_bf16 2 "$L/specs/plain.yaml"
# `run --verify` through the narrow kernel (its path printed), beta 0.5, bias and C random.
for s in 1x6144x4096 2x4096x4104 8192x2x4096 1x4096x1001; do
  verify chain "$L/specs/simt.yaml" "$s" --beta 0.5
  grep -o 'path simt_narrow[^:]*' "$L/verify_chain_$s.txt" | head -1 >> "$S"
done
for pass in 1 2; do
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    order="simt tiles plain ${OLD:+old}"; [ $pass = 2 ] && order="${OLD:+old} plain tiles simt"
    for v in $order; do
      log=$L/${v}_${pass}_$s.txt
      bin=$G spec=$v; [ $v = old ] && bin=$OLD/gemmgen spec=simt
      GEMMGEN_CACHE_DIR=$(dirname "$bin")/cache timeout 90 "$bin" bench "$L/specs/$spec.yaml" --m "$m" --n "$n" --k "$k" --rounds 10 \
        > "$log" 2>&1
      # shape, gemmgen ms, cuBLASLt fused ms, ratio, unfused ms, ratio to the unfused pair
      echo "pass $pass $v rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$log" |
        awk '{print $1, $3, $5, $7, $8, $10}')" >> "$S"
    done
  done
done
bench_finish

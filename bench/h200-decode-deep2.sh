#!/usr/bin/env bash
# After bench/h200-decode-deep.sh (the unsplit 16-stage kernel led the K split at all eight shapes
# of 64-95 tiles and K > 8192, 0.99-1.10 of cuBLAS against 0.93-1.05; and the staging copy with
# four words in flight: 1000x1000x1001 0.0365 -> 0.0339 ms, not back to the element-wise 0.029).
# (1) The rule as built (NEW: 64-95 tiles unsplit at any K): every GPU test, memcheck, `bench
# auto` where the choice changed. (2) Deeper rings for decode (pipeline.depth may now be up to 32;
# shared memory holds 22 stages of 64x16x64): 16 / 20 / 22 stages at one CTA per SM, and spec 25
# (two CTAs per SM, 8 stages each) at the decode shapes of the sweep and the 64-95-tile ones, two
# passes. Prediction: at 64-95 tiles (one CTA on 64-95 SMs) 20-22 stages 1-3% ahead of 16 (more
# bytes in flight per streaming SM); at >= 96 tiles spec 25 stays ahead of one CTA per SM.
# (3) ncu on the staging copy at 1000x1000x1001, OLD (one word per trip) and NEW (four in flight):
# how long each copy and the GEMM after them take, and what bounds the copies.
# OLD: the binary of a81131c; NEW: this tree.
#   usage (device): [PARTS="checks rings splits tokens ncu"] bash bench/h200-decode-deep2.sh OLD NEW
#   (gemmgen; NEW also gemmgen_gpu_tests). PARTS picks the sections run (all by default), so that
#   the experiment fits in more than one device call; the summary is named after the first part.
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
PARTS=${PARTS:-checks rings splits tokens ncu}
part() { [[ " $PARTS " == *" $1 "* ]]; }
bench_init "decode_deep2_${PARTS%% *}" "$2"
echo "parts: $PARTS" >> "$S"
if part checks; then
gpu_tests
memcheck '*ChosenKernel*/1x4096x14336*:*ChosenKernel*/16x4096x9216*:*Stag*'
verify d20 bench/decode-col/m64n16_d20.yaml 3x4100x14400 --beta 0.5
verify d22 bench/decode-col/m64n16_d22.yaml 9x6000x1000 --beta 0.5
verify auto_d16 auto 16x4096x14336 --beta 0.5
for s in 1x4096x14336 16x4096x14336 1x5120x13824; do bench_auto chooser "$s"; done
fi
if part rings; then
D="1x4096x14336,16x4096x14336,1x5120x13824,1x4096x7168,16x4096x4096,1x6144x4096,8x14336x4096"
D="$D,4x28672x4096,1x57344x8192,16x10240x8192,1x11008x4096,16x7168x16384,16x8192x28672"
bench_passes 2 "$D" bench/decode-col/m64n16_d16 bench/decode-col/m64n16_d20 \
  bench/decode-col/m64n16_d22 specs/sm90/25_decode_two_ctas_f16
fi
if part splits; then
# (4) 24-63 tiles (the split rule: 4 slices where tiles x 4 <= 132, else 2; 8 stages): the same
# splits with 16 stages. Prediction: 1-3% ahead, as 16 stages led 8 at 64-95 tiles.
W="1x2112x7168,8x1536x7168,1x2048x8192,1x3072x4096,4x3072x4096,1x4032x14336"
bench_passes 2 "$W" specs/sm90/24_decode_col_d_split_f16 bench/decode-col/m64n16_d16_s4 \
  bench/decode-col/m64n16_d8_s2 bench/decode-col/m64n16_d16_s2
fi
if part tokens; then
# (5) 65-128 tokens: a 64x128 column-major tile (the weights on the MMA's M side, as decode64 for
# 33-64 tokens), unsplit and split in 2, against the chooser (the small 64x128 tile, split 2 at
# 128x4096x11008: 0.94 of cuBLAS in the sweep). Prediction: 5-15% ahead of the chooser where the
# weights make 64-128 tiles (the weights streamed once instead of once per 64 tokens).
T="128x4096x11008,128x4096x4096,96x4096x4096,128x8192x8192,128x6144x4096,80x4096x14336"
T="$T,128x14336x4096,128x28672x4096"
bench_passes 2 "$T" bench/decode-col/m64n128_d8 bench/decode-col/m64n128_d8_s2
for s in ${T//,/ }; do bench_auto chooser "$s"; done
verify m64n128 bench/decode-col/m64n128_d8.yaml 100x4100x1000 --beta 0.5
verify m64n128_s2 bench/decode-col/m64n128_d8_s2.yaml 77x3000x4100 --beta 0.5
fi
if part ncu; then
SECT="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
for v in old new; do
  bin=$OLD; [ $v = new ] && bin=$C
  GEMMGEN_CACHE_DIR=$bin/cache timeout 120 ncu --clock-control none -k 'regex:gg_copy2d|gemm_sm90' --launch-count 3 \
    $SECT "$bin/gemmgen" run auto --m 1000 --n 1000 --k 1001 --iters 1 --warmup 0 > "$L/ncu_copy_$v.txt" 2>&1
  echo "== ncu copy $v rc=$?" >> "$S"
  grep -E '^  gg_copy2d|^  gemm_sm90|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Warp Cycles Per Issued|Grid Size|Registers Per|Block Limit Registers|Waves Per SM' \
    "$L/ncu_copy_$v.txt" | head -45 >> "$S"
done
fi
bench_finish

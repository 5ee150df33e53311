#!/usr/bin/env bash
# The decode family (64x16 tiles, D column-major) with stream-K in one launch, where the decode
# rule splits K (M <= 8 tokens, 24-63 tiles of 64 weights: split 4 where the tiles fit a wave four
# times, else 2) and launches a reduction kernel after it. Stream-K with a column-major D was
# refused until the checks learned that the fix-up adds partial sums in registers, before the
# (transposed) store. Timed as `bench` runs the decode specs: tokens x weights x K, D row-major
# (computed as D^T = B^T.A^T, the weights on the MMA's M side). Aligned shares at 8x2112x7168 (33
# tiles x 4), 8x2048x8192 (32 x 4), 8x3200x4096 (50 x 2), 4x3584x4096 (56 x 2); unaligned where the
# shares do not fill three quarters of the SMs (8x1536x7168: 24 tiles; 8x3072x7168: 48). Verified
# first in both orientations (`--layout row,col,col`: M x N with D column-major).
# Prediction: where aligned, 2-4 us less than split-K with its reduction (10-25% of 10-20 us);
# unaligned level or slower.
#   usage (device): bash bench/h200-decode-streamk.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init decode_streamk "$1"
D=bench/decode-sk
for s in 2112x8x7168 1536x8x7168 3200x8x4096 3584x4x4096 200x5x1024 130x3x640 4104x7x136; do
  verify sk $D/decode_sk.yaml $s --layout row,col,col
done
verify sk-beta $D/decode_sk.yaml 2112x8x7168 --layout row,col,col --beta 0.5
verify sk-beta $D/decode_sk.yaml 200x5x1024 --layout row,col,col --beta 0.5 --alpha 1.5
verify sk-bf16 $D/decode_sk.yaml 2112x8x7168 --layout row,col,col --dtype bf16
verify sk-rowd $D/decode_sk.yaml 8x2112x7168
verify sk-rowd $D/decode_sk.yaml 5x200x1024 --beta 0.5
SH=8x2112x7168,4x2112x7168,8x2048x8192,8x3200x4096,4x3584x4096,8x1536x7168,8x3072x7168
for pass in 1 2; do
  order="decode_s4 decode_s2 decode_sk"; [ $pass = 2 ] && order="decode_sk decode_s2 decode_s4"
  for v in $order; do
    timeout 120 "$G" bench "$D/$v.yaml" --shapes "$SH" --rounds 20 > "$L/${v}_$pass.txt" 2>&1
    echo "== pass $pass $v rc=$?" >> "$S"; table "$L/${v}_$pass.txt" >> "$S"
  done
done
bench_finish

#!/usr/bin/env bash
# Three questions in one call (2026-12-03, sixth session):
#  1. 33-64 tokens (the validation set's 64x4096x4096 at 0.77 of cuBLAS). Our small 64x128 tile
#     (32 CTAs) and the 64x32 column-major tile (128 CTAs, 96 MB read from the L2: every CTA
#     reads all 512 KB of the tokens) both take ~16.8 us; cuBLAS's 64x32 on 128 CTAs with a 1x2
#     cluster (the tokens multicast: ~64 MB) takes ~13. Reading: the weights (32 MB) stay in the
#     L2 between rounds, and what bounds the kernel is the bytes the L2 hands the SMs. Variants
#     that cut them on >= 128 CTAs (bench/decode-col/): 64x64 in 2 K slices (64 MB), the same
#     with the tokens multicast to a 2x1 cluster (48 MB), 128x64 (two consumers) in 4 slices
#     (48 MB), and that with a 2x1 cluster (40 MB).
#     Prediction: 64 MB ~15 us (no gain), 48 MB ~12.5 us (0.77 -> ~1.0), 40 MB ~11 us.
#  2. TMA L2 promotion on the decode kernels (GEMMGEN_TMA_L2_PROMOTION): 128 B ran 1x57344x8192
#     6% faster and three other shapes 3% slower in one run (2026-12-03_decode_cluster_h200).
#     Now 256 (the default) / 128 / none on nine decode shapes, the chooser's kernel each, in
#     alternating order, two passes. Prediction: 128 B ahead only where the weights far exceed
#     the L2 (57344x8192: 940 MB), level elsewhere.
#  3. Issue 12's figures on this build (the descriptor change moved spec 15 by 2%): blockwise
#     e4m3 at the DeepSeek-V3 shapes (the chooser, against cuBLASLt's blockwise mode), e4m3 ->
#     bf16 per-tensor spec 13 and bias+GELU spec 14 at 4096^3 and 8192^3 against cuBLASLt.
#   usage (device): bash bench/h200-decode64-l2.sh CARRY PART   (CARRY: gemmgen; PART: a = 1
#   and 3, b = 2, c = 1 on more shapes (written after a's results), d = the rule read
#   from a and c on new shapes; each within one call)
source "$(dirname "$0")/lib.sh"
PART=${2:-a}
bench_init decode64-l2-$PART "$1"
if [ "$PART" = a ]; then
V64="m64n64_d8 m64n64_d8_s2 m64n64_d8_c2_s2 m128n64_c2_d8_s4 m128n64_c2_d6_cl2_s4"
for v in $V64; do
  for s in 64x4096x4096 37x1000x520 64x2112x7168; do
    verify "$v" bench/decode-col/$v.yaml "$s" --beta 0.5
  done
done
SH="64x4096x4096,48x4096x4096,40x4096x4096,64x6144x4096,64x4096x14336,64x11008x4096,64x2112x7168"
echo "== t64 auto" >> "$S"
for s in ${SH//,/ }; do
  IFS=x read -r m n k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/t64_auto_$s.txt" 2>&1
  echo "$(table "$L/t64_auto_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/t64_auto_$s.txt" | head -1)" >> "$S"
done
for v in $V64; do
  timeout 150 "$G" bench bench/decode-col/$v.yaml --shapes $SH --rounds 20 > "$L/t64_$v.txt" 2>&1
  echo "== t64 $v rc=$?" >> "$S"; table "$L/t64_$v.txt" >> "$S"
done
fi
if [ "$PART" = b ]; then
DEC="1x57344x8192 1x4096x14336 4x28672x4096 1x11008x4096 1x6144x4096 1x2112x7168 16x10240x8192 16x8192x28672 32x4096x14336"
for pass in 1 2; do
  order="256 128 none"; [ $pass = 2 ] && order="none 128 256"
  for p in $order; do
    echo "== l2 $p pass $pass" >> "$S"
    for s in $DEC; do
      IFS=x read -r m n k <<< "$s"
      GEMMGEN_TMA_L2_PROMOTION=$p timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 \
        > "$L/l2_${p}_${pass}_$s.txt" 2>&1
      table "$L/l2_${p}_${pass}_$s.txt" >> "$S"
    done
  done
done
fi
if [ "$PART" = a ]; then
echo "== blockwise auto (cuBLASLt blockwise)" >> "$S"
for s in 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168; do
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench auto --dtype e4m3 --scaling blockwise --m $m --n $n --k $k --rounds 10 > "$L/bw_$s.txt" 2>&1
  echo "$(table "$L/bw_$s.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/bw_$s.txt" | head -1)" >> "$S"
done
timeout 150 "$G" bench specs/sm90/13_fast_e4m3.yaml --shapes 4096x4096x4096,8192x8192x8192 --scale-a 0.5 --scale-b 2 --rounds 20 > "$L/e4m3.txt" 2>&1
echo "== spec 13 e4m3 -> bf16 rc=$?" >> "$S"; table "$L/e4m3.txt" >> "$S"
timeout 150 "$G" bench specs/sm90/14_fast_bf16_bias_gelu.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 > "$L/bias_gelu.txt" 2>&1
echo "== spec 14 bias+gelu rc=$?" >> "$S"
grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror|cuBLASLt fused:|unfused:' "$L/bias_gelu.txt" | cut -c1-150 >> "$S"
fi
if [ "$PART" = c ]; then
  # After part a (2026-12-03 22:35 UTC): the splits and two-consumer tiles lost (the L2-bytes
  # reading was wrong); unsplit 64x64 led the chooser at 33-64 tokens with 64-96 weight tiles
  # and K = 4096. Its support apart from the validation set's 64x4096x4096: more weight counts
  # (tiles 48-172) and K, and 12 stages beside 8. Prediction: 64x64 ahead where the small tile
  # has <= 48 CTAs (N <= 6144) and K <= 8192, behind at N >= 8192 and at K = 14336.
  SH="64x5120x4096,48x5120x4096,64x8192x4096,48x7168x4096,64x4096x8192,40x6144x8192,64x4096x2048,64x3072x4096,56x5120x5120,64x6144x4096"
  echo "== t64c auto" >> "$S"
  for s in ${SH//,/ }; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/t64c_auto_$s.txt" 2>&1
    echo "$(table "$L/t64c_auto_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/t64c_auto_$s.txt" | head -1)" >> "$S"
  done
  for v in m64n64_d8 m64n64_d12; do
    verify "$v" bench/decode-col/$v.yaml 56x5120x5120 --beta 0.5
    timeout 150 "$G" bench bench/decode-col/$v.yaml --shapes $SH --rounds 20 > "$L/t64c_$v.txt" 2>&1
    echo "== t64c $v rc=$?" >> "$S"; table "$L/t64c_$v.txt" >> "$S"
  done
fi
if [ "$PART" = d ]; then
  # After part c (22:36 UTC): a rule read from parts a and c — 33-64 tokens, 48-128 tiles of 64
  # weights and at most 64 MiB of weights: the 64x64 column-major tile with 12 stages (0.93-1.10
  # of cuBLAS there against the chooser's 0.76-0.99; behind it with more tiles, fewer, or more
  # bytes). Checked here on shapes neither part ran, inside and outside the rule, and 12 stages
  # on part a's shapes. Prediction: inside, 64x64 d12 ahead of the chooser by >= 3% on each;
  # outside, behind or level.
  IN="36x4096x4096,64x7168x4096,50x3584x8192,64x4096x6144,60x6144x5120,33x5120x4096,64x3584x3584,64x4096x4096,48x4096x4096,40x4096x4096"
  OUTSIDE="64x6144x6144,64x8704x4096,48x2560x4096,64x5120x8192"
  echo "== t64d auto" >> "$S"
  for s in ${IN//,/ } ${OUTSIDE//,/ }; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/t64d_auto_$s.txt" 2>&1
    echo "$(table "$L/t64d_auto_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/t64d_auto_$s.txt" | head -1)" >> "$S"
  done
  for v in m64n64_d12 m64n64_d8; do
    timeout 150 "$G" bench bench/decode-col/$v.yaml --shapes $IN,$OUTSIDE --rounds 20 > "$L/t64d_$v.txt" 2>&1
    echo "== t64d $v rc=$?" >> "$S"; table "$L/t64d_$v.txt" >> "$S"
  done
fi
bench_finish

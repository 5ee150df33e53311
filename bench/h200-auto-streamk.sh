#!/usr/bin/env bash
# `auto` with split-K in one launch (issue 13): where the model picks the small
# tile with K in 2 slices and the launch cuts each tile into two aligned shares,
# `auto` runs the stream-K kernel (`_sk2`, no reduction launch). Its verify
# (f16, bf16 with β), the chosen-kernel and stream-K GPU tests, then `auto`
# against the same tile split 2 with its reduction (bench/aligned/small_s2.yaml)
# at the shapes it moves and two it leaves (4 shares: split-K 4), two passes,
# cuBLAS in each call.
#   usage (device): bash bench/h200-auto-streamk.sh CARRY
cd "$(dirname "$0")/.." && . bench/lib.sh
bench_init auto_streamk "$1"
verify auto auto 128x4096x11008
verify auto auto 200x2048x7168 --dtype bf16 --beta 0.5
gpu_tests 'StreamK.*:Sm90/ChosenKernel.*/100x4096x11008*:Sm90/ChosenKernel.*/200x2048x7168*:Sm90/ChosenKernel.*/1x2112x7168*'
SHAPES="128x4096x11008 128x4096x14336 256x2048x7168 200x2048x7168 128x2048x8192 64x4096x14336"
list=$(echo $SHAPES | tr ' ' ,)
for pass in 1 2; do
  for s in $SHAPES; do bench_auto "auto_$pass" "$s"; done
  timeout 120 "$G" bench bench/aligned/small_s2.yaml --shapes "$list" --rounds 20 \
    > "$L/s2_$pass.txt" 2>&1
  echo "== pass $pass split 2 rc=$?" >> "$S"; table "$L/s2_$pass.txt" >> "$S"
done
bench_finish

#!/usr/bin/env bash
# Split-K in one launch (issue 13): where a problem has fewer tiles than
# resident CTAs and K cuts evenly, the stream-K launch gives each tile S CTAs
# cut at the same k-blocks (tile_schedule.cuh, sk_grid_ctas) — the owner adds
# S - 1 partials, no reduction kernel — and `auto` takes the small family's
# stream-K kernel where its split would be S. Against the same tile split 2
# and 4 with the reduction launch (what `auto` ran before: bench/aligned/),
# and the stream-K kernel on every resident CTA (GEMMGEN_STREAMK_GRID=full,
# the old grid); two passes, f16, cuBLAS in each call. First the split and
# stream-K GPU tests and `run --verify`; last ncu's launch stats at
# 128x4096x11008.
#   usage (device): bash bench/h200-aligned-streamk.sh CARRY
cd "$(dirname "$0")/.." && . bench/lib.sh
bench_init aligned_streamk "$1"
gpu_tests 'StreamK.*:*plit*:Chosen*'
SK=bench/families/streamk_small
for s in 128x4096x11008 1x4096x11008 128x2048x8192; do verify streamk_small $SK.yaml "$s"; done
verify streamk_small $SK.yaml 100x4096x11008 --beta 0.5
verify auto auto 128x4096x11008
SHAPES="128x4096x11008 128x4096x14336 128x2048x8192 64x4096x14336 256x2048x7168 128x4096x4096 1x4096x11008"
list=$(echo $SHAPES | tr ' ' ,)
for pass in 1 2; do
  for s in $SHAPES; do bench_auto "auto_$pass" "$s"; done
  for v in aligned full s2 s4; do
    spec=$SK.yaml; [ $v = s2 ] && spec=bench/aligned/small_s2.yaml
    [ $v = s4 ] && spec=bench/aligned/small_s4.yaml
    grid=; [ $v = full ] && grid=full
    GEMMGEN_STREAMK_GRID=$grid timeout 120 "$G" bench $spec --shapes "$list" --rounds 20 \
      > "$L/${v}_$pass.txt" 2>&1
    echo "== pass $pass $v rc=$?" >> "$S"; table "$L/${v}_$pass.txt" >> "$S"
  done
done
grep -h "stream_k(" "$L"/aligned_1.txt "$L"/full_1.txt | sort -u | head -4 >> "$S"
ncu_kernels ncu_aligned $SK.yaml --m 128 --n 4096 --k 11008
ncu_kernels ncu_s2 bench/aligned/small_s2.yaml --m 128 --n 4096 --k 11008
bench_finish

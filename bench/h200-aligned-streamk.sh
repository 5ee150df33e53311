#!/usr/bin/env bash
# Split-K in one launch (issue 13): where a problem has fewer tiles than
# resident CTAs and K cuts evenly, GEMMGEN_STREAMK_GRID=aligned gives each
# tile S CTAs cut at the same k-blocks (tile_schedule.cuh, sk_grid_ctas): the
# owner adds S - 1 partials, no reduction kernel. The small tile's stream-K
# kernel (bench/families/streamk_small.yaml) aligned and on every resident CTA
# (GEMMGEN_STREAMK_GRID=full) against `auto` and the same tile split 2 and 4 with the
# reduction launch (bench/aligned/), f16, cuBLAS in each call; a second pass
# of `auto`, split 2 and aligned. `run --verify` first, the split, stream-K and
# chosen-kernel GPU tests between the passes, last ncu's launch stats at
# 128x4096x11008. Run on d5c0755's binaries (docs/PERF.md, "Session of
# 2026-12-07 (twenty-fifth)"); since then the launch aligns by default (any
# value but `full` aligns) and `auto` takes the stream-K kernel at split 2
# (bench/h200-auto-streamk.sh measures that).
#   usage (device): bash bench/h200-aligned-streamk.sh CARRY
#   QUICK=1: one verify, then split 2, aligned and the default grid at three
#   shapes, one pass (for a call with little device time left)
cd "$(dirname "$0")/.." && . bench/lib.sh
bench_init aligned_streamk "$1"
SK=bench/families/streamk_small
if [ -n "${QUICK:-}" ]; then
  GEMMGEN_STREAMK_GRID=aligned verify streamk_small $SK.yaml 128x4096x11008
  for v in s2 aligned full; do
    spec=$SK.yaml grid=full; [ $v = s2 ] && spec=bench/aligned/small_s2.yaml
    [ $v = aligned ] && grid=aligned
    GEMMGEN_STREAMK_GRID=$grid timeout 60 "$G" bench $spec \
      --shapes 128x4096x11008,128x2048x8192,64x4096x14336 --rounds 20 > "$L/quick_$v.txt" 2>&1
    echo "== quick $v rc=$?" >> "$S"; table "$L/quick_$v.txt" >> "$S"
  done
  bench_finish; exit 0
fi
export GEMMGEN_STREAMK_GRID=aligned
for s in 128x4096x11008 1x4096x11008 128x2048x8192; do verify streamk_small $SK.yaml "$s"; done
verify streamk_small $SK.yaml 100x4096x11008 --beta 0.5
unset GEMMGEN_STREAMK_GRID
verify auto auto 128x4096x11008
SHAPES="128x4096x11008 128x4096x14336 128x2048x8192 64x4096x14336 256x2048x7168 128x4096x4096 1x4096x11008"
list=$(echo $SHAPES | tr ' ' ,)
for pass in 1 2; do
  [ $pass = 2 ] && gpu_tests 'StreamK.*:SplitK.*:Sm90/ChosenKernel.*/100x4096x11008*:Sm90/ChosenKernel.*/120x2048x8192*:Sm90/ChosenKernel.*/1x2112x7168*'
  for s in $SHAPES; do bench_auto "auto_$pass" "$s"; done
  vs="aligned full s2 s4"; [ $pass = 2 ] && vs="s2 aligned" # the second pass: the pair that matters
  for v in $vs; do
    spec=$SK.yaml; [ $v = s2 ] && spec=bench/aligned/small_s2.yaml
    [ $v = s4 ] && spec=bench/aligned/small_s4.yaml
    grid=full; [ $v = aligned ] && grid=aligned
    GEMMGEN_STREAMK_GRID=$grid timeout 120 "$G" bench $spec --shapes "$list" --rounds 20 \
      > "$L/${v}_$pass.txt" 2>&1
    echo "== pass $pass $v rc=$?" >> "$S"; table "$L/${v}_$pass.txt" >> "$S"
  done
done
grep -h "stream_k(" "$L"/aligned_1.txt "$L"/full_1.txt | sort -u | head -4 >> "$S"
GEMMGEN_STREAMK_GRID=aligned ncu_kernels ncu_aligned $SK.yaml --m 128 --n 4096 --k 11008
bench_finish

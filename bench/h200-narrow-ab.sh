#!/usr/bin/env bash
# The narrow path against the MMA tiles it replaces, one binary: at each
# shape `choose --spec` gives auto's spec (scheduler.simt_narrow: 2); the same
# spec without the field runs its decode/tall tiles. `bench` each, f16 and
# bf16, two passes (the second in reverse order), each against cuBLAS in its
# process. Written for the H200, where only the experiment's form ran
# (1x4096x14336 and 1x11008x4096 0.97-0.98 of cuBLAS there, the tiles
# 1.00-1.03); on the H100 the kernels were level or ahead everywhere
# (2026-12-05_simt_narrow3_h100).
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-narrow-ab.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init narrow_ab "$1"
SHAPES=${SHAPES:-"1x6144x4096 1x4096x14336 1x2112x7168 1x57344x8192 1x11008x4096 2x57344x8192 \
  2x4096x4096 1x8448x14336 4096x1x4096 14336x2x4096"}
mkdir -p "$L/specs"
for s in $SHAPES; do
  IFS=x read -r m n k <<< "$s"
  for t in f16 bf16; do
    "$G" choose --m "$m" --n "$n" --k "$k" --dtype "$t" --spec > "$L/specs/simt_${t}_$s.yaml"
    sed -e 's/, *simt_narrow: *[0-9]*//' -e 's/_simt2//' "$L/specs/simt_${t}_$s.yaml" \
      > "$L/specs/tiles_${t}_$s.yaml"
  done
done
for pass in 1 2; do
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    for t in f16 bf16; do
      for v in simt tiles; do
        [ $pass = 2 ] && v=$([ $v = simt ] && echo tiles || echo simt)
        log=$L/${v}_${t}_${pass}_$s.txt
        timeout 90 "$G" bench "$L/specs/${v}_${t}_$s.yaml" --m "$m" --n "$n" --k "$k" \
          --rounds 10 > "$log" 2>&1
        echo "pass $pass $v $t $(table "$log")" >> "$S"
      done
    done
  done
done
bench_finish

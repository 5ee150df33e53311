#!/usr/bin/env bash
# Split-K's reduction as a programmatic dependent launch (issue 13, decode shapes), one call:
#   1. the GPU tests of split-K kernels and chosen kernels (new binaries), `run --verify` of
#      specs 12 and 17 and the split 2 / 4 variants at decode and odd shapes;
#   2. bench of the 64x128 split-K kernels (split 2, 4, 8) and `auto` at decode shapes with the
#      binary before the change (OLD: reduction launched plainly after the kernel) and after
#      (NEW: the kernel triggers griddepcontrol.launch_dependents, the reduction is launched with
#      programmatic stream serialization and waits with griddepcontrol.wait), in alternating order,
#      PASSES passes, each against cuBLAS in the same process.
# Prediction (before the run): the reduction's launch gap (~3-5 us of the model's 6.0 us per
# split launch) leaves the critical path: split kernels at decode shapes 2-4 us faster, e.g.
# 1x2112x7168 split 4 ~16 -> ~13 us, 1x4096x14336 split 4 ~36 -> ~33 us; unsplit kernels unchanged.
#   usage (device): bash bench/h200-splitk-pdl.sh CARRY [PASSES]
#   CARRY: gemmgen (new), gemmgen-old, gemmgen_gpu_tests (new)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-2}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/pdl; rm -rf "$L"; mkdir -p "$L"
S=$OUT/pdl-summary.txt
export GEMMGEN_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
export GEMMGEN_CACHE_DIR=$C/cache-new
timeout 300 "$C/gemmgen_gpu_tests" --gtest_filter='*plit*:*hosen*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests (split, chosen) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$S"
for spec in specs/sm90/12_splitk_f16.yaml bench/splitk-variants/d_64x128_split2.yaml \
            bench/splitk-variants/e_64x128_split4.yaml specs/sm90/17_splitk_blockwise_e4m3.yaml; do
  for s in 1x2112x7168 16x4096x4096 100x1000x2048 129x4000x4096; do
    IFS=x read -r m n k <<< "$s"
    n8=$(( (n + 7) / 8 * 8 ))
    timeout 60 "$C/gemmgen" run $spec --m $m --n $n --k $k --ldd $n8 --verify --iters 50 \
      > "$L/verify_$(basename $spec .yaml)_$s.txt" 2>&1
    echo "verify $(basename $spec .yaml) $s rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_$(basename $spec .yaml)_$s.txt" | head -1)" >> "$S"
  done
done
SH=1x2112x7168,1x4096x14336,32x4096x14336,16x8192x28672,16x7168x16384,1x6144x4096,16x4096x4096,4x28672x4096,1x11008x4096,128x4096x11008
for pass in $(seq 1 $PASSES); do
  order="old new"; [ $((pass % 2)) -eq 0 ] && order="new old"
  for v in $order; do
    G=$C/gemmgen; [ $v = old ] && G=$C/gemmgen-old
    export GEMMGEN_CACHE_DIR=$C/cache-$v
    for spec in bench/splitk-variants/d_64x128_split2.yaml bench/splitk-variants/e_64x128_split4.yaml \
                specs/sm90/12_splitk_f16.yaml auto; do
      n=$(basename $spec .yaml)-$v-$pass
      timeout 120 "$G" bench $spec --dtype f16 --shapes $SH --rounds 15 --json "$L/bench_$n.json" \
        > "$L/bench_$n.txt" 2>&1
      echo "bench $n rc=$?: $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$L/bench_$n.txt" | awk '{printf "%s %s/%s %s; ", $1, $3, $5, $7}')" >> "$S"
    done
  done
done
tar czf "$OUT/pdl-logs.tgz" -C "$OUT" pdl && rm -rf "$L"
cat "$S"

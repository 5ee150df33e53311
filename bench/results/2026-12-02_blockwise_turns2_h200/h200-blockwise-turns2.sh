#!/usr/bin/env bash
# EXPERIMENT (branch exp-turns2): spec 15's consumers take turns issuing a
# k-block's wgmmas, handing over after their wait (late) or with one wgmma
# left (early); GEMMGEN_EXP_TURNS selects the printer's form. Verify each,
# then bench against cuBLASLt's blockwise mode, two passes, with tile.n 128 and 192.
#   usage (device): bash bench/h200-blockwise-turns2.sh CARRY
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/bt2; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml N192=bench/variants/blockwise/n192.yaml
SHAPES=4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168,128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
for mode in none late early; do
  if [ $mode = none ]; then unset GEMMGEN_EXP_TURNS; else export GEMMGEN_EXP_TURNS=$mode; fi
  for s in $S15 $N192; do
    for mnk in 1000x1001x640 129x449x160 4096x7168x2048; do
      IFS=x read -r m n k <<< "$mnk"; t=${mode}_$(basename $s .yaml)_$mnk
      timeout 60 "$G" run $s --m $m --n $n --k $k --verify --iters 3 > "$L/run_$t.txt" 2>&1
      echo "run $mode $s $mnk rc=$?: $(grep -iE 'verif' "$L/run_$t.txt" | head -1 | cut -c1-120)" >> "$L/summary.txt"
    done
  done
done
for pass in 1 2; do
  for mode in none late early; do
    if [ $mode = none ]; then unset GEMMGEN_EXP_TURNS; else export GEMMGEN_EXP_TURNS=$mode; fi
    for s in $S15 $N192; do
      t=${mode}_$(basename $s .yaml)_$pass
      timeout 200 "$G" bench $s --shapes $SHAPES --rounds 10 --json "$L/bench_$t.json" > "$L/bench_$t.txt" 2>&1
      echo "bench $t rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
      grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$t.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
    done
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_turns2_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

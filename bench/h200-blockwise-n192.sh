#!/usr/bin/env bash
# Spec 19 (blockwise e4m3, 128x192 tile) on the H200: every GPU test, `run
# --verify` of spec 19, then specs 15 and 19 against cuBLASLt's blockwise mode
# on the DeepSeek-V3 projection shapes, two passes in one call.
#   usage (device): bash bench/h200-blockwise-n192.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/bn; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml S19=specs/sm90/19_blockwise_e4m3_n192.yaml
SHAPES=4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168,128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
for mnk in 1000x1001x640 300x449x520 4096x2112x7168; do
  IFS=x read -r m n k <<< "$mnk"
  timeout 60 "$G" run $S19 --m $m --n $n --k $k --verify --iters 3 > "$L/run_$mnk.txt" 2>&1
  echo "run spec 19 $mnk rc=$?: $(grep -iE 'verif' "$L/run_$mnk.txt" | head -1 | cut -c1-140)" >> "$L/summary.txt"
done
for pass in 1 2; do
  for s in $S15 $S19; do
    t=$(basename $s .yaml | cut -c1-2)_$pass
    timeout 200 "$G" bench $s --shapes $SHAPES --rounds 15 --json "$L/bench_$t.json" > "$L/bench_$t.txt" 2>&1
    echo "bench spec $t rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$t.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_n192_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

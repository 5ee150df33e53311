#!/usr/bin/env bash
# Blockwise e4m3 with other tile widths (bench/variants/blockwise/n192, n64)
# and, to tell the tile's cost from the promotion's, per-tensor spec 13 at
# 128x128 and 128x192 (bench/variants/fp8/): the Fp8 GPU tests, `run
# --verify` of each variant, then each against cuBLASLt (blockwise mode for
# the blockwise specs, per-tensor fp8 for spec 13's) on the DeepSeek-V3 shapes.
#   usage (device): bash bench/h200-blockwise-tiles.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/bt; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml S13=specs/sm90/13_fast_e4m3.yaml
V=bench/variants
SMALL=128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168
LARGE=4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
timeout 300 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8*' > "$L/gpu_tests.log" 2>&1
echo "fp8 gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
for s in $V/blockwise/n192.yaml $V/blockwise/n64.yaml; do
  for mnk in 1000x1001x640 300x449x520 4096x7168x2048 128x2112x7168; do
    IFS=x read -r m n k <<< "$mnk"
    t=$(basename "$s" .yaml)_$mnk
    timeout 60 "$G" run $s --m $m --n $n --k $k --verify --iters 3 > "$L/run_$t.txt" 2>&1
    echo "run $s $mnk rc=$?: $(grep -iE 'verif' "$L/run_$t.txt" | head -1 | cut -c1-140)" >> "$L/summary.txt"
  done
done
bench() { # name spec shapes rounds
  timeout 240 "$G" bench "$2" --shapes "$3" --rounds "$4" --json "$L/bench_$1.json" > "$L/bench_$1.txt" 2>&1
  echo "bench $1 ($2) rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$1.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
}
for pass in 1 2; do
  bench bw15_$pass $S15 $LARGE,$SMALL 10
  bench bw192_$pass $V/blockwise/n192.yaml $LARGE,$SMALL 10
done
bench bw64 $V/blockwise/n64.yaml $SMALL 10
bench pt13 $S13 $LARGE 10
bench pt128 $V/fp8/n128.yaml $LARGE 10
bench pt192 $V/fp8/n192.yaml $LARGE 10
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_tiles_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Blockwise scales loaded a k-block ahead (spec 15): every GPU test, `run
# --verify`, then spec 15 against cuBLASLt's blockwise mode on the DeepSeek-V3
# shapes, twice, and ncu's warp-stall sampling at 4096x7168x2048.
#   usage (device): bash bench/h200-blockwise-ahead.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/ba; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml
SHAPES=128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168,4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
for mnk in 4096x7168x2048 1000x1001x640; do
  IFS=x read -r m n k <<< "$mnk"
  timeout 60 "$G" run $S15 --m $m --n $n --k $k --verify --iters 5 > "$L/run_$mnk.txt" 2>&1
  echo "run $mnk rc=$?: $(grep -iE 'verif' "$L/run_$mnk.txt" | head -1 | cut -c1-160)" >> "$L/summary.txt"
done
for pass in 1 2; do
  timeout 200 "$G" bench $S15 --shapes $SHAPES --rounds 15 --json "$L/bench_$pass.json" > "$L/bench_$pass.txt" 2>&1
  echo "bench spec 15 pass $pass rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$pass.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
done
timeout 200 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --import-source no -o "$L/bw15" -f "$G" run $S15 --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu.log" 2>&1
ncu -i "$L/bw15.ncu-rep" --page source --print-source sass --csv > "$L/src_bw15.csv" 2>/dev/null
ncu -i "$L/bw15.ncu-rep" --print-details all > "$L/ncu_bw15.txt" 2>&1
echo "ncu: $(grep -E 'Duration|Compute \(SM\) Throughput' "$L/ncu_bw15.txt" | tr -s ' ' | tr '\n' ' ')" >> "$L/summary.txt"
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_ahead_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

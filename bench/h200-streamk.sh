#!/usr/bin/env bash
# Stream-K (specs/sm90/18_streamk_f16.yaml) on the H200: every GPU test (spec
# 18 in every suite, StreamK.RepeatedLaunchesStayRight), `run --verify`, then
# bench of spec 18 and spec 05 (same tile, persistent) against cuBLAS on
# shapes whose tiles do not fill whole waves of 132 SMs, twice.
#   usage (device): bash bench/h200-streamk.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/sk; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
grep -E -A4 ': Failure$' "$L/gpu_tests.log" | head -40 | cut -c1-250 >> "$L/summary.txt"
grep -E '^\[ result \] 18_streamk' "$L/gpu_tests.log" | cut -c1-200 > "$L/streamk_results.txt"
for s in "--m 768 --n 3072 --k 3072" "--m 1000 --n 1001 --k 640 --beta 0.5"; do
  timeout 60 "$G" run specs/sm90/18_streamk_f16.yaml $s --verify --iters 0 > "$L/run.txt" 2>&1
  echo "run 18 $s rc=$?: $(grep -iE 'verify|error|path' "$L/run.txt" | head -3 | tr '\n' ' ' | cut -c1-250)" >> "$L/summary.txt"
done
SH=768x3072x3072,1536x1536x1536,3072x768x3072,2304x4608x4608,3000x5000x2048,7168x2048x4096,4096x4096x4096,8192x8192x8192
for pass in 1 2; do
  for s in specs/sm90/18_streamk_f16.yaml specs/sm90/05_fast_f16.yaml; do
    n=$(basename $s .yaml)_$pass
    timeout 240 "$G" bench $s --shapes $SH --rounds 10 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "bench $s pass $pass rc=$?:" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $3, $4, $5, $6, $7}' >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/streamk_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# The closing run on the H200 for one session's work, one command:
#   1. every GPU test (specs x shapes, D bounds with poisoned guard zones,
#      threads, K = 0, checks table, watchdog),
#   2. the runtime checks of bench/h200-runtime15.sh (bounds, the 129x257x72
#      ldd 264 shape, the tail kernel's cost),
#   3. the README's main command with the carried binary,
#   4. tools/example built on this machine against the package installed
#      elsewhere (find_package from a prefix that was made on another machine),
#   5. the Python package: its tests against torch.matmul and the per-call
#      overhead (bench/h200-python.sh),
#   6. the headline (05/06 at 4096^3 and 8192^3) with the binary of an earlier
#      commit (BEFORE) and this one, interleaved, R repeats, each vs cuBLAS.
#   usage (device): bash bench/h200-closing.sh CARRY WHEELS PKG [BEFORE] [R]
#     CARRY: gemmgen + gemmgen_gpu_tests; WHEELS: the cp312 wheel; PKG: cmake --install prefix
set -u
C=$1; W=$2; P=$3; BEFORE=${4:-}; R=${5:-2}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/logs; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
date -u > "$L/date.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/smi.txt" 2>&1
timeout 360 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
OUT=$L bash bench/h200-runtime15.sh "$C" > "$L/runtime15.txt" 2>&1
mkdir -p build/tools && cp "$C/gemmgen" build/tools/gemmgen
GEMMGEN_SKIP_SETUP=1 timeout 120 bash scripts/main.sh > "$L/main.log" 2>&1; MAIN=$?
( cmake -S tools/example -B /tmp/ex -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$P" -DCMAKE_BUILD_TYPE=Release \
  && ninja -C /tmp/ex && /tmp/ex/gemmgen_example specs/sm90/05_fast_f16.yaml 1000 1000 512 ) > "$L/example.log" 2>&1; EX=$?
OUT=$L bash bench/h200-python.sh "$W" > "$L/python.txt" 2>&1
# the tune library on the GPU: bench's JSON names the built commit; a 2-candidate tune records it too
timeout 120 "$C/gemmgen" bench specs/sm90/05_fast_f16.yaml --m 4096 --n 4096 --k 4096 --rounds 10 --json "$L/bench_commit.json" > "$L/bench_commit.log" 2>&1; BC=$?
timeout 240 "$C/gemmgen" tune specs/sm90/03_ws_2consumers.yaml --m 4096 --n 4096 --k 4096 tile.n=192,256 pipeline.depth=4 \
  --db "$L/tune.jsonl" > "$L/tune.log" 2>&1; TU=$?
for r in $(seq 1 "$R"); do for s in 05_fast_f16 06_fast_bf16; do for w in before after; do
  G=$C/gemmgen; [ $w = before ] && G=$BEFORE/gemmgen; [ -x "$G" ] || continue
  echo "-- repeat $r $s $w"
  timeout 120 "$G" bench specs/sm90/$s.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 30 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+' | cut -c1-100
done; done; done > "$L/headline.txt" 2>&1
tar czf "$OUT/closing-logs.tgz" -C "$OUT" logs
echo "===== $(cat "$L/date.txt")  $(tail -1 "$L/smi.txt")"
echo "gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10
echo "main rc=$MAIN: $(grep -E 'verify|TFLOP|error' "$L/main.log" | tr '\n' ' ' | cut -c1-300)"
echo "example rc=$EX: $(tail -2 "$L/example.log" | tr '\n' ' ' | cut -c1-200)"
echo "bench --json rc=$BC: $(grep -o '"commit": *"[^"]*"' "$L/bench_commit.json" | head -1)"
echo "tune rc=$TU: $(tail -3 "$L/tune.log" | tr '\n' ' ' | cut -c1-250)"
grep -o '"commit": *"[^"]*"\|"cublas_version": *"[^"]*"\|"error": *"[^"]*"' "$L/tune.jsonl" | sort | uniq -c
cut -c1-200 "$L/runtime15.txt"; cut -c1-200 "$L/python.txt" | grep -v -E '^ - |nanobind: leaked|See https'
cat "$L/headline.txt"

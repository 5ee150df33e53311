#!/usr/bin/env bash
# The staging path on the H200: every GPU test (the Staged suite: every sm90 spec x packed odd
# K and N, odd ld, pointers one element off, C = D in place with odd rows, K = 4100), `run
# --verify` with unaligned operands, and bench of the issue's unaligned shapes against cuBLAS
# (packed 8191 x 8191 x 8192 and 4096 x 50257 x 4096: D's rows are not 16-byte multiples, so D
# is computed into an aligned copy and copied out), next to the aligned 8192^3.
#   usage (device): bash bench/h200-staged.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/staged; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for args in "--m 129 --n 257 --k 100 --lda 100 --ldb 100 --ldd 257" "--m 1000 --n 1001 --k 520 --offset 1" \
            "--m 4096 --n 4096 --k 4100 --lda 4100 --ldb 4100" "--m 300 --n 200 --k 136 --layout col,row,col --ldd 301 --beta 1 --c-in-place" \
            "--m 257 --n 129 --k 72 --out-dtype f32 --ldd 131 --offset 1"; do
  f="$L/run_$(echo $args | tr -d ' -' | tr '.,' 'pc').txt"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml $args --verify --iters 0 --json > "$f" 2>&1
  echo "run $args rc=$? $(grep -E '"path"|"pass"|error' "$f" | tr -d ' \n' | cut -c1-100)"
done | tee "$L/runs.txt"
for dt in f16 bf16; do
  spec=specs/sm90/05_fast_f16.yaml; [ $dt = bf16 ] && spec=specs/sm90/06_fast_bf16.yaml
  echo "-- bench $dt unaligned (packed odd N) and aligned"
  timeout 300 "$G" bench $spec --shapes 8191x8191x8192,4096x50257x4096,8192x8192x8192 --rounds 10 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-130
done | tee "$L/bench.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
tar czf "${OUT:-/tmp}/staged-logs.tgz" -C "$L" . && rm -rf "$L"

#!/usr/bin/env bash
# chooseFp8Kernel on the H200: every GPU test (the chosen fp8 kernels among the
# Fp8Gemm cases), then per scaling mode the fixed spec (13 per-tensor, 15
# blockwise) and `bench auto --dtype e4m3 [--scaling blockwise]`, one process
# per shape and kernel (and the fixed spec on all shapes in one process, as
# earlier runs measured it), each against cuBLASLt in the same process (ratio = cuBLASLt time ÷
# gemmgen time), on the DeepSeek-V3 shapes and squares the fit saw and on
# shapes it never saw (validation). PASSES passes; the table is printed last.
#   usage (device): bash bench/h200-fp8-choice.sh CARRY [PASSES]   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
#   SKIP_TESTS=1: the benches only (the GPU tests ran in an earlier call);
#   VAL_MORE: validation shapes past the first ten (default: five decode shapes;
#   the first run, 2026-12-02_fp8_choice_h200, had none: VAL_MORE=" ")
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-1}
L=/tmp/fc; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
FIT="128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 4096x4096x4096 8192x8192x8192"
VAL="64x7168x2048 256x7168x2048 512x4096x7168 1024x2112x7168 2048x7168x2048 16x7168x18432 256x14336x4096 1024x1024x8192 3072x3072x3072 6144x6144x2048 ${VAL_MORE:-8x2112x7168 2x4096x14336 32x4096x7168 48x7168x18432 96x2112x7168}"
ALL=$(echo $FIT $VAL | tr ' ' ',')
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
  echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$L/summary.txt"
  grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
fi
for pass in $(seq 1 "$PASSES"); do
  for sc in per_tensor blockwise; do
    fixed=specs/sm90/13_fast_e4m3.yaml; [ $sc = blockwise ] && fixed=specs/sm90/15_blockwise_e4m3.yaml
    # All shapes in one process too (how earlier runs measured the fixed specs).
    timeout 300 "$G" bench $fixed --shapes $ALL --rounds 10 --json "$L/fixedall_${sc}_$pass.json" > "$L/fixedall_${sc}_$pass.txt" 2>&1
    echo "bench fixed $sc (all shapes in one process) pass $pass rc=$?" >> "$L/summary.txt"
    for s in $FIT $VAL; do
      IFS=x read -r m n k <<< "$s"
      # Fixed and chosen each in a process of their own, one shape each.
      timeout 120 "$G" bench $fixed --m $m --n $n --k $k --rounds 10 \
        --json "$L/fixed_${sc}_${s}_$pass.json" > "$L/fixed_${sc}_${s}_$pass.txt" 2>&1 ||
        echo "bench fixed $sc $s pass $pass rc=$?" >> "$L/summary.txt"
      timeout 120 "$G" bench auto --dtype e4m3 --scaling $sc --m $m --n $n --k $k --rounds 10 \
        --json "$L/auto_${sc}_${s}_$pass.json" > "$L/auto_${sc}_${s}_$pass.txt" 2>&1 ||
        echo "bench auto $sc $s pass $pass rc=$?" >> "$L/summary.txt"
    done
  done
done
python3 bench/fp8_choice_summary.py "$L" "$FIT" "$VAL" >> "$L/summary.txt" 2>&1
tar -C "$L" -czf "${OUT:-/tmp}/fp8_choice_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# fp8 on the H200 after blockwise scaling, one call:
#   1. every GPU test (Fp8Gemm's blockwise cases among them);
#   2. bench/h200-lt.sh: spec 14 vs cuBLASLt GELU_BIAS and GEMM + pass, spec 13 vs cuBLASLt fp8;
#   3. `run --verify` of spec 15 (blockwise) and spec 13 (per-tensor) on the DeepSeek-V3
#      projection shapes (gemmgen TFLOP/s; cuBLASLt's blockwise mode is not in bench yet);
#   4. accuracy: f32 output, every scale 1, spec 13 (fp8 accumulation over all of K) against
#      spec 15 (promoted every 128) at 4096^3 and 4096x7168x18432, both vs the f32 reference.
#   usage (device): bash bench/h200-fp8-blockwise.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/bw; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
date -u > "$L/date.txt"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
OUT=$L bash bench/h200-lt.sh "$C" > "$L/lt_console.txt" 2>&1
runs() { # spec label args...
  local spec=$1 label=$2; shift 2
  timeout 120 "$G" run "$spec" "$@" --verify --iters 30 --json > "$L/run_$label.json" 2> "$L/run_$label.err"
  echo "$label rc=$? $(python3 -c "import json; j=json.load(open('$L/run_$label.json')); v=j.get('verify',{}); print(f\"{j['M']}x{j['N']}x{j['K']} {j['tflops']:.1f} TF/s {j['time_ms']['median']:.4f} ms rel_err {v.get('rel_frobenius',-1):.3e} pass {v.get('pass')} {j['out_dtype']} {j['path']}\")" 2>/dev/null || tail -2 "$L/run_$label.err")" >> "$L/summary.txt"
}
S13=specs/sm90/13_fast_e4m3.yaml S15=specs/sm90/15_blockwise_e4m3.yaml
for m in 128 4096; do for nk in 7168x2048 4096x7168 7168x18432 2112x7168; do
  n=${nk%x*} k=${nk#*x}
  runs $S15 "bw_${m}x${nk}" --m $m --n $n --k $k
  runs $S13 "pt_${m}x${nk}" --m $m --n $n --k $k --scale-a 0.5 --scale-b 2
done; done
for s in "4096 4096 4096" "4096 7168 18432"; do set -- $s
  runs $S13 "acc_pt_$1x$2x$3" --m $1 --n $2 --k $3 --out-dtype f32 --scale-a 1 --scale-b 1
  runs $S15 "acc_bw_$1x$2x$3" --m $1 --n $2 --k $3 --out-dtype f32 --scale-a 1 --scale-b 1
done
tar czf "${OUT:-/tmp}/bw-logs.tgz" -C "$L" .
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -15
grep -h '^\[ result \] fp8' "$L/gpu_tests.log" | cut -c1-170
cat "$L/lt-table.txt" 2>/dev/null | head -60
echo "== $(cat "$L/date.txt") $(cat "$L/gpu.txt")"; cat "$L/summary.txt"

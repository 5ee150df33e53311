#!/usr/bin/env bash
# The epilogue chain's cost and blockwise fp8 with two partial sums, on the H200 (one call):
#   1. bench at 4096^3 of spec 06 with the chains relu, bias, gelu_tanh, bias+gelu_erf
#      (bench/chain-variants) and spec 14 (bias+gelu_tanh): where the chain costs;
#   2. `run --verify` of spec 15 (one partial sum) and its two-partials variant on the
#      DeepSeek-V3 shapes, and both at f32 output (accuracy).
#   usage (device): bash bench/h200-wave3.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/w3; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
date -u > "$L/date.txt"
for s in specs/sm90/06_fast_bf16.yaml bench/chain-variants/06_chain_relu.yaml bench/chain-variants/06_chain_bias.yaml \
         bench/chain-variants/06_chain_gelu.yaml bench/chain-variants/06_chain_bias_gelu_erf.yaml specs/sm90/14_fast_bf16_bias_gelu.yaml; do
  n=$(basename $s .yaml)
  timeout 200 "$G" bench $s --shapes 4096x4096x4096 --rounds 20 > "$L/bench_$n.txt" 2>&1
  echo "$n rc=$?: $(grep -E '^ *4096x' "$L/bench_$n.txt" | head -1 | cut -c1-150)" >> "$L/summary.txt"
done
runs() { # spec label args...
  local spec=$1 label=$2; shift 2
  timeout 120 "$G" run "$spec" "$@" --verify --iters 30 --json > "$L/run_$label.json" 2> "$L/run_$label.err"
  echo "$label rc=$? $(python3 -c "import json; j=json.load(open('$L/run_$label.json')); v=j.get('verify',{}); print(f\"{j['M']}x{j['N']}x{j['K']} {j['tflops']:.1f} TF/s {j['time_ms']['median']:.4f} ms rel_err {v.get('rel_frobenius',-1):.3e} pass {v.get('pass')} {j['out_dtype']}\")" 2>/dev/null || tail -2 "$L/run_$label.err")" >> "$L/summary.txt"
}
S1=specs/sm90/15_blockwise_e4m3.yaml S2=bench/variants/15_blockwise_two_partials.yaml
for m in 128 4096; do for nk in 7168x2048 4096x7168 7168x18432 2112x7168; do
  n=${nk%x*} k=${nk#*x}
  runs $S1 "one_${m}x${nk}" --m $m --n $n --k $k
  runs $S2 "two_${m}x${nk}" --m $m --n $n --k $k
done; done
runs $S1 acc_one --m 4096 --n 7168 --k 18432 --out-dtype f32 --scale-a 1 --scale-b 1
runs $S2 acc_two --m 4096 --n 7168 --k 18432 --out-dtype f32 --scale-a 1 --scale-b 1
tar czf "${OUT:-/tmp}/w3-logs.tgz" -C "$L" .
echo "== $(cat "$L/date.txt") $(cat "$L/gpu.txt")"; cat "$L/summary.txt"

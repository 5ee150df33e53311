#!/usr/bin/env bash
# EXPERIMENT (branch exp-turns2): what a blockwise k-block costs beyond the
# per-tensor kernel's. Same call: spec 15 as it is, with its promotion's
# FFMAs removed (GEMMGEN_EXP_NOPROMOTE, timing only: D is wrong, bench says so and times it), with the
# consumers taking turns (GEMMGEN_EXP_TURNS early / late, verified), and
# per-tensor spec 13 at 128x128 with mma_in_flight 1 and 0; then ncu on four.
#   usage (device): bash bench/h200-blockwise-bound.sh CARRY
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/bb; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml P128=bench/variants/fp8/n128.yaml P0=bench/variants/fp8/n128_wait0.yaml
SHAPES=4096x7168x2048,4096x4096x7168,4096x7168x18432,128x7168x18432
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
with() { # MODE: none | late | early | nopromote
  unset GEMMGEN_EXP_TURNS GEMMGEN_EXP_NOPROMOTE
  case $1 in late|early) export GEMMGEN_EXP_TURNS=$1 ;; nopromote) export GEMMGEN_EXP_NOPROMOTE=1 ;; esac
}
for mode in none late early; do
  with $mode
  for mnk in 1000x1001x640 4096x7168x2048; do
    IFS=x read -r m n k <<< "$mnk"
    timeout 60 "$G" run $S15 --m $m --n $n --k $k --verify --iters 3 > "$L/run_${mode}_$mnk.txt" 2>&1
    echo "run $mode $mnk rc=$?: $(grep -iE 'verif' "$L/run_${mode}_$mnk.txt" | head -1 | cut -c1-120)" >> "$L/summary.txt"
  done
done
for pass in 1 2; do
  for run in none:$S15 nopromote:$S15 early:$S15 late:$S15 none:$P128 none:$P0; do
    mode=${run%%:*} s=${run#*:}; with $mode
    t=${mode}_$(basename $s .yaml)_$pass
    timeout 200 "$G" bench $s --shapes $SHAPES --rounds 10 --json "$L/bench_$t.json" > "$L/bench_$t.txt" 2>&1
    echo "bench $t rc=$?: shape, gemmgen ms, other ms, ratio" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$t.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
for run in none:$S15 nopromote:$S15 none:$P128 none:$P0; do
  mode=${run%%:*} s=${run#*:}; with $mode; t=${mode}_$(basename $s .yaml)
  timeout 120 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section InstructionStats \
    -o "$L/$t" -f "$G" run $s --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu_$t.log" 2>&1
  ncu -i "$L/$t.ncu-rep" --print-details all > "$L/ncu_$t.txt" 2>&1
  echo "ncu $t: $(grep -E 'Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|No Eligible' "$L/ncu_$t.txt" | tr -s ' ' | tr '\n' ' ')" >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_bound_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Experiment (branch exp-blockwise-turns, not main): spec 15's two consumers
# take turns issuing their k-block's wgmmas (named barriers 3 and 4, emitted
# when GEMMGEN_EXP_TURNS is set), so one promotes on the CUDA cores while the
# other's wgmmas run. `run --verify` first (timeouts catch a hang), then bench
# against cuBLASLt's blockwise mode on the DeepSeek-V3 shapes, without and with
# the turns, twice.
#   usage (device): bash bench/h200-blockwise-turns.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/bt; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S15=specs/sm90/15_blockwise_e4m3.yaml
SHAPES=128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168,4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168
: > "$L/summary.txt"
for mnk in 4096x7168x2048 1000x1001x640 128x2112x7168 4096x4096x7168; do
  IFS=x read -r m n k <<< "$mnk"
  GEMMGEN_EXP_TURNS=1 timeout 60 "$G" run $S15 --m $m --n $n --k $k --verify --iters 5 > "$L/run_turns_$mnk.txt" 2>&1
  echo "run turns $mnk rc=$?: $(grep -iE 'verif|error|mismatch' "$L/run_turns_$mnk.txt" | head -2 | tr '\n' ' ' | cut -c1-200)" >> "$L/summary.txt"
done
for pass in 1 2; do
  for t in 0 1; do
    if [ $t = 1 ]; then export GEMMGEN_EXP_TURNS=1; else unset GEMMGEN_EXP_TURNS; fi
    timeout 200 "$G" bench $S15 --shapes $SHAPES --rounds 15 --json "$L/bench_t${t}_$pass.json" > "$L/bench_t${t}_$pass.txt" 2>&1
    echo "bench spec 15 turns=$t pass $pass rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_t${t}_$pass.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
unset GEMMGEN_EXP_TURNS
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_turns_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# After the drain fix (the wgmma wait before a tile's epilogue on every path):
# ptxas had serialised every wgmma of the stream-K (C7518) and grouped (C7514,
# C7517) kernels. Every GPU test, then spec 18 (stream-K) and spec 05
# (persistent) on the stream-K shapes of bench/h200-streamk.sh, twice, and the
# grouped runs of bench/h200-grouped.sh (spec 11), f16 and bf16; then the
# decode shapes: the chooser's kernel against stream-K with the 64x128 tile.
#   usage (device): bash bench/h200-wgmma-serial.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/ws; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
grep -E -A4 ': Failure$' "$L/gpu_tests.log" | head -40 | cut -c1-250 >> "$L/summary.txt"
SH=768x3072x3072,1536x1536x1536,3072x768x3072,2304x4608x4608,3000x5000x2048,7168x2048x4096,4096x4096x4096,8192x8192x8192
for pass in 1 2; do
  for s in specs/sm90/18_streamk_f16.yaml specs/sm90/05_fast_f16.yaml; do
    n=$(basename $s .yaml)_$pass
    timeout 240 "$G" bench $s --shapes $SH --rounds 10 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "bench $s pass $pass rc=$?:" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
for dt in f16 bf16; do
  for nk in "4096 7168" "7168 2048"; do
    set -- $nk
    timeout 200 "$G" bench specs/sm90/11_fast_f16_grouped.yaml --dtype $dt --groups bench/groups/moe64.txt \
      --n $1 --k $2 --rounds 20 > "$L/grouped_${dt}_$1x$2.txt" 2>&1
    echo "bench grouped $dt moe64 N=$1 K=$2 rc=$?: $(grep -E '^grouped|error' "$L/grouped_${dt}_$1x$2.txt" | cut -c1-140)" >> "$L/summary.txt"
  done
done
DEC="1x6144x4096 16x4096x4096 1x4096x14336 16x10240x8192 16x8192x28672 1x2112x7168 16x7168x16384 1x11008x4096 8x14336x4096 4x28672x4096 1x57344x8192"
echo "decode: shape, auto (the chooser) ms, stream-K 64x128 ms, cuBLAS ms (from the stream-K run), ratio" >> "$L/summary.txt"
for sh in $DEC; do
  IFS=x read -r m n k <<< "$sh"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/dec_auto_$sh.txt" 2>&1
  timeout 60 "$G" bench bench/families/streamk_small.yaml --m $m --n $n --k $k --rounds 20 > "$L/dec_sk_$sh.txt" 2>&1
  a=$(grep -E '^ *[0-9]+x' "$L/dec_auto_$sh.txt" | awk '{print $3}')
  echo "$sh $a $(grep -E '^ *[0-9]+x|error' "$L/dec_sk_$sh.txt" | awk '{print $3, $5, $7}')" >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/wgmma_serial_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

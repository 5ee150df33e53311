#!/usr/bin/env bash
# Before building a decode kernel: does streaming the weights through wgmma's
# M side (D^T = W·X^T, the tokens on N) reach cuBLAS's decode times? The
# existing kernels compute the transposed problems N x T x K (T = 16 or 8
# tokens as the kernel's N, a 64-column tile of mostly padding), and `bench
# auto` times the real decode shapes (the current choice and cuBLAS) in the
# same call. Kernel time for the transposed problem is the decode kernel's
# time less its transposed store (D is at most 16 x N x 2 bytes).
#   usage (device): bash bench/h200-decode-proxy.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/dp; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
REAL=1x6144x4096,16x4096x4096,1x4096x14336,16x10240x8192,16x8192x28672,1x2112x7168,16x7168x16384,1x11008x4096,8x14336x4096,4x28672x4096,1x57344x8192
T16=6144x16x4096,4096x16x4096,4096x16x14336,10240x16x8192,8192x16x28672,2112x16x7168,7168x16x16384,11008x16x4096,14336x16x4096,28672x16x4096,57344x16x8192
: > "$L/summary.txt"
timeout 200 "$G" bench auto --shapes $REAL --rounds 20 --json "$L/real_auto.json" > "$L/real_auto.txt" 2>&1
echo "bench auto (real decode shapes) rc=$?:" >> "$L/summary.txt"
grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/real_auto.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
for s in bench/families/narrow_d8.yaml bench/families/decode_proxy_d12.yaml bench/families/decode_proxy_m128_d7.yaml; do
  n=$(basename $s .yaml)
  timeout 200 "$G" bench $s --shapes $T16 --rounds 20 --json "$L/t16_$n.json" > "$L/t16_$n.txt" 2>&1
  echo "bench $n (transposed, 16 tokens) rc=$?:" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/t16_$n.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/decode_proxy_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

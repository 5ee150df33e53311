#!/usr/bin/env bash
# Which kernels cuBLAS / cuBLASLt run where gemmgen is still slower (issues 12 and 13), read
# with ncu from one `bench` process per shape (clocks as found): every kernel of the process
# (no name filter), its grid, block, registers, shared memory, duration and DRAM traffic.
# The question before building anything more for these shapes: how does the library's kernel
# differ from ours — split K and a second kernel at decode, a tile that avoids K = 4104's
# straddling rows, the blockwise fp8 kernel's warp layout and tile.
#   usage (device): bash bench/h200-cublas-kernels.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/kernels; rm -rf "$L"; mkdir -p "$L"
S=$OUT/kernels-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
one() { # name, then bench arguments
  local name=$1; shift
  timeout 240 ncu --clock-control none --launch-count 40 --section LaunchStats --metrics $METRICS \
    "$G" bench "$@" --rounds 1 --warmup 1 > "$L/$name.txt" 2>&1
  echo "== $name ($*) rc=$?" >> "$S"
  # kernel header lines ("  name (gx, gy, gz)x(bx, by, bz), Context ...") and the figures after each
  awk 'function flush() { if (k != "") print k " | " t " | dram " b " | regs " r " | dsmem " d " | clk " c }
       /^  [^ ].*\([0-9]+, [0-9]+, [0-9]+\)x\(/ { flush(); split($0, p, ", Context"); k = p[1]; t = b = r = d = c = "-" }
       /gpu__time_duration.sum/ { t = $NF " " $(NF-1) }
       /dram__bytes_read.sum / { b = $NF " " $(NF-1) }
       /Registers Per Thread/ { r = $NF }
       /Dynamic Shared Memory Per Block/ { d = $NF " " $(NF-1) }
       /sm__cycles_elapsed.avg.per_second/ { c = $NF " " $(NF-1) }
       END { flush() }' \
    "$L/$name.txt" | sed 's/^ *//' | grep -v -E '(fill_normal|compare|poison)' | head -40 >> "$S"
}
one decode_1x6144x4096 auto --m 1 --n 6144 --k 4096
one decode_16x4096x4096 auto --m 16 --n 4096 --k 4096
one decode_1x2112x7168 auto --m 1 --n 2112 --k 7168
one decode_4x28672x4096 auto --m 4 --n 28672 --k 4096
one decode_1x57344x8192 auto --m 1 --n 57344 --k 8192
one kres_4096x4096x4104 auto --m 4096 --n 4096 --k 4104
one wave_768x3072x3072 auto --m 768 --n 3072 --k 3072
one odd_3000x5000x2048 auto --m 3000 --n 5000 --k 2048
one dsv3_4096x2112x7168 auto --m 4096 --n 2112 --k 7168
one sq_4096 specs/sm90/05_fast_f16.yaml --m 4096 --n 4096 --k 4096
one sq_8192 specs/sm90/05_fast_f16.yaml --m 8192 --n 8192 --k 8192
one fp8_4096 specs/sm90/13_fast_e4m3.yaml --m 4096 --n 4096 --k 4096
one fp8_blockwise_4096x7168x2048 specs/sm90/15_blockwise_e4m3.yaml --m 4096 --n 7168 --k 2048
tar czf "$OUT/kernels-logs.tgz" -C "$L" .
cat "$S"

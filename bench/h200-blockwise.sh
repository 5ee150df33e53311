#!/usr/bin/env bash
# Blockwise fp8 (DeepSeek-V3 style) against cuBLASLt on the H200, each bench in one process on
# the same inputs, on the DeepSeek-V3 projection shapes M in {128, 4096} x (N,K) in
# {(7168,2048), (4096,7168), (7168,18432), (2112,7168)}, --rounds 15:
#   spec 15 (e4m3, 1x128 A / 128x128 B scales, random N(0,1) blocks) vs cublasLtMatmul with
#           A_SCALE_MODE BLK128x128_32F (its A = our B) and B_SCALE_MODE VEC128_32F (its B = our A);
#   spec 13 (e4m3, per-tensor scales, fast accumulation) vs cuBLASLt fp8 per tensor, for comparison;
#   `run --verify` of spec 15 at M = 4096 on the four (N,K), random block scales;
#   accuracy: `run --out-dtype f32 --verify --scale-a 1 --scale-b 1 --seed 7` of specs 13 and 15
#           at 4096^3 and 4096x7168x18432: every scale 1 and the same inputs, so both compute the
#           same product and rel. Frobenius vs the f32 reference is the unpromoted (13) vs
#           promoted (15) accumulation error.
# Logs and JSON under $OUT/blockwise; the table last (also $OUT/blockwise-table.txt).
#   usage (device): bash bench/h200-blockwise.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/blockwise; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S13=specs/sm90/13_fast_e4m3.yaml S15=specs/sm90/15_blockwise_e4m3.yaml
SHAPES=128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168
SHAPES=$SHAPES,4096x7168x2048,4096x4096x7168,4096x7168x18432,4096x2112x7168
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
bench() { # name, then bench's arguments
  local name=$1; shift
  timeout 250 "$G" bench "$@" --shapes "$SHAPES" --rounds 15 --json "$L/$name.json" > "$L/$name.txt" 2>&1
  echo "rc=$?" >> "$L/$name.txt"
}
run() { # name, then run's arguments
  local name=$1; shift
  timeout 60 "$G" run "$@" --verify --iters 20 > "$L/run_$name.txt" 2>&1
  echo "rc=$?" >> "$L/run_$name.txt"
}
bench blockwise15 "$S15"
bench pertensor13 "$S13"
for nk in 7168x2048 4096x7168 7168x18432 2112x7168; do
  run "15_4096x$nk" "$S15" --m 4096 --n "${nk%x*}" --k "${nk#*x}"
done
for mnk in 4096x4096x4096 4096x7168x18432; do
  IFS=x read -r m n k <<< "$mnk"
  for spec in 13 15; do
    f=$S13; [ $spec = 15 ] && f=$S15
    run "f32_${spec}_$mnk" "$f" --m "$m" --n "$n" --k "$k" --out-dtype f32 --scale-a 1 --scale-b 1 --seed 7
  done
done
{
  for f in "$L"/blockwise15.txt "$L"/pertensor13.txt; do
    echo "-- bench $(basename "$f" .txt) ($(tail -1 "$f"))"
    grep -E '^cuBLAS|shape|^ *[0-9]+x[0-9]+x[0-9]+|error|  cuBLASLt fused:|  unfused:' "$f" | cut -c1-170
  done
  echo "-- run --verify (spec 15 random block scales; f32_*: --out-dtype f32, every scale 1, seed 7)"
  for f in "$L"/run_*.txt; do
    printf '%-28s %s | %s | %s\n' "$(basename "$f" .txt | sed 's/^run_//')" \
      "$(grep -o 'rel. Frobenius error [^ ]*' "$f" | head -1)" \
      "$(grep -o '[0-9.]* TFLOP/s' "$f" | head -1)" "$(tail -1 "$f")"
    grep -E '^gemmgen: error' "$f" | cut -c1-170
  done
} | tee "$L/table.txt"
tar czf "${OUT:-/tmp}/blockwise-logs.tgz" -C "$L" . && cp "$L/table.txt" "${OUT:-/tmp}/blockwise-table.txt" && rm -rf "$L"

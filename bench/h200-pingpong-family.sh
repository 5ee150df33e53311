#!/usr/bin/env bash
# Ping-pong as a kernel family (issues 12 and 13), one call on the H200:
#   1. fp8: spec 13 (cooperative 128x256) against the ping-pong variants
#      bench/variants/fp8/pingpong{,_64x256}.yaml, each `run --verify`ed first
#      (fresh inputs, D poisoned, every element), then benched against cuBLASLt
#      fp8 (same scales) at 4096^3 and 8192^3, PASSES passes in alternating order;
#   2. calibration of a 16-bit ping-pong family for the cost model: spec 20
#      (128x128 ping-pong) and the 64x256 ping-pong tile against cuBLAS on the
#      sweep's shapes with M >= 64 (bench/h200-sweep.sh's list without the
#      validation set: the model never sees those), f16 then bf16.
#   usage (device): bash bench/h200-pingpong-family.sh CARRY [PASSES]   (CARRY: gemmgen)
# Output: $OUT/ppf/ (logs, JSON), $OUT/ppf-summary.txt last.
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-2}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/ppf; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S=$OUT/ppf-summary.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
FP8="specs/sm90/13_fast_e4m3.yaml bench/variants/fp8/pingpong.yaml bench/variants/fp8/pingpong_64x256.yaml"
for spec in $FP8; do
  n=$(basename $spec .yaml)
  for s in 4096x4096x4096 1000x1001x640 384x2048x4104 129x4000x256; do
    IFS=x read -r m n_ k <<< "$s"
    timeout 60 "$G" run $spec --m $m --n $n_ --k $k --scale-a 0.5 --scale-b 2 --verify --iters 0 \
      > "$L/verify_${n}_$s.txt" 2>&1
    echo "verify $n $s rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_$s.txt" | head -1)" >> "$S"
  done
done
for pass in $(seq 1 $PASSES); do
  list=$FP8; [ $((pass % 2)) -eq 0 ] && list=$(echo $FP8 | tr ' ' '\n' | tac | tr '\n' ' ')
  for spec in $list; do
    n=$(basename $spec .yaml)_$pass
    timeout 120 "$G" bench $spec --shapes 4096x4096x4096,8192x8192x8192 --rounds 10 --scale-a 0.5 \
      --scale-b 2 --json "$L/fp8_$n.json" > "$L/fp8_$n.txt" 2>&1
    echo "fp8 $n rc=$?: $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/fp8_$n.txt" | awk '{print $1, $3, $5, $7}' | tr '\n' ' ')" >> "$S"
  done
done
list=$(grep -E '^[0-9]+x[0-9]+x[0-9]+ +[^ ]+$' bench/h200-sweep.sh | grep -v ' val-' | awk '{print $1}' |
  awk -Fx '$1 >= 64' | paste -sd, -)
for dt in f16 bf16; do
  for spec in specs/sm90/20_pingpong_f16.yaml bench/pingpong-variants/64x256_f16.yaml; do
    n=$(basename $spec .yaml)-$dt
    timeout 170 "$G" bench $spec --dtype $dt --shapes "$list" --rounds 12 \
      --json "$L/cal-$n.json" > "$L/cal-$n.log" 2>&1
    echo "calibration $n rc=$? $(grep -cE '^[0-9]+x' "$L/cal-$n.log") shapes" >> "$S"
  done
done
tar czf "$OUT/ppf-logs.tgz" -C "$OUT" ppf && rm -rf "$L"
cat "$S"

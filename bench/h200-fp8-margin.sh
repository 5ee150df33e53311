#!/usr/bin/env bash
# The fp8 chooser's margin: at 5% (the 16-bit choices' since 7fadbf3) five blockwise choices on
# bench/h200-fp8-choice.sh's shapes would change — 4096x7168x2048, 4096x7168x18432 and
# 2048x7168x2048 from the default (spec 15, 128x128) to wide (spec 19, 128x192), 128x7168x2048 and
# 64x7168x2048 to small (bench/variants/blockwise/m64_s1.yaml). Each against cuBLASLt's blockwise
# mode in the same process, 10 rounds.
# Prediction (before the run): spec 19 level at K = 2048 and ~5% ahead at K = 18432 (as on
# 2026-12-02), small level with the default at M <= 128 (0.81 / 0.80 for n64 / spec 15 then).
#   usage (device): bash bench/h200-fp8-margin.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/fp8-margin; rm -rf "$L"; mkdir -p "$L"
S=$OUT/fp8-margin-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
LARGE="4096x7168x2048,4096x7168x18432,2048x7168x2048"
SMALL="128x7168x2048,64x7168x2048"
for v in specs/sm90/15_blockwise_e4m3:$LARGE,$SMALL specs/sm90/19_blockwise_e4m3_n192:$LARGE \
         bench/variants/blockwise/m64_s1:$SMALL; do
  spec=${v%%:*}; shapes=${v#*:}; n=$(basename $spec)
  timeout 150 "$G" bench $spec.yaml --shapes $shapes --rounds 10 > "$L/$n.txt" 2>&1
  echo "== $n rc=$?" >> "$S"; table "$L/$n.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/fp8-margin-logs.tgz" . && rm -rf "$L"
cat "$S"

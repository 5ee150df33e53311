#!/usr/bin/env bash
# K residue (issue 13): rows 16 bytes past a 128-byte line cost L2 requests (docs/PERF.md "K
# residue"); cuBLAS runs its 4096^3 kernel there with a 1x2 cluster and loses 4%
# (bench/h200-cublas-kernels.sh). Does B's multicast in a 2x1 cluster (half of B's box rows
# requested per CTA) recover the straddle without the staging copy?
# Prediction (before the run): at 4096x4096x4104 spec 05 without the copy ~0.83, the 2x1
# cluster without the copy ~0.90, spec 05 with the copy (the runtime's rule) ~0.85.
#   usage (device): bash bench/h200-kres-cluster.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/kres; rm -rf "$L"; mkdir -p "$L"
S=$OUT/kres-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
date -u +%FT%TZ > "$S"
SH=4096x4096x4104,8192x8192x8200,4096x4096x4096
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
for spec in specs/sm90/05_fast_f16.yaml bench/variants/cluster2_group16.yaml; do
  for copy in 0 rule; do
    n=$(basename $spec .yaml)_copy$copy
    if [ $copy = 0 ]; then export GEMMGEN_STAGE_STRADDLING=0; else unset GEMMGEN_STAGE_STRADDLING; fi
    timeout 120 "$G" bench $spec --shapes $SH --rounds 20 > "$L/$n.txt" 2>&1
    echo "== $n rc=$?" >> "$S"; table "$L/$n.txt" >> "$S"
  done
done
unset GEMMGEN_STAGE_STRADDLING
tar -C "$L" -czf "$OUT/kres-logs.tgz" .
cat "$S"

#!/usr/bin/env bash
# K residue: the staging copy of A and B whose rows straddle L2 lines
# (runtime/lib/Staging.cpp, straddleCopyPays), off / as the rule decides /
# forced on, each one bench process (spec 05, f16) against cuBLAS on the
# same shapes: K residues of 8 (rows 16 mod 128 bytes) and an aligned control.
#   usage (device): bash bench/h200-straddle.sh CARRY   (CARRY: gemmgen, cache/)
# Output: $OUT/straddle-<mode>.{log,json}; the table last.
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=$C/cache
shapes=4096x4096x4104,8192x8192x8200,8192x4096x8200,16384x16384x16392,8192x8192x8192
for mode in off rule on; do
  case $mode in off) v=0 ;; on) v=1 ;; *) v= ;; esac
  GEMMGEN_STAGE_STRADDLING=$v timeout 200 "$C/gemmgen" bench specs/sm90/05_fast_f16.yaml \
    --shapes $shapes --rounds 15 --json "$OUT/straddle-$mode.json" > "$OUT/straddle-$mode.log" 2>&1
  echo "== $mode rc=$?"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$OUT/straddle-$mode.log" | cut -c1-110
done

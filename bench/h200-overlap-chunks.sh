#!/usr/bin/env bash
# 256x152 with every epilogue chunk as wide as the others, the last one ending at the tile's edge
# (overlapping the previous chunk by 8 or 24 columns, which it re-stores with the same values),
# so that D leaves in wide boxes: chunks of 40 (one unswizzled 80-byte box per chunk, 4 per
# consumer and tile) and of 32 (64-byte swizzled, 5), against spec 26 as built (16-byte slabs,
# 19 boxes) and 256x160 in chunks of 32 (the chooser's fit256x160, 5 boxes). Experiment binary:
# GEMMGEN_EXP_OVERLAP=1 turns the overlapping chunks on (patch in the results folder).
# Prediction: the store's box rows, not their width, cost (docs/PERF.md "Tiles of 8 columns mod
# 16"): c40 ~5% faster than 256x160 at 3000x5000x2048 (0.0922 -> ~0.088 ms), c32 ~3-4%.
# Correctness: run --verify with beta = 0 and a separate C; C in place must fail (the last chunk
# reads 8 columns of C the previous chunk already overwrote) — the reason the design needs more.
#   usage (device): bash bench/h200-overlap-chunks.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init overlap_chunks "$1"
SH="3000x5000x2048,3000x5000x4096,3000x5000x8192"
C40=bench/wave-fit/m256n152_c40.yaml; C32=specs/sm90/26_wave_fit_n152_f16.yaml
export GEMMGEN_CACHE_DIR=$C/cache_ov GEMMGEN_EXP_OVERLAP=1
for s in 3000x5000x2048 1000x1064x520 152x152x64; do
  verify c40 $C40 $s; verify c32 $C32 $s
  verify c40_beta $C40 $s --beta 0.5; verify c32_beta $C32 $s --beta 0.5
  verify c40_inplace $C40 $s --beta 0.5 --c-in-place
done
for pass in 1 2; do
  for v in ov_c40 ov_c32 base_n152 base_n160; do
    case $v in
      ov_c40) spec=$C40; env=1 ;; ov_c32) spec=$C32; env=1 ;;
      base_n152) spec=$C32; env= ;; base_n160) spec=bench/wave-fit/m256n160.yaml; env= ;;
    esac
    log=$L/${v}_$pass.txt
    if [ -n "$env" ]; then GEMMGEN_CACHE_DIR=$C/cache_ov timeout 120 "$G" bench $spec --dtype f16 --shapes $SH --rounds 20 > "$log" 2>&1
    else env -u GEMMGEN_EXP_OVERLAP GEMMGEN_CACHE_DIR=$C/cache timeout 120 "$G" bench $spec --dtype f16 --shapes $SH --rounds 20 > "$log" 2>&1; fi
    echo "== pass $pass $v rc=$?" >> "$S"; table "$log" >> "$S"
  done
done
bench_finish

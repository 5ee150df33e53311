#!/usr/bin/env bash
# What the TMA store's slab width costs: 256x160 at 3000x5000 (K = 2048 and 8192, f16, 20 rounds)
# in chunks of 32 (64-byte slabs, 5 boxes per consumer per tile: the chooser's), 16 (32-byte
# slabs, 10 boxes in 10 chunks; 48 with 32-byte slabs does not fit) and 24 (16-byte slabs, 20 boxes:
# measured 21% behind at K = 2048 in bench/h200-wave-fit152-why.sh), spec 26 alongside.
# Prediction: if a box row costs the same whatever its width, 32-byte slabs cost ~8% at
# K = 2048 (1280 more rows per tile at ~2 ns, from the 16-byte run) and would cancel what 256x152
# gains with an overlapping last slab; if they are level with 64-byte slabs, that design pays.
#   usage (device): bash bench/h200-slab-width.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init slab_width "$1"
SH="3000x5000x2048,3000x5000x8192"
for v in bench/wave-fit/m256n160 bench/wave-fit/m256n160_c16 bench/wave-fit/m256n160_c24 specs/sm90/26_wave_fit_n152_f16 bench/wave-fit/m256n160; do
  n=$(basename $v)
  timeout 120 "$G" bench $v.yaml --dtype f16 --shapes $SH --rounds 20 > "$L/f16_$n.txt" 2>&1
  echo "== $n f16 rc=$?" >> "$S"; table "$L/f16_$n.txt" >> "$S"
done
bench_finish

#!/usr/bin/env bash
# Decode with X multicast across a 2x1 cluster (2026-12-03, fifth session). Every CTA of a decode
# kernel reads the same X tile (the tokens, wgmma's B) each k-block; at 32x4096x14336 our 64x32
# tile reached 67% of DRAM peak and its consumers waited on the full barrier, and neither more
# CTAs (a 128x32 tile split in 4, the 64x32 tile on 64 tokens) nor fewer X re-reads per weight
# helped (bench/h200-decode-wide.sh); cuBLAS's decode kernels run 2x1 and 4x1 clusters. Also the
# TMA's L2 promotion (256 bytes by default) at 128 bytes and none, on spec 23.
#  1. `run --verify` (beta 0.5) of the cluster variants at four shapes with residues;
#  2. 1-16 tokens: spec 23 (8 stages), 16 stages, each with a 2x1 cluster, and 2 slices with
#     one, against the chooser (`bench auto`);
#  3. 17-32 tokens: 64x32 with and without the cluster;
#  4. spec 23 with GEMMGEN_TMA_L2_PROMOTION=128 and none.
# Predictions (before the run): 2./3. the cluster +3-8% where the chooser is at 0.92-0.97
# (4096x14336, 57344x8192, 28672x4096, 32 tokens of 4096x14336), level elsewhere; 4. within 2%.
#   usage (device): bash bench/h200-decode-cluster.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-cluster; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-cluster-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
V16="bench/decode-col/m64n16_d8_c2 bench/decode-col/m64n16_d16_c2 bench/decode-col/m64n16_d8_c2_s2"
for v in $V16 bench/decode-col/m64n32_d12_c2; do
  n=$(basename $v)
  for s in 16x6144x4096 1x1000x640 5x300x520 32x4096x14336; do
    IFS=x read -r m nn k <<< "$s"
    timeout 60 "$G" run $v.yaml --m $m --n $nn --k $k --beta 0.5 --verify --iters 3 > "$L/verify_${n}_$s.txt" 2>&1
    echo "verify $n $s beta 0.5 rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${n}_$s.txt" | head -1)" >> "$S"
  done
done
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
SH="1x4096x14336,1x6144x4096,1x57344x8192,4x28672x4096,16x4096x4096,1x11008x4096,8x14336x4096,16x10240x8192,1x4096x7168"
echo "== t16 auto" >> "$S"
for s in ${SH//,/ }; do
  IFS=x read -r m nn k <<< "$s"
  timeout 60 "$G" bench auto --m $m --n $nn --k $k --rounds 20 > "$L/t16_auto_$s.txt" 2>&1
  echo "$(table "$L/t16_auto_$s.txt") $(grep -o 'auto_[a-z0-9]*_s[0-9]' "$L/t16_auto_$s.txt" | head -1)" >> "$S"
done
for v in specs/sm90/23_decode_col_d_f16 bench/decode-col/m64n16_d16 $V16; do
  n=$(basename $v)
  timeout 150 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/t16_$n.txt" 2>&1
  echo "== t16 $n rc=$?" >> "$S"; table "$L/t16_$n.txt" >> "$S"
done
SH="32x4096x14336,24x4096x14336,32x4096x7168,32x6144x4096,32x5120x8192,32x14336x4096"
for v in bench/decode-col/m64n32_d12 bench/decode-col/m64n32_d12_c2; do
  n=$(basename $v)
  timeout 150 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/t32_$n.txt" 2>&1
  echo "== t32 $n rc=$?" >> "$S"; table "$L/t32_$n.txt" >> "$S"
done
SH="1x4096x14336,1x6144x4096,1x57344x8192,16x10240x8192"
for p in 256 128 none; do
  GEMMGEN_TMA_L2_PROMOTION=$p timeout 150 "$G" bench specs/sm90/23_decode_col_d_f16.yaml --shapes $SH --rounds 20 > "$L/l2_$p.txt" 2>&1
  echo "== l2 promotion $p rc=$?" >> "$S"; table "$L/l2_$p.txt" >> "$S"
done
tar -C "$L" -czf "$OUT/decode-cluster-logs.tgz" . && rm -rf "$L"
cat "$S"

#!/usr/bin/env bash
# Ping-pong consumers combined with the other features, verified on the H200: operand
# layouts, split-K, a 2x1 cluster, fp8 operands (bench/pingpong-variants/pp_*.yaml), and spec 20
# with --layout overrides, unaligned operands (the staging path) and a column-major D; each
# `run --verify` (fresh random inputs, every element checked) twice per shape.
#   usage (device): bash bench/h200-pingpong-combos.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=${OUT:-/tmp}/ppc; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
date -u +%FT%TZ > "$L/summary.txt"
v() { # label spec args...
  local label=$1; shift
  for i in 1 2; do
    timeout 60 "$G" run "$@" --verify --iters 0 > "$L/${label}_$i.txt" 2>&1
    echo "$label #$i rc=$? $(grep -E 'rel. Frobenius' "$L/${label}_$i.txt" | sed 's/^ *//' | head -1)" >> "$L/summary.txt"
  done
}
P=bench/pingpong-variants
for s in 1000x1001x640 4096x4096x4096 384x2048x4104; do
  IFS=x read -r m n k <<< "$s"
  v lay_$s $P/pp_lay.yaml --m $m --n $n --k $k
  v split_$s $P/pp_split.yaml --m $m --n $n --k $k
  v cluster_$s $P/pp_cluster.yaml --m $m --n $n --k $k
  v fp8_$s $P/pp_fp8.yaml --m $m --n $n --k $((k / 16 * 16))
  v colcol_$s specs/sm90/20_pingpong_f16.yaml --layout col,col --m $m --n $n --k $k
  v rowrow_$s specs/sm90/20_pingpong_f16.yaml --layout row,row --m $m --n $n --k $k
  v colD_$s specs/sm90/20_pingpong_f16.yaml --layout row,col,col --m $m --n $n --k $k
  v offset_$s specs/sm90/20_pingpong_f16.yaml --offset 1 --m $m --n $n --k $k
  v chain_beta_$s specs/sm90/21_pingpong_bf16_bias_gelu.yaml --beta 0.5 --m $m --n $n --k $k
done
tar czf "${OUT:-/tmp}/ppc-logs.tgz" -C "$L" .
cat "$L/summary.txt"

#!/usr/bin/env bash
# Does taking turns cost the blockwise kernel by itself? Spec 15 as shipped, without the
# promotion's FFMAs (D wrong: bench reports the failed check and times it), with the consumers
# taking turns (early: the hand-over after the wgmma wait), and both; the per-tensor 128x128
# tile (bench/variants/fp8/n128.yaml) as the reference. Two passes in one call.
#   usage (device): bash h200-turns-nopromote.sh EXP   (EXP: gemmgen built with bound.patch of
#   ../2026-12-02_blockwise_bound_h200 applied, cache/)
C=${1:-.devrun/exp}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/tn; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"; S15=specs/sm90/15_blockwise_e4m3.yaml
SHAPES=4096x7168x2048,4096x4096x7168
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
for pass in 1 2; do
  for v in none nopromote early early_nopromote late_nopromote n128; do
    unset GEMMGEN_EXP_TURNS GEMMGEN_EXP_NOPROMOTE
    spec=$S15
    case $v in
      nopromote) export GEMMGEN_EXP_NOPROMOTE=1 ;;
      early) export GEMMGEN_EXP_TURNS=early ;;
      early_nopromote) export GEMMGEN_EXP_TURNS=early GEMMGEN_EXP_NOPROMOTE=1 ;;
      late_nopromote) export GEMMGEN_EXP_TURNS=late GEMMGEN_EXP_NOPROMOTE=1 ;;
      n128) spec=bench/variants/fp8/n128.yaml ;;
    esac
    timeout 120 "$G" bench $spec --shapes $SHAPES --rounds 10 --json "$L/bench_${v}_$pass.json" > "$L/bench_${v}_$pass.txt" 2>&1
    echo "bench $v pass $pass rc=$?: shape, gemmgen ms, cuBLASLt ms, ratio" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$L/bench_${v}_$pass.txt" | awk '{print $1, $3, $5, $7}' >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/turns_nopromote_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

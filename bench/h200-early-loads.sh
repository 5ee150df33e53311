#!/usr/bin/env bash
# A one-tile CTA's prologue (docs/PERF.md, "Where cuBLAS's 4-6% at 512x7168x2048 goes"): where the
# 128x224 tile's cycles go, and whether its first loads can go out before the CTA's barrier.
# Hand edits of the emitted kernel (bench/experiments/edit_kernel.py), run through `--source`:
#   trace        clock64 stamps per CTA of one launch: after __syncthreads, the producer's first
#                TMA, consumer 0's first full barrier, its last wgmmas, the end of its stores
#   early        the first tile's first STAGES loads issued by the initialising thread before
#                the __syncthreads (the bookkeeping moved above the barrier setup)
# (The measurement of 2026-12-06_early_loads_h100, binaries of 31c2e22: since 4d9bc3f the compiler
# emits `early` itself, so its edit stops; `trace` still applies, stamping the compiler's early
# block's first TMA.)
# Prediction: first_tma 500-1500 cycles after entry in the emitted kernel, ~200 with `early`;
# `early` 0.5-2% faster at 512x7168x2048 (one tile a CTA, ~42k cycles), less at 256x14336x4096
# (the same cycles of a longer kernel), level at 1024x7168x2048 (two tiles a CTA).
#   usage (device): [TYPES=f16] bash bench/h200-early-loads.sh CARRY   (CARRY: gemmgen, cache/;
#                   TYPES: the types timed, default f16 bf16)
source "$(dirname "$0")/lib.sh"
bench_init early_loads "$1"
# The spec for each type (emit has no --dtype: a source is emitted from the spec it runs with).
E=$L/src; mkdir -p "$E"
SPEC=$E/f16.yaml
cp bench/wave-fit/m128n224_c32.yaml "$E/f16.yaml"
sed 's/{ a: f16, b: f16, d: f16,/{ a: bf16, b: bf16, d: bf16,/' "$E/f16.yaml" > "$E/bf16.yaml"
for t in f16 bf16; do
  "$G" emit "$E/$t.yaml" -o "$E/emitted_$t.cu"
  for e in trace early early,trace; do
    python3 bench/experiments/edit_kernel.py $e < "$E/emitted_$t.cu" > "$E/${e}_$t.cu" ||
      echo "edit $e $t failed" >> "$S"
  done
done
# Correctness first: every edit verified against the reference, beta 0.5 and edge shapes too.
for s in 512x7168x2048 1000x1001x520 129x4100x72 256x14336x4096 1024x7168x2048; do
  verify early "$SPEC" "$s" --source "$E/early_f16.cu"
done
verify early-beta "$SPEC" 1000x1001x520 --source "$E/early_f16.cu" --alpha 1.5 --beta 0.5
verify early-bf16 "$E/bf16.yaml" 512x7168x2048 --source "$E/early_bf16.cu"
verify early,trace "$SPEC" 512x7168x2048 --source "$E/early,trace_f16.cu"
verify trace "$SPEC" 512x7168x2048 --source "$E/trace_f16.cu"
# Where the cycles go: the median over CTAs of each stamp (lib.sh trace_table).
for s in 512x7168x2048 256x14336x4096 1024x7168x2048; do
  IFS=x read -r m n k <<< "$s"
  for e in trace early,trace; do
    timeout 60 "$G" run "$SPEC" --m "$m" --n "$n" --k "$k" --iters 10 --warmup 3 \
      --source "$E/${e}_f16.cu" > "$L/trace_${e}_$s.txt" 2>&1
    trace_table "$e $s" "$L/trace_${e}_$s.txt" >> "$S"
  done
done
# Time: the emitted kernel and `early`, each against cuBLAS in its process, two passes (ABBA).
for pass in 1 2; do
  order="emitted early"; [ $pass = 2 ] && order="early emitted"
  for s in 512x7168x2048 256x14336x4096 1024x7168x2048; do
    IFS=x read -r m n k <<< "$s"
    for e in $order; do
      for t in ${TYPES:-f16 bf16}; do
        log=$L/bench_${e}_${t}_${pass}_$s.txt
        timeout 90 "$G" bench "$E/$t.yaml" --m "$m" --n "$n" --k "$k" --rounds 20 \
          --source "$E/${e}_$t.cu" > "$log" 2>&1
        echo "pass $pass $e $t $(table "$log")" >> "$S"
      done
    done
  done
done
bench_finish

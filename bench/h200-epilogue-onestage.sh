#!/usr/bin/env bash
# A one-tile CTA's epilogue staged at once (docs/PERF.md, twenty-second session: ~500 cycles a chunk
# of latencies — wait for the staging tile, barrier, stmatrix, fence, barrier, store — seven times
# for the 128x224 tile's 32-column chunks). Hand edit `onestage` (bench/experiments/edit_kernel.py):
# after both consumers' last wgmmas the A stages are free, so every chunk is staged in its own 4 KB
# of them with no wait or barrier between chunks, then one fence, one barrier and all the stores.
# Only where each CTA computes one tile, beta = 0: verified at such shapes, traced, and timed
# against cuBLAS in its process beside the emitted kernel, two passes.
# Prediction: the epilogue from ~3.5k to ~2.0-2.3k cycles (staging ~0.7k, the stores' end ~1.3k);
# 512x7168x2048 and 256x14336x4096 2.5-3.5% faster.
#   usage (device): bash bench/h200-epilogue-onestage.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_onestage "$1"
E=$L/src
SPEC=bench/wave-fit/m128n224_c32.yaml
emit_edits "$SPEC" "$E" trace onestage onestage,trace
for s in 512x7168x2048 128x7168x2048 256x14336x4096 384x2240x136 129x4100x72; do
  verify onestage "$SPEC" "$s" --source "$E/onestage.cu"
done
verify onestage,trace "$SPEC" 512x7168x2048 --source "$E/onestage,trace.cu"
trace_runs "$SPEC" "$E" "128x7168x2048 512x7168x2048" trace onestage,trace
source_passes "$SPEC" "$E" 512x7168x2048,256x14336x4096 emitted onestage
bench_finish

#!/usr/bin/env bash
# A one-tile CTA's epilogue through st.global (docs/PERF.md, twenty-second session): the 128x224
# CTA's epilogue takes ~3.5k cycles from its last wgmmas to its stores' end whatever the chunking
# (c32, c64, c128) and however many CTAs store at once (32, 64 or 128: 2026-12-06_epilogue_one_tile
# run3), so one SM's TMA store path (~16 B a cycle) looks like the bound. The `stg` hand edit
# (bench/experiments/edit_kernel.py) copies each staged chunk to D with the consumer's 128 threads
# (ld.shared.v4 + st.global.v4) instead of one thread's TMA store: verified at full-tile shapes,
# traced, and timed against cuBLAS in its process beside the emitted kernel, two passes.
# Prediction: the epilogue from ~3.5k to ~1.5k cycles; 512x7168x2048 and 256x14336x4096 3-5%
# faster, 1024x7168x2048 (two tiles a CTA) 2-4%; if the stores are bound past the SM (L2), level.
# Second run (after the first: `stg` verified but level, its epilogue 3.5k cycles too): where the
# ~500 cycles a chunk go. `nostore` stages and stores nothing (the staging alone), `nofence` drops
# the async-proxy fence after staging (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S in SASS; with `stg` the
# copies need no async proxy). Prediction: the fence is the cost (it waits for the previous
# chunk's st.global to be acknowledged, as the TMA version waits for its store's reads), so
# stg,nofence and nostore,nofence ~1k cycles, nostore ~3k.
#   usage (device): bash bench/h200-epilogue-stg.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_stg "$1"
E=$L/src
SPEC=bench/wave-fit/m128n224_c32.yaml
emit_edits "$SPEC" "$E" trace stg stg,trace stg,nofence stg,nofence,trace nostore,trace nostore,nofence,trace
# Full tiles only (the edit has no bounds): M % 128 = 0, N % 224 = 0, packed D.
for s in 512x7168x2048 128x7168x2048 1024x7168x2048 256x14336x4096 384x2240x136; do
  verify stg "$SPEC" "$s" --source "$E/stg.cu"
done
verify stg,nofence "$SPEC" 512x7168x2048 --source "$E/stg,nofence.cu"
verify stg,nofence "$SPEC" 1024x7168x2048 --source "$E/stg,nofence.cu"
verify stg-beta "$SPEC" 512x7168x2048 --source "$E/stg.cu" --alpha 1.5 --beta 0.5
verify stg,trace "$SPEC" 512x7168x2048 --source "$E/stg,trace.cu"
trace_runs "$SPEC" "$E" "128x7168x2048 512x7168x2048 1024x7168x2048" trace stg,trace \
  stg,nofence,trace nostore,trace nostore,nofence,trace
source_passes "$SPEC" "$E" 512x7168x2048,256x14336x4096,1024x7168x2048 emitted stg stg,nofence
bench_finish

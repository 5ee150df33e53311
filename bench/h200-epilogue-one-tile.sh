#!/usr/bin/env bash
# A one-tile CTA's epilogue (docs/PERF.md, twenty-first session: 3.4k of the 128x224 CTA's 41.5k
# cycles at 512x7168x2048, seven 32-column chunks, each waiting until the TMA store before it has
# read the one staging tile). The same tile with the store pipelined: chunk_n 16 in two staging
# tiles (fourteen chunks, each waits for the store before the previous one), and chunk_n 112 in
# one (two chunks); then (second run) chunks of 64 and 128 columns in 128-byte slabs, the last
# chunk ending at the tile's edge. Each verified, traced (bench/experiments/edit_kernel.py trace through
# `--source`) and timed against cuBLAS in its process, two passes.
# Prediction: the epilogue (mma_done -> end) from ~3.4k to ~1.5-2k cycles with two staging tiles,
# 512x7168x2048 2-4% faster; 1024x7168x2048 (two tiles a CTA) less.
# Second prediction (after the first run: 14 chunks of 32-byte slabs slower, 2 chunks of 32-byte
# slabs no faster, so not the wait on the staging tile): the TMA store's rows are the cost, so
# 128-byte slabs (half the rows of c32's 64-byte ones) shorten the epilogue by ~1k cycles, c128
# most; and most of the epilogue sits between the last store issued and its completion.
# Third (after the second: c32, c64 and c128 all ~3.45k cycles from the last wgmmas to the stores'
# end, 57-64 KB a CTA while all 128 CTAs store at once, ~3.6 TB/s together): the bound is the
# writes of all SMs together, not one SM's store path, so with 32 or 64 CTAs (M = 128, 256) the
# epilogue is shorter; with one SM's TMA store rate the bound, it stays ~3.4k.
# Fourth (after bench/h200-epilogue-stg.sh: with no store and no fence, c32's staging alone takes
# ~1.8k cycles, seven chunks): EDITS=nostore,nofence on c32 and c128 — per chunk (barriers) the
# cost drops with c128's two chunks to ~0.6k; per instruction (the same stmatrix count) it stays.
# And `twice` (the chunk loop run again, its code now cached): if the first pass's cost is the
# instruction caches' cold misses, the second is a fraction of it.
#   usage (device): [VARIANTS="c32 c64 c128"] [EDITS="E1,E2 E3" (each set traced as well)]
#                   [TRACE_SHAPES="MxNxK ..."] [PASS_SHAPES=MxNxK,...
#                   ("" none)] bash bench/h200-epilogue-one-tile.sh CARRY
#                   (CARRY: gemmgen, cache/; variants: bench/wave-fit/m128n224_V.yaml)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_one_tile "$1"
E=$L/src; mkdir -p "$E"
V=${VARIANTS:-c32 c64 c128}
for v in $V; do
  spec=bench/wave-fit/m128n224_$v.yaml
  "$G" emit "$spec" -o "$E/emitted_$v.cu"
  for e in trace $(for x in ${EDITS:-}; do echo "$x,trace"; done); do
    python3 bench/experiments/edit_kernel.py $e < "$E/emitted_$v.cu" > "$E/${e}_$v.cu" ||
      echo "edit $e $v failed" >> "$S"
  done
  for s in 512x7168x2048 1000x1001x520 129x4100x72 1024x7168x2048; do verify "$v" "$spec" "$s"; done
  verify "$v-beta" "$spec" 1000x1001x520 --alpha 1.5 --beta 0.5
  verify "$v-trace" "$spec" 512x7168x2048 --source "$E/trace_$v.cu"
done
for s in ${TRACE_SHAPES:-512x7168x2048 1024x7168x2048}; do
  IFS=x read -r m n k <<< "$s"
  for v in $V; do
    for e in trace $(for x in ${EDITS:-}; do echo "$x,trace"; done); do
      timeout 60 "$G" run bench/wave-fit/m128n224_$v.yaml --m "$m" --n "$n" --k "$k" --iters 10 \
        --warmup 3 --source "$E/${e}_$v.cu" > "$L/${e}_${v}_$s.txt" 2>&1
      trace_table "$v ${e%,trace} $s" "$L/${e}_${v}_$s.txt" >> "$S"
    done
  done
done
specs=(); for v in $V; do specs+=(bench/wave-fit/m128n224_$v); done
[ "${PASS_SHAPES-x}" = "" ] ||
  bench_passes 2 "${PASS_SHAPES:-512x7168x2048,256x14336x4096,1024x7168x2048}" "${specs[@]}"
bench_finish

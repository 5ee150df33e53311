#!/usr/bin/env bash
# Why B multicast over a 2x1 cluster runs slower in gemmgen (docs/PERF.md, "B multicast over 2x1
# clusters for the wave-fit and mid-size families": 1.5-8% slower wherever the tile rows pair up)
# while cuBLAS runs its tiles in clusters. The 128x144 and 128x176 families with and without the
# cluster, traced per CTA (bench/experiments/edit_kernel.py `trace`: cluster_sync, first TMA, first
# full barrier, last wgmmas, end of stores, and the cycles consumer 0 waited on full barriers and
# the producer on empty ones), then timed against cuBLAS, two passes.
# Shapes: 768x3072x3072 and 1536^3 are 132 tiles of 128x144 (66 pairs: one tile a CTA, one wave);
# 4096x2112x7168 is 384 tiles of 128x176 (~3 rounds).
# Prediction (the 2026-12-04 reading: a stage is refilled only once both CTAs released it, so the
# pair runs at the pace of its slower CTA): in the cluster kernel consumer 0 waits longer on full
# barriers (the peer's half of B goes out only after the peer's release) and the mainloop
# (first_full to mma_done) is 3-8% longer; sync and first_full also later, by the first loads the
# non-cluster kernel issues before its barrier (KernelPlan::earlyLoads, cluster size 1 only).
#   usage (device): bash bench/h200-cluster-trace.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init cluster_trace "$1"
E=$L/src
for v in wave-fit/m128n144 cluster-fit/m128n144_c2 wave-fit/m128n176 cluster-fit/m128n176_c2; do
  emit_edits "bench/$v.yaml" "$E/$(basename $v)" trace
done
verify n144_c2_trace bench/cluster-fit/m128n144_c2.yaml 768x3072x3072 --source "$E/m128n144_c2/trace.cu"
verify n176_c2_trace bench/cluster-fit/m128n176_c2.yaml 4096x2112x7168 --source "$E/m128n176_c2/trace.cu"
verify n144_trace bench/wave-fit/m128n144.yaml 1536x1536x1536 --source "$E/m128n144/trace.cu"
for v in m128n144 m128n144_c2; do
  d=wave-fit; [ "${v%_c2}" != "$v" ] && d=cluster-fit
  trace_runs "bench/$d/$v.yaml" "$E/$v" "768x3072x3072 1536x1536x1536" trace
  sed -i "s/^trace \([0-9]\)/$v \1/" "$S"
done
for v in m128n176 m128n176_c2; do
  d=wave-fit; [ "${v%_c2}" != "$v" ] && d=cluster-fit
  trace_runs "bench/$d/$v.yaml" "$E/$v" "4096x2112x7168" trace
  sed -i "s/^trace \([0-9]\)/$v \1/" "$S"
done
bench_passes 2 768x3072x3072,1536x1536x1536,4096x2112x7168 bench/wave-fit/m128n144 \
  bench/cluster-fit/m128n144_c2 bench/wave-fit/m128n176 bench/cluster-fit/m128n176_c2
bench_finish

#!/usr/bin/env bash
# Stream-K with early loads (KernelPlan::earlyLoads): the first k-blocks of each CTA's first step
# (a whole unit, or the start of its share) issued by the initialising thread before the CTA's
# barrier, as the persistent kernels do since 4d9bc3f. An aligned stream-K launch gives each CTA
# one step, so all of its start is exposed (the twenty-first session's trace: ~1.3k cycles from
# entry to the first data with the loads after the barrier). OLD (no early loads) against NEW,
# two passes alternating, cuBLAS in each call: the small family's stream-K spec (2 and 4 aligned
# shares), the decode family's (bench/decode-sk), spec 18 where it is a hybrid; `run --verify`
# and the stream-K GPU tests with NEW first.
# Prediction: 0.5-0.8 us less a launch where shares are aligned (128x4096x11008 39.2 -> ~38.6 us
# on the H100, 128x2048x8192 22.5 -> ~21.9, decode 8x2112x7168 18.6 -> ~18.0); level at the
# hybrid shapes (many units a CTA).
#   usage (device): bash bench/h200-streamk-early.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1; case $OLD in /*) ;; *) OLD=$PWD/$OLD ;; esac
bench_init streamk_early "$2"
NEW=$C
SK=bench/families/streamk_small.yaml
verify sk $SK 128x4096x11008
verify sk $SK 128x2048x8192
verify sk $SK 100x2048x8192 --beta 0.5
verify sk $SK 129x4100x72
verify sk18 specs/sm90/18_streamk_f16.yaml 1000x1001x520 --beta 0.5
verify sk18 specs/sm90/18_streamk_f16.yaml 4096x4096x4104
verify sk18-batch specs/sm90/18_streamk_f16.yaml 300x700x200 --batch 3
verify decode bench/decode-sk/decode_sk.yaml 8x2112x7168
verify decode bench/decode-sk/decode_sk.yaml 5x200x1024 --beta 0.5
verify auto auto 128x4096x11008 --dtype bf16
gpu_tests 'StreamK.*:*18_streamk*:Sm90/ChosenKernel.*/100x4096x11008*:Sm90/ChosenKernel.*/200x2048x7168*'
ab_bench "$OLD" "$NEW" "128x4096x11008 128x4096x14336 256x2048x7168 128x2048x8192 64x4096x14336" $SK
ab_bench "$OLD" "$NEW" "8x2112x7168 8x3200x4096" bench/decode-sk/decode_sk.yaml
ab_bench "$OLD" "$NEW" "1536x1536x4096 3000x2048x2048" specs/sm90/18_streamk_f16.yaml
bench_finish

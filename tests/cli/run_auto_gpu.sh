#!/usr/bin/env bash
# `gemmgen run auto` asks the GPU it runs on, with the stand-in libcuda
# (tests/fake/FakeCuda.cpp) playing that GPU. Checks: the ping-pong rule's
# tiles are chosen where the GPU has the H200's 60 MiB of L2 and not where it
# has the H100's 50 (the why line says so); split 2 of 128x4096x11008 runs in
# one launch (`_sk2`) on the H200's 132 SMs and not on 180 (128 CTAs would leave a quarter idle);
# `run auto` and `run SPEC` open the GPU once (one primary-context retain: the choice's runtime is
# the launch's);
# no driver gives the launch's error and exit code; `bench auto` with several
# shapes is refused before it opens the GPU.
# Usage: run_auto_gpu.sh GEMMGEN SOURCE_DIR FAKE_LIBCUDA
set -u
G=$1; SRC=$2; FAKE=$3; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export GEMMGEN_CACHE_DIR=$W/cache
fails=0
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1" || { echo "  $1 lacks: $2"; sed 's/^/  | /' "$1" | head -20; false; }; }
retains() { [ "$(grep -c '^retain 0$' "$1")" = "$2" ] || { echo "  $1: $(wc -l < "$1") retains, want $2"; false; }; }
# ping-pong rule's shape: 12288x12288x1024 (K <= 1024, at least 1024 tiles).
RUN=(run auto --m 12288 --n 12288 --k 1024 --iters 1)

for l2 in 60 50; do
  : > "$W/retain$l2"
  env GEMMGEN_LIBCUDA="$FAKE" GEMMGEN_FAKE_CUDA_L2_MIB=$l2 GEMMGEN_FAKE_CUDA_RETAIN_LOG="$W/retain$l2" \
    timeout 300 "$G" "${RUN[@]}" > "$W/out$l2" 2>&1
  check "run auto, $l2 MiB of L2: exit 0" test $? = 0
  check "run auto, $l2 MiB of L2: opens the GPU once" retains "$W/retain$l2" 1
done
check "60 MiB: the ping-pong rule's kernel" has "$W/out60" "kernel  gemm_sm90_auto_pingpong_"
check "50 MiB: not the ping-pong kernel" has "$W/out50" "kernel  gemm_sm90_auto_large_"
check "50 MiB: the why line names the L2" has "$W/out50" \
  "not the ping-pong rule's tiles: they need 60 MiB of L2 and this GPU has 50"

for sms in 132 180; do
  env GEMMGEN_LIBCUDA="$FAKE" GEMMGEN_FAKE_CUDA_SMS=$sms timeout 300 "$G" run auto --m 128 \
    --n 4096 --k 11008 --iters 1 > "$W/out_sms$sms" 2>&1
  check "run auto 128x4096x11008, $sms SMs: exit 0" test $? = 0
done
check "132 SMs: split 2 in one launch" has "$W/out_sms132" "kernel  gemm_sm90_auto_small_sk2_f16"
check "180 SMs: split 2 with its reduction" has "$W/out_sms180" "kernel  gemm_sm90_auto_small_s2_f16"

: > "$W/retain_spec"
env GEMMGEN_LIBCUDA="$FAKE" GEMMGEN_FAKE_CUDA_RETAIN_LOG="$W/retain_spec" timeout 300 "$G" run \
  "$SRC/specs/sm90/01_ws_1consumer.yaml" --m 256 --n 256 --k 256 --iters 1 > "$W/out_spec" 2>&1
check "run SPEC: exit 0" test $? = 0
check "run SPEC: opens the GPU once" retains "$W/retain_spec" 1

env GEMMGEN_LIBCUDA="$W/no-libcuda.so.1" timeout 300 "$G" "${RUN[@]}" > "$W/out_none" 2>&1
check "run auto without a driver: exit 2" test $? = 2
check "run auto without a driver: says so" has "$W/out_none" "gemmgen: error: no CUDA driver/GPU found ("

: > "$W/retain_shapes"
env GEMMGEN_LIBCUDA="$FAKE" GEMMGEN_FAKE_CUDA_RETAIN_LOG="$W/retain_shapes" timeout 300 "$G" bench \
  auto --shapes 256x256x256,512x512x512 > "$W/out_shapes" 2>&1
check "bench auto, two shapes: exit 3" test $? = 3
check "bench auto, two shapes: says give one" has "$W/out_shapes" "picks one spec per shape"
check "bench auto, two shapes: refused before the GPU opens" retains "$W/retain_shapes" 0

[ $fails -eq 0 ] && echo "run_auto_gpu: all passed" || echo "run_auto_gpu: $fails failed"
exit $((fails > 0))

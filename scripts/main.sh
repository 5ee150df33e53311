#!/usr/bin/env bash
# The main job: set up and build, then take the default spec through the
# whole compiler: check, emit CUDA C++, NVRTC-compile it to a cubin; and,
# where a GPU is present, JIT-compile, run and verify it on a 4096^3 GEMM.
# Without a GPU it says so and stops after the NVRTC compile (exit 0).
set -euo pipefail
cd "$(dirname "$0")/.."
# GEMMGEN_SKIP_SETUP=1 uses an existing build/tools/gemmgen (the H200 machine
# has no LLVM development packages: the binary is built elsewhere and copied).
if [ -z "${GEMMGEN_SKIP_SETUP:-}" ] || [ ! -x build/tools/gemmgen ]; then
  bash scripts/setup.sh >/dev/null
fi
spec=${1:-specs/sm90/01_ws_1consumer.yaml}
gemmgen=build/tools/gemmgen
mkdir -p build/out
echo "== gemmgen check $spec"
$gemmgen check "$spec"
echo "== gemmgen emit $spec -o build/out/default.cu"
$gemmgen emit "$spec" -o build/out/default.cu
echo "   $(wc -l < build/out/default.cu) lines of CUDA C++"
echo "== gemmgen compile $spec"
$gemmgen compile "$spec" -o build/out/default.cubin
echo "== gemmgen run $spec --m 4096 --n 4096 --k 4096 --verify"
set +e
$gemmgen run "$spec" --m 4096 --n 4096 --k 4096 --verify
rc=$?
set -e
if [ $rc -eq 2 ]; then
  echo "no GPU here: the kernel was emitted and NVRTC-compiled, not run"
  exit 0
fi
exit $rc

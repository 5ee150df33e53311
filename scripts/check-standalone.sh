#!/usr/bin/env bash
# Every spec emitted with --standalone compiles alone with nvcc for its target
# (one self-contained .cu, no include paths). Used by ctest.
set -euo pipefail
gemmgen=$1; src=$2; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
status=0
for spec in $(cd "$src" && find specs -name '*.yaml' ! -path 'specs/tuned/*' | sort); do
  target=$(grep -E '^target:' "$src/$spec" | awk '{print $2}')
  arch=${target#sm_}
  "$gemmgen" emit "$src/$spec" --standalone -o "$work/k.cu"
  if "$nvcc" -std=c++17 -gencode "arch=compute_${arch},code=sm_${arch}" -c "$work/k.cu" -o "$work/k.o" 2> "$work/log"; then
    echo "ok   $spec ($target)"
  else
    echo "FAIL $spec ($target)"; cat "$work/log"; status=1
  fi
done
exit $status

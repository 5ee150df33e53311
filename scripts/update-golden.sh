#!/usr/bin/env bash
# Rewrites tests/golden/ from the current compiler. Run it only when the
# generated code is meant to change, and say why in the commit message.
# CI never runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
gemmgen=${GEMMGEN:-build/tools/gemmgen}
find specs -name '*.yaml' ! -path 'specs/tuned/*' | sort | while read -r spec; do
  rel=${spec#specs/}
  out=tests/golden/${rel%.yaml}
  mkdir -p "$(dirname "$out")"
  "$gemmgen" emit "$spec" -o "$out.cu"
  "$gemmgen" emit "$spec" --print-ir -o "$out.ir"
  echo "updated $out.{cu,ir}"
done

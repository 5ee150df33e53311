#!/usr/bin/env bash
# The README's test command: set up, build, and run every test that this
# machine can run (tests labelled `gpu` skip themselves with a message when
# there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"

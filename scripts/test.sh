#!/usr/bin/env bash
# The README's test command: set up, build, and run every test that this
# machine can run (tests labelled `gpu` skip themselves with a message when
# there is no GPU), then install the Python package and run its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The Python package: `pip install .` into build/venv, then its tests (those
# that need PyTorch or a GPU skip with the reason where there is none).
bash scripts/setup-python.sh
build/venv/bin/python -m pytest -q python/tests
# What the shipped sm_90a kernels compile to (their goldens' SASS; no GPU needed).
build/venv/bin/python -m pytest -q tests/sass

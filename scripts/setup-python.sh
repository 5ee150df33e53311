#!/usr/bin/env bash
# Installs the Python package into a virtual environment (build/venv) with
# `pip install .`: scikit-build-core runs the same CMake with GEMMGEN_PYTHON=ON
# and builds only the extension (incrementally, in build/python-<tag>).
# PyTorch is not installed: the tests that need it skip without it.
#   usage: bash scripts/setup-python.sh   (then build/venv/bin/python -m pytest)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
PY=${PYTHON:-python3}
if [ ! -x build/venv/bin/python ]; then
  if ! "$PY" -c "import venv, ensurepip" 2>/dev/null; then
    echo "setup-python: installing python3-venv"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-venv python3-dev
  fi
  "$PY" -m venv build/venv
fi
build/venv/bin/python -m pip install -q --disable-pip-version-check pytest numpy
# cuobjdump and the nvdisasm it runs, for tests/sass (the toolkit here ships neither).
build/venv/bin/python -m pip install -q --disable-pip-version-check \
  "nvidia-cuda-cuobjdump>=13,<14" "nvidia-cuda-nvdisasm>=13,<14"
build/venv/bin/python -m pip install -q --disable-pip-version-check .

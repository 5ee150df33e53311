#!/usr/bin/env bash
# The Python package on the H200, one command: install the wheel built on a
# CPU machine (no network there), run the Python tests (GPU tests compare with
# torch.matmul), then the host-overhead benchmark. Logs and JSON go to $OUT.
#   build (CPU machine, Python of the H200's version):
#     PATH=/usr/local/cuda/bin:$PATH python3.12 -m pip wheel --no-deps -w .whl .
#   usage (device): bash bench/h200-python.sh .whl
set -u
W=${1:-.whl}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=${GEMMGEN_CACHE_DIR:-/tmp/gemmgen-cache}
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/gg-site "$W"/gemmgen-*.whl || exit 1
export PYTHONPATH=/tmp/gg-site${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import gemmgen, torch; print('gemmgen', gemmgen.__file__, gemmgen.device_info(), 'torch', torch.__version__)" 2>&1 | tee "$OUT/python-env.log"
timeout 540 python3 -m pytest -q -p no:cacheprovider -rs python/tests > "$OUT/python-tests.log" 2>&1; PT=$?
timeout 120 python3 bench/python_overhead.py --json "$OUT/python_overhead.json" > "$OUT/python_overhead.log" 2>&1; BO=$?
echo "python tests rc=$PT: $(tail -1 "$OUT/python-tests.log")"
grep -E "^(FAILED|ERROR)" "$OUT/python-tests.log" | head -10
echo "overhead rc=$BO:"; cat "$OUT/python_overhead.log"

#!/usr/bin/env bash
# A protocol bug on the GPU: what the user sees. Specs from tests/sim_bugs
# (the simulator's seeded bugs), launched with the protocol checks off.
#   1. --debug-hangs: every barrier wait is bounded; the stuck threads report
#      block, role, barrier, slot and phase, then trap.
#   2. no debug build: the host watchdog fires; exit code 4.
#   3. an sm_100a spec on the H200: refused before launch.
#   4. setmaxnreg in the SASS of the fast spec.
#   usage (device): bash bench/h200-hang-demo.sh build-carry
C=${1:-build-carry}; G=$C/gemmgen
export GEMMGEN_CACHE_DIR=$PWD/$C/cache
for bug in depth_1 arrivals_too_many; do
  echo "== $bug --debug-hangs"
  timeout 60 $G run tests/sim_bugs/$bug.yaml --no-protocol-checks --debug-hangs --m 256 --n 256 --k 1024 --iters 0 2>&1 | sort | uniq -c | sort -rn | head -8
  echo "rc=${PIPESTATUS[0]}"
done
echo "== depth_1, watchdog only (--timeout 5)"
timeout 60 $G run tests/sim_bugs/depth_1.yaml --no-protocol-checks --m 256 --n 256 --k 256 --iters 0 --timeout 5 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"
echo "== sm_100a spec on the H200"
timeout 60 $G run specs/sm100/07_ws_tcgen05.yaml --m 256 --n 256 --k 256 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"
echo "== SASS of 05_fast_f16"
$G compile specs/sm90/05_fast_f16.yaml -o /tmp/k.cubin > /dev/null && cuobjdump --dump-sass /tmp/k.cubin > /tmp/k.sass
grep -oE "USETMAXREG[^;]*" /tmp/k.sass | sort | uniq -c; echo "HGMMA: $(grep -c HGMMA /tmp/k.sass)  LDL/STL: $(grep -cE 'LDL|STL' /tmp/k.sass)"

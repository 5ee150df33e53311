#!/usr/bin/env bash
# Bad input never crashes and never hangs: each case is a command line, the
# exit code it must give, and the message a user reads on stderr (whole
# lines; a substring only where the text holds what varies, e.g. a temp path).
# Usage: bad_inputs.sh GEMMGEN SOURCE_DIR
set -u
G=$1; SRC=$2; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
: > "$W/empty.yaml"
head -c 2000 /dev/urandom > "$W/garbage.yaml"
printf 'kernel: k\ntile: [1, 2]\n' > "$W/list_tile.yaml"
S=$SRC/specs/sm90/01_ws_1consumer.yaml
fails=0
expect() { # expected-rc stderr-substring -- command...
  local rc_want=$1 msg=$2; shift 3
  local err rc
  err=$(timeout 60 "$@" 2>&1 >/dev/null | tr -d '\000'; exit "${PIPESTATUS[0]}"); rc=$?
  if [ $rc -ne "$rc_want" ] || [[ "$err" != *"$msg"* ]]; then
    echo "FAIL: $* -> rc $rc (want $rc_want), stderr: ${err:0:300}"; fails=$((fails + 1))
  else
    echo "ok   rc=$rc  $*"
  fi
}
expect 1 "gemmgen: error: cannot read spec '$W/missing.yaml': No such file or directory" -- "$G" check "$W/missing.yaml"
expect 1 "gemmgen: error: cannot read spec '$W': Is a directory" -- "$G" check "$W"
expect 1 "$W/empty.yaml:1:1: error: the spec is empty; it needs at least 'kernel' and 'roles' (see docs/SPEC.md)" -- "$G" check "$W/empty.yaml"
expect 1 "error: malformed YAML: "           -- "$G" check "$W/garbage.yaml" # random bytes: the reason varies
expect 1 "$W/list_tile.yaml:2:7: error: expected a mapping for 'tile', got a list; write it as 'tile: { m: ... }'" -- "$G" emit "$W/list_tile.yaml"
expect 1 "gemmgen: error: cannot read spec '$W/missing.yaml': No such file or directory" -- "$G" compile "$W/missing.yaml"
expect 3 "gemmgen: error: cannot write '$W/no/such/dir/k.cu': No such file or directory" -- "$G" emit "$S" -o "$W/no/such/dir/k.cu"
expect 3 "gemmgen: error: M and N must be positive and K non-negative (got M=-5 N=0 K=7)" -- "$G" run "$S" --m -5 --n 0 --k 7
expect 3 "gemmgen: error: --dtype must be f16 or bf16 (got 'f32')" -- "$G" run "$S" --dtype f32 --m 256 --n 256 --k 256
if ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
  echo "skip: this machine has a CUDA driver (the no-GPU cases run on machines without one)"
else
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" run "$S" --m 256 --n 256 --k 256
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" bench "$S" --m 256 --n 256 --k 256
fi
expect 3 "gemmgen: error: 'tile.q' is not a tunable spec key; did you mean 'tile.m'? (tunable: tile.m, tile.n," -- "$G" tune "$S" tile.q=1 --compile-only
expect 1 "gemmgen: error: --shapes takes MxNxK[,MxNxK...], got '12x'" -- "$G" simulate "$S" --shapes 12x
expect 1 "depth_1.yaml:11:20: error: pipeline.depth 1 cannot overlap the TMA load of the next k-block with the MMA of this one (the producer waits until the only stage is released); use depth: 2 or more (4 is typical)" -- "$G" simulate "$SRC/tests/sim_bugs/depth_1.yaml"
expect 106 "spec is required
Run with --help for more information." -- "$G" emit   # CLI11's usage error code
# check --json: the same diagnostic, machine-readable, on stdout.
out=$("$G" check "$SRC/tests/bad_specs/depth_1.yaml" --json); rc=$?
if [ $rc -eq 1 ] && [[ "$out" == *'"line": 8'* ]] && [[ "$out" == *'"ok": false'* ]]; then
  echo "ok   rc=1  check --json (located diagnostic on stdout)"
else
  echo "FAIL: check --json -> rc $rc: ${out:0:300}"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] && echo "all bad inputs handled" || { echo "$fails case(s) failed"; exit 1; }

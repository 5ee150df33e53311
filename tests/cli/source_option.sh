#!/usr/bin/env bash
# `run|bench --source FILE`: a hand-edited copy of `gemmgen emit` runs in place
# of the emitted kernel, with the stand-in libcuda (tests/fake/FakeCuda.cpp)
# playing the GPU. Checks: the emitted source and an edited one run (the note
# names the file); an unreadable file, a file whose kernel was renamed or
# whose kernel's name stands only in a comment, and a file NVRTC rejects each
# exit 3 with an error that says what is wrong; `bench` refuses the same
# files before it opens the GPU.
# Usage: source_option.sh GEMMGEN SOURCE_DIR FAKE_LIBCUDA
set -u
G=$1; SRC=$2; FAKE=$3; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export GEMMGEN_CACHE_DIR=$W/cache GEMMGEN_LIBCUDA=$FAKE
fails=0
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1" || { echo "  $1 lacks: $2"; sed 's/^/  | /' "$1" | head -20; false; }; }
SPEC=$SRC/specs/sm90/01_ws_1consumer.yaml; NAME=gemm_sm90_ws_1consumer
run() { timeout 300 "$G" run "$SPEC" --m 256 --n 256 --k 256 --iters 1 --source "$@"; }

"$G" emit "$SPEC" -o "$W/emitted.cu"
check "emit: exit 0" test $? = 0
sed 's|^  fence_mbarrier_init();|  fence_mbarrier_init();  // edited by hand|' "$W/emitted.cu" > "$W/edited.cu"
check "the edit changed the file" test "$(cmp -s "$W/emitted.cu" "$W/edited.cu"; echo $?)" = 1
sed "s/^$NAME(/renamed(/" "$W/emitted.cu" > "$W/renamed.cu"
grep -v "^$NAME(" "$W/emitted.cu" | sed "s/^extern \"C\" __global__.*/extern \"C\" __global__ void k(/" \
  > "$W/comment_only.cu"
sed 's|^  fence_mbarrier_init();|  fence_mbarrier_init() not C++;|' "$W/emitted.cu" > "$W/broken.cu"

for f in emitted edited; do
  run "$W/$f.cu" > "$W/out_$f" 2>&1
  check "run --source $f.cu: exit 0" test $? = 0
  check "run --source $f.cu: the note names it" has "$W/out_$f" \
    "gemmgen: note: running $W/$f.cu in place of the emitted \`$NAME\`"
  check "run --source $f.cu: the spec's kernel ran" has "$W/out_$f" "kernel  $NAME (sm_90a"
done

run "$W/missing.cu" > "$W/out_missing" 2>&1
check "missing file: exit 3" test $? = 3
check "missing file: says so" has "$W/out_missing" "gemmgen: error: --source $W/missing.cu: No such file"
for f in renamed comment_only; do
  run "$W/$f.cu" > "$W/out_$f" 2>&1
  check "$f.cu: exit 3" test $? = 3
  check "$f.cu: names the kernel and what to do" has "$W/out_$f" \
    "does not define the kernel \`$NAME\` the spec launches: start from \`gemmgen emit\`"
done
run "$W/broken.cu" > "$W/out_broken" 2>&1
check "broken.cu: exit 3" test $? = 3
check "broken.cu: NVRTC's log" has "$W/out_broken" "error: expected a \";\""

timeout 300 "$G" bench "$SPEC" --m 256 --n 256 --k 256 --rounds 1 --source "$W/renamed.cu" \
  > "$W/bench_renamed" 2>&1
check "bench --source renamed.cu: exit 3" test $? = 3
check "bench --source renamed.cu: refused before the GPU" has "$W/bench_renamed" \
  "does not define the kernel \`$NAME\`"

[ $fails -eq 0 ] && echo "source_option: all passed" || echo "source_option: $fails failed"
exit $((fails > 0))

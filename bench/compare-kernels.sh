#!/usr/bin/env bash
# Are the kernels two gemmgen binaries generate the same? For every spec under specs/ and bench/
# (not specs/tuned/defaults.yaml, which is no spec): the cubin each compiles (`compile --no-cache`,
# with and without --debug-hangs) compared byte for byte, and the emitted source. One line each:
# SAME / DIFF / RC (one binary failed) / BOTHFAIL, then the counts. No GPU needed.
#   usage: bash bench/compare-kernels.sh OLD_GEMMGEN NEW_GEMMGEN [JOBS]
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); JOBS=${3:-4}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
one() { # spec
  local s=$1 b v ro rn; b=$(echo "$s" | tr '/' '_')
  for v in "" "--debug-hangs"; do
    "$OLD" compile "$s" $v --no-cache -o "$W/old_$b$v.cubin" >/dev/null 2>&1; ro=$?
    "$NEW" compile "$s" $v --no-cache -o "$W/new_$b$v.cubin" >/dev/null 2>&1; rn=$?
    if [ $ro != $rn ]; then echo "RC cubin $s $v $ro $rn"
    elif [ $ro != 0 ]; then echo "BOTHFAIL cubin $s $v"
    elif cmp -s "$W/old_$b$v.cubin" "$W/new_$b$v.cubin"; then echo "SAME cubin $s $v"
    else echo "DIFF cubin $s $v"; fi
  done
  if [ "$("$OLD" emit "$s" 2>&1 | md5sum)" = "$("$NEW" emit "$s" 2>&1 | md5sum)" ]; then
    echo "SAME source $s"; else echo "DIFF source $s"; fi
}
export -f one; export OLD NEW W
find specs bench -name '*.yaml' ! -path 'specs/tuned/defaults.yaml' ! -path 'bench/results/*' ! -path 'bench/tune/*' \
  | sort | xargs -P "$JOBS" -I{} bash -c 'one {}' | sort -k3 > "$W/out"
cat "$W/out"
echo "== $(awk '{print $1, $2}' "$W/out" | sort | uniq -c | tr '\n' ';')"

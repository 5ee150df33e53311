#!/usr/bin/env bash
# `gemmgen tune --gpus` and `gemmgen tune-db merge` on a CPU machine, with the
# stand-in libcuda (tests/fake/FakeCuda.cpp) shaping the host: N fake GPUs,
# lower ordinals slower (so children finish out of the order they started).
# Checks: bad --gpus values and no GPU give their errors and exit codes;
# `--gpus all` on 3 fake GPUs spreads the candidates over ordinals 0, 1, 2
# (the ordinal each child reports it opened) and writes the same DB, in the
# same order, as `--gpus 1` (dates and ordinals aside); merge gives the same
# file whatever the order of its inputs and refuses malformed input with
# FILE:LINE.
# Usage: tune_gpus.sh GEMMGEN SOURCE_DIR FAKE_LIBCUDA
set -u
G=$1; SRC=$2; FAKE=$3; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
S=$SRC/specs/sm90/01_ws_1consumer.yaml
export GEMMGEN_CACHE_DIR=$W/cache
SPACE=(pipeline.depth=3,4 scheduler.raster=along_m,along_n,hilbert)
TUNE=(tune "$S" --m 256 --n 256 --k 0 "${SPACE[@]}" --no-cublas --seed 7 --jobs 1)
fails=0
expect() { # expected-rc stderr-substring -- command...
  local rc_want=$1 msg=$2; shift 3
  local err rc
  err=$(timeout 120 "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne "$rc_want" ] || [[ "$err" != *"$msg"* ]]; then
    echo "FAIL: $* -> rc $rc (want $rc_want), stderr: ${err:0:400}"; fails=$((fails + 1))
  else
    echo "ok   rc=$rc  $*"
  fi
}
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

# Bad values are refused before any GPU work (here: no driver at all).
NODRV=(env GEMMGEN_LIBCUDA=$W/no-libcuda.so.1)
expect 3 "gemmgen: error: --gpus 0: give at least 1 GPU (or \`all\`: every GPU the driver reports)" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus 0
expect 3 "gemmgen: error: --gpus -1: give at least 1 GPU" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus=-1
expect 3 "gemmgen: error: --gpus takes a number of GPUs (1, 2, ...) or \`all\`; got 'x'" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus x
expect 3 "gemmgen: error: --gpus takes a number of GPUs (1, 2, ...) or \`all\`; got '1.5'" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus 1.5
# No GPU: the existing error and exit code, whatever --gpus says.
expect 2 "gemmgen: error: no CUDA driver/GPU found (" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus 2
expect 2 "gemmgen: error: no CUDA driver/GPU found (" -- "${NODRV[@]}" "$G" "${TUNE[@]}" --gpus all
# More GPUs than the host has; GPUs of different kinds.
FAKE3=(env GEMMGEN_LIBCUDA=$FAKE GEMMGEN_FAKE_CUDA_DEVICES=3)
expect 3 "gemmgen: error: --gpus 4: this host has 3 GPUs (ordinals 0-2, within CUDA_VISIBLE_DEVICES if set); use --gpus 3 or --gpus all" -- "${FAKE3[@]}" "$G" "${TUNE[@]}" --gpus 4 --db "$W/x.jsonl"
expect 3 "gemmgen: error: GPU 1 is a Fake H100 but GPU 0 is a Fake H200; a tune times on one kind of GPU" -- env GEMMGEN_LIBCUDA=$FAKE GEMMGEN_FAKE_CUDA_DEVICES=2 "GEMMGEN_FAKE_CUDA_NAMES=Fake H200,Fake H100" "$G" "${TUNE[@]}" --gpus all --db "$W/x.jsonl"
check "no DB written by the refused runs" test ! -e "$W/x.jsonl"

# The same tune on 3 GPUs and on 1.
env GEMMGEN_FAKE_CUDA_SLOW_MS=150 "${FAKE3[@]}" "$G" "${TUNE[@]}" --gpus all --db "$W/three.jsonl" > "$W/three.log" 2>&1
check "tune --gpus all on 3 fake GPUs exits 0" test $? -eq 0
env GEMMGEN_FAKE_CUDA_SLOW_MS=150 "${FAKE3[@]}" "$G" "${TUNE[@]}" --gpus 1 --db "$W/one.jsonl" > "$W/one.log" 2>&1
check "tune --gpus 1 exits 0" test $? -eq 0
check "the header names the GPUs" grep -q "on 3 x Fake H200 (GPUs 0-2, driver" "$W/three.log"
check "progress lines come in candidate order" \
  test "$(grep -o '^\[[0-9]/6\]' "$W/three.log" | tr -d '\n')" = "[1/6][2/6][3/6][4/6][5/6][6/6]"
check "--gpus 1 prints what it printed before (no GPU column)" bash -c "! grep -q ' on GPU ' '$W/one.log'"
python3 - "$W/three.jsonl" "$W/one.jsonl" <<'PY'
import json, sys
def load(p):
    lines = open(p).read().splitlines()
    assert json.loads(lines[0]) == {"gemmgen_tune_db": 1}, lines[0]
    return [json.loads(l) for l in lines[1:]]
three, one = load(sys.argv[1]), load(sys.argv[2])
ords = sorted({r["gpu_ordinal"] for r in three})
assert ords == [0, 1, 2], "candidates not spread over the 3 GPUs: %s" % ords
assert {r["gpu_ordinal"] for r in one} == {0}, "--gpus 1 timed on another GPU than 0"
assert all(r["status"] == "ok" and r["host"] for r in three), "a record failed or has no host"
strip = lambda rs: [{k: v for k, v in r.items() if k not in ("date", "gpu_ordinal")} for r in rs]
assert [r["candidate"] for r in three] == [r["candidate"] for r in one], "record order differs"
assert strip(three) == strip(one), "records differ beyond date and ordinal"
print("ok   3 GPUs: ordinals %s; records and their order equal --gpus 1's" % ords)
PY
[ $? -eq 0 ] || fails=$((fails + 1))

# Merge: the same file whatever the inputs' order; a rerun with the merged
# DB reuses every candidate.
"$G" tune-db merge "$W/m1.jsonl" "$W/three.jsonl" "$W/one.jsonl" > "$W/m1.log" 2>&1
check "merge exits 0" test $? -eq 0
"$G" tune-db merge "$W/m2.jsonl" "$W/one.jsonl" "$W/three.jsonl" > /dev/null 2>&1
check "merge output does not depend on the inputs' order" cmp -s "$W/m1.jsonl" "$W/m2.jsonl"
check "merge says what it kept" grep -q "records from 2 files" "$W/m1.log"
env "${FAKE3[@]}" "$G" "${TUNE[@]}" --gpus all --db "$W/m1.jsonl" > "$W/rerun.log" 2>&1
check "a tune on the merged DB reuses all 6" grep -q "measured 0, reused 6" "$W/rerun.log"
# Malformed input: located, nothing written; an existing OUT is not clobbered.
{ head -2 "$W/one.jsonl"; echo '{"v":1,"kind":"candidate","gpu":"Fake H200","driver":13000,"M":"256"}'; tail -n +3 "$W/one.jsonl"; } > "$W/bad.jsonl"
expect 3 "gemmgen: error: $W/bad.jsonl:3: \"M\" must be an integer; fix or delete this line (nothing was written)" -- "$G" tune-db merge "$W/m3.jsonl" "$W/one.jsonl" "$W/bad.jsonl"
check "no output after a malformed input" test ! -e "$W/m3.jsonl"
expect 3 "gemmgen: error: '$W/m2.jsonl' exists and is not one of the inputs; list it as an input to merge into it, or give a new output file" -- "$G" tune-db merge "$W/m2.jsonl" "$W/one.jsonl"
printf 'hello\n' > "$W/junk.jsonl"
expect 3 "gemmgen: error: $W/junk.jsonl:1: not a gemmgen results DB" -- "$G" tune-db merge "$W/m4.jsonl" "$W/junk.jsonl"
expect 3 "gemmgen: error: cannot read '$W/none.jsonl': No such file or directory" -- "$G" tune-db merge "$W/m4.jsonl" "$W/none.jsonl"
[ $fails -eq 0 ] && echo "all tune --gpus / merge cases passed" || { echo "$fails case(s) failed"; exit 1; }

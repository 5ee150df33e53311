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
# Hostile inputs (each crashed or hung before): deep nesting, long names,
# what is not a regular file, more than a spec's 1 MiB.
mkfifo "$W/fifo.yaml"
python3 - "$W" "$S" <<'PY'
import sys
w, s = sys.argv[1], open(sys.argv[2]).read()
open(w + '/deep_flow.yaml', 'w').write('kernel: ' + '[' * 600000 + ']' * 400000 + '\n')
open(w + '/deep_seq.yaml', 'w').write('kernel: k\nx:\n' + '- ' * 500000 + 'a\n')
open(w + '/big.yaml', 'w').write(s + '#' * (1 << 20) + '\n')
open(w + '/hashes.yaml', 'w').write('kernel: k\n' + '#' * 8000 + '\n')
for n in (30000, 100000):
    open(w + '/name%d.yaml' % n, 'w').write(s.replace('gemm_sm90_ws_1consumer', 'g' * n))
PY
mkdir -p "$W/a
b" && cp "$S" "$W/a
b/spec.yaml"
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
expect 1 "gemmgen: error: cannot read spec '$W': it is a directory; give the path of a spec file (.yaml)" -- "$G" check "$W"
expect 1 "$W/empty.yaml:1:1: error: the spec is empty; it needs at least 'kernel' and 'roles' (see docs/SPEC.md)" -- "$G" check "$W/empty.yaml"
expect 1 "error: malformed YAML: "           -- "$G" check "$W/garbage.yaml" # random bytes: the reason varies
expect 1 "$W/list_tile.yaml:2:7: error: expected a mapping for 'tile', got a list; write it as 'tile: { m: ... }'" -- "$G" emit "$W/list_tile.yaml"
expect 1 "gemmgen: error: cannot read spec '$W/missing.yaml': No such file or directory" -- "$G" compile "$W/missing.yaml"
expect 3 "gemmgen: error: cannot write '$W/no/such/dir/k.cu': No such file or directory" -- "$G" emit "$S" -o "$W/no/such/dir/k.cu"
expect 3 "gemmgen: error: M and N must be positive and K non-negative (got M=-5 N=0 K=7)" -- "$G" run "$S" --m -5 --n 0 --k 7
expect 3 "gemmgen: error: --dtype must be f16, bf16, e4m3 or e5m2 (got 'f32')" -- "$G" run "$S" --dtype f32 --m 256 --n 256 --k 256
expect 3 "gemmgen: error: --layout takes the layouts of A and B (and optionally D) as A,B[,D] with each row or col, e.g. --layout row,col (A M×K row-major, B stored N×K, D row-major: the default), --layout col,row or --layout row,col,col (got 'row,diag')" -- "$G" run "$S" --layout row,diag
expect 3 "(got 'row,col,col,row')" -- "$G" run "$S" --layout row,col,col,row
expect 3 "gemmgen: error: --offset must be between 0 and 1048576 elements (got -1)" -- "$G" run "$S" --offset -1
expect 3 "gemmgen: error: --out-dtype must be f32 (D and C in f32), or left out (D in the operand type); the fp8 kernel \`auto\` chooses also takes bf16, f16, e4m3 or e5m2 (got 'f64')" -- "$G" run "$S" --out-dtype f64
expect 3 "gemmgen: error: --out-dtype bf16 with a spec file: the spec says its D (types.d); use --out-dtype f32 (D and C in f32) or leave it out (\`auto\` with --dtype e4m3 takes bf16, f16, f32, e4m3 or e5m2)" -- "$G" bench "$S" --out-dtype bf16
expect 3 "gemmgen: error: --out-dtype e4m3 picks D's type of the fp8 kernel \`auto\` chooses (with --dtype e4m3 or e5m2); 16-bit kernels write D in the operand type or f32: use --out-dtype f32 or leave it out" -- "$G" run auto --m 64 --n 64 --k 64 --out-dtype e4m3
expect 3 "gemmgen: error: --out-dtype e5m2 picks D's type of the fp8 kernel \`tuned\` chooses (with --dtype e4m3 or e5m2); 16-bit kernels write D in the operand type or f32: use --out-dtype f32 or leave it out" -- "$G" bench tuned --m 64 --n 64 --k 64 --dtype bf16 --out-dtype e5m2
# --groups FILE (run, bench, simulate): the file's lines, and what it does not combine with.
printf '12 4\n' > "$W/groups_bad.txt"; printf '64\n0\n' > "$W/groups_two.txt"; printf '300\nx\n' > "$W/groups_word.txt"
printf '# nothing\n' > "$W/groups_none.txt"; printf '64 256 64\n32 512 64\n' > "$W/groups_mixed.txt"
printf '300 136 136\n0\n129 264 0\n' > "$W/groups_ok.txt"; printf -- '-5\n' > "$W/groups_neg.txt"
expect 3 "gemmgen: error: $W/groups_bad.txt:1: a problem is \`M\` or \`M N K\` (got 2 fields)" -- "$G" run "$S" --groups "$W/groups_bad.txt"
expect 3 "gemmgen: error: $W/groups_word.txt:2: 'x' is not a size between 0 and 2147483647" -- "$G" bench "$S" --groups "$W/groups_word.txt"
expect 3 "gemmgen: error: $W/groups_neg.txt:1: '-5' is not a size between 0 and 2147483647" -- "$G" run "$S" --groups "$W/groups_neg.txt"
# A binary line is quoted escaped and cut, not echoed raw to the terminal.
printf '\001\377abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n' > "$W/groups_binary.txt"
expect 3 "gemmgen: error: $W/groups_binary.txt:1: '\\x01\\xffabcdefghijklmnopqrstuvwxyz0123456789AB...' is not a size between 0 and 2147483647" -- "$G" run "$S" --groups "$W/groups_binary.txt"
# A write that fails after the open (a full disk) is an error line and exit 3, not LLVM's
# fatal "IO failure on output stream".
if [ -w /dev/full ]; then
  expect 3 "gemmgen: error: cannot write '/dev/full': No space left on device" -- "$G" emit "$S" -o /dev/full
  expect 3 "gemmgen: error: cannot write '/dev/full': No space left on device" -- "$G" compile "$S" -o /dev/full
  expect 3 "gemmgen: error: cannot write '/dev/full': No space left on device" -- "$G" choose --m 1 --n 2 --k 3 -o /dev/full
else
  echo "skip: no writable /dev/full here"
fi
expect 3 "gemmgen: error: $W/groups_none.txt: no problems (one per line: \`M\` or \`M N K\`)" -- "$G" simulate "$S" --groups "$W/groups_none.txt"
expect 3 "gemmgen: error: $W/missing.txt: cannot read the --groups file" -- "$G" run "$S" --groups "$W/missing.txt"
expect 3 "gemmgen: error: bench --groups times the mixture-of-experts layout (one N and K for all problems); $W/groups_mixed.txt mixes them (use \`gemmgen run --groups\` for problems of their own N and K)" -- "$G" bench "$S" --groups "$W/groups_mixed.txt"
expect 3 "gemmgen: error: bench --groups takes --n/--k (or N K in the file), --dtype, --layout, --rounds and a spec; not --batch, --beta, --shapes, --m, --json, --csv, \`tuned\` or \`auto\`" -- "$G" bench "$S" --groups "$W/groups_two.txt" --batch 2
expect 3 "gemmgen: error: run --groups takes each problem's shape from the file and pads its lines itself; not with --batch, --offset, --lda/--ldb/--ldd or \`tuned\`/\`auto\`" -- "$G" run "$S" --groups "$W/groups_ok.txt" --offset 1
expect 3 "gemmgen: error: --scaling needs fp8 operands: add --dtype e4m3 (or e5m2) (got --scaling blockwise)" -- "$G" run auto --m 64 --n 64 --k 64 --scaling blockwise
expect 3 "gemmgen: error: --scaling picks the scales of the kernel \`auto\` or \`tuned\` chooses; a spec file says its own (types.scaling): leave --scaling out (got --scaling blockwise)" -- "$G" run "$S" --dtype e4m3 --scaling blockwise
expect 3 "gemmgen: error: --scaling must be per_tensor or blockwise (got --scaling rowwise)" -- "$G" bench auto --m 64 --n 64 --k 64 --dtype e4m3 --scaling rowwise
expect 3 "gemmgen: error: spec \`auto\` picks one spec per shape: give one shape (--m/--n/--k or a single --shapes entry)" -- "$G" bench auto --shapes 64x64x64,128x128x128
expect 1 "gemmgen: error: cannot write the chosen spec to" -- env GEMMGEN_CACHE_DIR=/proc/gemmgen-no "$G" run auto --m 64 --n 64 --k 64
expect 1 "gemmgen: error: --groups gives the problems of one launch; not with --shapes or --batch" -- "$G" simulate "$S" --groups "$W/groups_ok.txt" --batch 2
expect 1 "gemmgen: error: kernel 'gemm_sm90_fast_f16_grouped' is grouped: give its problems (--groups FILE), not a batch" -- "$G" simulate "$SRC/specs/sm90/11_fast_f16_grouped.yaml" --batch 2
expect 1 "specs/sm100/07_ws_tcgen05.yaml:32:1: error: scheduler.grouped is not supported on sm_100a yet: its kernels compute one problem per launch; launch once per problem, or use an sm_90a spec" -- "$G" simulate "$SRC/specs/sm100/07_ws_tcgen05.yaml" --groups "$W/groups_ok.txt"
expect 3 "gemmgen: error: --batch must be at least 1 (got 0)" -- "$G" run "$S" --batch 0
expect 3 "gemmgen: error: --batch must be at least 1 (got -3)" -- "$G" bench "$S" --batch -3
expect 1 "gemmgen: error: --batch must be at least 1 (got 0)" -- "$G" simulate "$S" --batch 0
expect 1 "gemmgen: error: a batch of 5000 entries is too many to simulate; use at most 1024 (every entry's tiles are simulated)" -- "$G" simulate "$S" --batch 5000
expect 1 "gemmgen: error: the shape 300 x 256x256x256 has 1200 output tiles of 128x128; the simulator runs at most 1024 tiles (each CTA's memory is simulated): use a smaller M or N or batch" -- "$G" simulate "$S" --batch 300 --m 256 --n 256 --k 256
expect 1 "gemmgen: error: kernel 'gemm_sm100_step7_ws' (sm_100a) computes one problem per launch (its printer has no batch yet); simulate --batch on an sm_90a spec, or one entry at a time" -- "$G" simulate "$SRC/specs/sm100/07_ws_tcgen05.yaml" --batch 2
expect 3 "gemmgen: error: bench measures a row-major D (cuBLAS computes the same problem); time a column-major D with \`gemmgen run --layout A,B,col\`" -- "$G" bench "$S" --layout row,col,col
expect 3 "gemmgen: error: bench times fp8 kernels against cuBLASLt, whose fp8 GEMM takes A and B K-major only (--layout row,col); time an fp8 operand stored M- or N-major (the runtime's transposing copy) with \`gemmgen run --layout col,row --iters N\`" -- "$G" bench "$SRC/specs/sm90/13_fast_e4m3.yaml" --layout col,row
expect 1 "gemmgen: error: cannot read spec '/dev/zero': it is not a regular file (a character device); give the path of a spec file (.yaml)" -- "$G" check /dev/zero
expect 1 "gemmgen: error: cannot read spec '$W/fifo.yaml': it is not a regular file (a FIFO); give the path of a spec file (.yaml)" -- "$G" check "$W/fifo.yaml"
expect 1 "bytes; a spec is at most 1048576 bytes (1 MiB)" -- "$G" check "$W/big.yaml"
expect 1 "deep_flow.yaml:1:41: error: the spec nests more than 32 levels deep here; a spec needs 4 (roles: { name: { does: [...] } }); check the brackets and indentation" -- "$G" check "$W/deep_flow.yaml"
expect 1 "deep_seq.yaml:3:63: error: the spec nests more than 32 levels deep here" -- "$G" emit "$W/deep_seq.yaml"
expect 1 "hashes.yaml:1:1: error: missing required key 'roles'" -- "$G" check "$W/hashes.yaml"
expect 1 "error: kernel name 'gggggggggggggggggggggggggggggggggggggggg...' is 30000 characters long; use at most 200" -- "$G" compile "$W/name30000.yaml"
expect 1 "error: kernel name 'gggggggggggggggggggggggggggggggggggggggg...' is 100000 characters long; use at most 200" -- "$G" compile "$W/name100000.yaml"
expect 105 "--seeds: Value 4294967295 not in range 1 to 1000" -- "$G" check "$S" --seeds 4294967295
# A results DB with a torn line (an interrupted write): read, with a note on stderr (the CSV on
# stdout stays clean), by tune-db as by tune.
printf '{"gemmgen_tune_db":1}\n{"kind": "cand' > "$W/torn.jsonl"
expect 0 "gemmgen: note: 1 unreadable line(s) in $W/torn.jsonl skipped (an interrupted write?)" -- "$G" tune-db export --db "$W/torn.jsonl"
# Scales that make every output NaN, counts of launches below what the loop needs: refused
# before any GPU work (OptionChecks.h).
expect 105 "--alpha: must be a finite number that fits a float (got 'nan')" -- "$G" run "$S" --m 64 --n 64 --k 64 --alpha nan
expect 105 "--beta: must be a finite number that fits a float (got 'inf')" -- "$G" run "$S" --m 64 --n 64 --k 64 --beta inf
expect 105 "--beta: must be a finite number that fits a float (got '1e39')" -- "$G" bench "$S" --m 64 --n 64 --k 64 --beta 1e39
expect 105 "--alpha: must be a finite number that fits a float (got '2x')" -- "$G" simulate "$S" --alpha 2x
expect 105 "--iters: Value -1 not in range 0 to 1073741824" -- "$G" run "$S" --m 64 --n 64 --k 64 --iters -1
expect 105 "--warmup: Value -2 not in range 0 to 1073741824" -- "$G" run "$S" --m 64 --n 64 --k 64 --warmup -2
expect 105 "--rounds: Value 0 not in range 1 to 1073741824" -- "$G" bench "$S" --m 64 --n 64 --k 64 --rounds 0
expect 105 "--rounds: Value 0 not in range 1 to 1073741824" -- "$G" tune "$S" --rounds 0 --compile-only
expect 1 "gemmgen: error: the shape 4294967295x256x256 has 67108864 output tiles of 128x128; the simulator runs at most 1024 tiles (each CTA's memory is simulated): use a smaller M or N" -- "$G" simulate "$S" --m 4294967295
expect 1 "gemmgen: error: the shape 65536x65536x256 has 262144 output tiles of 128x128; the simulator runs at most 1024 tiles" -- "$G" simulate "$S" --m 65536 --n 65536
expect 1 "gemmgen: error: a grid of 4294967295 CTAs is too large to simulate; use at most 1024 (the H200 runs one CTA per SM, 132)" -- "$G" simulate "$S" --ctas 4294967295
expect 1 "gemmgen: error: --shapes takes MxNxK[,MxNxK...] with sizes from 0 to 4294967295, got '-1x2x3'" -- "$G" simulate "$S" --shapes -1x2x3
expect 1 "gemmgen: error: simulating 5000 interleavings is too many; use at most 1000 (each seed is a full run)" -- "$G" simulate "$S" --seeds 5000
expect 1 "gemmgen: error: simulating 0 interleavings checks nothing (a verdict of 'ok' over none); use at least 1 seed (16 is the default)" -- "$G" simulate "$S" --seeds 0
if ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
  echo "skip: this machine has a CUDA driver (the no-GPU cases run on machines without one)"
else
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" run "$S" --m 256 --n 256 --k 256
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" bench "$S" --m 256 --n 256 --k 256
  # --out-dtype f32 is taken (a spec file's D and C in f32): the command gets as far as the GPU.
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" run "$S" --out-dtype f32 --m 256 --n 256 --k 256
  expect 2 "gemmgen: error: no CUDA driver/GPU found (libcuda.so.1 could not be loaded)" -- "$G" bench "$S" --out-dtype f32 --m 256 --n 256 --k 256
fi
expect 3 "gemmgen: error: 'tile.q' is not a tunable spec key; did you mean 'tile.m'? (tunable: tile.m, tile.n," -- "$G" tune "$S" tile.q=1 --compile-only
expect 1 "gemmgen: error: --shapes takes MxNxK[,MxNxK...] with sizes from 0 to 4294967295, got '12x'" -- "$G" simulate "$S" --shapes 12x
expect 1 "gemmgen: error: --shapes takes MxNxK[,MxNxK...] with sizes from 0 to 4294967295, got '4294967296x2x3'" -- "$G" simulate "$S" --shapes 4294967296x2x3
expect 1 "gemmgen: error: --shapes takes MxNxK[,MxNxK...] with sizes from 0 to 4294967295, got '64x64x64,'" -- "$G" simulate "$S" --shapes 64x64x64,
expect 3 "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '64x64x64,,128x128x128')" -- "$G" bench "$S" --shapes 64x64x64,,128x128x128
expect 1 "depth_1.yaml:11:20: error: pipeline.depth 1 cannot overlap the TMA load of the next k-block with the MMA of this one (the producer waits until the only stage is released); use depth: 2 or more (4 is typical)" -- "$G" simulate "$SRC/tests/sim_bugs/depth_1.yaml"
# --version names the build (bench logs and sweeps record it).
out=$("$G" --version); rc=$?
if [ $rc -eq 0 ] && [[ "$out" =~ ^gemmgen\ [0-9.]+\ \(built\ from\ ([0-9a-f]{7,}(-dirty)?|unknown)\)$ ]]; then
  echo "ok   rc=0  --version: $out"
else
  echo "FAIL: --version -> rc $rc: ${out:0:300}"; fails=$((fails + 1))
fi
expect 106 "spec is required
Run with --help for more information." -- "$G" emit   # CLI11's usage error code
# A newline in the spec's path reaches the generated banner escaped: the
# comment stays one line, and the source still compiles.
out=$("$G" emit "$W/a
b/spec.yaml" | head -3)
if [[ "$out" == *'/a\nb/spec.yaml -- do not edit.'* ]] && [ "$(printf '%s\n' "$out" | grep -c '^// ')" -eq 3 ]; then
  echo "ok   emit: a newline in the spec path is escaped in the banner"
else
  echo "FAIL: emit with a newline in the path: ${out:0:300}"; fails=$((fails + 1))
fi
expect 0 ""                                -- "$G" compile "$W/a
b/spec.yaml" -o "$W/k.cubin"
# check --json: the same diagnostic, machine-readable, on stdout.
out=$("$G" check "$SRC/tests/bad_specs/depth_1.yaml" --json); rc=$?
if [ $rc -eq 1 ] && [[ "$out" == *'"line": 8'* ]] && [[ "$out" == *'"ok": false'* ]]; then
  echo "ok   rc=1  check --json (located diagnostic on stdout)"
else
  echo "FAIL: check --json -> rc $rc: ${out:0:300}"; fails=$((fails + 1))
fi
# `auto` with fp8 operands: the fp8 chooser's spec, written before any GPU
# is needed (no GPU: exit 2 after the choice), and one that passes the checks.
out=$(env GEMMGEN_CACHE_DIR="$W/fp8cache" "$G" run auto --m 128 --n 2112 --k 7168 --dtype e4m3 \
      --scaling blockwise --verify 2>/dev/null)
chosen=$(ls "$W/fp8cache/chosen/"*_e4m3_blockwise_bf16.yaml 2>/dev/null | head -1)
if [[ "$out" == *"chosen by the cost model: "*" tile with split_k "*" for 128x2112x7168"* ]] && [ -n "$chosen" ] &&
   "$G" check "$chosen" >/dev/null 2>&1 && grep -q "scaling: blockwise" "$chosen"; then
  echo "ok   run auto --dtype e4m3 --scaling blockwise: $(basename "$chosen")"
else
  echo "FAIL: run auto --dtype e4m3 --scaling blockwise: ${out:0:300} (spec: '$chosen')"; fails=$((fails + 1))
fi
# --out-dtype picks D of the fp8 choice: an 8-bit D (no split, whole 128-column
# slabs), f16 and f32, each a spec that passes the checks.
for od in e4m3 f16 f32; do
  out=$(env GEMMGEN_CACHE_DIR="$W/fp8out_$od" "$G" run auto --m 128 --n 2112 --k 7168 --dtype e4m3 \
        --out-dtype $od 2>/dev/null)
  chosen=$(ls "$W/fp8out_$od/chosen/"*_e4m3_tensor_$od.yaml 2>/dev/null | head -1)
  if [[ "$out" == *"chosen by the cost model: "* ]] && [ -n "$chosen" ] &&
     "$G" check "$chosen" >/dev/null 2>&1 && grep -q "d: $od," "$chosen"; then
    echo "ok   run auto --dtype e4m3 --out-dtype $od: $(basename "$chosen")"
  else
    echo "FAIL: run auto --dtype e4m3 --out-dtype $od: ${out:0:300} (spec: '$chosen')"; fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ] && echo "all bad inputs handled" || { echo "$fails case(s) failed"; exit 1; }

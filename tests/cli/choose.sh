#!/usr/bin/env bash
# `gemmgen choose` (no GPU): what `auto` compiles for a shape. Each family the
# shape classes reach shows in its row (the same rules KernelChoiceTest pins
# through the library), `--spec` prints exactly what `-o` writes and that spec
# passes the checks, --tuned takes the tuned-defaults entry where there is one,
# the output is the same twice, and bad input gets its message and exit code 3.
# Usage: choose.sh GEMMGEN SOURCE_DIR
set -u
G=$1; SRC=$2; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export GEMMGEN_TUNED_DEFAULTS=$SRC/specs/tuned/defaults.yaml
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# shape, then the family and split its row must show.
while read -r shape family split; do
  row=$("$G" choose --shapes "$shape" 2>&1 | awk -v s="$shape" '$1 == s')
  set -- $row
  if [ "${3:-}" = "$family" ] && [ "${4:-}" = "$split" ]; then ok "choose $shape: $family split $split"
  else bad "choose $shape: want $family split $split, got '$row'"; fi
done <<'CASES'
4096x4096x4096 large 1
1x4096x14336 decode_d16 1
16x6144x4096 decode 1
1x2112x7168 decode 4
32x4096x4096 decode32 1
64x4096x4096 decode64 1
4096x8x14336 tall_d16 1
57344x16x8192 tall 1
8192x8192x512 pingpong 1
3000x5000x2048 pingpong152 1
128x4096x11008 small 2
CASES

# A column-major D is chosen as the problem with D row-major (N×M): 16 rows
# of D col-major take the tall twin, which the runtime runs transposed with the
# 4096 columns on the MMA's M side; D row-major keeps decode_d16 (the same
# orientation); the note says so.
out=$("$G" choose --shapes 16x4096x4096 --layout row,col,col 2>&1)
[[ "$out" == *"16x4096x4096         f16   tall_d16"* && "$out" == *"for 4096x16x4096"* &&
   "$out" == *"D column-major: each shape MxNxK is chosen as the problem with D row-major"* ]] &&
  ok "choose --layout row,col,col: the row-major problem's family" ||
  bad "choose --layout row,col,col: $out"
out=$("$G" choose --shapes 16x4096x4096 --layout row,col,row 2>&1)
[[ "$out" == *"16x4096x4096         f16   decode_d16"* && "$out" != *"D column-major: each shape"* ]] &&
  ok "choose --layout row,col,row: decode_d16" || bad "choose --layout row,col,row: $out"

# fp8: the blockwise family at a DeepSeek-V3 shape, an 8-bit D named in the kernel.
out=$("$G" choose --m 128 --n 7168 --k 2048 --dtype e4m3 --scaling blockwise 2>&1)
[[ "$out" == *"_e4m3_blockwise_bf16"* ]] && ok "choose e4m3 blockwise" || bad "choose e4m3 blockwise: $out"
out=$("$G" choose --m 4096 --n 4096 --k 4096 --dtype e4m3 --out-dtype e4m3 2>&1)
[[ "$out" == *"_e4m3_tensor_e4m3"* ]] && ok "choose e4m3 -> e4m3" || bad "choose e4m3 -> e4m3: $out"

# One shape: a `why` line; --spec is the file -o writes, and it checks clean.
out=$("$G" choose --m 1 --n 4096 --k 14336 -o "$W/chosen.yaml" 2>&1)
[[ "$out" == *"why: decode_d16 64x16 tile storing D column-major"* && "$out" == *"spec: $W/chosen.yaml"* ]] &&
  ok "choose -o: why and spec lines" || bad "choose -o: $out"
if "$G" choose --m 1 --n 4096 --k 14336 --spec | cmp -s - "$W/chosen.yaml" &&
   "$G" check "$W/chosen.yaml" >/dev/null 2>&1; then ok "--spec = -o, checks clean"
else bad "--spec differs from -o, or the spec does not check"; fi
# --tuned: the entry for exactly 2048^3 f16 (its spec printed by --spec), the
# model's choice where the file has none.
out=$("$G" choose --tuned --shapes 2048x2048x2048,1x4096x14336 2>&1)
if [[ "$out" == *"2048x2048x2048       f16   tuned "*"/specs/tuned/nvidia_h200/f16_2048x2048x2048.yaml"* &&
      "$out" == *"1x4096x14336         f16   decode_d16 "* ]]; then ok "choose --tuned"
else bad "choose --tuned: $out"; fi
"$G" choose --tuned --m 2048 --n 2048 --k 2048 --spec |
  cmp -s - "$SRC/specs/tuned/nvidia_h200/f16_2048x2048x2048.yaml" &&
  ok "choose --tuned --spec is the tuned file" || bad "choose --tuned --spec differs from the tuned file"
# --l2-mib: the ping-pong rule is the H200's (60 MiB of L2 or more); an H100's 50 MiB takes the
# default there and the why line says so.
out=$("$G" choose --m 12288 --n 12288 --k 1024 --l2-mib 50 2>&1)
[[ "$out" == *"12288x12288x1024     f16   large "* && "$out" == *"not the ping-pong rule's tiles: they need 60 MiB of L2 and this GPU has 50"* ]] &&
  ok "choose --l2-mib 50: large" || bad "choose --l2-mib 50: $out"
for l2 in 0 60 96; do
  row=$("$G" choose --shapes 12288x12288x1024 --l2-mib $l2 2>&1 | awk '$1 == "12288x12288x1024" {print $3}')
  [ "$row" = pingpong ] && ok "choose --l2-mib $l2: pingpong" || bad "choose --l2-mib $l2: '$row'"
done
# --sms: split 2 runs in one launch (`_sk2`) only where the stream-K launch on that many SMs cuts
# each of the 64 tiles of 128x4096x11008 into two aligned shares: 132 (and 0, the H200's), not 180
# (128 CTAs would leave a quarter of them idle); on 114 the model's rounds take another tile.
for sms in 0 132 180 114; do
  name=$("$G" choose --shapes 128x4096x11008 --sms $sms 2>&1 | awk '$1 == "128x4096x11008" {print $7}')
  want=gemm_sm90_auto_small_sk2_f16; [ $sms = 180 ] && want=gemm_sm90_auto_small_s2_f16
  [ $sms = 114 ] && want=gemm_sm90_auto_wide_s4_f16
  [ "$name" = $want ] && ok "choose --sms $sms: $name" || bad "choose --sms $sms: '$name'"
done
# fp8 the same: 128x2112x7168 blockwise takes the narrow tile split 4 (33 tiles x 4, one round) on
# 132 SMs, not on 114 (two rounds).
for sms in 0 114; do
  name=$("$G" choose --dtype e4m3 --scaling blockwise --shapes 128x2112x7168 --sms $sms 2>&1 |
    awk '$1 == "128x2112x7168" {print $3 "_" $4}')
  want=narrow_4; [ $sms = 114 ] && want=small_1
  [ "$name" = $want ] && ok "choose e4m3 blockwise --sms $sms: $name" ||
    bad "choose e4m3 blockwise --sms $sms: '$name'"
done
a=$("$G" choose --shapes 1x2112x7168,4096x4096x4104,512x7168x2048 2>&1)
b=$("$G" choose --shapes 1x2112x7168,4096x4096x4104,512x7168x2048 2>&1)
[ "$a" = "$b" ] && ok "the same output twice" || bad "output differs between runs"

expect() { # expected-rc stderr-substring -- arguments...
  local rc_want=$1 msg=$2; shift 3
  local err rc
  err=$(timeout 60 "$G" choose "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne "$rc_want" ] || [[ "$err" != *"$msg"* ]]; then
    bad "choose $* -> rc $rc (want $rc_want), stderr: ${err:0:300}"
  else ok "rc=$rc choose $*"; fi
}
expect 3 "gemmgen: error: give a shape: --m M --n N --k K, or --shapes MxNxK[,MxNxK...]" --
expect 3 "gemmgen: error: give all of --m, --n and --k (or --shapes MxNxK,...)" -- --m 5
expect 3 "gemmgen: error: chooseKernel needs M, N and K of at least 1 (got 0x5x5)" -- --m 0 --n 5 --k 5
expect 3 "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '1x2')" -- --shapes 1x2
# The list parser simulate and bench share: no empty entry, no sign (a -1 must not wrap).
expect 3 "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '4x4x4,,')" -- --shapes 4x4x4,,
expect 3 "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '-1x4x4')" -- --shapes -1x4x4
expect 3 "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '4x+4x4')" -- --shapes 4x+4x4
expect 3 "gemmgen: error: --spec writes one spec: give one shape" -- --shapes 1x2x3,4x5x6 --spec
expect 3 "gemmgen: error: -o writes one spec: give one shape" -- --shapes 1x2x3,4x5x6 -o "$W/x.yaml"
expect 3 "gemmgen: error: --dtype must be f16, bf16, e4m3 or e5m2 (got 'f8')" -- --m 1 --n 1 --k 1 --dtype f8
expect 3 "gemmgen: error: --scaling needs fp8 operands: add --dtype e4m3 (or e5m2) (got --scaling blockwise)" -- --m 1 --n 1 --k 1 --scaling blockwise
expect 3 "(got 'row,diag')" -- --m 1 --n 1 --k 1 --layout row,diag
expect 3 "gemmgen: error: --l2-mib is the GPU's L2 in MiB, 1-1024 (50 for the H100, 60 for the H200), or 0 for the H200's (got -1)" -- --m 1 --n 1 --k 1 --l2-mib -1
expect 3 "(got 4096)" -- --m 1 --n 1 --k 1 --l2-mib 4096
expect 3 "gemmgen: error: --sms is the GPU's multiprocessor count, 1-4096 (132 for the H100 SXM and the H200), or 0 for the H200's (got -1)" -- --m 1 --n 1 --k 1 --sms -1
expect 3 "(got 5000)" -- --m 1 --n 1 --k 1 --sms 5000
expect 3 "gemmgen: error: cannot write '$W/no/dir/x.yaml': No such file or directory" -- --m 1 --n 2 --k 3 -o "$W/no/dir/x.yaml"
printf 'garbage: [\n' > "$W/defaults.yaml"
GEMMGEN_TUNED_DEFAULTS=$W/defaults.yaml expect 3 "gemmgen: error: $W/defaults.yaml:1:11: Could not find closing ]!" -- --tuned --m 1 --n 2 --k 3
GEMMGEN_TUNED_DEFAULTS=$W/none.yaml expect 3 "gemmgen: error: cannot read tuned defaults '$W/none.yaml': No such file or directory" -- --tuned --m 1 --n 2 --k 3
out=$("$G" choose --m 1 --n 2 --k 3 -o "$W/no/dir/x.yaml" 2>/dev/null)
[ -z "$out" ] && ok "a failed -o prints no table" || bad "a failed -o printed: $out"
[ $fails -eq 0 ] && echo "choose: all cases passed" || { echo "$fails case(s) failed"; exit 1; }

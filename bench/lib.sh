# The preamble, helpers and ending the H200 scripts share (source it; bash).
#   bench_init NAME CARRY   C (the carried binaries), G (gemmgen), L (logs, packed at the end),
#                           S (the summary, printed at the end); the GPU's clocks and the date
#                           first in S; the kernel cache under the carry.
#   table LOG               the shape, gemmgen ms, cuBLAS ms and ratio lines of a `bench` log
#   verify NAME SPEC SHAPE [ARGS...]   `run --verify` at MxNxK, one summary line
#   bench_finish            packs $L into $OUT/NAME-logs.tgz and prints the summary
bench_init() {
  BENCH_NAME=$1; C=${2:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
  OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/$BENCH_NAME; rm -rf "$L"; mkdir -p "$L"
  S=$OUT/$BENCH_NAME-summary.txt
  export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
  export GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
  G="$C/gemmgen"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
  { date -u +%FT%TZ; "$G" --version; } >> "$S"
}
table() { grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" | awk '{print $1, $3, $5, $7}'; }
verify() {
  local name=$1 spec=$2 shape=$3 m n k; shift 3
  IFS=x read -r m n k <<< "$shape"
  timeout 60 "$G" run "$spec" --m "$m" --n "$n" --k "$k" --verify --iters 3 "$@" \
    > "$L/verify_${name}_$shape.txt" 2>&1
  echo "verify $name $shape $* rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${name}_$shape.txt" | head -1)" >> "$S"
}
bench_finish() {
  tar -C "$L" -czf "$OUT/$BENCH_NAME-logs.tgz" . && rm -rf "$L"
  cat "$S"
}

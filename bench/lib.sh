# The preamble, helpers and ending the H200 scripts share (source it; bash).
#   bench_init NAME CARRY   C (the carried binaries), G (gemmgen), L (logs, packed at the end),
#                           S (the summary, printed at the end); the GPU's clocks and the date
#                           first in S; the kernel cache under the carry.
#   table LOG               the shape, gemmgen ms, cuBLAS ms and ratio lines of a `bench` log
#   verify NAME SPEC SHAPE [ARGS...]   `run --verify` at MxNxK, one summary line
#   ab_bench OLD NEW SHAPES SPEC [ARGS...]   `bench SPEC` at each MxNxK of SHAPES with OLD's and
#                           NEW's binaries (carry folders) one after the other, two passes, the
#                           second in reverse order; one summary line per run: "pass P old|new
#                           <table> <the auto kernel's name, if any>"
#   old_new_passes FN ITEM...   FN PASS old|new ITEM for each ITEM, OLD's binaries and NEW's one
#                           after the other, two passes, the second in reverse order
#   bench_passes PASSES SHAPES SPEC...   `bench SPEC --shapes SHAPES --rounds 20` for each spec
#                           (a path without .yaml), PASSES times in turn; "== pass P NAME" and
#                           its table into S
#   bench_auto NAME SHAPE [ARGS...]   `bench auto` at one MxNxK (20 rounds): a line "NAME <table>
#                           <the chosen kernel>" into S
#   layout_auto PASS old|new LAYOUT:MxNxK   (for old_new_passes, OLD set) `bench auto --layout
#                           LAYOUT` at MxNxK with OLD's or NEW's binaries: "pass P old|new LAYOUT
#                           MxNxK rc=R <table> <the chosen kernel>" into S
#   verify_col_d MxNxK       `run auto --layout col,col,col --verify` at NxMxK (the column-major D
#                           whose row-major problem is MxNxK with A and B row-major)
#   gpu_tests [FILTER]      the GPU tests (gtest filter, default all): pass/fail counts, the
#                           failed names and the skipped count into S
#   memcheck FILTER         compute-sanitizer memcheck over those GPU tests: its error summary and
#                           OK/failed counts into S
#   simt_spec NAME R OUT    specs/sm90/NAME.yaml with `simt_narrow: R` (its kernel renamed
#                           NAME_simtR) written to OUT
#   ncu_kernels NAME ARGS...   ncu (clocks as found) over one `bench ARGS --rounds 1` process:
#                           every kernel's name, grid, block, duration, DRAM bytes read,
#                           registers, dynamic shared memory and clock into S
#   ncu_source NAME KERNEL REGIONS ARGS...   ncu's warp-stall samples per SASS instruction of one
#                           launch (the third) of the kernels matching regex KERNEL in `bench ARGS`:
#                           the CSV into L/source_NAME.csv, its 30 busiest instructions and the
#                           share of each region of REGIONS (bench/ncu_source_top.py's
#                           NAME:START:END, space-separated; "" for none) into S
#   trace_table NAME LOG    the medians over CTAs of the stamps of bench/experiments/edit_kernel.py's
#                           `trace` in LOG (cycles from each CTA's entry), one line
#   emit_edits SPEC DIR E...   `emit SPEC` into DIR/emitted.cu and each edit set E of
#                           bench/experiments/edit_kernel.py applied to it into DIR/E.cu
#   trace_runs SPEC DIR SHAPES E...   `run SPEC --source DIR/E.cu` at each MxNxK of SHAPES for each
#                           edit set E (bench/experiments/edit_kernel.py's, ending in trace): one
#                           trace_table line each
#   source_passes SPEC DIR SHAPES E...   `bench SPEC --shapes SHAPES --source DIR/E.cu` for each E,
#                           two passes (the second in reverse order): "== pass P E" and its table
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
# (a shape with alpha and beta is printed "MxNxK aA.AAbB.BB": one more column)
table() {
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror' "$1" |
    awk '$2 ~ /^a[-0-9.]+b/ {print $1 " " $2, $4, $6, $8; next} {print $1, $3, $5, $7}'
}
verify() {
  local name=$1 spec=$2 shape=$3 m n k; shift 3
  IFS=x read -r m n k <<< "$shape"
  timeout 60 "$G" run "$spec" --m "$m" --n "$n" --k "$k" --verify --iters 3 "$@" \
    > "$L/verify_${name}_$shape.txt" 2>&1
  echo "verify $name $shape $* rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_${name}_$shape.txt" | head -1)" >> "$S"
}
ab_bench() {
  local old=$1 new=$2 shapes=$3 spec=$4 pass s v bin m n k log; shift 4
  for pass in 1 2; do
    for s in $shapes; do
      IFS=x read -r m n k <<< "$s"
      for v in old new; do
        [ $pass = 2 ] && v=$([ $v = old ] && echo new || echo old)
        bin=$old; [ $v = new ] && bin=$new
        log=$L/${v}_${pass}_$s.txt
        GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench "$spec" --m $m --n $n --k $k \
          --rounds 10 "$@" > "$log" 2>&1
        echo "pass $pass $v $(table "$log") $(grep -o 'auto_[a-z0-9_]*' "$log" | head -1)" >> "$S"
      done
    done
  done
}
old_new_passes() {
  local fn=$1 pass item v; shift
  for pass in 1 2; do
    for item in "$@"; do
      for v in old new; do
        [ $pass = 2 ] && v=$([ $v = old ] && echo new || echo old)
        "$fn" $pass $v "$item"
      done
    done
  done
}
bench_passes() {
  local passes=$1 shapes=$2 pass v n; shift 2
  for pass in $(seq 1 "$passes"); do
    for v in "$@"; do
      n=$(basename "$v")
      timeout 120 "$G" bench "$v.yaml" --shapes "$shapes" --rounds 20 > "$L/${n}_$pass.txt" 2>&1
      echo "== pass $pass $n rc=$?" >> "$S"; table "$L/${n}_$pass.txt" >> "$S"
    done
  done
}
bench_auto() {
  local name=$1 shape=$2 m n k; shift 2
  IFS=x read -r m n k <<< "$shape"
  timeout 60 "$G" bench auto --m "$m" --n "$n" --k "$k" --rounds 20 "$@" > "$L/auto_${name}_$shape.txt" 2>&1
  echo "$name rc=$? $(table "$L/auto_${name}_$shape.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/auto_${name}_$shape.txt" | head -1)" >> "$S"
}
layout_auto() {
  local bin=$OLD m n k log l=${3%%:*} s=${3#*:}; [ "$2" = new ] && bin=$C
  IFS=x read -r m n k <<< "$s"
  log=$L/${2}_$1_${s}_${l//,/_}.txt
  GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench auto --m "$m" --n "$n" --k "$k" \
    --layout "$l" --rounds 20 > "$log" 2>&1
  echo "pass $1 $2 $l $s rc=$? $(table "$log") $(grep -o 'auto_[a-z0-9_]*' "$log" | head -1)" >> "$S"
}
verify_col_d() {
  local m n k log
  IFS=x read -r m n k <<< "$1"
  log=$L/verify_${n}x${m}x${k}.txt
  timeout 60 "$G" run auto --m "$n" --n "$m" --k "$k" --layout col,col,col --verify --iters 3 \
    > "$log" 2>&1
  echo "verify col,col,col ${n}x${m}x${k} rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$log" | head -1) $(grep -o 'auto_[a-z0-9_]*' "$log" | head -1)" >> "$S"
}
gpu_tests() {
  timeout 330 "$C/gemmgen_gpu_tests" --gtest_filter="${1:-*}" > "$L/gpu_tests.log" 2>&1
  echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
  grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
  echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log")" >> "$S"
}
memcheck() {
  local cs; cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout 200 "$cs" --tool memcheck --print-limit 20 --error-exitcode 99 "$C/gemmgen_gpu_tests" \
    --gtest_filter="$1" > "$L/memcheck.log" 2>&1
  echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed" >> "$S"
}
simt_spec() {
  sed -e "s/group: 16 }/group: 16, simt_narrow: $2 }/" -e "s/^kernel: \(.*\)/kernel: \1_simt$2/" \
    "specs/sm90/$1.yaml" > "$3"
}
NCU_METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
ncu_kernels() {
  local name=$1; shift
  timeout 240 ncu --clock-control none --launch-count 40 --section LaunchStats --metrics $NCU_METRICS \
    "$G" bench "$@" --rounds 1 --warmup 1 > "$L/$name.txt" 2>&1
  echo "== $name ($*) rc=$?" >> "$S"
  # kernel header lines ("  name (gx, gy, gz)x(bx, by, bz), Context ...") and the figures after each
  awk 'function flush() { if (k != "") print k " | " t " | dram " b " | regs " r " | dsmem " d " | clk " c }
       /^  [^ ].*\([0-9]+, [0-9]+, [0-9]+\)x\(/ { flush(); split($0, p, ", Context"); k = p[1]; t = b = r = d = c = "-" }
       /gpu__time_duration.sum/ { t = $NF " " $(NF-1) }
       /dram__bytes_read.sum / { b = $NF " " $(NF-1) }
       /Registers Per Thread/ { r = $NF }
       /Dynamic Shared Memory Per Block/ { d = $NF " " $(NF-1) }
       /sm__cycles_elapsed.avg.per_second/ { c = $NF " " $(NF-1) }
       END { flush() }' \
    "$L/$name.txt" | sed 's/^ *//' | grep -v -E '(fill_normal|compare|poison)' | head -40 >> "$S"
}
ncu_source() {
  local name=$1 kernel=$2 regions=$3; shift 3
  timeout 150 ncu --clock-control none -k "regex:$kernel" --launch-count 1 --launch-skip 2 \
    --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
    "$G" bench "$@" --rounds 2 --warmup 1 > "$L/source_$name.csv" 2>&1
  echo "== ncu source $name ($*) rc=$? lines $(wc -l < "$L/source_$name.csv")" >> "$S"
  # shellcheck disable=SC2086 # the regions are words
  python3 bench/ncu_source_top.py "$L/source_$name.csv" 30 $regions >> "$S"
}
trace_table() {
  local col line="$1 ($(grep -c '^trace [0-9]' "$2") CTAs) medians:" h
  h=(sync first_tma first_full mma_done end entry_ns end_ns)
  for col in 3 4 5 6 7 8 9; do
    line="$line ${h[col - 3]} $(awk -v c=$col '$1 == "trace" && $2 ~ /^[0-9]+$/ {print $c}' "$2" |
      sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "-"}')"
  done
  h=(issued mid full_wait empty_wait)
  for col in 10 11 12 13; do
    line="$line ${h[col - 10]} $(awk -v c=$col '$1 == "trace" && $2 ~ /^[0-9]+$/ {print $c}' "$2" |
      sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "-"}')"
  done
  echo "$line last_end_ns $(awk '$1 == "trace" && $2 ~ /^[0-9]+$/ && $9 > m {m = $9} END {print m}' "$2")"
}
emit_edits() {
  local spec=$1 dir=$2 e; shift 2
  mkdir -p "$dir"; "$G" emit "$spec" -o "$dir/emitted.cu"
  for e in "$@"; do
    python3 bench/experiments/edit_kernel.py "$e" < "$dir/emitted.cu" > "$dir/$e.cu" ||
      echo "edit $e failed" >> "$S"
  done
}
trace_runs() {
  local spec=$1 dir=$2 shapes=$3 s e m n k; shift 3
  for s in $shapes; do
    IFS=x read -r m n k <<< "$s"
    for e in "$@"; do
      timeout 60 "$G" run "$spec" --m "$m" --n "$n" --k "$k" --iters 10 --warmup 3 \
        --source "$dir/$e.cu" > "$L/trace_${e}_$s.txt" 2>&1
      trace_table "${e%,trace} $s" "$L/trace_${e}_$s.txt" >> "$S"
    done
  done
}
source_passes() {
  local spec=$1 dir=$2 shapes=$3 pass e order log; shift 3
  for pass in 1 2; do
    order="$*"; [ $pass = 2 ] && order=$(printf '%s\n' "$@" | tac | paste -sd' ')
    for e in $order; do
      log=$L/bench_${e}_$pass.txt
      timeout 90 "$G" bench "$spec" --shapes "$shapes" --rounds 20 --source "$dir/$e.cu" > "$log" 2>&1
      echo "== pass $pass $e" >> "$S"; table "$log" >> "$S"
    done
  done
}
bench_finish() {
  tar -C "$L" -czf "$OUT/$BENCH_NAME-logs.tgz" . && rm -rf "$L"
  cat "$S"
}

#!/usr/bin/env bash
# `gemmgen tune --gpus`: the same tune space timed with --gpus 1 and --gpus 2
# on a 2-GPU host, each into a fresh DB (nothing reused), after one
# --compile-only pass fills the NVRTC cache (so both runs time the GPU part
# only). Prints each run's wall clock, the speedup, how the candidates were
# spread over the GPUs, and both runs' best candidates.
#   usage (nvidia-h200-x2): bash bench/h200-tune-gpus.sh build-carry [SPACE.yaml] [M N K]
#   default: bench/tune/space-h200.yaml (128 candidates) at 4096^3 f16; the
#   --gpus 1 run took ~40 s on one H200 (docs/TUNING.md), so ~1.5 min in all.
set -u
C=${1:-build-carry}; G=$C/gemmgen; SPACE=${2:-bench/tune/space-h200.yaml}
M=${3:-4096}; N=${4:-4096}; K=${5:-4096}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
case $C in /*) export GEMMGEN_CACHE_DIR=$C/cache ;; *) export GEMMGEN_CACHE_DIR=$PWD/$C/cache ;; esac
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm,power.limit --format=csv,noheader
ngpu=$(nvidia-smi -L | wc -l)
[ "$ngpu" -ge 2 ] || { echo "error: this host has $ngpu GPU(s); run on the 2-GPU machine (nvidia-h200-x2)"; exit 2; }
T=(tune specs/sm90/05_fast_f16.yaml --m "$M" --n "$N" --k "$K" --dtype f16 --space "$SPACE"
   --no-cublas --seed 1 --rounds 20)
$G "${T[@]}" --compile-only > "$OUT/tune-gpus-compile.log" 2>&1
echo "compile-only: rc=$? $(grep -E '^compiled' "$OUT/tune-gpus-compile.log")"
declare -A wall
for g in 1 2; do
  rm -f "$OUT/tune-gpus-$g.jsonl"
  t0=$(date +%s.%N)
  $G "${T[@]}" --gpus $g --db "$OUT/tune-gpus-$g.jsonl" > "$OUT/tune-gpus-$g.log" 2>&1
  rc=$?
  wall[$g]=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
  echo "--gpus $g: rc=$rc wall ${wall[$g]} s; $(grep -E '^measured' "$OUT/tune-gpus-$g.log")"
  grep -E '^best:' "$OUT/tune-gpus-$g.log" | cut -c1-160
done
python3 - "$OUT/tune-gpus-1.jsonl" "$OUT/tune-gpus-2.jsonl" "${wall[1]}" "${wall[2]}" <<'PY'
import json, sys, collections
def load(p):
    return [json.loads(l) for l in open(p).read().splitlines()[1:] if l.strip()]
one, two = load(sys.argv[1]), load(sys.argv[2])
w1, w2 = float(sys.argv[3]), float(sys.argv[4])
per = collections.Counter(r["gpu_ordinal"] for r in two)
print("candidates per GPU with --gpus 2: " + ", ".join("GPU %d: %d" % kv for kv in sorted(per.items())))
print("same candidates, same order: %s" % ([r["candidate"] for r in one] == [r["candidate"] for r in two]))
ok = lambda rs: {r["candidate"]: r for r in rs if r["status"] == "ok"}
a, b = ok(one), ok(two)
common = sorted(set(a) & set(b))
if common:
    import statistics
    rel = [b[c]["ms"]["median"] / a[c]["ms"]["median"] for c in common]
    print("per-candidate median time, --gpus 2 / --gpus 1: median %.3f (min %.3f, max %.3f) over %d"
          % (statistics.median(rel), min(rel), max(rel), len(rel)))
print("wall clock: --gpus 1 %.1f s, --gpus 2 %.1f s, speedup %.2fx" % (w1, w2, w1 / w2))
PY

#!/usr/bin/env bash
# Where the epilogue's cycles go, per instruction (docs/PERF.md, twenty-second session: by
# subtraction, a one-tile CTA's staging ~1.8k cycles, the fence ~0.8k, the store ~0.9k; the store
# path ~2% of the time at 4096^3): ncu's warp-stall sampling per SASS instruction of one launch of
# the 128x224 c32 kernel at 512x7168x2048 and of spec 05 at 2048^3 (one tile a CTA: the epilogue is
# a large share), the 30 instructions with the most samples and their stall reasons into S.
# Prediction: the samples after the last HGMMA sit on the named barriers (BAR.SYNC), the fence's
# MEMBAR and the leader's DEPBAR (the wait for the previous store's read), not on STSM.
# (Written 2026-12-06; first run 2026-12-07 on an H100, whose CSVs fixed the parsing: ncu puts a
# "Kernel Name" row before the header.)
#   usage (device): bash bench/h200-epilogue-ncu.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init epilogue_ncu "$1"
top() { # CSV: the instructions with the most warp-stall samples
  python3 - "$1" <<'PY' >> "$S"
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
# ncu prints a "Kernel Name" row, then the header ("Address","Source",...), then one row a SASS line
at = next((i for i, r in enumerate(rows) if r[:2] == ["Address", "Source"]), None)
if at is None:
    sys.exit(print("no source header"))
rows = rows[at:]
head = rows[0]
def col(name):
    return next((i for i, h in enumerate(head) if h.startswith(name)), None)
src, samp = col("Source"), col("Warp Stall Sampling (All")
if src is None or samp is None:
    sys.exit(print("columns not found:", head[:12]))
num = lambda r: float(r[samp].replace(",", "") or 0)
body = [r for r in rows[1:] if len(r) == len(head)]
total = sum(num(r) for r in body) or 1
reasons = [i for i, h in enumerate(head) if h.startswith("stall_") and "(Not Issued)" not in h]
for i, r in sorted(enumerate(body), key=lambda x: -num(x[1]))[:30]:
    why = sorted(((float(r[j].replace(",", "") or 0), head[j]) for j in reasons), reverse=True)[:2]
    print(f"{i:5d} {100 * num(r) / total:5.1f}% {r[src][:60]:60s} {why}")
PY
}
prof() { # NAME SPEC MxNxK
  local m n k; IFS=x read -r m n k <<< "$3"
  timeout 150 ncu --clock-control none -k 'regex:gemm_sm90' --launch-count 1 --launch-skip 2 \
    --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
    "$G" bench "$2" --m "$m" --n "$n" --k "$k" --rounds 2 --warmup 1 > "$L/source_$1.csv" 2>&1
  echo "== ncu source $1 $3 rc=$? lines $(wc -l < "$L/source_$1.csv")" >> "$S"
  top "$L/source_$1.csv"
}
prof fit224 bench/wave-fit/m128n224_c32.yaml 512x7168x2048
prof large specs/sm90/05_fast_f16.yaml 2048x2048x2048
bench_finish

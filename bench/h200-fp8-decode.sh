#!/usr/bin/env bash
# The fp8 chooser's data at decode and small-batch shapes on the H200: specs 13
# (per-tensor) and 15 (blockwise) and 64-row variants of each with K in 1, 2, 4,
# 8 slices (bench/variants/{fp8,blockwise}/m64_s*.yaml), one process per spec and
# shape, each against cuBLASLt (ratio = cuBLASLt time ÷ gemmgen time).
#   usage (device): bash bench/h200-fp8-decode.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/fd; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
SHAPES="1x7168x2048 1x2112x7168 1x4096x7168 4x14336x4096 16x7168x18432 16x4096x7168 16x2112x7168 32x7168x2048 64x7168x2048 64x4096x7168 128x2112x7168 128x7168x2048"
SPECS="specs/sm90/13_fast_e4m3.yaml specs/sm90/15_blockwise_e4m3.yaml $(ls bench/variants/fp8/m64_s*.yaml bench/variants/blockwise/m64_s*.yaml)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
for spec in $SPECS; do
  t=$(echo "$spec" | sed 's@specs/sm90/@@; s@bench/variants/@@; s@/@_@g; s@\.yaml$@@')
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" bench "$spec" --m $m --n $n --k $k --rounds 10 --json "$L/${t}_$s.json" > "$L/${t}_$s.txt" 2>&1 ||
      echo "bench $t $s rc=$?" >> "$L/summary.txt"
  done
done
python3 - "$L" "$SHAPES" >> "$L/summary.txt" <<'PY'
import glob, json, os, sys
d, shapes = sys.argv[1], sys.argv[2].split()
specs = sorted({os.path.basename(f).rsplit("_", 1)[0] for f in glob.glob(os.path.join(d, "*.json"))})
print("ratio cuBLASLt/gemmgen (gemmgen us); '-' not run or not verified")
print("shape".ljust(15) + "".join(s[-22:].rjust(24) for s in specs))
for s in shapes:
    row = s.ljust(15)
    for sp in specs:
        try:
            r = json.load(open(os.path.join(d, f"{sp}_{s}.json")))["results"][0]
            cell = f"{r['ratio_cublas_over_gemmgen']:.3f} ({r['gemmgen_ms']['median'] * 1e3:.1f})" if r.get("verified") else "-"
        except (OSError, ValueError, KeyError, IndexError):
            cell = "-"
        row += cell.rjust(24)
    print(row)
PY
tar -C "$L" -czf "${OUT:-/tmp}/fp8_decode_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Where stream-K beats the chooser at decode: M <= 16 against weight
# matrices of 144-448 tiles of 64x128, whose last wave of tiles leaves SMs
# idle; the chooser's kernel (`auto`), stream-K with the 64x128 tile
# (bench/families/streamk_small.yaml) and the 64x128 persistent kernel
# (specs/tuned/nvidia_h200/f16_128x8192x8192.yaml), cuBLAS in each call.
# Then the Python host overhead, the wheel of the previous commit against
# this one, alternated three times (bench/python_overhead.py).
#   usage (device): bash bench/h200-decode-streamk.sh CARRY [OLD_WHEEL_DIR NEW_WHEEL_DIR]
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/dsk; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
DEC="1x57344x8192 4x57344x8192 16x57344x8192 1x28672x4096 4x28672x4096 16x28672x8192 1x36864x7168 16x36864x7168 1x24576x1536 1x18432x7168 16x18432x7168 1x43008x4096 1x32768x512"
echo "decode: shape, auto ms, stream-K 64x128 ms, persistent 64x128 ms, cuBLAS ms (stream-K's call)" > "$L/summary.txt"
for sh in $DEC; do
  IFS=x read -r m n k <<< "$sh"
  timeout 60 "$G" bench auto --m $m --n $n --k $k --rounds 20 > "$L/auto_$sh.txt" 2>&1
  timeout 60 "$G" bench bench/families/streamk_small.yaml --m $m --n $n --k $k --rounds 20 > "$L/sk_$sh.txt" 2>&1
  timeout 60 "$G" bench specs/tuned/nvidia_h200/f16_128x8192x8192.yaml --m $m --n $n --k $k --rounds 20 > "$L/small_$sh.txt" 2>&1
  a=$(grep -E '^ *[0-9]+x' "$L/auto_$sh.txt" | awk '{print $3}')
  p=$(grep -E '^ *[0-9]+x' "$L/small_$sh.txt" | awk '{print $3}')
  echo "$sh $a $(grep -E '^ *[0-9]+x|error' "$L/sk_$sh.txt" | awk '{print $3}') $p $(grep -E '^ *[0-9]+x' "$L/sk_$sh.txt" | awk '{print $5}')" >> "$L/summary.txt"
done
if [ -n "${2:-}" ] && [ -n "${3:-}" ]; then
  echo "python overhead (kernel(a, b, out) median us/call): wheel, run" >> "$L/summary.txt"
  for r in 1 2 3; do
    for w in "$2" "$3"; do
      rm -rf /tmp/gg-site; python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/gg-site "$w"/gemmgen-*.whl
      PYTHONPATH=/tmp/gg-site timeout 120 python3 bench/python_overhead.py --json "$L/overhead_$(basename $w)_$r.json" > "$L/overhead_$(basename $w)_$r.log" 2>&1
      echo "$(basename $w) $r $(grep 'kernel(a, b, out) ' "$L/overhead_$(basename $w)_$r.log" | head -1)" >> "$L/summary.txt"
    done
  done
fi
tar -C "$L" -czf "${OUT:-/tmp}/decode_streamk_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"

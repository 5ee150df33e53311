#!/usr/bin/env bash
# ncu's warp-stall sampling of spec 15 with and without the consumers taking
# turns (early hand-over; experiment binary of branch exp-turns2, whose
# printer reads GEMMGEN_EXP_TURNS), one launch each at 4096x7168x2048: which
# instructions the waiting warpgroup stalls at while the other promotes.
#   usage (device): bash bench/h200-blockwise-turns-profile.sh EXP   (EXP: gemmgen of the branch, cache/)
C=${1:-.devrun/exp}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/btp; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
S15=specs/sm90/15_blockwise_e4m3.yaml
for mode in none early; do
  if [ $mode = none ]; then unset GEMMGEN_EXP_TURNS; else export GEMMGEN_EXP_TURNS=$mode; fi
  timeout 60 "$C/gemmgen" run $S15 --m 4096 --n 7168 --k 2048 --verify --iters 3 > "$L/run_$mode.txt" 2>&1
  echo "run $mode rc=$?: $(grep -iE 'verif' "$L/run_$mode.txt" | head -1 | cut -c1-120)" >> "$L/summary.txt"
  timeout 150 ncu --clock-control none -k regex:gemm_sm90 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --import-source no \
    -o "$L/p_$mode" -f "$C/gemmgen" run $S15 --m 4096 --n 7168 --k 2048 --iters 2 --warmup 2 > "$L/ncu_$mode.log" 2>&1
  ncu -i "$L/p_$mode.ncu-rep" --page source --print-source sass --csv > "$L/src_$mode.csv" 2>/dev/null
  ncu -i "$L/p_$mode.ncu-rep" --print-details all > "$L/ncu_$mode.txt" 2>&1
  echo "ncu $mode: $(grep -E 'Duration|Compute \(SM\) Throughput' "$L/ncu_$mode.txt" | tr -s ' ' | tr '\n' ' ')" >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/blockwise_turns_profile_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/turns_profile_summary.txt"
cat "$L/summary.txt"

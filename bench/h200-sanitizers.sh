#!/usr/bin/env bash
# compute-sanitizer's other tools on every sm_90a spec at a residue shape (129x257x72: each spec's
# SpecShape case), and memcheck on the chooser's cases that bench/h200-memcheck.sh leaves out.
# racecheck: shared-memory hazards between threads (the kernels' smem is mostly written by TMA and
# read by wgmma, async proxies the tool may not see; what it reports is triaged, not trusted);
# synccheck: barrier misuse (named barriers, divergent bar.sync); initcheck: reads of device memory
# never written (workspaces, staging buffers).
#   usage (device): bash bench/h200-sanitizers.sh CARRY   (CARRY: gemmgen_gpu_tests, cache/)
#   TOOLS (default "memcheck_chosen racecheck synccheck initcheck") picks the runs; SHAPE the
#   racecheck and synccheck runs' tests (a gtest filter, default the spec shapes above); INIT_FILTER
#   the initcheck run's (default SHAPE); RACE_S the racecheck run's seconds (default 150). The
#   tests' watchdog is stretched 30x (racecheck slows a 7168-deep narrow kernel past its 11 s).
source "$(dirname "$0")/lib.sh"
bench_init sanitizers "$1"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
SHAPE=${SHAPE:-'Sm90/SpecShape.*129x257x72'}
run_tool() {  # NAME SECONDS FILTER TOOL-ARGS...
  local name=$1 t=$2 f=$3; shift 3
  GEMMGEN_TEST_WATCHDOG_SCALE=30 timeout "$t" "$CS" "$@" --print-limit 20 "$C/gemmgen_gpu_tests" --gtest_filter="$f" > "$L/$name.log" 2>&1
  echo "$name rc=$? (124: time ran out): $(grep -E '(ERROR|RACECHECK|SYNCCHECK|INITCHECK) SUMMARY' "$L/$name.log" | tail -1)" >> "$S"
  echo "  tests: $(grep -cE '^\[       OK \]' "$L/$name.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/$name.log") failed; last: $(grep -E '^\[ RUN      \]' "$L/$name.log" | tail -1 | cut -c14-)" >> "$S"
  grep -E '^========= (Error|Warning|Invalid|Race|Barrier|Uninitialized)' "$L/$name.log" | sed 's/0x[0-9a-f]*/X/g' | sort | uniq -c | sort -rn | head -6 >> "$S"
}
TOOLS=${TOOLS:-memcheck_chosen racecheck synccheck initcheck}
case " $TOOLS " in *" memcheck_chosen "*) run_tool memcheck_chosen 150 '*ChosenKernel*' --tool memcheck ;; esac
case " $TOOLS " in *" racecheck "*) run_tool racecheck "${RACE_S:-150}" "$SHAPE" --tool racecheck ;; esac
case " $TOOLS " in *" synccheck "*) run_tool synccheck 100 "$SHAPE" --tool synccheck ;; esac
case " $TOOLS " in *" initcheck "*) run_tool initcheck 100 "${INIT_FILTER:-$SHAPE}" --tool initcheck ;; esac
# per test: the uninitialized reads and the kernel they were in (initcheck prints 20 at most)
[ -f "$L/initcheck.log" ] && awk '/\[ RUN/{t=$3} /^========= +at [a-z_0-9]+\+/{k[t" "$3]++} END{for (x in k) print "  initcheck at:", x, k[x]}' "$L/initcheck.log" | sed 's/+0x[0-9a-f]*//' | sort | head -20 >> "$S"
bench_finish

#!/usr/bin/env bash
# What bounds issue 12's two near misses at 4096^3 (a profile, not a guess): spec 13 (e4m3 ->
# bf16, per-tensor, 0.986-0.998 of cuBLASLt fp8) and spec 21 (bf16 bias + GELU on ping-pong
# consumers, 0.973-0.987 of cuBLASLt's GELU_BIAS). ncu, one launch each of ours and several of
# the library's (the names say which is which), clocks as found: duration, tensor-pipe busy,
# active cycles, instructions, L2 hit rate, DRAM bytes, issue slots, warp states. Prediction: the
# same tensor-pipe cycles per SM; ours more non-tensor cycles (the epilogue while no wgmma runs,
# as at 3000x5000x2048 in bench/h200-n152-profile.sh).
#   usage (device): bash bench/h200-issue12-profile.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init issue12_profile "$1"
SECT="--section SpeedOfLight --section WarpStateStats --section LaunchStats"
MET="--metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg,sm__cycles_active.avg,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,dram__bytes.sum"
E4="specs/sm90/13_fast_e4m3.yaml --m 4096 --n 4096 --k 4096 --scale-a 0.5 --scale-b 2"
GE="specs/sm90/21_pingpong_bf16_bias_gelu.yaml --m 4096 --n 4096 --k 4096"
prof() {  # prof NAME KERNEL-REGEX COUNT gemmgen-args...
  local name=$1 re=$2 count=$3; shift 3
  timeout 200 ncu --clock-control none -k "regex:$re" --launch-skip 3 --launch-count "$count" $SECT $MET \
    "$G" "$@" > "$L/ncu_$name.txt" 2>&1
  echo "== $name rc=$?" >> "$S"
  grep -E '^  [a-zA-Z_].*\(|Duration|hmma_cycles|cycles_active.avg|inst_executed.sum|sector_hit_rate|dram__bytes|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Grid Size|Registers Per' \
    "$L/ncu_$name.txt" | cut -c1-140 | head -60 >> "$S"
}
prof e4m3_ours gemm_sm90 1 run $E4 --iters 3 --warmup 2
prof e4m3_lt nvjet 2 bench $E4 --rounds 3
prof gelu_ours gemm_sm90 1 run $GE --iters 3 --warmup 2
prof gelu_lt 'nvjet|gelu|bias|elementwise' 6 bench $GE --rounds 3
bench_finish

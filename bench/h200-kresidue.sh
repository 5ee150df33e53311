#!/usr/bin/env bash
# K-residue investigation: 4096x4096x4096 vs x4104 (and aligned-leading-dim / K-multiple-of-64 controls)
G=${1:-build-carry}/gemmgen; S=specs/sm90/05_fast_f16.yaml
export GEMMGEN_CACHE_DIR=/tmp/gcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -c 'import torch,sys; print("torch", torch.__version__, sys.version.split()[0])'
$G bench $S --shapes 4096x4096x4096,4096x4096x4104,4096x4096x4160,4096x4096x4112,4096x4096x4128 --rounds 20 2>&1 | tee $OUT/bench.txt | grep -E '^ *[0-9]+x|ratio|shape' | cut -c1-120
for k in 4096 4104; do for ld in "" "--lda 4160 --ldb 4160"; do
  echo "-- run k=$k $ld"; $G run $S --m 4096 --n 4096 --k $k $ld --iters 50 --json 2>&1 | tr ',' '\n' | grep -E 'ms|tflops|ok|error' | head -6; done; done
for k in 4096 4104; do
  ncu --clock-control none -k regex:gemm_sm90 --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats \
    --metrics l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum \
    $G run $S --m 4096 --n 4096 --k $k --iters 2 --warmup 3 > $OUT/ncu_$k.txt 2>&1
  echo "== ncu k=$k"; grep -E 'Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Hit|sectors|requests|dram__bytes|xbar|Warp Cycles Per Issued|Stall' $OUT/ncu_$k.txt | head -30
done

//===- LtBench.h - bench of chain and fp8 kernels against cuBLASLt -*- C++ -*-===//
//
// A kernel with an epilogue chain, or with fp8 operands, is not what
// cublasGemmEx computes. `gemmgen bench` times it against:
//
//   fused:   cuBLASLt with the epilogue and types that compute the same
//            function (describeLtMatmul), when cuBLASLt has them;
//   unfused: cuBLAS's plain GEMM (cublasGemmEx; fp8: cublasLtMatmul without
//            epilogue), then ChainPass over D, when the kernel has a chain;
//
// on the same inputs and bias, every contender verified first against the
// reference with the chain (poisoned D, every element), then timed with the
// one protocol (Timing.h). Blockwise fp8 kernels meet cuBLASLt's 128-element
// block scaling on the same scale values, each side in its own layout
// (LtBlockScales, CublasLt.h). A contender cuBLASLt refuses drops out with
// its reason; gemmgen is timed regardless.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_LTBENCH_H
#define GEMMGEN_TUNE_LTBENCH_H

#include "gemmgen/tune/Cublas.h"
#include "gemmgen/tune/CublasLt.h"
#include "gemmgen/tune/Workload.h"

#include <string>

namespace gemmgen::tune {

/// Whether bench compares `ki` with cuBLASLt rather than cublasGemmEx.
inline bool needsCublasLt(const KernelInfo &ki) {
  return !ki.epilogue.empty() || isFp8(ki.dtype) || isFp8(ki.dtypeB);
}

/// Which contenders run for `ki` on `args` (a shape's arguments; pure).
struct LtBenchPlan {
  bool fused = false;
  std::string fusedName, fusedNote; ///< the call, or why there is none
  bool unfused = false;
  std::string unfusedName, unfusedNote;
};
LtBenchPlan planLtBench(const KernelInfo &ki, const GemmArgs &args);

/// Times `kernel` against the plan's contenders for result.M/N/K (batch,
/// alpha, beta); fills result's cuBLASLt fields. A contender cuBLASLt cannot
/// run (fused = false / hasUnfused = false, the notes say why) leaves gemmgen
/// verified and timed alone. A Timeout Status means the context is lost.
Status benchAgainstCublasLt(const Runtime &rt, const Kernel &kernel, const CublasLt &lt,
                            const Cublas &cublas, const GemmVerifier &ver, CUstream stream,
                            const BenchSettings &settings, BenchResult &result);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_LTBENCH_H

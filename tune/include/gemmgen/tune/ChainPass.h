//===- ChainPass.h - A kernel's epilogue chain as a pass over D -*- C++ -*-===//
//
// What a GEMM without a fused epilogue needs after it: one elementwise pass
// that reads D, applies the chain (gemmgen/device/epilogue_ops.cuh's
// apply_chain, the function the fused kernels compute) and writes D in
// place, 16 bytes per thread where D's rows allow. Bench's "unfused"
// contender is cuBLAS's GEMM followed by this pass.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_CHAINPASS_H
#define GEMMGEN_TUNE_CHAINPASS_H

#include "gemmgen/gemmgen.h"

namespace gemmgen::tune {

class ChainPass {
public:
  /// Compiles the pass for `rt`'s GPU (NVRTC, Runtime::loadModule).
  static Expected<ChainPass> create(const Runtime &rt);
  /// Unsupported when the chain cannot run after the GEMM: a residual step
  /// needs C, which the in-place GEMM has overwritten.
  static Status supports(const EpilogueInfo &epi);
  /// D of `args` (row-major, `out`'s type, every batch entry) = chain(D),
  /// the chain's bias and scale from args.bias / strideBias / scaleD.
  Status apply(const GemmArgs &args, DType out, const EpilogueInfo &epi, CUstream s) const;
  /// The pass's CUDA C++ (kernels gg_chain_pass_{f16,bf16}_v{8,1}, _f32_v{4,1}).
  static const char *source();

private:
  ChainPass(const Runtime &rt, Module m) : rt(&rt), module(std::move(m)) {}
  const Runtime *rt;
  Module module;
};

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_CHAINPASS_H

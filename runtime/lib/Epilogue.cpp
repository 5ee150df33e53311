//===- Epilogue.cpp - A kernel's epilogue chain on the host side ----------===//
//
// KernelInfo::epilogue from the ABI's steps, the launch checks the chain
// adds (a bias vector where the chain has a bias step, on a D whose rows
// and columns are the kernel's), and the chain as the data the tail-column
// kernel and the reference interpret (gemmgen/device/epilogue_ops.cuh).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/EpilogueChain.h"

using namespace gemmgen;

EpilogueInfo gemmgen::epilogueInfo(const std::vector<EpilogueStep> &steps) {
  EpilogueInfo info;
  info.chain = describeChain(steps);
  const epilogue::Chain data = toChainData(steps);
  for (int s = 0; s < data.steps; ++s) {
    info.ops.push_back(data.op[s]);
    info.lo.push_back(data.lo[s]);
    info.hi.push_back(data.hi[s]);
  }
  for (const EpilogueStep &s : steps) {
    if (s.kind == EpilogueOpKind::Bias) {
      info.bias = true;
      info.biasPerRow = s.axis == BiasAxis::Row;
      info.biasType = toDType(s.biasType);
    }
    info.scale |= s.kind == EpilogueOpKind::Scale;
    info.residual |= s.kind == EpilogueOpKind::Residual;
  }
  return info;
}

EpilogueInfo gemmgen::epilogueInfo(const KernelABI &abi) { return epilogueInfo(abi.epilogueChain); }

epilogue::Chain gemmgen::chainData(const EpilogueInfo &info, const GemmArgs &a) {
  epilogue::Chain c;
  for (size_t s = 0; s < info.ops.size() && s < size_t(epilogue::kMaxChainSteps); ++s) {
    c.op[s] = info.ops[s];
    c.lo[s] = s < info.lo.size() ? info.lo[s] : 0.0f;
    c.hi[s] = s < info.hi.size() ? info.hi[s] : 0.0f;
    c.steps = int(s) + 1;
  }
  c.bias = reinterpret_cast<const void *>(static_cast<std::uintptr_t>(a.bias));
  c.bias_type = biasTypeCode(toScalarType(info.biasType)); // the compiler's one mapping
  c.bias_stride = a.strideBias;
  c.scale_d = reinterpret_cast<const float *>(static_cast<std::uintptr_t>(a.scaleD));
  return c;
}

void gemmgen::transposeChain(epilogue::Chain &c) {
  for (int s = 0; s < c.steps; ++s)
    if (c.op[s] == epilogue::OP_BIAS_ROW)
      c.op[s] = epilogue::OP_BIAS_COLUMN;
    else if (c.op[s] == epilogue::OP_BIAS_COLUMN)
      c.op[s] = epilogue::OP_BIAS_ROW;
}

Status gemmgen::checkEpilogueArgs(const KernelABI &abi, const EpilogueInfo &info,
                                  const GemmArgs &a) {
  if (!info.bias)
    return Status::success();
  const std::string who = "kernel '" + abi.kernelName + "' (epilogue chain " + info.chain + "): ";
  const char *axis = info.biasPerRow ? "M" : "N";
  if (!a.bias)
    return invalidArgument(who + "GemmArgs::bias is null; give it a device vector of " + axis +
                           " " + toString(info.biasType) + " values");
  const std::size_t elem = sizeOf(info.biasType);
  if (a.bias % elem)
    return invalidArgument(who + "GemmArgs::bias is not " + std::to_string(elem) +
                           "-byte aligned (a " + toString(info.biasType) + " vector)");
  if (a.strideBias < 0)
    return invalidArgument(who + "strideBias " + std::to_string(a.strideBias) + " is negative");
  if (a.layoutD == Layout::Col)
    return invalidArgument(who + "D is column-major, which the kernel computes as D^T: its " +
                           (info.biasPerRow ? "row" : "column") + " bias would index D's " +
                           (info.biasPerRow ? "columns" : "rows") +
                           "; store D row-major, or compile the spec with the other 'per'");
  return Status::success();
}

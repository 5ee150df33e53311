//===- EpilogueChain.cpp - Steps to epilogue::Chain -----------------------===//
#include "gemmgen/EpilogueChain.h"

#include <cassert>

using namespace gemmgen;

int gemmgen::biasTypeCode(ScalarType t) {
  switch (t) {
  case ScalarType::F16: return epilogue::BIAS_F16;
  case ScalarType::BF16: return epilogue::BIAS_BF16;
  default: return epilogue::BIAS_F32;
  }
}

static int opCode(const EpilogueStep &s) {
  switch (s.kind) {
  case EpilogueOpKind::Bias:
    return s.axis == BiasAxis::Row ? epilogue::OP_BIAS_ROW : epilogue::OP_BIAS_COLUMN;
  case EpilogueOpKind::Relu: return epilogue::OP_RELU;
  case EpilogueOpKind::GeluTanh: return epilogue::OP_GELU_TANH;
  case EpilogueOpKind::GeluErf: return epilogue::OP_GELU_ERF;
  case EpilogueOpKind::Silu: return epilogue::OP_SILU;
  case EpilogueOpKind::Residual: return epilogue::OP_RESIDUAL;
  case EpilogueOpKind::Clamp: return epilogue::OP_CLAMP;
  case EpilogueOpKind::Scale: return epilogue::OP_SCALE;
  }
  return 0;
}

epilogue::Chain gemmgen::toChainData(const std::vector<EpilogueStep> &steps) {
  assert(steps.size() <= unsigned(epilogue::kMaxChainSteps) && "the checks allow 8 steps");
  epilogue::Chain c;
  for (const EpilogueStep &s : steps) {
    if (c.steps == epilogue::kMaxChainSteps)
      break;
    c.op[c.steps] = opCode(s);
    c.lo[c.steps] = s.lo;
    c.hi[c.steps] = s.hi;
    if (s.kind == EpilogueOpKind::Bias)
      c.bias_type = biasTypeCode(s.biasType);
    ++c.steps;
  }
  return c;
}

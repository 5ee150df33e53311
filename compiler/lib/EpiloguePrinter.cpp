//===- EpiloguePrinter.cpp - The epilogue chain as generated code ----------===//
//
// What both target printers emit for epilogue.chain: the kernel's
// apply_epilogue_chain (one call of gemmgen/device/epilogue_ops.cuh per
// step, on a pair of D values), and the names of bias types and float
// literals it uses. Where a target's threads hold their values, and how
// they get their bias, is the target's (Sm90Epilogue.cpp, Sm100Printer.cpp).
//
//===----------------------------------------------------------------------===//
#include "EpiloguePrinter.h"

#include <cstdio>

using namespace gemmgen;

/// A float as a CUDA literal that reads back exactly.
std::string gemmgen::floatLiteral(float v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", double(v));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

const char *gemmgen::biasTypeName(ScalarType t) {
  switch (t) {
  case ScalarType::F16: return "epi::BIAS_F16";
  case ScalarType::BF16: return "epi::BIAS_BF16";
  default: return "epi::BIAS_F32";
  }
}

void gemmgen::emitEpilogueChainFunction(CodeEmitter &e, const ir::Kernel &k) {
  if (k.epilogueChain.empty())
    return;
  e.comment("epilogue.chain: " + describeChain(k.epilogueChain) +
            " (ops: gemmgen/device/epilogue_ops.cuh).");
  e.comment("v0, v1: D's values at (row, col), (row, col + 1) before the cast; c0, c1: beta * C");
  e.comment("there, added at the residual step (0 without one); b0, b1: the bias there (0 without).");
  e.line("__device__ __forceinline__ void apply_epilogue_chain(float& v0, float& v1, float c0, "
         "float c1, float b0, float b1,");
  e.line("                                                     float scale_d)");
  CodeEmitter::Block fn(e, "");
  e.line("(void)c0; (void)c1; (void)b0; (void)b1; (void)scale_d;");
  // An activation on both values of the pair.
  auto both = [&](const std::string &fn) {
    e.line("v0 = epi::" + fn + "(v0); v1 = epi::" + fn + "(v1);");
  };
  const ChainEntryPlan &entry = k.plan.chainEntry;
  if (entry.halved())
    e.comment("v0, v1 enter halved (alpha" + std::string(entry.halvesBias ? ", the bias" : "") +
              (entry.halvesC ? ", beta" : "") + " carry the 1/2) up to step " +
              std::to_string(entry.halfGeluStep + 1) + "'s gelu_tanh.");
  for (size_t at = 0; at < k.epilogueChain.size(); ++at) {
    const EpilogueStep &s = k.epilogueChain[at];
    e.comment(describe(s));
    switch (s.kind) {
    case EpilogueOpKind::Bias: // loaded by the store's prefetch (emitBiasPrefetch)
      if (at == 0 && entry.biasInAlpha)
        e.comment("  added in alpha's FMA, before the chain");
      else
        e.line("v0 += b0; v1 += b1;");
      break;
    case EpilogueOpKind::Relu: both("relu"); break;
    case EpilogueOpKind::GeluTanh:
      both(int(at) == entry.halfGeluStep ? "gelu_tanh_half_fast" : "gelu_tanh_fast");
      break;
    case EpilogueOpKind::GeluErf: both("gelu_erf"); break;
    case EpilogueOpKind::Silu: both("silu_fast"); break;
    case EpilogueOpKind::Residual:
      e.line("v0 += c0; v1 += c1;");
      break;
    case EpilogueOpKind::Clamp: {
      const std::string lo = floatLiteral(s.lo), hi = floatLiteral(s.hi);
      e.line("v0 = epi::clamp(v0, " + lo + ", " + hi + "); v1 = epi::clamp(v1, " + lo + ", " +
             hi + ");");
      break;
    }
    case EpilogueOpKind::Scale:
      e.line("v0 *= scale_d; v1 *= scale_d;");
      break;
    }
  }
}


//===- ChecksEpilogue.cpp - epilogue.chain against what can be fused ------===//
//
// The chain runs in the consumer's registers on alpha·acc (+ beta·C) of
// whole sums, one value per D element, before the cast to D's type. What
// cannot be fused there is refused here, at the entry at fault: a chain on
// a kernel whose output is a partial sum (split-K) or that the printer has
// no form for (sm_100a, grouped problems), a step given twice where the
// launch has one vector or scalar for it, an empty clamp.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"

#include <cstdio>
#include <string>

using namespace gemmgen;

static std::string shortNumber(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(v));
  return buf;
}

bool gemmgen::checkEpilogueChain(const KernelSpec &spec, DiagnosticEngine &diags) {
  const std::vector<EpilogueOpSpec> &chain = spec.epilogue.chain;
  if (chain.empty())
    return true;
  const unsigned before = diags.errorCount();
  const llvm::SMLoc at = spec.epilogue.chainLoc.isValid() ? spec.epilogue.chainLoc : chain[0].loc;
  if (spec.scheduler.splitK.value > 1)
    diags.error(at, "epilogue.chain with scheduler.split_k " +
                        std::to_string(spec.scheduler.splitK.value) +
                        ": the kernel writes partial sums of K slices, and the chain needs the "
                        "whole sum (an activation of a partial sum is not a partial activation); "
                        "remove split_k or the chain");
  if (spec.scheduler.grouped.value)
    diags.error(at, "epilogue.chain with scheduler.grouped: the problems' table has no bias or "
                    "scale per problem yet; remove the chain or grouped");
  const EpilogueOpSpec *seen[kEpilogueOpKinds] = {};
  for (const EpilogueOpSpec &op : chain) {
    const EpilogueOpKind kind = op.kind.value;
    const bool once = kind == EpilogueOpKind::Bias || kind == EpilogueOpKind::Residual ||
                      kind == EpilogueOpKind::Scale;
    const EpilogueOpSpec *&first = seen[unsigned(kind)];
    if (once && first) {
      const char *what = kind == EpilogueOpKind::Bias       ? "one bias vector"
                         : kind == EpilogueOpKind::Residual ? "one C (the residual)"
                                                            : "one scale_d scalar";
      diags.error(op.loc, std::string("'") + toString(kind) + "' is in the chain twice, but a "
                              "launch has " + what + "; keep one");
      diags.note(first->loc, "first given here");
    }
    if (!first)
      first = &op;
    if (kind == EpilogueOpKind::Clamp) {
      if (!op.min.given && !op.max.given)
        diags.error(op.loc, "clamp needs a bound; write 'clamp: { min: -1, max: 1 }' (either "
                            "may be left out)");
      else if (op.min.given && op.max.given && op.min.value > op.max.value)
        diags.error(op.max.loc, "clamp's max " + shortNumber(op.max.value) +
                                    " is below its min " + shortNumber(op.min.value) +
                                    "; swap them");
    }
  }
  if (chain.size() > 8)
    diags.error(chain[8].loc, "epilogue.chain has " + std::to_string(chain.size()) +
                                  " steps; at most 8 are supported (every op but clamp "
                                  "needs to appear once at most)");
  return diags.errorCount() == before;
}

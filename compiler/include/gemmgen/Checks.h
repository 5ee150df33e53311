//===- Checks.h - Target and resource checks on a KernelSpec ----*- C++ -*-===//
#ifndef GEMMGEN_CHECKS_H
#define GEMMGEN_CHECKS_H

#include "gemmgen/Diagnostics.h"
#include "gemmgen/Spec.h"

namespace gemmgen {

/// Which groups of checks run.
struct CheckOptions {
  /// Declared barrier values checked against the derived protocol. Off only
  /// for `gemmgen simulate --no-protocol-checks`, which executes a declared
  /// (possibly wrong) protocol to show what it does.
  bool protocol = true;
};

/// Checks a parsed spec against its target: legal MMA shapes for the tile
/// and consumer count, TMA box and swizzle limits, shared memory within the
/// per-block limit, register budget per role, cluster shape, every role
/// present, declared barriers consistent with the protocol of the spec's
/// plan (derivePlan, KernelPlan.h). Each
/// diagnostic names the spec key at fault and the fix. Returns true when no
/// error was reported.
bool checkSpec(const KernelSpec &spec, DiagnosticEngine &diags,
               const CheckOptions &options = CheckOptions());

/// epilogue.chain against what the kernel can fuse (ChecksEpilogue.cpp;
/// checkSpec runs it for every target).
bool checkEpilogueChain(const KernelSpec &spec, DiagnosticEngine &diags);

} // namespace gemmgen

#endif // GEMMGEN_CHECKS_H

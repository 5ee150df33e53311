//===- ChecksSm90.h - The sm_90a checker's class, for its two files -*- C++ -*-===//
//
// Internal to compiler/lib: Checks.cpp (types, layout, cluster, pipeline,
// roles, tile, registers, shared memory, epilogue, scheduler) and
// ChecksProtocol.cpp (the declared barriers against the plan's protocol)
// define Checker's members. Checks.cpp's opening comment lists the rules.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_CHECKSSM90_H
#define GEMMGEN_LIB_CHECKSSM90_H

#include "ChecksCommon.h"

#include "gemmgen/Checks.h"
#include "gemmgen/Diagnostics.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Spec.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <string>

namespace gemmgen::checks {

using llvm::SMLoc;

/// checkSpec for sm_90a: every rule's diagnostics at the value at fault.
class Checker {
public:
  Checker(const KernelSpec &spec, DiagnosticEngine &diags, const CheckOptions &options)
      : spec(spec), diags(diags), options(options) {}

  bool run();

private:
  void error(SMLoc loc, const llvm::Twine &msg) { diags.error(loc, msg); }
  bool blockwiseScaling() const {
    return spec.types.scaling.value == ScalingMode::Blockwise && isFp8(spec.types.a.value);
  }
  void warning(SMLoc loc, const llvm::Twine &msg) { diags.warning(loc, msg); }

  void checkTypesAndLayout();
  void checkOutputLayout();
  void checkFp8TypesAndLayout();
  void checkFp8Output();
  void checkCluster();
  void checkPipeline();
  void checkRoles();
  void checkTile();
  void checkRegisters();
  void checkSharedMemory();
  void checkEpilogue();
  void checkBarriers();
  void checkScheduler();
  bool pingpong() const;
  void checkEpilogueBuffers();
  void checkBarrier(const BarrierSpec &b, ProtocolBarrier which, const BarrierPlan &want);
  bool checkRoleName(const Located<std::string> &ref, const std::string &path) {
    return checks::checkRoleName(spec, diags, ref, path);
  }

  const KernelSpec &spec;
  DiagnosticEngine &diags;
  const CheckOptions &options;
  const RoleSpec *producer = nullptr;  ///< the role that does tma_load
  const RoleSpec *consumer = nullptr;  ///< the role that does mma
  bool rolesOk = false;                ///< producer and consumer found and sane
  bool tileOk = true;
};

} // namespace gemmgen::checks

#endif // GEMMGEN_LIB_CHECKSSM90_H

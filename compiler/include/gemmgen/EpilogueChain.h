//===- EpilogueChain.h - An epilogue chain as the data its interpreters take -===//
//
// Generated kernels inline their chain (Sm90Epilogue.cpp); the tail-column
// kernel, the verifier's reference and the simulator interpret it as an
// epilogue::Chain (gemmgen/device/epilogue_ops.cuh). This is the one mapping
// from the compiler's steps to that data.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_EPILOGUECHAIN_H
#define GEMMGEN_EPILOGUECHAIN_H

#include "gemmgen/Spec.h"
#include "gemmgen/device/epilogue_ops.cuh"

#include <vector>

namespace gemmgen {

/// The steps' op codes and clamp bounds; the bias type of its bias step.
/// Pointers (bias, scale_d) and the bias stride are the caller's to set.
/// Asserts at most epilogue::kMaxChainSteps steps (the checks refuse more).
epilogue::Chain toChainData(const std::vector<EpilogueStep> &steps);

/// The bias type code (epilogue::BIAS_*) of a scalar type.
int biasTypeCode(ScalarType t);

} // namespace gemmgen

#endif // GEMMGEN_EPILOGUECHAIN_H

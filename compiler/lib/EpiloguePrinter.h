//===- EpiloguePrinter.h - The epilogue chain as generated code -*- C++ -*-===//
#ifndef GEMMGEN_LIB_EPILOGUEPRINTER_H
#define GEMMGEN_LIB_EPILOGUEPRINTER_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/IR.h"

#include <string>

namespace gemmgen {

/// The kernel's `apply_epilogue_chain(v0, v1, c0, c1, b0, b1, scale_d)`
/// (nothing without an epilogue.chain): the chain's ops on a pair of D
/// values, each a call of gemmgen/device/epilogue_ops.cuh.
void emitEpilogueChainFunction(CodeEmitter &e, const ir::Kernel &k);
/// A float as a CUDA literal that reads back exactly ("-1.0f", "0.25f").
std::string floatLiteral(float v);
/// epilogue_ops.cuh's bias type constant for a scalar type ("epi::BIAS_BF16").
const char *biasTypeName(ScalarType t);

} // namespace gemmgen

#endif // GEMMGEN_LIB_EPILOGUEPRINTER_H

//===- Sm90Blockwise.h - The sm_90a printer's blockwise-scale code -*- C++ -*-===//
//
// Emitters for fp8 blockwise scaling that Sm90Printer.cpp calls inside the
// consumer role (Sm90Blockwise.cpp says which kernel names they use).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_SM90BLOCKWISE_H
#define GEMMGEN_LIB_SM90BLOCKWISE_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/IR.h"

#include <string>

namespace gemmgen {
namespace sm90 {

/// Blockwise scales into `sa`/`sb` for k-block `kbExpr` of this tile: A's
/// for this thread's rows, B's for the tile's column blocks.
void emitBlockScaleLoad(CodeEmitter &e, const ir::Kernel &k, const std::string &sa,
                        const std::string &sb, const std::string &kbExpr);
/// acc += part · sA · sB (the k-block's partial sum, promoted on the CUDA cores).
void emitPromoteAcc(CodeEmitter &e, const ir::Kernel &k, const std::string &part,
                    const std::string &sa, const std::string &sb);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90BLOCKWISE_H

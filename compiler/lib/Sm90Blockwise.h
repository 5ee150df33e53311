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
/// Blockwise pairs: this thread's scale pointers, stepped one k-block at a
/// time (ptxas keeps a loop-carried pointer in a register; addresses computed
/// from kb were recomputed from the kernel parameters every k-block):
/// `sa_p[m]` its rows' A scales (row r; r + 8 at +8), `sb_p[cb]` the tile's
/// B blocks', and whether each is inside the matrix.
void emitTileScalePointers(CodeEmitter &e, const ir::Kernel &k, const std::string &kFirst);
/// This k-block's scales into `sa`/`sb`, then the pointers step on.
void emitPointerScaleLoad(CodeEmitter &e, const std::string &sa, const std::string &sb);

void emitPromoteAcc(CodeEmitter &e, const ir::Kernel &k, const std::string &part,
                    const std::string &sa, const std::string &sb);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90BLOCKWISE_H

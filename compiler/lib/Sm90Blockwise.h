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
/// With plan.scalesInSmem A's come from the k-block's stage `stage`.
void emitPointerScaleLoad(CodeEmitter &e, const ir::Kernel &k, const std::string &sa,
                          const std::string &sb, const std::string &stage);
/// plan.scalesInSmem, producer: the bytes of this k-block's A-scale copy
/// (sa_lo, sa_bytes; before the stage's expect_tx), then the copy itself.
void emitScaleCopyBytes(CodeEmitter &e);
void emitScaleCopy(CodeEmitter &e, const std::string &stage, const std::string &bar);

void emitPromoteAcc(CodeEmitter &e, const ir::Kernel &k, const std::string &part,
                    const std::string &sa, const std::string &sb);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90BLOCKWISE_H

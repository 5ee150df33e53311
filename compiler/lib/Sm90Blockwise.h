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

/// The scales travel through shared memory (KernelPlan::scalesInSmem): the
/// producer copies each k-block's into the stage's smemScales slot on its
/// full barrier: emitScaleCopyBytes before the stage's expect_tx (the bytes
/// the bulk copies will move: sa_bytes, sb_total; the floats of the arrays'
/// partial 16-byte chunks it stores itself), emitScaleCopy after it.
void emitScaleCopyBytes(CodeEmitter &e, const std::string &stage);
void emitScaleCopy(CodeEmitter &e, const std::string &bar);
/// The same with the producer over four warps (KernelPlan::scaleCopyWarps):
/// warp 1 A's scales, warp 2 B's (`part`, after the tiles' branches), each
/// storing its partial chunks' floats, arriving with its bulk copies' bytes,
/// then issuing them.
void emitScaleCopyParts(CodeEmitter &e, const std::string &stage, const std::string &bar);
/// Consumer, at a k-loop's start: where this thread's scales sit in a slot
/// (sa_off, the A copy's alignment index sa_index, B's addresses sb_addr, all
/// stepped one k-block at a time from the tile's first, kFirst).
void emitTileScalePointers(CodeEmitter &e, const ir::Kernel &k, const std::string &kFirst);
/// This k-block's scales into `sa`/`sb` from its stage's slot (`stage`),
/// read as its wgmmas are issued; then the indices step on.
void emitPointerScaleLoad(CodeEmitter &e, const std::string &sa,
                          const std::string &sb, const std::string &stage);
/// acc += part · sA · sB (the k-block's partial sum, promoted on the CUDA cores).
void emitPromoteAcc(CodeEmitter &e, const ir::Kernel &k, const std::string &part,
                    const std::string &sa, const std::string &sb);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90BLOCKWISE_H

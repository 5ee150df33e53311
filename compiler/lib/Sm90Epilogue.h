//===- Sm90Epilogue.h - The sm_90a epilogue's staging code -------*- C++ -*-===//
//
// Emitters the sm_90a printer (Sm90Printer.cpp) calls for the epilogue ops
// that touch the staging tile. They print inside the consumer role, where
// the kernel's names (smem, consumer, lane, warp_in_group, acc, chunk,
// tile_m/tile_n, entry, alpha, beta and the SMEM_D/D_* constants) exist.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_SM90EPILOGUE_H
#define GEMMGEN_LIB_SM90EPILOGUE_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/IR.h"

#include <string>

namespace gemmgen {
namespace sm90 {

/// The current chunk's first column in the tile: "chunk * EPI_COLS", or
/// chunk_col0 where the last chunk overlaps the one before (its first column
/// BN - EPI_COLS, so that it ends at the tile's edge).
std::string chunkOrigin(const ir::Kernel &k);
/// The current chunk's first n8 block in the tile (chunkOrigin / 8).
std::string chunkFirstBlock(const ir::Kernel &k);
/// The first D row of this consumer's rows of the tile: its share of a
/// cooperative tile, or (ping-pong) the whole tile's first.
std::string consumerFirstRow(const ir::Kernel &k);
/// store_acc: D = alpha·acc (+ beta·C from the staging tile when the kernel
/// reads C and beta != 0) into this chunk's staging slabs.
void emitStagingStore(CodeEmitter &e, const ir::Kernel &k, bool readsC);
/// tma_store: the chunk's slabs to D at the tile, batch entry `entry`.
void emitStagingTmaStore(CodeEmitter &e, const ir::Kernel &k);
/// tma_load C: C's chunk into the staging slabs, completing on `barrierAddr`.
void emitStagingCLoad(CodeEmitter &e, const ir::Kernel &k, const std::string &barrierAddr);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90EPILOGUE_H

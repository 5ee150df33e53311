//===- Lowering.h - KernelSpec to Kernel IR ---------------------*- C++ -*-===//
#ifndef GEMMGEN_LOWERING_H
#define GEMMGEN_LOWERING_H

#include "gemmgen/IR.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/Spec.h"

namespace gemmgen {

/// Lowers a spec that passed checkSpec() to the Kernel IR: buffers, the
/// derived barrier protocol (declared values override only where checks
/// allowed them), and one program per role.
ir::Kernel lowerToIR(const KernelSpec &spec);

/// The sm_100a lowering (LoweringSm100.cpp): the seed's Blackwell kernel with
/// producer, MMA and writeback roles and the tma2mma / mma2tma / mma2ld /
/// ld2mma protocol. lowerToIR() dispatches here for target sm_100a.
ir::Kernel lowerToIRSm100(const KernelSpec &spec);

/// sm_100a: TMEM columns per consumer accumulator: tmem_columns, or tile.n
/// rounded up to a power of two (at least 32).
unsigned tmemColumnsPerConsumer(const KernelSpec &spec);

/// Output columns per epilogue chunk: epilogue.chunk_n, or the default.
unsigned epilogueChunkColumns(const KernelSpec &spec);

/// The launch contract of a lowered kernel (threads, shared memory, cluster,
/// tensor-map boxes, alignment rules).
KernelABI deriveKernelABI(const ir::Kernel &kernel);

} // namespace gemmgen

#endif // GEMMGEN_LOWERING_H

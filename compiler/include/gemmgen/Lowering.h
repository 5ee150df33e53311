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

/// Output columns per epilogue chunk: epilogue.chunk_n, or the default.
unsigned epilogueChunkColumns(const KernelSpec &spec);

/// The launch contract of a lowered kernel (threads, shared memory, cluster,
/// tensor-map boxes, alignment rules).
KernelABI deriveKernelABI(const ir::Kernel &kernel);

} // namespace gemmgen

#endif // GEMMGEN_LOWERING_H

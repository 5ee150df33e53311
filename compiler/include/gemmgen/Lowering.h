//===- Lowering.h - KernelSpec to Kernel IR ---------------------*- C++ -*-===//
#ifndef GEMMGEN_LOWERING_H
#define GEMMGEN_LOWERING_H

#include "gemmgen/IR.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Spec.h"

namespace gemmgen {

/// Lowers a spec that passed checkSpec() to the Kernel IR: the buffers and
/// barriers of its plan (derivePlan, declared values applied) and one
/// program per role.
ir::Kernel lowerToIR(const KernelSpec &spec);

/// The sm_100a lowering (LoweringSm100.cpp): the seed's Blackwell kernel with
/// producer, MMA and writeback roles and the tma2mma / mma2tma / mma2ld /
/// ld2mma protocol. lowerToIR() dispatches here for target sm_100a.
ir::Kernel lowerToIRSm100(const KernelSpec &spec);

/// The launch contract of a lowered kernel (threads, shared memory, cluster,
/// tensor-map boxes, alignment rules).
KernelABI deriveKernelABI(const ir::Kernel &kernel);

} // namespace gemmgen

#endif // GEMMGEN_LOWERING_H

//===- Sm90Preamble.h - What an sm_90a kernel's source holds before it -*- C++ -*-===//
//
// The file-level parts of an sm_90a kernel's source (Sm90Preamble.cpp): the
// banner, the device header, the tile/pipeline/shared-memory constants the
// kernel plan derived, the ring cursors and the epilogue chain's function.
// The kernel itself follows (Sm90Printer.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_SM90PREAMBLE_H
#define GEMMGEN_LIB_SM90PREAMBLE_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/EmitOptions.h"
#include "gemmgen/IR.h"

namespace gemmgen {
namespace sm90 {

/// Everything before the kernel: banner, includes, a printed wgmma width the
/// header lacks, `namespace { constants, PipelineState, ... }`.
void emitPreamble(CodeEmitter &e, const ir::Kernel &k, const EmitOptions &opts);

/// The IR barrier that plays `role` in the protocol, if the kernel has one.
const ir::Barrier *protocolBarrier(const ir::Kernel &k, ProtocolBarrier role);

/// Whether an operand is loaded M/N-major (boxes of 64 elements along M or N).
inline bool mnMajor(const OperandLoadPlan &l) { return l.major == OperandMajor::MN; }

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90PREAMBLE_H

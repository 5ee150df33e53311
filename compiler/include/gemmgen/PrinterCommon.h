//===- PrinterCommon.h - Pieces every target printer emits ------*- C++ -*-===//
//
// The parts of a generated .cu that do not depend on the target's
// instructions: the launch-contract comment, the device headers (included,
// or inlined by --standalone) and the names of the tile schedule.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PRINTERCOMMON_H
#define GEMMGEN_PRINTERCOMMON_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/Spec.h"
#include "gemmgen/EmitOptions.h"

#include "llvm/ADT/StringRef.h"

namespace gemmgen {

/// The "Launch contract: ..." comment lines of the banner.
void emitLaunchContractComment(CodeEmitter &e, const KernelABI &abi);

/// `#include "gemmgen/device/<header>"` and the tile schedule's header (and
/// with `epilogueOps` the epilogue chain's, namespace alias `epi`), or their
/// text with --standalone, the debug-hangs define, and `using namespace
/// <ns>;` for both.
void emitDeviceHeader(CodeEmitter &e, const EmitOptions &opts, llvm::StringRef header,
                      llvm::StringRef text, llvm::StringRef ns, bool epilogueOps = false);

/// The tile_schedule.cuh constant for a raster order (RASTER_ALONG_M, ...).
const char *scheduleRasterName(RasterOrder r);

} // namespace gemmgen

#endif // GEMMGEN_PRINTERCOMMON_H

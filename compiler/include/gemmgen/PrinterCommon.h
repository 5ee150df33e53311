//===- PrinterCommon.h - Pieces every target printer emits ------*- C++ -*-===//
//
// The parts of a generated .cu that do not depend on the target's
// instructions: the launch-contract comment and the device header (included,
// or inlined by --standalone).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PRINTERCOMMON_H
#define GEMMGEN_PRINTERCOMMON_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/Sm90Printer.h"

#include "llvm/ADT/StringRef.h"

namespace gemmgen {

/// The "Launch contract: ..." comment lines of the banner.
void emitLaunchContractComment(CodeEmitter &e, const KernelABI &abi);

/// `#include "gemmgen/device/<header>"` (or the header's text with
/// --standalone), the debug-hangs define, and `using namespace <ns>;`.
void emitDeviceHeader(CodeEmitter &e, const EmitOptions &opts, llvm::StringRef header,
                      llvm::StringRef text, llvm::StringRef ns);

} // namespace gemmgen

#endif // GEMMGEN_PRINTERCOMMON_H

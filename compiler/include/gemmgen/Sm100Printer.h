//===- Sm100Printer.h - Kernel IR to sm_100a CUDA C++ -----------*- C++ -*-===//
#ifndef GEMMGEN_SM100PRINTER_H
#define GEMMGEN_SM100PRINTER_H

#include "gemmgen/EmitOptions.h"
#include "gemmgen/IR.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace gemmgen {

/// Prints warp-specialized CUDA C++ with inline PTX (tcgen05, TMEM, CTA-pair
/// TMA) for an sm_100a kernel lowered by lowerToIRSm100(). The code is
/// compile-verified here, not run: no Blackwell GPU. A kernel that is not an
/// sm_100a lowering, or an op with no sm_100a form, is an error.
llvm::Error emitSm100(const ir::Kernel &kernel, const EmitOptions &options, llvm::raw_ostream &os);

} // namespace gemmgen

#endif // GEMMGEN_SM100PRINTER_H

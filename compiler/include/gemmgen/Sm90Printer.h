//===- Sm90Printer.h - Kernel IR to sm_90a CUDA C++ -------------*- C++ -*-===//
#ifndef GEMMGEN_SM90PRINTER_H
#define GEMMGEN_SM90PRINTER_H

#include "gemmgen/EmitOptions.h"
#include "gemmgen/IR.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace gemmgen {

/// Prints warp-specialized CUDA C++ with inline PTX for an sm_90a kernel.
/// An op the sm_90a printer has no form for (an sm_100a op) is an error;
/// what was printed up to it is incomplete.
llvm::Error emitSm90(const ir::Kernel &kernel, const EmitOptions &options, llvm::raw_ostream &os);

} // namespace gemmgen

#endif // GEMMGEN_SM90PRINTER_H

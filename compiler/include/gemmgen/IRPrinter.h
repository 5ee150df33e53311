//===- IRPrinter.h - Deterministic text form of the Kernel IR ---*- C++ -*-===//
#ifndef GEMMGEN_IRPRINTER_H
#define GEMMGEN_IRPRINTER_H

#include "gemmgen/IR.h"

#include "llvm/Support/raw_ostream.h"

namespace gemmgen {

/// Prints `kernel` as text (`gemmgen emit --print-ir`). The same kernel
/// always prints the same bytes.
void printIR(const ir::Kernel &kernel, llvm::raw_ostream &os);

} // namespace gemmgen

#endif // GEMMGEN_IRPRINTER_H

//===- Sm90Printer.h - Kernel IR to sm_90a CUDA C++ -------------*- C++ -*-===//
#ifndef GEMMGEN_SM90PRINTER_H
#define GEMMGEN_SM90PRINTER_H

#include "gemmgen/IR.h"

#include "llvm/Support/raw_ostream.h"

namespace gemmgen {

struct EmitOptions {
  /// Inline the device PTX wrapper header so that the .cu compiles alone
  /// with nvcc; otherwise the source #includes "gemmgen/device/sm90_ptx.cuh"
  /// (NVRTC receives it through its headers argument).
  bool standalone = false;
  /// Bound every barrier wait and report role/barrier/slot/phase on timeout.
  bool debugHangs = false;
};

/// Prints warp-specialized CUDA C++ with inline PTX for an sm_90a kernel.
void emitSm90(const ir::Kernel &kernel, const EmitOptions &options, llvm::raw_ostream &os);

} // namespace gemmgen

#endif // GEMMGEN_SM90PRINTER_H

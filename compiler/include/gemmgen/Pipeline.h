//===- Pipeline.h - The compiler's stages, in order -------------*- C++ -*-===//
//
//   parseSpec   (Parser.h)      YAML text        -> KernelSpec
//   derivePlan  (KernelPlan.h)  KernelSpec       -> KernelPlan (layout, protocol, schedule)
//   checkSpec   (Checks.h)      KernelSpec       -> diagnostics (the spec against its plan)
//   lowerToIR   (Lowering.h)    KernelSpec       -> ir::Kernel (built from the plan)
//   printIR     (IRPrinter.h)   ir::Kernel       -> text
//   emitSm90    (Sm90Printer.h) ir::Kernel       -> CUDA C++ or an llvm::Error
//   emitSm100   (Sm100Printer.h)
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PIPELINE_H
#define GEMMGEN_PIPELINE_H

#include "gemmgen/Checks.h"
#include "gemmgen/Diagnostics.h"
#include "gemmgen/IR.h"
#include "gemmgen/IRPrinter.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Sm90Printer.h"

#include <optional>
#include <string>

namespace gemmgen {

/// A spec taken through every stage up to generated source.
struct CompiledSpec {
  KernelSpec spec;
  ir::Kernel kernel;
  KernelABI abi;
  std::string source; ///< the emitted CUDA C++
};

/// The spec as the checks and the lowering see it: the options' overrides
/// (layouts, output type, grouped) applied, and split-K's kernel output made
/// f32 (scheduler.splitOut keeps types.d for the reduction). Everything that
/// checks a parsed spec runs this first (compileParsedSpec, `simulate`, the
/// tuner's pruning), so that all of them judge the same spec.
void prepareSpec(KernelSpec &spec, const EmitOptions &options);
/// Runs parse -> check -> lower -> emit. Returns std::nullopt (with the
/// diagnostics reported to `diags`) when the spec has errors.
/// Runs prepare -> check -> lower -> emit on an already parsed (possibly edited) spec.
/// `checks` can turn the protocol checks off (`run --no-protocol-checks`:
/// execute a deliberately wrong protocol on the GPU, under --debug-hangs).
std::optional<CompiledSpec> compileParsedSpec(KernelSpec spec, const EmitOptions &options,
                                              DiagnosticEngine &diags,
                                              const CheckOptions &checks = CheckOptions());
/// The kernel's name is used nowhere in the emitted source but at its
/// definition, and nowhere in a device header; otherwise a located error
/// (NVRTC would fail on the clash). compileParsedSpec() runs it.
bool checkKernelNameIsFree(const CompiledSpec &compiled, DiagnosticEngine &diags);
std::optional<CompiledSpec> compileSpecText(llvm::StringRef text, llvm::StringRef name,
                                            const EmitOptions &options,
                                            DiagnosticEngine &diags);
std::optional<CompiledSpec> compileSpecFile(llvm::StringRef path, const EmitOptions &options,
                                            DiagnosticEngine &diags);

} // namespace gemmgen

#endif // GEMMGEN_PIPELINE_H

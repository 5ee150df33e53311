//===- Pipeline.cpp - The compiler's stages, in order ----------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/Sm100Printer.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace gemmgen;

std::optional<CompiledSpec> gemmgen::compileParsedSpec(KernelSpec spec, const EmitOptions &options,
                                                       DiagnosticEngine &diags,
                                                       const CheckOptions &checks) {
  if (!checkSpec(spec, diags, checks))
    return std::nullopt;
  CompiledSpec out;
  out.spec = std::move(spec);
  out.kernel = lowerToIR(out.spec);
  out.abi = deriveKernelABI(out.kernel);
  llvm::raw_string_ostream os(out.source);
  llvm::Error printed = out.kernel.target == Target::SM100a ? emitSm100(out.kernel, options, os)
                                                            : emitSm90(out.kernel, options, os);
  if (printed) {
    diags.error(llvm::toString(std::move(printed)));
    return std::nullopt;
  }
  os.flush();
  return out;
}

static std::optional<CompiledSpec> compileParsed(std::optional<KernelSpec> spec,
                                                 const EmitOptions &options,
                                                 DiagnosticEngine &diags) {
  if (!spec)
    return std::nullopt;
  return compileParsedSpec(std::move(*spec), options, diags);
}

std::optional<CompiledSpec> gemmgen::compileSpecText(llvm::StringRef text, llvm::StringRef name,
                                                     const EmitOptions &options,
                                                     DiagnosticEngine &diags) {
  return compileParsed(parseSpec(text, name, diags), options, diags);
}

std::optional<CompiledSpec> gemmgen::compileSpecFile(llvm::StringRef path,
                                                     const EmitOptions &options,
                                                     DiagnosticEngine &diags) {
  return compileParsed(parseSpecFile(path, diags), options, diags);
}

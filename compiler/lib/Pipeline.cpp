//===- Pipeline.cpp - The compiler's stages, in order ----------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/Names.h"
#include "gemmgen/Sm100Printer.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace gemmgen;

void gemmgen::prepareSpec(KernelSpec &spec, const EmitOptions &options) {
  // Overrides keep the location of what they replace, so a check that
  // refuses the layout still points at the spec's `layout` key. They name
  // the layouts of the problem with D row-major; a kernel that stores D
  // column-major computes its transpose, D^T = B^T·A^T, whose A is B^T
  // (stored as B: the opposite layout) and whose B is A^T.
  const bool colD = spec.layout.d.value == MatrixLayout::Col;
  auto opposite = [](MatrixLayout l) {
    return l == MatrixLayout::Row ? MatrixLayout::Col : MatrixLayout::Row;
  };
  std::optional<MatrixLayout> a = options.layoutA, b = options.layoutB;
  if (colD) {
    a = options.layoutB ? std::optional<MatrixLayout>(opposite(*options.layoutB)) : std::nullopt;
    b = options.layoutA ? std::optional<MatrixLayout>(opposite(*options.layoutA)) : std::nullopt;
  }
  if (a) {
    spec.layout.a.value = *a;
    spec.layout.a.given = true;
  }
  if (b) {
    spec.layout.b.value = *b;
    spec.layout.b.given = true;
  }
  if (options.outType && *options.outType != spec.types.d.value) {
    const unsigned from = sizeInBytes(spec.types.d.value), to = sizeInBytes(*options.outType);
    if (spec.epilogue.chunkN.given && spec.epilogue.chunkN.value * from % to == 0)
      spec.epilogue.chunkN.value = spec.epilogue.chunkN.value * from / to;
    spec.types.d.value = *options.outType;
    spec.types.d.given = true;
  }
  // Split-K: the kernel writes f32 partial sums (as an explicit f32 output
  // does, chunk_n keeping its bytes); the runtime's reduction writes types.d.
  spec.scheduler.splitOut = spec.types.d.value;
  if (spec.scheduler.splitK.value > 1 && spec.target.value == Target::SM90a &&
      spec.types.d.value != ScalarType::F32) {
    const unsigned from = sizeInBytes(spec.types.d.value), to = sizeInBytes(ScalarType::F32);
    if (spec.epilogue.chunkN.given && spec.epilogue.chunkN.value * from % to == 0)
      spec.epilogue.chunkN.value = spec.epilogue.chunkN.value * from / to;
    spec.types.d.value = ScalarType::F32;
  }
  if (options.grouped) {
    spec.scheduler.grouped.value = *options.grouped;
    spec.scheduler.grouped.given = true;
  }
}

std::optional<CompiledSpec> gemmgen::compileParsedSpec(KernelSpec spec, const EmitOptions &options,
                                                       DiagnosticEngine &diags,
                                                       const CheckOptions &checks) {
  prepareSpec(spec, options);
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
  if (!checkKernelNameIsFree(out, diags))
    return std::nullopt;
  return out;
}

bool gemmgen::checkKernelNameIsFree(const CompiledSpec &compiled, DiagnosticEngine &diags) {
  // The printers are the one source of the names they write, so the check
  // reads what they wrote: the name may appear once, where the kernel is
  // defined, and nowhere in a device header the source includes.
  const std::string &name = compiled.spec.kernel.value;
  std::string where;
  if (countIdentifier(compiled.source, name) > 1)
    where = "the generated code";
  for (const DeviceHeader &h : deviceHeaders())
    if (where.empty() && countIdentifier(h.text, name) > 0)
      where = "the device header " + h.includeName.str();
  if (where.empty())
    return true;
  diags.error(compiled.spec.kernel.loc,
              "kernel name '" + name + "' is also a name in " + where +
                  " (NVRTC would reject the kernel); use e.g. '" + suggestKernelName(name) + "'");
  return false;
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

//===- Pipeline.cpp - The compiler's stages, in order ----------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/Names.h"
#include "gemmgen/Sm100Printer.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace gemmgen;

namespace {
/// D's type changed from `from` to spec.types.d (an explicit output type, or
/// split-K's f32 slices): a given chunk_n keeps its bytes where that makes a
/// chunk the checks take, else the widest such chunk within those bytes (a
/// 16-bit chunk of 48 columns is no f32 chunk of 24: f32 slabs are 16
/// columns; 16 it is), so that the staging tile never grows.
void keepChunkBytes(KernelSpec &spec, ScalarType from) {
  if (!spec.epilogue.chunkN.given)
    return;
  const unsigned bytes = spec.epilogue.chunkN.value * sizeInBytes(from);
  const unsigned to = sizeInBytes(spec.types.d.value), n = spec.tile.n.value;
  const unsigned step = tileNStep(spec);
  for (unsigned c = bytes / to / step * step; c >= step; c -= step)
    if (c <= n && (n % c == 0 || takesOddN8Blocks(spec))) {
      spec.epilogue.chunkN.value = c;
      return;
    }
  if (bytes % to == 0)
    spec.epilogue.chunkN.value = bytes / to; // no chunk fits: the checks say so
}
} // namespace

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
    const ScalarType from = spec.types.d.value;
    spec.types.d.value = *options.outType;
    spec.types.d.given = true;
    keepChunkBytes(spec, from);
  }
  // Split-K: the kernel writes f32 partial sums (as an explicit f32 output
  // does, chunk_n keeping its bytes); the runtime's reduction writes types.d.
  spec.scheduler.splitOut = spec.types.d.value;
  if (spec.scheduler.splitK.value > 1 && spec.target.value == Target::SM90a &&
      spec.types.d.value != ScalarType::F32) {
    const ScalarType from = spec.types.d.value;
    spec.types.d.value = ScalarType::F32;
    keepChunkBytes(spec, from);
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

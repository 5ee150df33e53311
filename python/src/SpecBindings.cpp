//===- SpecBindings.cpp - check, emit, compile, tuned lookup for Python ----===//
//
// The compiler's entry points (parseSpec/checkSpec/simulate, compileSpecText,
// compileCudaSource) and the tuned-defaults lookup, each called once per
// Python call. Diagnostics become gemmgen.SpecError with the located list.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"
#include "Errors.h"
#include "Kernel.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"
#include "gemmgen/tune/TuneDB.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;
using namespace gemmgen;
using namespace gemmgen::python;

namespace {

/// Where a spec comes from: a file, or YAML text with a name for messages.
struct SpecSource {
  std::string textOrPath;
  std::string name;
  bool isPath = false;
};

/// A DiagnosticEngine that also keeps the printed text (file:line:col, the
/// source line and a caret) for the exception message.
struct CollectingDiagnostics {
  std::string text;
  llvm::raw_string_ostream os{text};
  DiagnosticEngine diags{&os};

  [[noreturn]] void throwSpecError(const std::string &name) {
    os.flush();
    std::string msg = "spec '" + name + "' has " + std::to_string(diags.errorCount()) +
                      " error(s):\n" + text;
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    throw PyFacingError("SpecError", msg, diags.diagnostics());
  }
};

std::optional<KernelSpec> parse(const SpecSource &src, DiagnosticEngine &diags) {
  return src.isPath ? parseSpecFile(src.textOrPath, diags)
                    : parseSpec(src.textOrPath, src.name, diags);
}

CompiledSpec compileOrThrow(const SpecSource &src, const EmitOptions &emit) {
  CollectingDiagnostics cd;
  std::optional<CompiledSpec> c =
      src.isPath ? compileSpecFile(src.textOrPath, emit, cd.diags)
                 : compileSpecText(src.textOrPath, src.name, emit, cd.diags);
  if (!c)
    cd.throwSpecError(src.name);
  return std::move(*c);
}

/// The spec's operand layouts replaced before its checks (EmitOptions):
/// "row" or "col" each, "" to keep the spec's.
struct LayoutOverride {
  std::string a, b;
};

MatrixLayout specLayout(Layout l) { return l == Layout::Row ? MatrixLayout::Row : MatrixLayout::Col; }

EmitOptions emitOptions(const LayoutOverride &layout) {
  EmitOptions emit;
  if (!layout.a.empty())
    emit.layoutA = specLayout(unwrap(parseLayout(layout.a, "layout[0] (A)")));
  if (!layout.b.empty())
    emit.layoutB = specLayout(unwrap(parseLayout(layout.b, "layout[1] (B)")));
  return emit;
}

const char *severityName(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

/// check(): the verdict as a dict; errors and a failing simulation raise.
nb::dict checkSpecBinding(const SpecSource &src, bool runSimulation, unsigned seeds,
                          bool protocolChecks, const LayoutOverride &layout) {
  EmitOptions emit = emitOptions(layout);
  CollectingDiagnostics cd;
  std::optional<KernelSpec> spec = parse(src, cd.diags);
  CheckOptions checks;
  checks.protocol = protocolChecks;
  // Through emit, as `gemmgen check` does: a kernel name that clashes with the
  // generated code or a device header is an error there too.
  std::optional<CompiledSpec> compiled;
  if (spec)
    compiled = compileParsedSpec(*spec, emit, cd.diags, checks);
  if (cd.diags.hasErrors())
    cd.throwSpecError(src.name);
  nb::dict out;
  nb::list warnings;
  nb::module_ errors = nb::module_::import_("gemmgen.errors");
  for (const Diagnostic &d : cd.diags.diagnostics())
    warnings.append(errors.attr("Diagnostic")(d.file, d.line, d.column, severityName(d.severity),
                                              d.message));
  out["warnings"] = warnings;
  out["simulated_seeds"] = 0;
  if (runSimulation) {
    SimulationOptions opts;
    opts.seeds = seeds;
    opts.stopAtFirstFailure = true;
    const ir::Kernel kernel = compiled ? compiled->kernel : lowerToIR(*spec);
    // A size the simulator refuses (0 seeds, too many) is the caller's
    // argument, not a protocol failure of the spec.
    if (std::string why = checkSimulationSize(kernel, opts); !why.empty())
      throw PyFacingError("ArgumentError", why + " (simulate=False skips the simulation)");
    SimulationResult sim;
    {
      nb::gil_scoped_release release;
      sim = simulate(kernel, opts);
    }
    if (!sim.ok()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      printSimulationResult(sim, os);
      os.flush();
      while (!text.empty() && text.back() == '\n')
        text.pop_back();
      throw PyFacingError("ProtocolError",
                          "spec '" + src.name + "': the simulated barrier protocol fails:\n" +
                              text);
    }
    out["simulated_seeds"] = seeds;
  }
  return out;
}

std::string emitBinding(const SpecSource &src, bool printIr, bool standalone, bool debugHangs,
                        const LayoutOverride &layout) {
  EmitOptions emit = emitOptions(layout);
  emit.standalone = standalone;
  emit.debugHangs = debugHangs;
  CompiledSpec c = compileOrThrow(src, emit);
  if (!printIr)
    return c.source;
  std::string text;
  llvm::raw_string_ostream os(text);
  printIR(c.kernel, os);
  os.flush();
  return text;
}

PyKernel *compileBinding(const SpecSource &src, bool debugHangs, bool useCache,
                         const std::string &cacheDir, const std::vector<std::string> &extra,
                         const LayoutOverride &layout) {
  EmitOptions emit = emitOptions(layout);
  emit.debugHangs = debugHangs;
  CompiledSpec c = compileOrThrow(src, emit);
  CompileOptions opts;
  opts.debugHangs = debugHangs;
  opts.useCache = useCache;
  opts.cacheDir = cacheDir;
  opts.extraOptions = extra;
  const KernelABI &abi = c.abi;
  std::optional<Expected<CubinResult>> cubin;
  {
    nb::gil_scoped_release release; // NVRTC takes seconds on a cold cache
    cubin.emplace(compileCudaSource(c.source, abi.kernelName + ".cu", toString(abi.target),
                                    abi.kernelName, opts));
  }
  return new PyKernel(src.name, std::move(c.source), abi, opts, unwrap(std::move(*cubin)));
}

/// The tuned spec for a shape: (spec path, tuned m, n, k); exact shape, else
/// the nearest of that dtype (TunedDefaults::lookup).
std::tuple<std::string, long long, long long, long long>
tunedSpecBinding(const std::string &defaultsPath, long long M, long long N, long long K,
                 const std::string &dtype) {
  llvm::Expected<tune::TunedDefaults> d = tune::loadTunedDefaults(defaultsPath);
  if (!d)
    throw PyFacingError("Error", llvm::toString(d.takeError()));
  const tune::TunedEntry *e = d->lookup(M, N, K, dtype);
  if (!e)
    throw PyFacingError("Error", defaultsPath + " has no " + dtype +
                                     " entry; compile a spec with gemmgen.compile()");
  return {d->specPath(*e), e->M, e->N, e->K};
}

/// A KernelChoice for Python: (name, spec YAML, family, split_k, stream_k,
/// predicted us, default us, reason).
using ChoiceTuple =
    std::tuple<std::string, std::string, std::string, int, bool, double, double, std::string>;
ChoiceTuple choiceTuple(const KernelChoice &c) {
  return {c.name, c.specYaml, c.family, c.splitK, c.streamK, c.predictedUs, c.defaultUs, c.reason};
}

/// `sm_count` as the choice takes it: 0 (the H200's) to 4096.
long long checkedSmCount(long long smCount) {
  if (smCount < 0 || smCount > 4096)
    throw PyFacingError("ArgumentError",
                        "sm_count is the GPU's multiprocessor count, 0 for the H200's (got " +
                            std::to_string(smCount) + ")");
  return smCount;
}

/// chooseKernel for Python. `layout_a`, `layout_b`: the kernel's layouts
/// ("row" or "col"), which narrow the tiles it may take; `l2_bytes` and
/// `sm_count`: the GPU's L2 and SMs, 0 for the H200's (ChoiceOptions).
ChoiceTuple chooseKernelBinding(long long M, long long N, long long K, const std::string &dtype,
                                const std::string &layoutA, const std::string &layoutB,
                                long long l2Bytes, long long smCount) {
  const DType t = dtype == "bf16" ? DType::BF16 : dtype == "f16" ? DType::F16 : DType::F32;
  for (const std::string *l : {&layoutA, &layoutB})
    if (*l != "row" && *l != "col")
      throw PyFacingError("ArgumentError", "layout must be a pair of 'row' or 'col' (got '" + *l +
                                               "')");
  ChoiceOptions options;
  options.a = layoutA == "row" ? Layout::Row : Layout::Col;
  options.b = layoutB == "row" ? Layout::Row : Layout::Col;
  if (l2Bytes < 0 || l2Bytes > (1LL << 30)) {
    const std::string got = std::to_string(l2Bytes);
    throw PyFacingError("ArgumentError",
                        "l2_bytes is the GPU's L2 in bytes, 0 for the H200's (got " + got + ")");
  }
  options.l2Bytes = (int)l2Bytes;
  options.smCount = (int)checkedSmCount(smCount);
  Expected<KernelChoice> c = chooseKernel(M, N, K, t, options);
  if (!c)
    throw PyFacingError("ArgumentError", c.status().message());
  return choiceTuple(*c);
}

/// chooseFp8Kernel for Python: the same tuple; types by their names (e4m3,
/// e5m2; out bf16, f16, f32, e4m3, e5m2); `sm_count` as for chooseKernel.
ChoiceTuple chooseFp8KernelBinding(long long M, long long N, long long K, const std::string &a,
                                   const std::string &b, const std::string &out, bool blockwise,
                                   long long smCount) {
  auto type = [](const std::string &name, const char *what) {
    for (DType t : {DType::F16, DType::BF16, DType::F32, DType::E4M3, DType::E5M2})
      if (name == toString(t))
        return t;
    throw PyFacingError("DTypeError", std::string(what) + " type '" + name +
                                          "' is not one of f16, bf16, f32, e4m3, e5m2");
  };
  Fp8Problem p;
  p.a = type(a, "A's"), p.b = type(b, "B's"), p.out = type(out, "the output");
  p.blockwise = blockwise;
  ChoiceOptions gpu;
  gpu.smCount = (int)checkedSmCount(smCount);
  Expected<KernelChoice> c = chooseFp8Kernel(M, N, K, p, gpu);
  if (!c)
    throw PyFacingError("ArgumentError", c.status().message());
  return choiceTuple(*c);
}

/// The tuned spec for exactly this shape and dtype, or "" (kernel_for then
/// takes chooseKernel's).
std::string exactTunedSpecBinding(const std::string &defaultsPath, long long M, long long N,
                                  long long K, const std::string &dtype) {
  llvm::Expected<tune::TunedDefaults> d = tune::loadTunedDefaults(defaultsPath);
  if (!d)
    throw PyFacingError("Error", llvm::toString(d.takeError()));
  const tune::TunedEntry *e = d->lookup(M, N, K, dtype, /*exactOnly=*/true);
  return e ? d->specPath(*e) : "";
}

} // namespace

void python::bindSpecFunctions(nb::module_ &m) {
  nb::class_<SpecSource>(m, "SpecSource")
      .def(nb::init<std::string, std::string, bool>(), "text_or_path"_a, "name"_a, "is_path"_a)
      .def_ro("name", &SpecSource::name)
      .def_ro("is_path", &SpecSource::isPath);
  nb::class_<LayoutOverride>(m, "LayoutOverride")
      .def(nb::init<std::string, std::string>(), "a"_a, "b"_a)
      .def_ro("a", &LayoutOverride::a)
      .def_ro("b", &LayoutOverride::b);
  m.def("check", &checkSpecBinding, "source"_a, "simulate"_a, "seeds"_a, "protocol_checks"_a,
        "layout"_a);
  m.def("emit", &emitBinding, "source"_a, "print_ir"_a, "standalone"_a, "debug_hangs"_a,
        "layout"_a);
  m.def("compile", &compileBinding, "source"_a, "debug_hangs"_a, "use_cache"_a, "cache_dir"_a,
        "extra_options"_a, "layout"_a, nb::rv_policy::take_ownership);
  m.def("tuned_spec", &tunedSpecBinding, "defaults_path"_a, "m"_a, "n"_a, "k"_a, "dtype"_a);
  m.def("exact_tuned_spec", &exactTunedSpecBinding, "defaults_path"_a, "m"_a, "n"_a, "k"_a,
        "dtype"_a);
  m.def("choose_kernel", &chooseKernelBinding, "m"_a, "n"_a, "k"_a, "dtype"_a, "layout_a"_a,
        "layout_b"_a, "l2_bytes"_a, "sm_count"_a);
  m.def("choose_fp8_kernel", &chooseFp8KernelBinding, "m"_a, "n"_a, "k"_a, "a"_a, "b"_a, "out"_a,
        "blockwise"_a, "sm_count"_a = 0);
}

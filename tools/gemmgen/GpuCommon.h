//===- GpuCommon.h - Shared by run, bench and choose ------------*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_GPUCOMMON_H
#define GEMMGEN_TOOLS_GPUCOMMON_H

#include "Commands.h"
#include "CompilerCommands.h"
#include "ProblemLists.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/gemmgen.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen::cli::gpu {

/// Exit code for a Status: 1 spec, 2 no driver/GPU, 4 watchdog, else 3.
inline int exitCodeFor(const Status &s) {
  switch (s.code()) {
  case ErrorCode::SpecError: return ExitSpecError;
  case ErrorCode::NoDriver: return ExitNoGpu;
  case ErrorCode::Timeout: return ExitTimeout;
  default: return ExitFailure;
  }
}

/// Prints "gemmgen: error: MESSAGE" and sets the exit code. After a watchdog
/// timeout the hung kernel still owns the context: exit at once, without
/// running the driver's teardown (which would wait for the kernel).
inline void fail(const Status &s) {
  llvm::outs().flush();
  llvm::errs() << "gemmgen: error: " << s.message() << "\n";
  llvm::errs().flush();
  if (s.code() == ErrorCode::Timeout) {
    llvm::errs() << "gemmgen: note: the CUDA context is unusable after a watchdog timeout; "
                    "exiting without cleanup\n";
    llvm::errs().flush();
    std::fflush(nullptr);
    std::_Exit(ExitTimeout);
  }
  setExitCode(exitCodeFor(s));
}

inline std::optional<DType> parseDType(const std::string &s) {
  if (s == "f16" || s == "fp16" || s == "half")
    return DType::F16;
  if (s == "bf16")
    return DType::BF16;
  if (s == "e4m3")
    return DType::E4M3;
  if (s == "e5m2")
    return DType::E5M2;
  return std::nullopt;
}

/// What `auto` (and `gemmgen choose`) takes for M×N×K: chooseKernel, or
/// chooseFp8Kernel for e4m3/e5m2 operands (`blockwise` saying which scales,
/// D in `out`, bf16 when empty).
inline Expected<KernelChoice> chooseFor(long long M, long long N, long long K, DType t,
                                        bool blockwise, std::optional<DType> out = {},
                                        const ChoiceOptions &choice = {}) {
  Fp8Problem fp8;
  fp8.a = fp8.b = t;
  fp8.blockwise = blockwise;
  fp8.out = out.value_or(DType::BF16);
  return isFp8(t) ? chooseFp8Kernel(M, N, K, fp8, choice) : chooseKernel(M, N, K, t, choice);
}

/// The spec argument `auto`: the spec the cost model picks for the shape
/// (chooseFor), written under the kernel cache (chosen/NAME.yaml) so that
/// the rest of the command reads it like any spec file. "" after an error.
inline std::string writeChosenSpec(long long M, long long N, long long K, DType t,
                                   bool blockwise, std::optional<DType> out = {},
                                   const ChoiceOptions &choice = {}) {
  Expected<KernelChoice> c = chooseFor(M, N, K, t, blockwise, out, choice);
  if (!c) {
    llvm::errs() << "gemmgen: error: " << c.status().message() << "\n";
    return "";
  }
  const std::string dir = KernelCache::defaultDirectory() + "/chosen";
  const std::string path = dir + "/" + c->name + ".yaml";
  std::error_code ec = llvm::sys::fs::create_directories(dir);
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << c->specYaml;
    os.close();
    ec = os.error();
    os.clear_error(); // reported below, not by the stream's destructor
  }
  if (ec) {
    llvm::errs() << "gemmgen: error: cannot write the chosen spec to '" << path
                 << "': " << ec.message() << " (set $GEMMGEN_CACHE_DIR to a writable folder)\n";
    return "";
  }
  llvm::outs() << "chosen by the cost model: " << c->reason << " -> " << path << "\n";
  return path;
}

/// A spec from the tuned-defaults file: its path, the entry it is
/// ("4096x4096x4096 f16") and the file that lists it.
struct TunedSpec {
  std::string path, tunedFor, defaultsFile;
};

/// The spec tuned for exactly M×N×K in 16-bit `t` in the tuned-defaults file
/// ($GEMMGEN_TUNED_DEFAULTS, or the one installed with gemmgen); nullopt
/// where there is none (no file, no entry, or fp8: no tuned specs); an error
/// when the file cannot be read.
inline llvm::Expected<std::optional<TunedSpec>> tunedSpecFor(long long M, long long N,
                                                             long long K, DType t) {
  const std::string path = tune::defaultTunedDefaultsPath();
  if (path.empty() || (t != DType::F16 && t != DType::BF16))
    return std::optional<TunedSpec>();
  llvm::Expected<tune::TunedDefaults> defaults = tune::loadTunedDefaults(path);
  if (!defaults)
    return defaults.takeError();
  const tune::TunedEntry *e = defaults->lookup(M, N, K, toString(t), /*exactOnly=*/true);
  if (!e)
    return std::optional<TunedSpec>();
  return std::optional<TunedSpec>(TunedSpec{
      defaults->specPath(*e),
      std::to_string(e->M) + "x" + std::to_string(e->N) + "x" + std::to_string(e->K) + " " +
          e->dtype,
      path});
}

/// The spec argument `tuned` means: the spec tuned for exactly this shape
/// and dtype in the tuned-defaults file ($GEMMGEN_TUNED_DEFAULTS, or the
/// one installed with gemmgen), else the cost model's choice (`auto`; fp8
/// has no tuned specs: always the model's). Any other argument is a spec
/// path and is returned as is. Reports an error and returns "" when there is
/// no usable spec. `out` is D's type for an fp8 choice (bf16 when empty);
/// `choice` what the 16-bit model's tiles must allow (the kernel's layouts,
/// an f32 D).
inline std::string resolveSpecArg(const std::string &spec, long long M, long long N,
                                  long long K, DType t, bool blockwise = false,
                                  std::optional<DType> out = {},
                                  const ChoiceOptions &choice = {}) {
  if (spec != "tuned" && spec != "auto")
    return spec;
  if (spec == "tuned") {
    llvm::Expected<std::optional<TunedSpec>> tuned = tunedSpecFor(M, N, K, t);
    if (!tuned) {
      llvm::errs() << "gemmgen: error: " << llvm::toString(tuned.takeError()) << "\n";
      return "";
    }
    if (*tuned) {
      llvm::outs() << "tuned defaults: " << (*tuned)->path << " (tuned for " << (*tuned)->tunedFor
                   << ")\n";
      return (*tuned)->path;
    }
  }
  return writeChosenSpec(M, N, K, t, blockwise, out, choice);
}

/// --scaling of run and bench: which fp8 kernels `auto`/`tuned` choose among
/// (per_tensor, the default, or blockwise). A spec file says it in its
/// types.scaling, and 16-bit operands have none: both are reported (exit 1).
inline bool parseScalingOption(const std::string &s, const std::string &spec,
                               std::optional<DType> dtype, bool &blockwise) {
  blockwise = false;
  if (s.empty())
    return true;
  const char *problem = nullptr;
  if (s != "per_tensor" && s != "blockwise")
    problem = "--scaling must be per_tensor or blockwise";
  else if (spec != "auto" && spec != "tuned")
    problem = "--scaling picks the scales of the kernel `auto` or `tuned` chooses; a spec file "
              "says its own (types.scaling): leave --scaling out";
  else if (!dtype || !isFp8(*dtype))
    problem = "--scaling needs fp8 operands: add --dtype e4m3 (or e5m2)";
  if (problem) {
    llvm::errs() << "gemmgen: error: " << problem << " (got --scaling " << s << ")\n";
    setExitCode(ExitFailure);
    return false;
  }
  blockwise = s == "blockwise";
  return true;
}


/// --out-dtype of run and bench: empty keeps the spec's types.d; f32 makes
/// D (and C) f32. The kernel `auto`/`tuned` chooses for fp8 operands (`dtype`)
/// also takes bf16, f16, e4m3 or e5m2: the chooser writes its spec with that
/// D. Prints the error and returns false on anything else.
inline bool parseOutDTypeOption(const std::string &s, std::optional<DType> &out,
                                const std::string &spec = "", std::optional<DType> dtype = {}) {
  if (s.empty())
    return true;
  // f32 is an output type only (parseDType reads operand types).
  out = s == "f32" ? std::optional<DType>(DType::F32) : parseDType(s);
  if (out == DType::F32)
    return true;
  const bool fp8Choice = (spec == "auto" || spec == "tuned") && dtype && isFp8(*dtype);
  if (out && fp8Choice)
    return true;
  if (out && (spec == "auto" || spec == "tuned"))
    llvm::errs() << "gemmgen: error: --out-dtype " << s << " picks D's type of the fp8 kernel `"
                 << spec << "` chooses (with --dtype e4m3 or e5m2); 16-bit kernels write D in "
                    "the operand type or f32: use --out-dtype f32 or leave it out\n";
  else if (out)
    llvm::errs() << "gemmgen: error: --out-dtype " << s << " with a spec file: the spec says its "
                    "D (types.d); use --out-dtype f32 (D and C in f32) or leave it out (`auto` "
                    "with --dtype e4m3 takes bf16, f16, f32, e4m3 or e5m2)\n";
  else
    llvm::errs() << "gemmgen: error: --out-dtype must be f32 (D and C in f32), or left out (D in "
                    "the operand type); the fp8 kernel `auto` chooses also takes bf16, f16, e4m3 "
                    "or e5m2 (got '" << s << "')\n";
  out.reset();
  setExitCode(ExitFailure);
  return false;
}

/// --dtype of run and bench: empty keeps the spec's types; anything but
/// f16/bf16 is reported (exit code 3) and gives false.
inline bool parseDTypeOption(const std::string &s, std::optional<DType> &out) {
  if (s.empty())
    return true;
  out = parseDType(s);
  if (!out) {
    llvm::errs() << "gemmgen: error: --dtype must be f16, bf16, e4m3 or e5m2 (got '" << s
                 << "')\n";
    setExitCode(ExitFailure);
  }
  return out.has_value();
}

/// The operand layouts of `--layout A,B` (each row or col, e.g. "col,row");
/// empty: the spec's.
struct LayoutOption {
  std::optional<MatrixLayout> a, b; ///< the kernel's (for a column-major D: of D^T = B^T·A^T)
  Layout d = Layout::Row;           ///< D's (a host-side transform, not a spec value)
  std::optional<Layout> userA, userB; ///< as the user wrote them
};

/// What `auto` / `tuned` are asked about for M×N×K under --layout and
/// --out-dtype: the library's choiceProblem (rowMajorProblem's M, N and A/B
/// layouts, N×M for a column-major D: the frame of the cost model, its rules
/// and the tuned DB) with an f32 D.
inline ChoiceProblem choiceProblemFor(const LayoutOption &l, long long M, long long N,
                                      long long K, std::optional<DType> out) {
  GemmArgs user;
  user.M = M, user.N = N, user.K = K;
  user.layoutA = l.userA.value_or(Layout::Row);
  user.layoutB = l.userB.value_or(Layout::Col);
  user.layoutD = l.d;
  return choiceProblem(user, out == DType::F32);
}

/// The GPU `auto` / `tuned` will run on, opened before they choose: its L2
/// steers the rules measured on one GPU (takeChoiceGpu) and the launch reuses
/// it (one context, not two). Empty for a spec file, or where no GPU opens
/// (the launch's own Runtime::open then says why).
inline Runtime runtimeForChoice(const std::string &spec, int device = 0) {
  if (spec != "auto" && spec != "tuned")
    return Runtime();
  Expected<Runtime> rt = Runtime::open(device);
  return rt ? *rt : Runtime();
}
/// `options` for the GPU `rt` holds (its L2 and SM count); left at 0 (the
/// H200's) where none opened.
inline void takeChoiceGpu(ChoiceOptions &options, const Runtime &rt) {
  if (!rt.empty())
    options.takeGpu(rt.device());
}
/// The runtime the launch uses: `opened` (runtimeForChoice's) where it holds
/// one, else GPU `device` opened now (its error says why none opens).
inline Expected<Runtime> openOrReuse(const Runtime &opened, int device = 0) {
  return opened.empty() ? Runtime::open(device) : Expected<Runtime>(opened);
}

/// The host API's name for a spec layout.
inline Layout toLayout(MatrixLayout l) { return l == MatrixLayout::Row ? Layout::Row : Layout::Col; }

inline bool parseLayoutOption(const std::string &s, LayoutOption &out) {
  if (s.empty())
    return true;
  auto one = [](llvm::StringRef v) -> std::optional<MatrixLayout> {
    v = v.trim();
    if (v == "row")
      return MatrixLayout::Row;
    if (v == "col")
      return MatrixLayout::Col;
    return std::nullopt;
  };
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(s).split(parts, ',');
  std::optional<MatrixLayout> a = one(parts[0]);
  std::optional<MatrixLayout> b = parts.size() > 1 ? one(parts[1]) : std::nullopt;
  std::optional<MatrixLayout> d =
      parts.size() > 2 ? one(parts[2]) : std::optional<MatrixLayout>(MatrixLayout::Row);
  if (!a || !b || !d || parts.size() > 3) {
    llvm::errs() << "gemmgen: error: --layout takes the layouts of A and B (and optionally D) as "
                    "A,B[,D] with each row or col, e.g. --layout row,col (A M×K row-major, B "
                    "stored N×K, D row-major: the default), --layout col,row or --layout "
                    "row,col,col (got '"
                 << s << "')\n";
    setExitCode(ExitFailure);
    return false;
  }
  out.userA = toLayout(*a), out.userB = toLayout(*b);
  out.d = toLayout(*d);
  // The kernel computes the row-major problem (for a column-major D,
  // D^T = B^T·A^T): compile it for that problem's layouts.
  GemmArgs user;
  user.layoutA = *out.userA, user.layoutB = *out.userB, user.layoutD = out.d;
  const GemmArgs kernel = rowMajorProblem(user);
  auto spec = [](Layout l) { return l == Layout::Row ? MatrixLayout::Row : MatrixLayout::Col; };
  out.a = spec(kernel.layoutA);
  out.b = spec(kernel.layoutB);
  return true;
}

/// Parse, check, lower and emit a spec; with `dtype`, A, B and a 16-bit D
/// take that type (the spec's types are overridden before lowering), with
/// `layout` the operand layouts (16-bit only: an fp8 kernel stays K-major
/// and the launch copies other layouts transposed). With `protocolChecks` false a declared
/// (possibly wrong) barrier protocol is emitted as written: only `run
/// --no-protocol-checks` asks for that.
inline std::optional<CompiledSpec> compileSpecForGpu(const std::string &path, bool debugHangs,
                                                     std::optional<DType> dtype,
                                                     bool protocolChecks = true,
                                                     const LayoutOption &layout = {},
                                                     std::optional<DType> outType = {},
                                                     bool grouped = false) {
  DiagnosticEngine diags;
  EmitOptions emit;
  if (grouped)
    emit.grouped = true;
  emit.debugHangs = debugHangs;
  emit.layoutA = layout.a;
  emit.layoutB = layout.b;
  if (outType == DType::F32)
    emit.outType = ScalarType::F32;
  std::optional<KernelSpec> spec = parseSpecFile(path, diags);
  if (!spec)
    return std::nullopt;
  if (dtype) {
    ScalarType t = *dtype == DType::BF16   ? ScalarType::BF16
                   : *dtype == DType::E4M3 ? ScalarType::E4M3
                   : *dtype == DType::E5M2 ? ScalarType::E5M2
                                           : ScalarType::F16;
    spec->types.a.value = spec->types.b.value = t;
    // An f32 output stays f32; fp8 operands keep the spec's (16-bit) D.
    if (spec->types.d.value != ScalarType::F32 && !isFp8(t))
      spec->types.d.value = t;
  }
  // 8-bit operands are read K-major only: the kernel keeps the spec's
  // layouts and the runtime copies an M- or N-major A or B transposed.
  if (isFp8(spec->types.a.value) || isFp8(spec->types.b.value))
    emit.layoutA = emit.layoutB = std::nullopt;
  CheckOptions checks;
  checks.protocol = protocolChecks;
  return compileParsedSpec(std::move(*spec), emit, diags, checks);
}

/// `--source FILE`: a hand-edited copy of what `gemmgen emit` writes for the
/// spec as run (its types and layouts) replaces the emitted kernel, so that an
/// idea can be measured before the compiler learns it. The launch contract (threads,
/// shared memory, cluster, grid, tensor maps, arguments) stays the spec's: the
/// file must define the spec's kernel under its name. False, with the error
/// printed and the exit code set, where it cannot be read or does not.
inline bool useEditedSource(CompiledSpec &compiled, const std::string &path) {
  if (path.empty())
    return true;
  auto text = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!text) {
    llvm::errs() << "gemmgen: error: --source " << path << ": " << text.getError().message()
                 << "\n";
    setExitCode(ExitFailure);
    return false;
  }
  const llvm::StringRef body = (*text)->getBuffer();
  const std::string &name = compiled.abi.kernelName;
  // The kernel's definition: `__global__` in the declaration that ends in its
  // name and parameter list, outside a line comment.
  bool defines = false;
  for (size_t at = body.find(name); at != llvm::StringRef::npos && !defines;
       at = body.find(name, at + 1)) {
    const llvm::StringRef before = body.take_front(at);
    const bool wordStart =
        at == 0 || !(isalnum((unsigned char)before.back()) || before.back() == '_');
    const llvm::StringRef declaration = before.substr(before.find_last_of(";{}") + 1);
    const llvm::StringRef line = before.substr(before.rfind('\n') + 1);
    defines = wordStart && body.substr(at + name.size()).ltrim().starts_with("(") &&
              declaration.contains("__global__") && !line.contains("//");
  }
  if (!defines) {
    llvm::errs() << "gemmgen: error: --source " << path << " does not define the kernel `" << name
                 << "` the spec launches: start from `gemmgen emit` of a spec file with the "
                    "types and layouts you run (emit takes no --dtype, --layout or --out-dtype) "
                    "and keep the kernel's name\n";
    setExitCode(ExitFailure);
    return false;
  }
  compiled.source = body.str();
  llvm::errs() << "gemmgen: note: running " << path << " in place of the emitted `" << name
               << "` (the spec's launch contract)\n";
  return true;
}

/// A runtime on the default GPU and the compiled spec loaded into it.
struct LoadedKernel {
  Runtime rt;
  Kernel kernel;
};
/// Runtime::open() (unless `opened` holds one) and loadKernel() with `run`'s
/// options (hang bounds, the disk cache).
inline Expected<LoadedKernel> openAndLoad(const CompiledSpec &compiled, bool debugHangs,
                                          bool useCache, const Runtime &opened = Runtime()) {
  Expected<Runtime> rt = openOrReuse(opened);
  if (!rt)
    return rt.status();
  CompileOptions options;
  options.debugHangs = debugHangs;
  options.useCache = useCache;
  Expected<Kernel> kernel = rt->loadKernel(compiled.source, compiled.abi, options);
  if (!kernel)
    return kernel.status();
  return LoadedKernel{*rt, *kernel};
}

/// `launch` `warmup` times untimed, then `iters` times each between two CUDA
/// events on `stream`: the milliseconds of each (none when iters is 0).
/// `budget` is the watchdog's seconds per launch.
inline Expected<std::vector<double>> timeLaunches(const Runtime &rt, CUstream stream, int warmup,
                                                  int iters, double budget,
                                                  const std::function<Status()> &launch) {
  std::vector<double> ms;
  if (iters <= 0)
    return ms;
  for (int i = 0; i < warmup; ++i)
    if (Status s = launch(); !s)
      return s;
  std::vector<Runtime::Timer> timers;
  for (int i = 0; i < iters; ++i) {
    Expected<Runtime::Timer> tm = rt.createTimer();
    if (!tm)
      return tm.status();
    timers.push_back(tm.take());
  }
  for (Runtime::Timer &tm : timers) {
    if (Status s = tm.start(stream); !s)
      return s;
    if (Status s = launch(); !s)
      return s;
    if (Status s = tm.stop(stream); !s)
      return s;
  }
  if (Status s = rt.wait(stream, budget * (iters + warmup)); !s)
    return s;
  for (Runtime::Timer &tm : timers) {
    Expected<float> e = tm.elapsedMs();
    if (!e)
      return e.status();
    ms.push_back(*e);
  }
  return ms;
}

/// Owns device allocations; frees them on scope exit.
struct DeviceBuffers {
  const Runtime &rt;
  std::vector<CUdeviceptr> ptrs;
  explicit DeviceBuffers(const Runtime &r) : rt(r) {}
  Expected<CUdeviceptr> alloc(size_t bytes) {
    Expected<CUdeviceptr> p = rt.alloc(bytes);
    if (p)
      ptrs.push_back(*p);
    return p;
  }
  ~DeviceBuffers() {
    for (CUdeviceptr p : ptrs)
      (void)rt.free(p);
  }
};

} // namespace gemmgen::cli::gpu

#endif // GEMMGEN_TOOLS_GPUCOMMON_H

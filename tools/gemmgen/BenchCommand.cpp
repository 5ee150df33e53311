//===- BenchCommand.cpp - `gemmgen bench`: side by side with cuBLAS --------===//
//
//   gemmgen bench SPEC [--m M --n N --k K | --shapes 4096x4096x4096,...]
//                 [--dtype f16|bf16|e4m3|e5m2 [--scaling per_tensor|blockwise]] [--layout A,B] [--batch L] [--alpha A --beta B] [--rounds R] [--json FILE] [--csv FILE]
//                 [--scale-a S --scale-b S --scale-d S] [--device ORDINAL]
//
// Kernels with an epilogue chain or fp8 operands are timed against cuBLASLt
// computing the same function, and (chains) cuBLAS's GEMM followed by an
// elementwise pass (benchAgainstCublasLt in gemmgen/tune/LtBench.h).
//
// DESIGN.md §10: cuBLAS and the gemmgen kernel in one process on the same
// inputs, both verified first, then timed interleaved (the tune library:
// benchAgainstCublas in gemmgen/tune/Workload.h, the protocol in Timing.h,
// the output formats in BenchOutput.h). Headline: ratio = cuBLAS time ÷
// gemmgen time (≥ 1.00: gemmgen at least as fast).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "GpuCommon.h"
#include "OutputFile.h"
#include "OptionChecks.h"

#include "gemmgen/tune/BenchOutput.h"
#include "gemmgen/tune/BuildInfo.h"
#include "gemmgen/tune/Cublas.h"
#include "gemmgen/tune/GroupedBench.h"
#include "gemmgen/tune/LtBench.h"
#include "gemmgen/tune/Workload.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <array>
#include <memory>
#include <random>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {

struct BenchOptions {
  std::string spec;
  long long m = 0, n = 0, k = 0;
  std::string shapes;
  std::string dtype;
  std::string layout;
  std::string outDtype;
  std::string scaling; ///< `auto`/`tuned` with fp8: per_tensor (""), blockwise
  long long batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::string groupsFile;
  std::string sourceFile; ///< --source: a hand-edited emitted kernel in place of the spec's
  std::string jsonFile, csvFile;
  tune::BenchSettings settings;
  bool seedGiven = false;
  int device = 0;
};

void printHeader(const tune::BenchRun &run, const tune::Cublas &cublas, bool lt) {
  const DeviceInfo &dev = run.device;
  llvm::outs() << "gemmgen bench  " << run.spec << "  kernel " << run.kernel << " ("
               << run.target << ", " << run.dtype << ", layout " << run.layout << ")  commit " << run.commit << "  "
               << run.date << "\n"
               << "GPU " << dev.name << " (" << dev.archName() << ", " << dev.smCount
               << " SMs, max SM clock " << dev.smClockKHz / 1000 << " MHz, memory clock "
               << dev.memClockKHz / 1000 << " MHz, L2 " << dev.l2Bytes / (1 << 20)
               << " MiB), driver " << dev.driverVersion / 1000 << "."
               << dev.driverVersion % 1000 / 10 << ", NVRTC " << run.nvrtc << ", cuBLAS "
               << cublas.version() << " (" << cublas.path() << ")"
               << (lt ? ", cuBLASLt " + std::to_string(run.cublasLtVersion) + " (" +
                            run.cublasLtPath + ")"
                      : std::string())
               << "\n"
               << "protocol: " << run.settings.warmup << " warm-up passes, "
               << run.settings.rounds
               << " interleaved rounds, CUDA events, rotating input sets; ratio = cuBLAS "
                  "time / gemmgen time (>= 1.00: gemmgen at least as fast)\n";
  if (lt) { // chain and fp8 kernels: cuBLASLt fused, and GEMM + chain pass
    llvm::outs() << "epilogue " << run.epilogue
                 << "; cuBLASLt = the same function in one cublasLtMatmul, unfused = plain "
                    "cuBLAS GEMM + one elementwise pass over D; ratios: their time / gemmgen "
                    "time\n\n"
                 << tune::ltBenchHeaderText();
    llvm::outs().flush();
    return;
  }
  llvm::outs() << "\n";
  llvm::outs() << llvm::formatv("{0,-20} {1,-5} {2,-24} {3,-24} {4,6}  {5}\n", "shape", "dtype",
                                "gemmgen ms (TFLOP/s)", "cuBLAS ms (TFLOP/s)", "ratio",
                                "rel.err g/c/g-c, spread (g IQR, c IQR)");
  llvm::outs().flush();
}

void printRow(const tune::BenchResult &r, llvm::StringRef dtype) {
  std::string shape = llvm::formatv("{0}x{1}x{2}", r.M, r.N, r.K);
  if (r.batch > 1)
    shape = std::to_string(r.batch) + "*" + shape; // entries of a strided batch
  if (r.alpha != 1.0f || r.beta != 0.0f)
    shape += llvm::formatv(" a{0}b{1}", r.alpha, r.beta).str(); // D = a·A·B + b·D
  const long long rows = r.M * r.batch;
  if (!r.error.empty()) {
    llvm::outs() << llvm::formatv("{0,-20} {1,-5} error: {2}\n", shape, dtype, r.error);
  } else {
    std::string gs = llvm::formatv("{0:f4} ({1:f1})", r.gemmgen.median,
                                   tune::tflops(rows, r.N, r.K, r.gemmgen.median));
    std::string cs = llvm::formatv("{0:f4} ({1:f1})", r.cublas.median,
                                   tune::tflops(rows, r.N, r.K, r.cublas.median));
    llvm::outs() << llvm::formatv(
        "{0,-20} {1,-5} {2,-24} {3,-24} {4,6:f3}  {5:e1}/{6:e1}/{7:e1}{8}, ({9:f4}-{10:f4}, "
        "{11:f4}-{12:f4})\n",
        shape, dtype, gs, cs, r.ratio, r.errG, r.errC, r.errGC, r.pass ? "" : " FAIL",
        r.gemmgen.p25, r.gemmgen.p75, r.cublas.p25, r.cublas.p75);
  }
  llvm::outs().flush();
}

void printGroupedRow(const tune::GroupedBenchResult &r, llvm::StringRef dtype) {
  long long empty = 0;
  for (long long m : r.rows)
    empty += m == 0;
  std::string shape = llvm::formatv("{0} groups ({1} empty), sum M {2} x N {3} x K {4}",
                                    r.rows.size(), empty, r.totalRows(), r.N, r.K);
  const long long T = r.totalRows();
  llvm::outs() << llvm::formatv(
      "{0}\n{1,-20} {2,-5} {3,-24} {4,-24} {5,6:f3}  {6:e1}/{7:e1}/{8:e1}{9}, ({10:f4}-{11:f4}, "
      "{12:f4}-{13:f4})\n",
      shape, "grouped", dtype,
      llvm::formatv("{0:f4} ({1:f1})", r.gemmgen.median, tune::tflops(T, r.N, r.K, r.gemmgen.median)).str(),
      llvm::formatv("{0:f4} ({1:f1})", r.cublas.median, tune::tflops(T, r.N, r.K, r.cublas.median)).str(),
      r.ratio, r.errG, r.errC, r.errGC, r.pass ? "" : " FAIL", r.gemmgen.p25, r.gemmgen.p75,
      r.cublas.p25, r.cublas.p75);
  llvm::outs().flush();
}

void runBench(BenchOptions o) {
  using namespace gpu;
  std::optional<DType> dtype;
  if (!parseDTypeOption(o.dtype, dtype))
    return;
  LayoutOption layout;
  if (!parseLayoutOption(o.layout, layout))
    return;
  std::optional<DType> outDtype;
  if (!parseOutDTypeOption(o.outDtype, outDtype, o.spec, dtype))
    return;
  bool blockwise = false;
  if (!parseScalingOption(o.scaling, o.spec, dtype, blockwise))
    return;
  if (o.batch < 1) {
    llvm::errs() << "gemmgen: error: --batch must be at least 1 (got " << o.batch << ")\n";
    setExitCode(ExitFailure);
    return;
  }
  if (layout.d == Layout::Col) {
    llvm::errs() << "gemmgen: error: bench measures a row-major D (cuBLAS computes the same "
                    "problem); time a column-major D with `gemmgen run --layout A,B,col`\n";
    setExitCode(ExitFailure);
    return;
  }
  std::vector<std::array<long long, 3>> shapes;
  if (!o.shapes.empty()) {
    auto parsed = parseShapeList(o.shapes, LLONG_MAX);
    if (!parsed) {
      llvm::errs() << "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '" << o.shapes
                   << "')\n";
      setExitCode(ExitFailure);
      return;
    }
    shapes = *parsed;
  }
  // --groups FILE: the problems' M (and N, K, which must be the same for
  // all: the stacked mixture-of-experts layout) against cuBLAS's grouped GEMM.
  std::vector<std::array<long long, 3>> groups;
  if (!o.groupsFile.empty()) {
    auto parsed = readGroupsFile(o.groupsFile, o.n ? o.n : 4096, o.k ? o.k : 4096);
    if (!parsed)
      return;
    groups = *parsed;
    for (const auto &g : groups)
      if (g[1] != groups[0][1] || g[2] != groups[0][2]) {
        llvm::errs() << "gemmgen: error: bench --groups times the mixture-of-experts layout "
                        "(one N and K for all problems); " << o.groupsFile
                     << " mixes them (use `gemmgen run --groups` for problems of their own N "
                        "and K)\n";
        setExitCode(ExitFailure);
        return;
      }
    if (o.batch != 1 || o.beta != 0.0f || !o.shapes.empty() || o.m || !o.jsonFile.empty() ||
        !o.csvFile.empty() || o.spec == "tuned" || o.spec == "auto") {
      llvm::errs() << "gemmgen: error: bench --groups takes --n/--k (or N K in the file), "
                      "--dtype, --layout, --rounds and a spec; not --batch, --beta, --shapes, "
                      "--m, --json, --csv, `tuned` or `auto`\n";
      setExitCode(ExitFailure);
      return;
    }
    shapes = {{groups[0][0], groups[0][1], groups[0][2]}};
  }
  if (o.m || o.n || o.k)
    if (groups.empty())
      shapes.push_back({o.m ? o.m : 4096, o.n ? o.n : 4096, o.k ? o.k : 4096});
  if (shapes.empty())
    shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};

  std::string specPath = o.spec;
  if ((o.spec == "tuned" || o.spec == "auto") && shapes.size() != 1) {
    llvm::errs() << "gemmgen: error: spec `" << o.spec
                 << "` picks one spec per shape: give one shape "
                    "(--m/--n/--k or a single --shapes entry)\n";
    setExitCode(ExitFailure);
    return;
  }
  const Runtime opened = runtimeForChoice(o.spec, o.device);
  if (o.spec == "tuned" || o.spec == "auto") {
    // D is row-major here (bench refuses a column-major one): the shape as given.
    ChoiceProblem asked =
        choiceProblemFor(layout, shapes[0][0], shapes[0][1], shapes[0][2], outDtype);
    takeChoiceGpu(asked.options, opened);
    specPath = resolveSpecArg(o.spec, asked.M, asked.N, asked.K, dtype.value_or(DType::F16),
                              blockwise, outDtype, asked.options);
  }
  std::optional<CompiledSpec> compiled =
      specPath.empty() ? std::nullopt
                       : compileSpecForGpu(specPath, false, dtype, true, layout, outDtype,
                                           !groups.empty());
  if (!compiled) {
    setExitCode(ExitSpecError);
    return;
  }
  // An fp8 kernel is K-major whatever --layout says (compileSpecForGpu), and
  // cuBLASLt's fp8 GEMM takes A and B K-major only: bench could time neither
  // side in another layout, so it says so rather than time row,col.
  if (isFp8(compiled->abi.aType) && ((layout.a && *layout.a != MatrixLayout::Row) ||
                                     (layout.b && *layout.b != MatrixLayout::Col))) {
    llvm::errs() << "gemmgen: error: bench times fp8 kernels against cuBLASLt, whose fp8 GEMM "
                    "takes A and B K-major only (--layout row,col); time an fp8 operand stored "
                    "M- or N-major (the runtime's transposing copy) with `gemmgen run --layout "
                 << o.layout << " --iters N`\n";
    setExitCode(ExitFailure);
    return;
  }
  if (!useEditedSource(*compiled, o.sourceFile))
    return;
  Expected<Runtime> rt = openOrReuse(opened, o.device);
  if (!rt)
    return fail(rt.status());
  Expected<Kernel> kernel = rt->loadKernel(compiled->source, compiled->abi);
  if (!kernel)
    return fail(kernel.status());
  Expected<std::unique_ptr<tune::Cublas>> cublas = tune::Cublas::load();
  if (!cublas)
    return fail(cublas.status());
  // Chain and fp8 kernels: cuBLASLt computes what they compute (LtBench.h).
  const bool useLt = tune::needsCublasLt(kernel->info());
  std::unique_ptr<tune::CublasLt> lt;
  if (useLt) {
    Expected<std::unique_ptr<tune::CublasLt>> l = tune::CublasLt::load();
    if (!l)
      return fail(l.status());
    lt = l.take();
  }
  Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return fail(stream.status());
  std::shared_ptr<void> streamGuard(nullptr, [&](void *) { (void)rt->destroyStream(*stream); });
  Expected<GemmVerifier> ver = GemmVerifier::create(*rt);
  if (!ver)
    return fail(ver.status());
  if (!o.seedGiven)
    o.settings.seed = ((unsigned long long)std::random_device{}() << 32) ^ std::random_device{}();

  const KernelInfo &ki = kernel->info();
  tune::BenchRun run;
  run.spec = o.sourceFile.empty() ? o.spec : o.spec + " (source " + o.sourceFile + ")";
  run.kernel = ki.name, run.target = ki.target;
  run.dtype = toString(ki.dtype);
  if (ki.outType != ki.dtype) // e.g. f16>f32: 16-bit operands, f32 D
    run.dtype += std::string(">") + toString(ki.outType);
  run.layout = std::string(toString(ki.layoutA)) + "," + toString(ki.layoutB);
  run.commit = tune::buildCommit(), run.date = tune::isoDate();
  run.nvrtc = nvrtcVersionString();
  run.cublasVersion = (*cublas)->version(), run.cublasPath = (*cublas)->path();
  if (lt)
    run.cublasLtVersion = lt->version(), run.cublasLtPath = lt->path();
  run.epilogue = ki.epilogue.chain;
  run.device = rt->device();
  run.settings = o.settings;
  printHeader(run, **cublas, useLt);

  bool allOk = true;
  if (!groups.empty()) {
    tune::GroupedBenchResult r;
    for (const auto &g : groups)
      r.rows.push_back(g[0]);
    r.N = groups[0][1], r.K = groups[0][2];
    Status s = tune::benchGroupedAgainstCublas(*rt, *kernel, **cublas, *ver, *stream, o.settings,
                                               r);
    if (!s)
      return fail(s);
    printGroupedRow(r, run.dtype);
    if (!r.pass)
      setExitCode(ExitFailure);
    return;
  }
  for (auto &sh : shapes) {
    tune::BenchResult r;
    r.M = sh[0], r.N = sh[1], r.K = sh[2];
    r.batch = o.batch;
    r.alpha = o.alpha, r.beta = o.beta;
    Status s = useLt ? tune::benchAgainstCublasLt(*rt, *kernel, *lt, **cublas, *ver, *stream,
                                                  o.settings, r)
                     : tune::benchAgainstCublas(*rt, *kernel, **cublas, *ver, *stream,
                                                o.settings, r);
    if (!s) {
      if (s.code() == ErrorCode::Timeout)
        return fail(s);
      r.error = s.message();
    }
    allOk &= r.error.empty() && r.pass;
    if (useLt) {
      llvm::outs() << tune::ltBenchRowText(r, run.dtype);
      llvm::outs().flush();
    } else {
      printRow(r, run.dtype);
    }
    run.results.push_back(r);
  }

  if (!o.jsonFile.empty() && !writeOutputFile(o.jsonFile, [&](llvm::raw_ostream &f) {
        f << llvm::formatv("{0:2}", tune::benchJson(run)) << "\n";
      }))
    return;
  if (!o.csvFile.empty() &&
      !writeOutputFile(o.csvFile, [&](llvm::raw_ostream &f) { tune::writeBenchCsv(f, run); }))
    return;
  if (!allOk)
    setExitCode(ExitFailure);
}

} // namespace

void cli::registerBenchCommand(CLI::App &app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App *cmd = app.add_subcommand(
      "bench", "Benchmark a spec side by side with cuBLAS on the same inputs (DESIGN.md §10)");
  cmd->add_option("spec", o->spec,
                  "Kernel spec (YAML); `tuned`: the spec tuned for the (single) shape and "
                  "--dtype, else the cost model's choice; `auto`: the cost model's choice")
      ->required();
  cmd->add_option("--m", o->m, "M of a single shape");
  cmd->add_option("--n", o->n, "N of a single shape");
  cmd->add_option("--k", o->k, "K of a single shape");
  cmd->add_option("--shapes", o->shapes,
                  "Comma-separated MxNxK list (default 4096x4096x4096,8192x8192x8192)");
  addTypeOptions(cmd, o->dtype, o->scaling);
  cmd->add_option("--out-dtype", o->outDtype,
                  "f32: D in f32 (cuBLAS: CUDA_R_32F output); the spec's epilogue.chunk_n keeps "
                  "its bytes; the fp8 kernel `auto` chooses also takes bf16 (its default), f16, "
                  "e4m3 or e5m2");
  cmd->add_option("--alpha", o->alpha, "D = alpha·A·B + beta·D: alpha")
      ->check(finiteNumber())
      ->capture_default_str();
  cmd->add_option("--beta", o->beta,
                  "beta; non-zero: D starts as a random C and is updated in place, by gemmgen "
                  "and by cuBLAS")
      ->check(finiteNumber())
      ->capture_default_str();
  cmd->add_option("--batch", o->batch,
                  "Strided batched GEMM: this many packed entries of each shape in one launch "
                  "(cuBLAS: cublasGemmStridedBatchedEx)")
      ->capture_default_str();
  cmd->add_option("--groups", o->groupsFile,
                  "Grouped GEMM (mixture of experts): FILE lists the problems' M, one per line "
                  "(`M` or `M N K`; N and K the same for all, default --n/--k), stacked in one A "
                  "and D, one B each; the spec compiled grouped, against "
                  "cublasGemmGroupedBatchedEx");
  cmd->add_option("--layout", o->layout,
                  "Operand layouts A,B (each row or col; default the spec's): cuBLAS gets the "
                  "matching transposes. fp8 kernels: row,col only (cuBLASLt's fp8 GEMM is "
                  "K-major; time other layouts with `gemmgen run`)");
  cmd->add_option("--rounds", o->settings.rounds, "Timed interleaved rounds")
      ->check(countFrom(1))
      ->capture_default_str();
  cmd->add_option("--warmup", o->settings.warmup, "Warm-up passes over all input sets")
      ->check(countFrom(0))
      ->capture_default_str();
  cmd->add_option("--seed", o->settings.seed, "RNG seed (default random)")
      ->each([o](const std::string &) { o->seedGiven = true; });
  cmd->add_option("--scale-a", o->settings.scaleA,
                  "fp8 kernels: A's per-tensor scale, a device f32 given to gemmgen and cuBLASLt "
                  "(default 1); blockwise kernels: every block's scale (default random N(0,1) "
                  "blocks)");
  cmd->add_option("--scale-b", o->settings.scaleB,
                  "fp8 kernels: B's per-tensor scale, or every block's (as --scale-a)");
  cmd->add_option("--scale-d", o->settings.scaleD,
                  "The value of GemmArgs::scaleD: the epilogue chain's scale step, or an 8-bit D's output scale")
      ->capture_default_str();
  cmd->add_option("--source", o->sourceFile,
                  "Time FILE, a hand-edited copy of `gemmgen emit` of a spec with the types and "
                  "layouts run, in place of the emitted kernel (the spec's launch contract)");
  cmd->add_option("--json", o->jsonFile, "Write results as JSON to FILE");
  cmd->add_option("--csv", o->csvFile, "Write results as CSV to FILE");
  cmd->add_option("--device", o->device, "GPU ordinal (default 0)")->capture_default_str();
  cmd->callback([o] { runBench(*o); });
}

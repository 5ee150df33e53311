//===- TuneCommand.cpp - `gemmgen tune`: the autotuner --------------------===//
//
//   gemmgen tune SPEC --m M --n N --k K [--dtype f16|bf16]
//                [--space FILE] [KEY=V1,V2 ...] [--compile-only] [--jobs J]
//                [--db FILE] [--out BEST.yaml] [--report DIR] [--time-budget S]
//                [--gpus N|all]
//
// A thin driver over runTune (gemmgen/tune/Tuner.h): it supplies the two hooks
// the library leaves open, both from the tune library —
//   compile: compileCandidate (CompileHook.h), NVRTC through the disk cache;
//   measure: measureInChild (ChildRun.h), `gemmgen tune-measure` in a child
//            process per candidate with a hard time limit on top of the
//            child's own watchdog: a hang or fault costs that child only;
//            with --gpus N, one child per GPU at a time (--device ORDINAL);
// and records cuBLAS's time for the shape once (cublasInChild: `gemmgen
// bench` on the base spec, in a child process as well).
//
// Without a GPU (and without --compile-only) it stops before compiling, with
// "no CUDA driver/GPU found" and exit code 2.
//
// Exit codes: 0 done (some candidates may have failed: see the table), 1 the
// base spec has errors, 2 no driver/GPU, 3 other errors (bad space, I/O, no
// candidate survived).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "TuneCommand.h"
#include "OptionChecks.h"
#include "TuneCommon.h"
#include "GpuCommon.h"

#include "CompilerCommands.h"
#include "Commands.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"
#include "gemmgen/tune/BuildInfo.h"
#include "gemmgen/tune/ChildRun.h"
#include "gemmgen/tune/CompileHook.h"
#include "gemmgen/tune/Gpus.h"
#include "gemmgen/tune/Report.h"
#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/TuneSpace.h"
#include "gemmgen/tune/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <random>
#include <thread>
#include <unistd.h>

using namespace gemmgen;
using namespace gemmgen::cli;
using namespace gemmgen::tune;
using namespace gemmgen::cli::tunecli;

namespace {

struct TuneOptions {
  std::string spec;
  long long m = 4096, n = 4096, k = 4096;
  std::string dtype;
  std::string spaceFile;
  std::vector<std::string> spaceArgs;
  bool compileOnly = false;
  unsigned jobs = 0;
  std::string db = "gemmgen-tune.jsonl";
  std::string out, report;
  double timeBudget = 0;
  bool retryFailed = false, allowSpills = false, noCublas = false;
  int rounds = 20, warmup = 3;
  std::optional<unsigned long long> seed;
  double childTimeout = 0;
  std::string colorBy;
  std::string gpus = "1"; ///< N or `all`
};

/// Opens GPU 0, 1, ... in turn (each context released at once: the children
/// own the GPUs) for their names, up to `want` (0: until the driver says
/// there is no next one). The runtime has no context-free device count;
/// a primary context costs ~0.2 s, once per GPU per tune. Fills the shape's
/// GPU and driver from GPU 0. False, with the error reported, when there is
/// no GPU (exit 2) or a GPU cannot be opened (exit 3).
bool openGpus(int want, ShapeKey &shape, std::vector<std::string> &names) {
  for (int i = 0; want == 0 || i < want; ++i) {
    Expected<Runtime> rt = Runtime::open(i);
    if (!rt) {
      if (i > 0 && rt.status().code() == ErrorCode::InvalidArgument)
        return true; // past the last GPU
      error(rt.status().message(), rt.status().code() == ErrorCode::NoDriver ? ExitNoGpu
                                                                              : ExitFailure);
      if (rt.status().code() == ErrorCode::NoDriver)
        llvm::errs() << "gemmgen: note: `gemmgen tune --compile-only` enumerates, prunes and "
                        "compiles without a GPU\n";
      return false;
    }
    if (i == 0) {
      shape.gpu = rt->device().name;
      shape.driver = rt->device().driverVersion;
    }
    names.push_back(rt->device().name);
  }
  return true;
}

/// This machine's name, recorded with every measurement.
std::string hostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 && buf[0] ? buf : "unknown";
}

/// What each timing child is asked to do.
ChildTiming childTiming(const TuneOptions &o, const std::string &dtype) {
  ChildTiming t;
  t.basePath = o.spec;
  t.M = o.m, t.N = o.n, t.K = o.k;
  t.dtype = dtype;
  t.rounds = o.rounds, t.warmup = o.warmup;
  t.limitSeconds = o.childTimeout > 0 ? o.childTimeout : 60 + 6 * watchdogSeconds(o.m, o.n, o.k);
  return t;
}

void runTuneCommand(const TuneOptions &o) {
  // The base spec and its dtype.
  std::optional<std::string> baseYaml = readText(o.spec);
  if (!baseYaml)
    return error("cannot read spec '" + o.spec + "'", ExitSpecError);
  std::string dtype = o.dtype;
  {
    DiagnosticEngine diags;
    std::optional<KernelSpec> spec = parseSpec(*baseYaml, o.spec, diags);
    if (spec)
      prepareSpec(*spec, EmitOptions{});
    if (!spec || !checkSpec(*spec, diags))
      return setExitCode(ExitSpecError);
    if (dtype.empty())
      dtype = toString(spec->types.a.value);
    if (dtype == "fp16" || dtype == "half")
      dtype = "f16";
    if (dtype != "f16" && dtype != "bf16")
      return error("--dtype must be f16 or bf16 (got '" + dtype + "')", ExitFailure);
  }

  // The space.
  SearchSpace space;
  if (!o.spaceFile.empty()) {
    llvm::Expected<SearchSpace> s = parseSpaceFile(o.spaceFile);
    if (!s)
      return error(llvm::toString(s.takeError()), ExitFailure);
    space = std::move(*s);
  }
  if (llvm::Error e = addSpaceArgs(space, o.spaceArgs))
    return error(llvm::toString(std::move(e)), ExitFailure);
  if (space.params.empty()) {
    space = defaultSpace();
    llvm::outs() << "no --space or KEY=VALUES given: the default space (docs/TUNING.md)\n";
  }

  llvm::Expected<int> wantGpus = parseGpusOption(o.gpus);
  if (!wantGpus)
    return error(llvm::toString(wantGpus.takeError()), ExitFailure);

  // The GPUs, before any work: without one, only --compile-only makes sense.
  ShapeKey shape{"", 0, o.m, o.n, o.k, dtype};
  std::vector<int> gpus = {0};
  if (!o.compileOnly) {
    std::vector<std::string> names;
    if (!openGpus(*wantGpus, shape, names))
      return;
    llvm::Expected<std::vector<int>> sel = selectGpus(*wantGpus, names);
    if (!sel)
      return error(llvm::toString(sel.takeError()), ExitFailure);
    gpus = *sel;
  }

  llvm::Expected<ResultsDB> db = o.compileOnly ? llvm::Expected<ResultsDB>(ResultsDB())
                                               : ResultsDB::open(o.db);
  if (!db)
    return error(llvm::toString(db.takeError()), ExitFailure);
  noteSkippedLines(db->skippedLines(), o.db);

  // Where variant specs and child logs go: the report directory, else a
  // temporary one.
  std::string work;
  bool tempWork = o.report.empty();
  if (tempWork) {
    llvm::SmallString<128> p;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("gemmgen-tune", p))
      return error("cannot create a temporary directory: " + ec.message(), ExitFailure);
    work = std::string(p);
  } else {
    work = o.report;
    llvm::sys::fs::create_directories(work + "/candidates");
    llvm::sys::fs::create_directories(work + "/logs");
  }
  std::shared_ptr<void> cleanup(nullptr, [&](void *) {
    if (tempWork)
      llvm::sys::fs::remove_directories(work);
  });
  const std::string specDir = tempWork ? work : work + "/candidates";
  const std::string logDir = tempWork ? work : work + "/logs";

  const unsigned long long seed =
      o.seed ? *o.seed
             : ((unsigned long long)std::random_device{}() << 20) ^ std::random_device{}();
  llvm::outs() << "gemmgen tune " << o.spec << "  " << o.m << "x" << o.n << "x" << o.k << " "
               << dtype << "  " << space.size() << " candidates over "
               << space.params.size() << " keys"
               << (o.compileOnly ? "  (compile only)"
                                 : "  on " +
                                       (gpus.size() > 1 ? std::to_string(gpus.size()) + " x " +
                                                              shape.gpu + " (" +
                                                              describeGpus(gpus) + ", "
                                                        : shape.gpu + " (") +
                                       "driver " + std::to_string(shape.driver) + "), DB " +
                                       o.db + ", seed " + std::to_string(seed))
               << "\n";
  for (const Param &p : space.params)
    llvm::outs() << "  " << p.key << ": [" << llvm::join(p.values, ", ") << "]\n";
  llvm::outs().flush();

  // cuBLAS once per shape (and GPU/driver).
  const std::string host = hostName();
  double cublasMs = 0;
  if (!o.compileOnly) {
    if (const Record *c = db->cublas(shape)) {
      cublasMs = c->msMedian;
    } else if (!o.noCublas) {
      llvm::outs() << "timing cuBLAS for the shape once (gemmgen bench " << o.spec << ")\n";
      llvm::outs().flush();
      ChildTiming t = childTiming(o, dtype);
      std::string whyNot;
      if (std::optional<Record> c = cublasInChild(t, shape, logDir, whyNot, gpus[0])) {
        c->host = host;
        c->gpuOrdinal = gpus[0];
        if (llvm::Error e = db->append(*c))
          return error(llvm::toString(std::move(e)), ExitFailure);
        cublasMs = c->msMedian;
        llvm::outs() << llvm::formatv("cuBLAS: {0:f4} ms ({1:f1} TFLOP/s); base spec in the "
                                      "same run {2:f4} ms\n",
                                      c->msMedian, c->tflops, c->baselineMs);
      } else {
        llvm::outs() << "note: no cuBLAS time recorded (" << whyNot << ")\n";
      }
    }
  }

  TuneConfig cfg;
  cfg.basePath = o.spec;
  cfg.baseYaml = *baseYaml;
  cfg.shape = shape;
  cfg.space = space;
  cfg.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  cfg.compileOnly = o.compileOnly;
  cfg.timeBudgetSeconds = o.timeBudget;
  cfg.retryFailed = o.retryFailed;
  cfg.allowSpills = o.allowSpills;
  cfg.commit = buildCommit();
  cfg.nvrtc = nvrtcVersionString();
  cfg.gpus = gpus;
  cfg.host = host;

  TuneHooks hooks;
  hooks.log = [](const std::string &line) {
    llvm::outs() << line << "\n";
    llvm::outs().flush();
  };
  hooks.compile = [](const CandidateState &c) { return compileCandidate(c); };
  ChildTiming timing = childTiming(o, dtype);
  hooks.measure = [&](const CandidateState &c, int gpu) {
    return measureInChild(timing, c, seed + c.cand.index, specDir + "/" + c.cand.id + ".yaml",
                          logDir + "/" + c.cand.id + ".result.json",
                          logDir + "/" + c.cand.id + ".log", gpu);
  };

  llvm::Expected<TuneResult> result = runTune(cfg, *db, hooks);
  if (!result) {
    std::string msg = llvm::toString(result.takeError());
    bool spec = llvm::StringRef(msg).startswith("the base spec");
    return error(msg, spec ? ExitSpecError : ExitFailure);
  }

  // Report.
  std::vector<Record> records;
  if (o.compileOnly) {
    for (const CandidateState &c : result->candidates)
      if (c.stage != Stage::Pruned)
        records.push_back(compileOnlyRecord(cfg, c));
  } else {
    records = result->records();
    for (const CandidateState &c : result->candidates)
      if (c.stage == Stage::Spills || c.stage == Stage::CompileError)
        records.push_back(compileOnlyRecord(cfg, c));
  }
  ReportOptions ro;
  ro.title = llvm::formatv("gemmgen tune {0}  {1}x{2}x{3} {4}{5}", o.spec, o.m, o.n, o.k, dtype,
                           shape.gpu.empty() ? std::string() : "  " + shape.gpu)
                 .str();
  ro.colorBy = o.colorBy;
  ro.cublasMs = cublasMs;
  llvm::outs() << "\n";
  printTable(llvm::outs(), records, ro);
  if (!o.report.empty()) {
    if (llvm::Error e = writeReport(o.report, records, ro))
      return error(llvm::toString(std::move(e)), ExitFailure);
    if (o.compileOnly)
      for (const CandidateState &c : result->candidates)
        if (c.stage == Stage::Compiled)
          writeText(specDir + "/" + c.cand.id + ".yaml", c.variant.yaml);
    llvm::outs() << "report: " << o.report << "/report.svg, results.csv, summary.txt"
                 << (o.compileOnly ? ", candidates/*.yaml" : ", candidates/, logs/") << "\n";
  }

  if (o.compileOnly) {
    if (result->compiled == 0)
      return error("no candidate survived pruning and compilation", ExitFailure);
    return;
  }
  if (!result->best)
    return error("no candidate was timed successfully (see the table above and the logs)",
                 ExitFailure);
  const Record &best = *result->best;
  llvm::outs() << llvm::formatv(
      "\nbest: {0} ({1})  {2:f4} ms  {3:f1} TFLOP/s{4}{5}\n", best.candidate,
      llvm::join(llvm::map_range(best.params,
                                 [](const auto &kv) { return kv.first + "=" + kv.second; }),
                 " "),
      best.msMedian, best.tflops,
      best.speedup() ? llvm::formatv("  x{0:f3} vs base", best.speedup()).str() : "",
      cublasMs > 0 ? llvm::formatv("  {0:f3} of cuBLAS speed", cublasMs / best.msMedian).str()
                   : "");
  llvm::outs() << llvm::formatv("measured {0}, reused {1}, failed {2}, not timed {3}; timing "
                                "took {4:f0} s\n",
                                result->measured, result->reused, result->failed,
                                result->notTimed, result->measureSeconds);
  if (!o.out.empty()) {
    if (!writeText(o.out, best.specYaml))
      return;
    llvm::outs() << "best spec written to " << o.out << "\n";
  }
}

} // namespace

void cli::registerTuneCommand(CLI::App &app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App *cmd = app.add_subcommand(
      "tune", "Autotune spec parameters for a shape: prune, compile in parallel, time each "
              "candidate on the GPU (in a child process), keep results in a DB\n"
              "(exit 2 without a GPU unless --compile-only; docs/TUNING.md)");
  cmd->add_option("spec", o->spec, "Base kernel spec (YAML)")->required();
  cmd->add_option("space", o->spaceArgs,
                  "KEY=V1,V2,... entries of the search space (e.g. tile.n=128,256)");
  cmd->add_option("--m", o->m, "M")->capture_default_str();
  cmd->add_option("--n", o->n, "N")->capture_default_str();
  cmd->add_option("--k", o->k, "K")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "f16 or bf16 (default: the spec's)");
  cmd->add_option("--space", o->spaceFile, "Search space file (YAML: key: [values])");
  cmd->add_flag("--compile-only", o->compileOnly,
                "Enumerate, prune and compile only (no GPU needed); report what would be timed");
  cmd->add_option("--jobs,-j", o->jobs, "Parallel NVRTC compiles (default: CPU count)");
  cmd->add_option("--db", o->db, "Results DB (JSON lines; created if missing)")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write the best spec here (YAML)");
  cmd->add_option("--report", o->report,
                  "Directory for report.svg, results.csv, summary.txt, candidate specs, logs");
  cmd->add_option("--time-budget", o->timeBudget,
                  "Seconds of GPU timing after which no new candidate starts (rerun resumes)");
  cmd->add_flag("--retry-failed", o->retryFailed, "Re-time candidates the DB has as failed");
  cmd->add_flag("--allow-spills", o->allowSpills, "Time candidates that spill registers too");
  cmd->add_flag("--no-cublas", o->noCublas, "Do not time cuBLAS for the shape");
  cmd->add_option("--rounds", o->rounds, "Timed interleaved rounds per candidate")
      ->check(countFrom(1))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Warm-up passes per candidate")
      ->check(countFrom(0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "RNG seed (default random; candidate i uses seed + i)");
  cmd->add_option("--child-timeout", o->childTimeout,
                  "Seconds before a candidate's child process is killed (default 60 + 6 x "
                  "the watchdog)");
  cmd->add_option("--color-by", o->colorBy, "Space key that colours the SVG plot");
  cmd->add_option("--gpus", o->gpus,
                  "Time on N GPUs of this host at once (ordinals 0..N-1), or `all`: one child "
                  "per GPU, records in candidate order")
      ->capture_default_str();
  cmd->callback([o] { runTuneCommand(*o); });

  registerTuneDbCommand(app);
  registerTuneMeasureCommand(app);
}

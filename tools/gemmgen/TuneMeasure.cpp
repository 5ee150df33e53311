//===- TuneMeasure.cpp - hidden verb: time one tuning candidate -----------===//
//
//   gemmgen tune-measure --spec VARIANT.yaml [--spec-name NAME] [--baseline BASE.yaml]
//                        --m M --n N --k K --dtype f16|bf16 --result FILE.json
//                        [--rounds R] [--warmup W] [--seed S] [--device ORDINAL]
//
// Run by `gemmgen tune` in a child process, one per candidate: if the
// kernel hangs (the watchdog fires) or faults, the CUDA context is lost with
// this process only, and the tune goes on with the next candidate. The work
// is tune::measureCandidate (gemmgen/tune/Workload.h: verified first, then
// the timing protocol with the base spec as the in-process baseline); the
// result file's format is tune::measureResultJson (ChildRun.h).
//
// Exit codes: 0 ok, 3 failure or wrong result, 4 watchdog (the result is
// written before exiting without driver teardown).
//
//===----------------------------------------------------------------------===//
#include "GpuCommon.h"
#include "OutputFile.h"
#include "TuneCommand.h"

#include "gemmgen/tune/ChildRun.h"
#include "gemmgen/tune/Workload.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <memory>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {

struct MeasureOptions {
  std::string spec, specName, baseline, dtype = "f16", result;
  int device = 0; ///< the GPU the parent gave this child (`tune --gpus`)
  tune::MeasureSettings settings;
};

void writeResult(const MeasureOptions &o, llvm::json::Object obj) {
  writeOutputFile(o.result, [&](llvm::raw_ostream &f) {
    f << llvm::json::Value(std::move(obj)) << "\n";
  });
}

/// The candidate, compiled under the name the tune gave it (not its file
/// path, which the generated banner would quote), so that its source, and
/// so its cache entry, is the one the compile phase produced.
std::optional<CompiledSpec> compileCandidateSpec(const MeasureOptions &o, DType t) {
  if (o.specName.empty())
    return gpu::compileSpecForGpu(o.spec, false, t);
  auto buf = llvm::MemoryBuffer::getFile(o.spec, /*IsText=*/true);
  if (!buf)
    return std::nullopt;
  DiagnosticEngine diags;
  return compileSpecText((*buf)->getBuffer(), o.specName, EmitOptions(), diags);
}

Status measure(const MeasureOptions &o, const Runtime &rt, tune::MeasureResult &r) {
  std::optional<CompiledSpec> cand = compileCandidateSpec(o, o.settings.dtype);
  if (!cand)
    return Status::error(ErrorCode::SpecError, "the candidate spec '" + o.spec + "' has errors");
  std::optional<CompiledSpec> base;
  if (!o.baseline.empty()) {
    base = gpu::compileSpecForGpu(o.baseline, false, o.settings.dtype);
    if (!base)
      return Status::error(ErrorCode::SpecError, "the baseline spec has errors");
  }
  Expected<Kernel> kc = rt.loadKernel(cand->source, cand->abi);
  if (!kc)
    return kc.status();
  std::optional<Kernel> kb;
  if (base) {
    Expected<Kernel> k = rt.loadKernel(base->source, base->abi);
    if (!k)
      return k.status();
    kb = *k;
  }
  return tune::measureCandidate(rt, *kc, kb ? &*kb : nullptr, o.settings, r);
}

void runMeasure(MeasureOptions o) {
  const unsigned long long seed = o.settings.seed;
  std::optional<DType> dtype = gpu::parseDType(o.dtype);
  if (!dtype) {
    writeResult(o, tune::measureResultJson("failed", "--dtype must be f16 or bf16", seed,
                                           nullptr, nullptr));
    llvm::errs() << "gemmgen: error: --dtype must be f16 or bf16 (got '" << o.dtype << "')\n";
    return setExitCode(ExitFailure);
  }
  o.settings.dtype = *dtype;
  Expected<Runtime> rt = Runtime::open(o.device);
  tune::MeasureResult r;
  Status s = rt ? measure(o, *rt, r) : rt.status();
  const DeviceInfo *dev = rt ? &rt->device() : nullptr;
  if (s) {
    writeResult(o, tune::measureResultJson("ok", "", seed, &r, dev));
    return;
  }
  if (s.code() == ErrorCode::VerificationFailed) {
    writeResult(o, tune::measureResultJson("wrong", s.message(), seed, &r, dev));
    llvm::errs() << "gemmgen: error: " << s.message() << "\n";
    return setExitCode(ExitFailure);
  }
  const char *status = s.code() == ErrorCode::Timeout ? "timeout" : "failed";
  writeResult(o, tune::measureResultJson(status, s.message(), seed, nullptr, dev));
  gpu::fail(s); // _Exit(4) after a watchdog timeout
}

} // namespace

void cli::registerTuneMeasureCommand(CLI::App &app) {
  auto o = std::make_shared<MeasureOptions>();
  CLI::App *cmd = app.add_subcommand("tune-measure", "Time one tuning candidate (used by tune)");
  cmd->group(""); // hidden from --help
  cmd->add_option("--spec", o->spec, "Candidate spec")->required();
  cmd->add_option("--spec-name", o->specName, "Buffer name to compile the spec under");
  cmd->add_option("--baseline", o->baseline, "Baseline spec timed interleaved with it");
  cmd->add_option("--m", o->settings.M);
  cmd->add_option("--n", o->settings.N);
  cmd->add_option("--k", o->settings.K);
  cmd->add_option("--dtype", o->dtype);
  cmd->add_option("--rounds", o->settings.rounds);
  cmd->add_option("--warmup", o->settings.warmup);
  cmd->add_option("--seed", o->settings.seed);
  cmd->add_option("--tolerance", o->settings.tolerance);
  cmd->add_option("--result", o->result, "Where to write the JSON result")->required();
  cmd->add_option("--device", o->device, "GPU ordinal to time on");
  cmd->callback([o] { runMeasure(*o); });
}

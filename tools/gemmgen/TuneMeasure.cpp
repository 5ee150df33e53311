//===- TuneMeasure.cpp - hidden verb: time one tuning candidate -----------===//
//
//   gemmgen tune-measure --spec VARIANT.yaml [--spec-name NAME] [--baseline BASE.yaml]
//                        --m M --n N --k K --dtype f16|bf16 --result FILE.json
//                        [--rounds R] [--warmup W] [--seed S]
//
// Run by `gemmgen tune` in a child process, one per candidate: if the
// kernel hangs (the watchdog fires) or faults, the CUDA context is lost with
// this process only, and the tune goes on with the next candidate.
//
// The DESIGN.md §10 method, with the base spec as the in-process baseline
// instead of cuBLAS (the tune records cuBLAS once per shape through `gemmgen
// bench`): fresh random normal inputs (seeded), D poisoned, one launch
// verified against the fp32 reference before any time counts; input sets
// rotated so their total exceeds the L2 several times; both kernels warmed
// up; interleaved rounds (order alternating) timed with CUDA events; medians.
//
// Writes one JSON object to --result: {"status": "ok"|"wrong"|"failed"|
// "timeout", "error", "ms": {median, p25, p75, min, max}, "baseline_ms",
// "rel_err", "seed", ...}. Exit codes: 0 ok, 3 failure or wrong result,
// 4 watchdog (written before exiting without driver teardown).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "GpuCommon.h"
#include "TuneCommand.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <memory>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {

struct MeasureOptions {
  std::string spec, specName, baseline, dtype = "f16", result;
  long long m = 4096, n = 4096, k = 4096;
  int rounds = 20, warmup = 3;
  unsigned long long seed = 1;
  double tolerance = GemmVerifier::kTolerance;
};

struct Sample {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
  static Sample of(const std::vector<double> &v) {
    Sample s;
    if (v.empty())
      return s;
    s.median = gpu::median(v);
    s.p25 = gpu::percentile(v, 0.25);
    s.p75 = gpu::percentile(v, 0.75);
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    return s;
  }
};

void writeResult(const MeasureOptions &o, llvm::json::Object obj) {
  std::error_code ec;
  llvm::raw_fd_ostream f(o.result, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "gemmgen: error: cannot write '" << o.result << "': " << ec.message() << "\n";
    return;
  }
  f << llvm::json::Value(std::move(obj)) << "\n";
}

/// Records a failure in the result file, then exits as the GPU verbs do.
void failWith(const MeasureOptions &o, const Status &s) {
  const char *status = s.code() == ErrorCode::Timeout ? "timeout" : "failed";
  writeResult(o, llvm::json::Object{{"status", status}, {"error", s.message()},
                                    {"seed", std::to_string(o.seed)}});
  gpu::fail(s); // _Exit(4) after a watchdog timeout
}

Status measure(const MeasureOptions &o, llvm::json::Object &out) {
  using namespace gpu;
  std::optional<DType> dtype = parseDType(o.dtype);
  if (!dtype)
    return Status::error(ErrorCode::InvalidArgument, "--dtype must be f16 or bf16");
  // The candidate is compiled under the name the tune gave it (not its file
  // path, which the generated banner would quote), so that its source, and
  // so its cache entry, is the one the compile phase produced.
  std::optional<CompiledSpec> cand;
  if (o.specName.empty()) {
    cand = compileSpecForGpu(o.spec, false, dtype);
  } else {
    auto buf = llvm::MemoryBuffer::getFile(o.spec, /*IsText=*/true);
    if (!buf)
      return Status::error(ErrorCode::Io, "cannot read '" + o.spec + "'");
    DiagnosticEngine diags;
    cand = compileSpecText((*buf)->getBuffer(), o.specName, EmitOptions(), diags);
  }
  if (!cand)
    return Status::error(ErrorCode::SpecError, "the candidate spec has errors");
  std::optional<CompiledSpec> base;
  if (!o.baseline.empty()) {
    base = compileSpecForGpu(o.baseline, false, dtype);
    if (!base)
      return Status::error(ErrorCode::SpecError, "the baseline spec has errors");
  }
  Expected<Runtime> rt = Runtime::open();
  if (!rt)
    return rt.status();
  Expected<Kernel> kc = rt->loadKernel(cand->source, cand->abi);
  if (!kc)
    return kc.status();
  std::optional<Kernel> kb;
  if (base) {
    Expected<Kernel> k = rt->loadKernel(base->source, base->abi);
    if (!k)
      return k.status();
    kb = *k;
  }
  Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return stream.status();
  Expected<GemmVerifier> ver = GemmVerifier::create(*rt);
  if (!ver)
    return ver.status();
  const DType t = *dtype;
  const long long M = o.m, N = o.n, K = o.k;
  GemmArgs probe{256, 256, 256, M, N, K, K, K, N};
  if (Status s = kc->check(probe); !s)
    return s;
  if (kb)
    if (Status s = kb->check(probe); !s)
      return s;

  // Input sets whose total is several times the L2.
  const DeviceInfo &dev = rt->device();
  const double setBytes = 2.0 * (double)(M * K + N * K + M * N);
  const double target = std::max(4.0 * dev.l2Bytes, 200e6);
  int sets = (int)std::clamp(std::ceil(target / setBytes), 2.0, 16.0);
  while (sets > 1 && sets * setBytes + 4.0 * M * N > 0.6 * (double)dev.totalMemBytes)
    --sets;
  DeviceBuffers bufs(*rt);
  std::vector<GemmArgs> args(sets);
  for (int i = 0; i < sets; ++i) {
    Expected<CUdeviceptr> A = bufs.alloc(M * K * 2), B = bufs.alloc(N * K * 2),
                          D = bufs.alloc(M * N * 2);
    for (auto *e : {&A, &B, &D})
      if (!*e)
        return e->status();
    args[i] = GemmArgs{*A, *B, *D, M, N, K, K, K, N};
    if (Status s = ver->fillNormal2D(*A, M, K, K, t, o.seed * 1000 + 2 * i + 1, *stream); !s)
      return s;
    if (Status s = ver->fillNormal2D(*B, N, K, K, t, o.seed * 1000 + 2 * i + 2, *stream); !s)
      return s;
  }
  Expected<CUdeviceptr> ref = bufs.alloc(M * N * 4);
  if (!ref)
    return ref.status();
  std::vector<PreparedLaunch> pc, pb;
  for (int i = 0; i < sets; ++i) {
    Expected<PreparedLaunch> p = kc->prepare(args[i]);
    if (!p)
      return p.status();
    pc.push_back(*p);
    if (kb) {
      Expected<PreparedLaunch> q = kb->prepare(args[i]);
      if (!q)
        return q.status();
      pb.push_back(*q);
    }
  }
  const double budget = watchdogSeconds(M, N, K);

  // Correctness first: poisoned D, one launch, compare with the reference.
  if (Status s = rt->fill16Async(args[0].D, GemmVerifier::kPoison, M * N, *stream); !s)
    return s;
  if (Status s = kc->launch(pc[0], *stream); !s)
    return s;
  if (Status s = rt->wait(*stream, budget); !s)
    return s;
  if (Status s = ver->reference(args[0], t, *ref, *stream); !s)
    return s;
  Expected<GemmVerifier::Comparison> cmp = ver->compare(args[0], t, *ref, false, *stream);
  if (!cmp)
    return cmp.status();
  out["rel_err"] = std::isfinite(cmp->relFrobenius) ? cmp->relFrobenius : 1e30;
  out["non_finite"] = cmp->nonFinite;
  if (cmp->nonFinite != 0 || !(cmp->relFrobenius <= o.tolerance))
    return Status::error(ErrorCode::VerificationFailed,
                         llvm::formatv("verification failed: relative error {0:e2} (tolerance "
                                       "{1:e0}), {2} elements unwritten or NaN",
                                       cmp->relFrobenius, o.tolerance, cmp->nonFinite)
                             .str());

  // Warm-up, then size a sample (>= ~1 ms of back-to-back launches).
  for (int w = 0; w < o.warmup; ++w)
    for (int i = 0; i < sets; ++i) {
      if (Status s = kc->launch(pc[i], *stream); !s)
        return s;
      if (kb)
        if (Status s = kb->launch(pb[i], *stream); !s)
          return s;
    }
  if (Status s = rt->wait(*stream, budget * 2 * o.warmup * sets + 10); !s)
    return s;
  double estimate;
  {
    Expected<Runtime::Timer> tm = rt->createTimer();
    if (!tm)
      return tm.status();
    (void)tm->start(*stream);
    for (int i = 0; i < sets; ++i)
      if (Status s = kc->launch(pc[i], *stream); !s)
        return s;
    (void)tm->stop(*stream);
    if (Status s = rt->wait(*stream, budget * sets); !s)
      return s;
    Expected<float> ms = tm->elapsedMs();
    if (!ms)
      return ms.status();
    estimate = std::max(1e-3, (double)*ms / sets);
  }
  const int reps = (int)std::clamp(std::ceil(1.0 / estimate), 1.0, 200.0);

  std::vector<Runtime::Timer> tc, tb;
  for (int i = 0; i < o.rounds; ++i) {
    Expected<Runtime::Timer> a = rt->createTimer();
    if (!a)
      return a.status();
    tc.push_back(a.take());
    if (kb) {
      Expected<Runtime::Timer> b = rt->createTimer();
      if (!b)
        return b.status();
      tb.push_back(b.take());
    }
  }
  int ic = 0, ib = 0;
  for (int round = 0; round < o.rounds; ++round) {
    for (int which = 0; which < (kb ? 2 : 1); ++which) {
      bool candNow = !kb || ((which == 0) == (round % 2 == 0)); // alternate who goes first
      Runtime::Timer &tm = candNow ? tc[round] : tb[round];
      if (Status s = tm.start(*stream); !s)
        return s;
      for (int j = 0; j < reps; ++j) {
        Status s = candNow ? kc->launch(pc[ic++ % sets], *stream)
                           : kb->launch(pb[ib++ % sets], *stream);
        if (!s)
          return s;
      }
      if (Status s = tm.stop(*stream); !s)
        return s;
    }
    if (round % 8 == 7)
      if (Status s = rt->wait(*stream, budget * 16 * reps + 10); !s)
        return s;
  }
  if (Status s = rt->wait(*stream, budget * 16 * reps + 10); !s)
    return s;
  std::vector<double> msC, msB;
  for (int i = 0; i < o.rounds; ++i) {
    Expected<float> a = tc[i].elapsedMs();
    if (!a)
      return a.status();
    msC.push_back(*a / reps);
    if (kb) {
      Expected<float> b = tb[i].elapsedMs();
      if (!b)
        return b.status();
      msB.push_back(*b / reps);
    }
  }
  (void)rt->destroyStream(*stream);
  Sample c = Sample::of(msC), b = Sample::of(msB);
  out["ms"] = llvm::json::Object{
      {"median", c.median}, {"p25", c.p25}, {"p75", c.p75}, {"min", c.min}, {"max", c.max}};
  out["baseline_ms"] = b.median;
  out["registers"] = kc->info().usage.registers;
  out["input_sets"] = sets;
  out["launches_per_sample"] = reps;
  out["rounds"] = o.rounds;
  out["gpu"] = dev.name;
  out["driver"] = dev.driverVersion;
  return Status::success();
}

void runMeasure(const MeasureOptions &o) {
  llvm::json::Object out{{"seed", std::to_string(o.seed)}};
  Status s = measure(o, out);
  if (!s) {
    if (s.code() == ErrorCode::VerificationFailed) {
      out["status"] = "wrong";
      out["error"] = s.message();
      writeResult(o, std::move(out));
      llvm::errs() << "gemmgen: error: " << s.message() << "\n";
      setExitCode(ExitFailure);
      return;
    }
    return failWith(o, s);
  }
  out["status"] = "ok";
  writeResult(o, std::move(out));
}

} // namespace

void cli::registerTuneMeasureCommand(CLI::App &app) {
  auto o = std::make_shared<MeasureOptions>();
  CLI::App *cmd = app.add_subcommand("tune-measure", "Time one tuning candidate (used by tune)");
  cmd->group(""); // hidden from --help
  cmd->add_option("--spec", o->spec, "Candidate spec")->required();
  cmd->add_option("--spec-name", o->specName, "Buffer name to compile the spec under");
  cmd->add_option("--baseline", o->baseline, "Baseline spec timed interleaved with it");
  cmd->add_option("--m", o->m);
  cmd->add_option("--n", o->n);
  cmd->add_option("--k", o->k);
  cmd->add_option("--dtype", o->dtype);
  cmd->add_option("--rounds", o->rounds);
  cmd->add_option("--warmup", o->warmup);
  cmd->add_option("--seed", o->seed);
  cmd->add_option("--tolerance", o->tolerance);
  cmd->add_option("--result", o->result, "Where to write the JSON result")->required();
  cmd->callback([o] { runMeasure(*o); });
}

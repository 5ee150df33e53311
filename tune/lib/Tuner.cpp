//===- Tuner.cpp - The autotuning driver ----------------------------------===//
//
// Entry point: runTune (see Tuner.h for the stages). The report (table and
// SVG) is in TuneReport.cpp.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/Tuner.h"
#include "gemmgen/tune/Timing.h"

#include "gemmgen/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace gemmgen;
using namespace gemmgen::tune;

const char *tune::toString(Stage s) {
  switch (s) {
  case Stage::Pruned: return "pruned";
  case Stage::CompileError: return "compile_error";
  case Stage::Spills: return "spills";
  case Stage::Compiled: return "compiled";
  case Stage::Reused: return "reused";
  case Stage::Measured: return "measured";
  case Stage::NotTimed: return "not_timed";
  }
  return "?";
}

std::vector<Record> TuneResult::records() const {
  std::vector<Record> out;
  for (const CandidateState &c : candidates)
    if (c.record)
      out.push_back(*c.record);
  return out;
}

static Record baseRecord(const TuneConfig &config, const CandidateState &c) {
  Record r;
  r.shape = config.shape;
  r.specHash = c.variant.specHash;
  r.sourceHash = c.sourceHash;
  r.candidate = c.cand.id;
  r.base = config.basePath;
  r.kernel = c.variant.kernelName;
  r.params = c.cand.values;
  r.registers = c.compile.registers;
  r.smemBytes = c.compiled ? c.compiled->abi.sharedMemBytes : 0;
  r.date = isoDate();
  r.commit = config.commit;
  r.nvrtc = config.nvrtc;
  r.specYaml = c.variant.yaml;
  return r;
}

Record tune::compileOnlyRecord(const TuneConfig &config, const CandidateState &c) {
  Record r = baseRecord(config, c);
  r.status = c.stage == Stage::Compiled ? "compiled" : toString(c.stage);
  r.error = c.stage == Stage::Pruned ? c.prune.reason : c.compile.error;
  return r;
}

static bool better(const Record &a, const Record &b) {
  if (a.speedup() && b.speedup())
    return a.speedup() > b.speedup();
  return a.msMedian < b.msMedian;
}

llvm::Expected<TuneResult> tune::runTune(const TuneConfig &config, ResultsDB &db,
                                         const TuneHooks &hooks) {
  auto log = [&](const std::string &s) {
    if (hooks.log)
      hooks.log(s);
  };
  TuneResult result;

  // The base itself must be a clean spec (else every variant inherits its errors).
  {
    std::string diagText;
    llvm::raw_string_ostream os(diagText);
    DiagnosticEngine diags(&os);
    std::optional<KernelSpec> spec = parseSpec(config.baseYaml, config.basePath, diags);
    if (spec) {
      prepareSpec(*spec, EmitOptions{});
      checkSpec(*spec, diags);
    }
    os.flush();
    if (diags.hasErrors())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the base spec has errors:\n" + diagText);
  }

  // 1. Enumerate, apply, prune, generate.
  std::vector<Candidate> cands = enumerate(config.space);
  ApplyOptions apply;
  apply.dtype = config.shape.dtype;
  apply.basePath = config.basePath;
  result.candidates.reserve(cands.size());
  for (Candidate &cand : cands) {
    CandidateState c;
    c.cand = std::move(cand);
    llvm::Expected<Variant> v = applyCandidate(config.baseYaml, c.cand, apply);
    if (!v)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot apply candidate " + c.cand.describe() + ": " +
                                         llvm::toString(v.takeError()));
    c.variant = std::move(*v);
    c.prune = checkVariant(c.variant);
    result.prune.add(c.prune);
    if (c.prune.ok) {
      DiagnosticEngine diags(nullptr);
      std::optional<CompiledSpec> cs =
          compileSpecText(c.variant.yaml, c.variant.kernelName + ".yaml", EmitOptions(), diags);
      if (!cs) { // checks passed above, so this is a compiler bug
        c.prune.ok = false;
        c.prune.reason = "lowering failed";
      } else {
        c.sourceHash = shortHash(cs->source, 8);
        c.compiled = std::make_shared<const CompiledSpec>(std::move(*cs));
        c.stage = Stage::Compiled;
      }
    }
    result.candidates.push_back(std::move(c));
  }
  log(llvm::formatv("space: {0} candidates ({1} keys); {2} pass the checks, {3} pruned",
                    result.prune.total, config.space.params.size(), result.prune.kept,
                    result.prune.total - result.prune.kept)
          .str());
  for (const auto &[reason, n] : result.prune.sorted())
    log(llvm::formatv("  pruned {0,4}  {1}", n, reason).str());

  // 2. Reuse what the DB already measured (same spec hash and same source).
  std::vector<size_t> toCompile;
  for (size_t i = 0; i < result.candidates.size(); ++i) {
    CandidateState &c = result.candidates[i];
    if (c.stage != Stage::Compiled)
      continue;
    if (!config.compileOnly) {
      if (const Record *r = db.find(config.shape, c.variant.specHash)) {
        bool sameCode = r->sourceHash == c.sourceHash;
        if (sameCode && (r->ok() || !config.retryFailed)) {
          c.record = *r;
          c.stage = Stage::Reused;
          ++result.reused;
          continue;
        }
      }
    }
    toCompile.push_back(i);
  }
  if (result.reused)
    log(llvm::formatv("results DB: {0} candidates already measured for {1} (reused; "
                      "--retry-failed re-times failed ones)",
                      result.reused, config.shape.str())
            .str());

  // 3. Compile in parallel.
  auto t0 = std::chrono::steady_clock::now();
  {
    std::atomic<size_t> next{0}, done{0};
    std::mutex logMutex;
    unsigned jobs = std::max(1u, std::min<unsigned>(config.jobs, (unsigned)toCompile.size()));
    if (!toCompile.empty())
      log(llvm::formatv("compiling {0} candidates with NVRTC in {1} threads", toCompile.size(),
                        jobs)
              .str());
    auto worker = [&] {
      for (;;) {
        size_t k = next++;
        if (k >= toCompile.size())
          return;
        CandidateState &c = result.candidates[toCompile[k]];
        if (hooks.compile)
          c.compile = hooks.compile(c);
        else
          c.compile.ok = true;
        size_t d = ++done;
        if (!c.compile.ok || d == toCompile.size() || d % 10 == 0) {
          std::lock_guard<std::mutex> lock(logMutex);
          if (!c.compile.ok)
            log("  compile error " + c.cand.id + " (" + c.cand.describe() + "): " +
                llvm::StringRef(c.compile.error).split('\n').first.str());
          log(llvm::formatv("  compiled {0}/{1}", d, toCompile.size()).str());
        }
      }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 1; j < jobs; ++j)
      threads.emplace_back(worker);
    worker();
    for (std::thread &t : threads)
      t.join();
  }
  for (size_t i : toCompile) {
    CandidateState &c = result.candidates[i];
    if (!c.compile.ok) {
      c.stage = Stage::CompileError;
      ++result.compileErrors;
    } else if (c.compile.spillBytes > 0 && !config.allowSpills) {
      c.stage = Stage::Spills;
      ++result.spills;
    } else {
      ++result.compiled;
    }
    result.fromCache += c.compile.fromCache;
  }
  result.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log(llvm::formatv("compiled {0} in {1:f1} s ({2} from the cache), {3} rejected for spills, "
                    "{4} compile errors",
                    result.compiled, result.compileSeconds, result.fromCache, result.spills,
                    result.compileErrors)
          .str());

  if (config.compileOnly) {
    log(llvm::formatv("--compile-only: would time {0} candidates", result.compiled).str());
    return result;
  }

  // 4. Time: one candidate at a time per GPU. Records are committed (DB,
  // progress, best) in candidate order whatever the order they finish in.
  std::vector<size_t> toTime;
  for (size_t i : toCompile)
    if (result.candidates[i].stage == Stage::Compiled)
      toTime.push_back(i);
  std::optional<Record> best;
  for (const CandidateState &c : result.candidates)
    if (c.record && c.record->ok() && (!best || better(*c.record, *best)))
      best = *c.record;
  const std::vector<int> gpus = config.gpus.empty() ? std::vector<int>{0} : config.gpus;
  const size_t total = toTime.size() + result.reused;
  size_t done = result.reused;
  auto t1 = std::chrono::steady_clock::now();

  // One slot per candidate to time, filled by whichever GPU timed it.
  struct Slot {
    bool finished = false, timed = false;
    int gpu = 0;
    Measurement m;
  };
  std::vector<Slot> slots(toTime.size());
  auto timeOne = [&](size_t k, int gpu) {
    Slot s;
    s.gpu = gpu;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (config.timeBudgetSeconds > 0 && elapsed > config.timeBudgetSeconds)
      return s; // not started: the budget is spent
    s.timed = true;
    if (hooks.measure) {
      s.m = hooks.measure(result.candidates[toTime[k]], gpu);
    } else {
      s.m.status = "failed";
      s.m.error = "no timer";
    }
    return s;
  };
  auto commit = [&](size_t k, Slot &s) -> llvm::Error {
    CandidateState &c = result.candidates[toTime[k]];
    if (!s.timed) {
      c.stage = Stage::NotTimed;
      ++result.notTimed;
      return llvm::Error::success();
    }
    const Measurement &m = s.m;
    Record r = baseRecord(config, c);
    r.status = m.status;
    r.error = m.error;
    r.msMedian = m.msMedian, r.msP25 = m.msP25, r.msP75 = m.msP75, r.msMin = m.msMin,
    r.msMax = m.msMax;
    r.baselineMs = m.baselineMs;
    r.relErr = m.relErr;
    r.seed = m.seed;
    r.tflops = r.ok() ? tflops(config.shape.M, config.shape.N, config.shape.K, r.msMedian) : 0;
    r.host = config.host;
    r.gpuOrdinal = m.gpuOrdinal >= 0 ? m.gpuOrdinal : s.gpu; // what the child opened
    if (llvm::Error e = db.append(r))
      return e;
    c.record = r;
    c.stage = Stage::Measured;
    ++result.measured;
    if (!r.ok())
      ++result.failed;
    if (r.ok() && (!best || better(r, *best)))
      best = r;
    ++done;
    std::string what =
        r.ok() ? llvm::formatv("{0:f4} ms {1,6:f1} TFLOP/s", r.msMedian, r.tflops).str() +
                     (r.speedup() ? llvm::formatv(" x{0:f3} vs base", r.speedup()).str() : "")
               : "FAILED (" + r.status + ": " + llvm::StringRef(r.error).split('\n').first.str() +
                     ")";
    std::string bestStr =
        best ? llvm::formatv("best {0} {1:f1} TFLOP/s", best->candidate, best->tflops).str()
             : "best -";
    std::string on = gpus.size() > 1 ? " on GPU " + std::to_string(r.gpuOrdinal) : "";
    log(llvm::formatv("[{0}/{1}] {2} {3}{4}: {5} | {6}", done, total, c.cand.id,
                      c.cand.describe(), on, what, bestStr)
            .str());
    return llvm::Error::success();
  };

  if (gpus.size() == 1) {
    for (size_t k = 0; k < toTime.size(); ++k) {
      Slot s = timeOne(k, gpus[0]);
      if (llvm::Error e = commit(k, s))
        return e;
    }
  } else {
    // A worker per GPU takes the next candidate when its GPU is free; this
    // thread commits finished slots in order.
    std::mutex mu;
    std::condition_variable cv;
    size_t next = 0;
    bool stop = false;
    auto worker = [&](int gpu) {
      for (;;) {
        size_t k;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (stop || next >= toTime.size())
            return;
          k = next++;
        }
        Slot s = timeOne(k, gpu);
        std::lock_guard<std::mutex> lock(mu);
        slots[k] = std::move(s);
        slots[k].finished = true;
        cv.notify_all();
      }
    };
    std::vector<std::thread> threads;
    for (int gpu : gpus)
      threads.emplace_back(worker, gpu);
    llvm::Error failure = llvm::Error::success();
    for (size_t k = 0; k < toTime.size(); ++k) {
      Slot s;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return slots[k].finished; });
        s = std::move(slots[k]);
      }
      if (llvm::Error e = commit(k, s)) {
        failure = std::move(e);
        std::lock_guard<std::mutex> lock(mu);
        stop = true; // the ones running finish; no new one starts
        break;
      }
    }
    for (std::thread &t : threads)
      t.join();
    if (failure)
      return failure;
  }
  result.measureSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  if (result.notTimed)
    log(llvm::formatv("time budget reached: {0} candidates not timed (rerun to continue; the "
                      "DB keeps what was measured)",
                      result.notTimed)
            .str());
  result.best = best;
  return result;
}

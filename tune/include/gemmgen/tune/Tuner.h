//===- Tuner.h - The autotuning driver and its report ------------*- C++ -*-===//
//
// runTune() is `gemmgen tune` without the CLI and without the GPU:
//
//   enumerate the space -> apply each candidate to the base spec (a variant)
//   -> prune with the parser and checkSpec (reasons counted) -> generate the
//   CUDA source -> skip variants the results DB already measured -> compile
//   the rest in `jobs` threads (hook) -> reject spills -> time each one (hook)
//   -> append a DB record per candidate -> best.
//
// Compiling and timing are hooks so that this library stays free of NVRTC
// and the driver: the CLI passes NVRTC (compileCudaSource, through the disk
// cache) and a child-process timer; tests pass NVRTC and a fake timer.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_TUNER_H
#define GEMMGEN_TUNE_TUNER_H

#include "gemmgen/Pipeline.h"
#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/TuneSpace.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// What compiling one variant gave (filled by the compile hook).
struct CompileOutcome {
  bool ok = false;
  std::string error;
  int registers = 0;
  int spillBytes = 0; ///< spill stores + loads + local memory
  bool fromCache = false;
  double seconds = 0;
  std::vector<std::string> warnings; ///< ptxas warnings (e.g. C7511)
};

/// What timing one variant gave (filled by the measure hook).
struct Measurement {
  std::string status = "ok"; ///< as Record::status
  std::string error;
  double msMedian = 0, msP25 = 0, msP75 = 0, msMin = 0, msMax = 0;
  double baselineMs = 0; ///< the base spec, interleaved in the same process
  double relErr = 0;
  unsigned long long seed = 0;
  /// The GPU ordinal the child reports it opened (-1: it did not say).
  int gpuOrdinal = -1;
};

enum class Stage {
  Pruned,       ///< failed the parser or checkSpec
  CompileError, ///< NVRTC failed
  Spills,       ///< compiled, but spills (rejected)
  Compiled,     ///< ready to time (or, --compile-only, would be timed)
  Reused,       ///< the DB already has its result
  Measured,     ///< timed now (record.status says whether it counts)
  NotTimed      ///< the time budget ran out first
};
const char *toString(Stage s);

struct CandidateState {
  Candidate cand;
  Variant variant;
  PruneResult prune;
  std::shared_ptr<const CompiledSpec> compiled; ///< set once it passed the checks
  std::string sourceHash;
  CompileOutcome compile;
  std::optional<Record> record; ///< measured or reused
  Stage stage = Stage::Pruned;
};

struct TuneConfig {
  std::string basePath; ///< for records and headers
  std::string baseYaml;
  ShapeKey shape;       ///< gpu/driver empty with compileOnly
  SearchSpace space;
  unsigned jobs = 2;
  bool compileOnly = false;
  double timeBudgetSeconds = 0; ///< 0: none. Stops *starting* timings after it.
  bool retryFailed = false;     ///< re-time candidates the DB has as failed
  bool allowSpills = false;
  std::string commit, nvrtc;
  /// The GPU ordinals to time on (`--gpus`): one candidate at a time on
  /// each, so up to gpus.size() at once. Empty: ordinal 0 alone.
  std::vector<int> gpus;
  std::string host; ///< recorded with every measurement (DBs of hosts merge)
};

struct TuneHooks {
  /// Called from up to `jobs` threads at once.
  std::function<CompileOutcome(const CandidateState &)> compile;
  /// Times one candidate on GPU `gpu` (an ordinal of TuneConfig::gpus).
  /// With one GPU it is called on the tuning thread, one at a time; with
  /// several, from one thread per GPU, each call with that thread's
  /// ordinal. Unused with compileOnly.
  std::function<Measurement(const CandidateState &, int gpu)> measure;
  /// Progress and messages, one line each (no newline).
  std::function<void(const std::string &)> log;
};

struct TuneResult {
  std::vector<CandidateState> candidates;
  PruneStats prune;
  size_t compiled = 0, compileErrors = 0, spills = 0, reused = 0, measured = 0, failed = 0,
         notTimed = 0, fromCache = 0;
  double compileSeconds = 0, measureSeconds = 0;
  /// The best record of this tune (ok, by speedup over the base when known,
  /// else by median time), or nullopt.
  std::optional<Record> best;
  /// This tune's records (measured and reused), in candidate order.
  std::vector<Record> records() const;
};

/// Runs a tune. Errors: the base spec does not parse/check, the space does
/// not apply, or the DB cannot be written. Candidates that fail do not make
/// the tune fail. With several GPUs the candidates are handed to whichever
/// GPU is free, but records are appended to the DB, and progress printed,
/// in candidate order (a finished candidate waits for the ones before it),
/// so the DB's content and order do not depend on which finished first.
llvm::Expected<TuneResult> runTune(const TuneConfig &config, ResultsDB &db,
                                   const TuneHooks &hooks);

/// A record for a compiled-but-not-timed candidate (for the compile-only
/// report): status "compiled", registers and shared memory filled.
Record compileOnlyRecord(const TuneConfig &config, const CandidateState &c);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_TUNER_H

//===- ChildRun.h - Timing in a child process and reading its result -*- C++ -*-===//
//
// `gemmgen tune` times each candidate in a child process (`gemmgen
// tune-measure`, and `gemmgen bench` for cuBLAS once per shape), so that a
// hung or faulting kernel loses that child's CUDA context only. This is the
// runner (with a hard time limit on top of the child's own watchdog) and
// both sides of the tune-measure result file (the bench JSON is read back
// in BenchOutput.h, next to its writer).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_CHILDRUN_H
#define GEMMGEN_TUNE_CHILDRUN_H

#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/Tuner.h"
#include "gemmgen/tune/Workload.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// How a child ended.
struct ChildExit {
  bool started = false; ///< false: it could not be started at all
  bool killed = false;  ///< the time limit hit (SIGKILL)
  bool signaled = false;
  int code = 0;         ///< exit code, or the signal when `signaled`
  /// "exit code 3" / "killed by signal 11"
  std::string describe() const;
};

/// Runs `program args...` with stdout and stderr to `logPath`, killing it
/// after `limitSeconds`.
ChildExit runChild(const std::string &program, const std::vector<std::string> &args,
                   const std::string &logPath, double limitSeconds);

/// The running executable (/proc/self/exe), for re-running this binary.
std::string selfExe();

/// The last `n` non-empty lines of a file, joined with " | " ("" if none).
std::string lastLines(const std::string &path, size_t n);

/// The tune-measure result file: {"status", "error", "seed", "ms": {median,
/// p25, p75, min, max}, "baseline_ms", "rel_err", "non_finite",
/// "registers", "input_sets", "launches_per_sample", "rounds", "gpu",
/// "ordinal", "driver"}. `status` is "ok", "wrong", "failed" or "timeout".
llvm::json::Object measureResultJson(const std::string &status, const std::string &error,
                                     unsigned long long seed, const MeasureResult *result,
                                     const DeviceInfo *device);

/// What the parent makes of a child's exit and result file text: the
/// file's status and times when it has one (an "ok" without a time is a
/// failure), else "timeout" (killed at the limit), "crashed" (a signal) or
/// "failed", with the log's last lines. The file's "ordinal" becomes
/// Measurement::gpuOrdinal.
Measurement readMeasurement(const ChildExit &exit, const std::optional<std::string> &resultText,
                            const std::string &logTail, double limitSeconds);

/// What the children of one tune are asked to time.
struct ChildTiming {
  std::string exe = selfExe(); ///< the gemmgen binary to run
  std::string basePath;        ///< the base spec (baseline of every candidate)
  long long M = 0, N = 0, K = 0;
  std::string dtype;
  int rounds = 20, warmup = 3;
  double limitSeconds = 60; ///< a child's hard limit
};

/// Times a candidate in `gemmgen tune-measure --device GPU`: writes its
/// spec to `specFile`, runs the child (log to `logFile`, result to
/// `resultFile`), reads the result. Never fails: a failure is the
/// Measurement's status. The child is pinned by ordinal, not by
/// CUDA_VISIBLE_DEVICES: it inherits the parent's environment, so an
/// ordinal names the same GPU in both, also when a job scheduler has set
/// CUDA_VISIBLE_DEVICES (to indices, UUIDs or MIG ids) for the job.
Measurement measureInChild(const ChildTiming &t, const CandidateState &c,
                           unsigned long long seed, const std::string &specFile,
                           const std::string &resultFile, const std::string &logFile,
                           int gpu = 0);

/// cuBLAS's time for the shape: `gemmgen bench BASE --device GPU --json` in
/// a child (files in `workDir`). nullopt, with `whyNot` set, when it did
/// not work.
std::optional<Record> cublasInChild(const ChildTiming &t, const ShapeKey &shape,
                                    const std::string &workDir, std::string &whyNot,
                                    int gpu = 0);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_CHILDRUN_H

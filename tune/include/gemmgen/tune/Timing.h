//===- Timing.h - The one timing protocol of bench and tune -----*- C++ -*-===//
//
// DESIGN.md §10, written once for `gemmgen bench` (gemmgen vs cuBLAS) and
// `gemmgen tune-measure` (a candidate vs the base spec):
//
//   warm-up: every contender over every input set, `warmup` times;
//   estimate: the first contender once over the sets -> ms per launch;
//   reps: a sample is `reps` back-to-back launches, about `sampleMs` long,
//         so that short kernels are not measured at event resolution;
//   rounds: each round times one sample of every contender, the order
//           rotating each round (two contenders: alternating who goes first);
//   CUDA events around each sample; median, quartiles, min and max per
//   contender of the per-launch times.
//
// The device side is an interface (TimingDevice) so that the protocol runs
// on a fake clock in tests; streamTiming() is the real one.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_TIMING_H
#define GEMMGEN_TUNE_TIMING_H

#include "gemmgen/gemmgen.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// 2·M·N·K / time: the one TFLOP/s figure of gemmgen (0 when `ms` is not
/// positive).
double tflops(long long M, long long N, long long K, double ms);

/// Now, as "2026-11-30T22:41:07Z".
std::string isoDate();

/// Median, quartiles and extremes of a set of times (all 0 when empty).
struct Spread {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
  static Spread of(std::vector<double> values);
};

/// How many input sets to rotate through so that their total is several
/// times the L2 (at least 200 MB; 2 to 16 sets), without taking more than
/// 60% of the GPU's memory together with `extraBytes` (the reference).
int inputSetCount(const DeviceInfo &device, double bytesPerSet, double extraBytes);

/// A device timer: an event pair on one stream.
class Stopwatch {
public:
  virtual ~Stopwatch() = default;
  virtual Status start() = 0;
  virtual Status stop() = 0;
  /// Milliseconds between start and stop (after the stream reached stop).
  virtual Expected<float> elapsedMs() = 0;
};

/// What the protocol needs from the device.
class TimingDevice {
public:
  virtual ~TimingDevice() = default;
  virtual Expected<std::unique_ptr<Stopwatch>> stopwatch() = 0;
  /// Waits for the stream, failing with ErrorCode::Timeout after `seconds`.
  virtual Status wait(double seconds) = 0;
};

/// CUDA events and the watchdog wait of `rt` on `stream`.
std::unique_ptr<TimingDevice> streamTiming(const Runtime &rt, CUstream stream);

/// One thing being timed: `launch(set)` enqueues one launch on input set
/// `set` (0 <= set < ProtocolOptions::sets).
struct Contender {
  std::string name;
  std::function<Status(int set)> launch;
};

struct ProtocolOptions {
  int warmup = 3;
  int rounds = 20;
  int sets = 1;
  /// The watchdog budget of one launch (watchdogSeconds(M, N, K)).
  double launchSeconds = 10;
  /// The length a sample aims at, and the most launches in one.
  double sampleMs = 1.0;
  int maxReps = 200;
};

struct ProtocolResult {
  std::vector<Spread> ms;                    ///< per contender: ms per launch
  std::vector<std::vector<double>> samples;  ///< per contender, per round
  int reps = 0, rounds = 0;
};

/// Runs the protocol. The first failing launch, timer or wait ends it with
/// that Status (a Timeout means the context is lost).
Expected<ProtocolResult> timeInterleaved(TimingDevice &device,
                                         const std::vector<Contender> &contenders,
                                         const ProtocolOptions &options);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_TIMING_H

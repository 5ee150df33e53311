//===- Timing.cpp - The one timing protocol of bench and tune -------------===//
//
// Entry point: timeInterleaved (see Timing.h for the protocol).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/Timing.h"

#include <algorithm>
#include <cmath>
#include <ctime>

using namespace gemmgen;
using namespace gemmgen::tune;

double tune::tflops(long long M, long long N, long long K, double ms) {
  return ms > 0 ? 2.0 * (double)M * (double)N * (double)K / (ms * 1e-3) / 1e12 : 0;
}

std::string tune::isoDate() {
  char buf[64];
  time_t now = time(nullptr);
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  return buf;
}

/// Linear interpolation between the closest ranks of sorted `v`.
static double percentileOfSorted(const std::vector<double> &v, double p) {
  double idx = p * (double)(v.size() - 1);
  size_t lo = (size_t)idx, hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (idx - (double)lo) * (v[hi] - v[lo]);
}

Spread Spread::of(std::vector<double> v) {
  Spread s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.p25 = percentileOfSorted(v, 0.25);
  s.p75 = percentileOfSorted(v, 0.75);
  s.min = v.front();
  s.max = v.back();
  return s;
}

int tune::inputSetCount(const DeviceInfo &dev, double bytesPerSet, double extraBytes) {
  const double target = std::max(4.0 * dev.l2Bytes, 200e6);
  int sets = (int)std::clamp(std::ceil(target / bytesPerSet), 2.0, 16.0);
  while (sets > 1 && sets * bytesPerSet + extraBytes > 0.6 * (double)dev.totalMemBytes)
    --sets;
  return sets;
}

namespace {
class EventStopwatch : public Stopwatch {
public:
  EventStopwatch(Runtime::Timer t, CUstream s) : timer(std::move(t)), stream(s) {}
  Status start() override { return timer.start(stream); }
  Status stop() override { return timer.stop(stream); }
  Expected<float> elapsedMs() override { return timer.elapsedMs(); }

private:
  Runtime::Timer timer;
  CUstream stream;
};

class StreamTiming : public TimingDevice {
public:
  StreamTiming(const Runtime &rt, CUstream s) : rt(rt), stream(s) {}
  Expected<std::unique_ptr<Stopwatch>> stopwatch() override {
    Expected<Runtime::Timer> t = rt.createTimer();
    if (!t)
      return t.status();
    return std::unique_ptr<Stopwatch>(std::make_unique<EventStopwatch>(t.take(), stream));
  }
  Status wait(double seconds) override { return rt.wait(stream, seconds); }

private:
  const Runtime &rt;
  CUstream stream;
};
} // namespace

std::unique_ptr<TimingDevice> tune::streamTiming(const Runtime &rt, CUstream stream) {
  return std::make_unique<StreamTiming>(rt, stream);
}

Expected<ProtocolResult> tune::timeInterleaved(TimingDevice &dev,
                                               const std::vector<Contender> &contenders,
                                               const ProtocolOptions &o) {
  const int n = (int)contenders.size(), sets = std::max(1, o.sets);
  if (n == 0 || o.rounds < 1)
    return Status::error(ErrorCode::InvalidArgument,
                         "the timing protocol needs a contender and at least one round");
  const double budget = o.launchSeconds;

  // Warm-up: every set, every contender.
  for (int w = 0; w < o.warmup; ++w)
    for (int i = 0; i < sets; ++i)
      for (const Contender &c : contenders)
        if (Status s = c.launch(i); !s)
          return s;
  if (Status s = dev.wait(budget * n * o.warmup * sets + 10); !s)
    return s;

  // Estimate one launch of the first contender, to size a sample.
  double estimate;
  {
    Expected<std::unique_ptr<Stopwatch>> sw = dev.stopwatch();
    if (!sw)
      return sw.status();
    if (Status s = (*sw)->start(); !s)
      return s;
    for (int i = 0; i < sets; ++i)
      if (Status s = contenders[0].launch(i); !s)
        return s;
    if (Status s = (*sw)->stop(); !s)
      return s;
    if (Status s = dev.wait(budget * sets); !s)
      return s;
    Expected<float> ms = (*sw)->elapsedMs();
    if (!ms)
      return ms.status();
    estimate = std::max(1e-3, (double)*ms / sets);
  }
  ProtocolResult r;
  r.reps = (int)std::clamp(std::ceil(o.sampleMs / estimate), 1.0, (double)std::max(1, o.maxReps));
  r.rounds = o.rounds;

  // One stopwatch per contender and round: read after the last round, so
  // that no round waits for the previous one's events.
  std::vector<std::vector<std::unique_ptr<Stopwatch>>> watches(n);
  for (int c = 0; c < n; ++c)
    for (int i = 0; i < o.rounds; ++i) {
      Expected<std::unique_ptr<Stopwatch>> sw = dev.stopwatch();
      if (!sw)
        return sw.status();
      watches[c].push_back(sw.take());
    }
  std::vector<int> next(n, 0); // each contender's next input set
  const double batchSeconds = budget * 8 * n * r.reps + 10;
  for (int round = 0; round < o.rounds; ++round) {
    for (int k = 0; k < n; ++k) {
      const int c = (k + round) % n; // rotate who goes first
      Stopwatch &sw = *watches[c][round];
      if (Status s = sw.start(); !s)
        return s;
      for (int j = 0; j < r.reps; ++j)
        if (Status s = contenders[c].launch(next[c]++ % sets); !s)
          return s;
      if (Status s = sw.stop(); !s)
        return s;
    }
    if (round % 8 == 7) // keep the queue short; the watchdog on each batch
      if (Status s = dev.wait(batchSeconds); !s)
        return s;
  }
  if (Status s = dev.wait(batchSeconds); !s)
    return s;
  r.samples.assign(n, {});
  for (int c = 0; c < n; ++c) {
    for (int i = 0; i < o.rounds; ++i) {
      Expected<float> ms = watches[c][i]->elapsedMs();
      if (!ms)
        return ms.status();
      r.samples[c].push_back(*ms / r.reps);
    }
    r.ms.push_back(Spread::of(r.samples[c]));
  }
  return r;
}

//===- TuneLibTest.cpp - The tune library's GPU-free parts ----------------===//
//
// The timing protocol on a fake clock, the statistics and TFLOP/s figure,
// the input-set sizing, the child runner and both sides of what the
// children write (tune-measure results, bench JSON), the baked-in commit.
// Each test drives the code that ships (gemmgen_tune), not a copy.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/BenchOutput.h"
#include "gemmgen/tune/BuildInfo.h"
#include "gemmgen/tune/ChildRun.h"
#include "gemmgen/tune/Timing.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

using namespace gemmgen;
using namespace gemmgen::tune;

namespace {

//===----------------------------------------------------------------------===//
// The protocol on a fake clock
//===----------------------------------------------------------------------===//

/// Launches advance a virtual clock by their contender's cost; stopwatches
/// read it. Every launch is logged as "NAME/SET".
struct FakeDevice : TimingDevice {
  double now = 0;
  int waits = 0;
  std::vector<std::string> log;
  Status waitStatus = Status::success();

  struct Watch : Stopwatch {
    FakeDevice &d;
    double t0 = -1, t1 = -1;
    explicit Watch(FakeDevice &d) : d(d) {}
    Status start() override { return t0 = d.now, Status::success(); }
    Status stop() override { return t1 = d.now, Status::success(); }
    Expected<float> elapsedMs() override { return (float)(t1 - t0); }
  };
  Expected<std::unique_ptr<Stopwatch>> stopwatch() override {
    return std::unique_ptr<Stopwatch>(std::make_unique<Watch>(*this));
  }
  Status wait(double) override {
    ++waits;
    return waitStatus;
  }
  Contender contender(std::string name, double ms) {
    return {name, [this, name, ms](int set) {
              now += ms;
              log.push_back(name + "/" + std::to_string(set));
              return Status::success();
            }};
  }
};

TEST(TimingProtocol, WarmsUpSizesSamplesAndAlternatesTheOrder) {
  FakeDevice dev;
  ProtocolOptions o;
  o.warmup = 2, o.rounds = 4, o.sets = 3;
  auto r = timeInterleaved(dev, {dev.contender("g", 0.25), dev.contender("c", 0.5)}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // A sample is ~1 ms of the first contender: 4 launches of 0.25 ms.
  EXPECT_EQ(r->reps, 4);
  EXPECT_EQ(r->rounds, 4);
  ASSERT_EQ(r->ms.size(), 2u);
  EXPECT_DOUBLE_EQ(r->ms[0].median, 0.25);
  EXPECT_DOUBLE_EQ(r->ms[1].median, 0.5);
  ASSERT_EQ(r->samples[1].size(), 4u);
  // Warm-up: each set, both contenders, twice; then the estimate (g over the sets).
  std::vector<std::string> head(dev.log.begin(), dev.log.begin() + 15);
  EXPECT_EQ(head, (std::vector<std::string>{"g/0", "c/0", "g/1", "c/1", "g/2", "c/2", "g/0",
                                            "c/0", "g/1", "c/1", "g/2", "c/2", "g/0", "g/1",
                                            "g/2"}));
  // Rounds: g first in even rounds, c first in odd ones; sets rotate per contender.
  std::vector<std::string> round0(dev.log.begin() + 15, dev.log.begin() + 23);
  EXPECT_EQ(round0, (std::vector<std::string>{"g/0", "g/1", "g/2", "g/0", "c/0", "c/1", "c/2",
                                              "c/0"}));
  std::vector<std::string> round1(dev.log.begin() + 23, dev.log.begin() + 31);
  EXPECT_EQ(round1, (std::vector<std::string>{"c/1", "c/2", "c/0", "c/1", "g/1", "g/2", "g/0",
                                              "g/1"}));
  EXPECT_EQ(dev.log.size(), 15u + 4 * 8);
}

TEST(TimingProtocol, ShortKernelsAreBatchedUpToTheLimit) {
  FakeDevice dev;
  ProtocolOptions o;
  o.warmup = 0, o.rounds = 1, o.maxReps = 200;
  auto r = timeInterleaved(dev, {dev.contender("tiny", 0.0001)}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->reps, 200);
  EXPECT_NEAR(r->ms[0].median, 0.0001, 1e-9);
}

TEST(TimingProtocol, TheFirstFailureEndsIt) {
  FakeDevice dev;
  ProtocolOptions o;
  o.warmup = 1, o.rounds = 3;
  int launches = 0;
  Contender bad{"bad", [&](int) {
                  return ++launches == 4 ? Status::error(ErrorCode::CudaError, "launch 4 failed")
                                         : Status::success();
                }};
  auto r = timeInterleaved(dev, {bad}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "launch 4 failed");
  FakeDevice hung;
  hung.waitStatus = Status::error(ErrorCode::Timeout, "kernel did not finish within 10 s");
  auto t = timeInterleaved(hung, {hung.contender("g", 1)}, o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::Timeout);
  auto none = timeInterleaved(dev, {}, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "the timing protocol needs a contender and at least one round");
}

TEST(TimingFigures, SpreadTflopsAndInputSets) {
  Spread s = Spread::of({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_DOUBLE_EQ(s.p75, 3.25);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(Spread::of({}).median, 0);
  EXPECT_DOUBLE_EQ(tflops(4096, 4096, 4096, 1.0), 2.0 * 4096 * 4096 * 4096 / 1e9);
  EXPECT_DOUBLE_EQ(tflops(4096, 4096, 4096, 0), 0);

  DeviceInfo h200;
  h200.l2Bytes = 60 << 20;
  h200.totalMemBytes = 140ull << 30;
  // 4096^3 f16 with two outputs: 134 MB a set, so 2 sets pass 4x the L2 (251 MB).
  EXPECT_EQ(inputSetCount(h200, 2.0 * 4096 * 4096 * 4, 4.0 * 4096 * 4096), 2);
  EXPECT_EQ(inputSetCount(h200, 2.0 * 256 * 256 * 3, 4.0 * 256 * 256), 16);
  DeviceInfo small = h200;
  small.totalMemBytes = 300ull << 20; // room for one set only
  EXPECT_EQ(inputSetCount(small, 2.0 * 4096 * 4096 * 4, 4.0 * 4096 * 4096), 1);
}

//===----------------------------------------------------------------------===//
// Children and what they write
//===----------------------------------------------------------------------===//

struct TempFile {
  std::string path;
  explicit TempFile(const char *suffix) {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("gemmgen-child", suffix, p));
    path = std::string(p);
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
};

TEST(ChildRun, ExitCodesSignalsAndTheTimeLimit) {
  TempFile log("log");
  ChildExit e = runChild("/bin/sh", {"-c", "echo first; echo last line; exit 3"}, log.path, 30);
  EXPECT_TRUE(e.started);
  EXPECT_FALSE(e.killed);
  EXPECT_EQ(e.code, 3);
  EXPECT_EQ(e.describe(), "exit code 3");
  EXPECT_EQ(lastLines(log.path, 1), "last line");
  EXPECT_EQ(lastLines(log.path, 5), "first | last line");
  e = runChild("/bin/sh", {"-c", "kill -SEGV $$"}, log.path, 30);
  EXPECT_TRUE(e.signaled);
  EXPECT_EQ(e.describe(), "killed by signal 11");
  e = runChild("/bin/sh", {"-c", "sleep 30"}, log.path, 0.2);
  EXPECT_TRUE(e.killed);
  e = runChild("/nonexistent/gemmgen", {}, log.path, 1);
  EXPECT_FALSE(e.started);
}

ChildExit exited(int code) {
  ChildExit e;
  e.started = true;
  e.code = code;
  return e;
}

TEST(ChildRun, TheParentReadsWhatTheChildWrites) {
  MeasureResult r;
  r.candidate = Spread::of({0.2, 0.3, 0.25});
  r.baselineMs = 0.3;
  r.relErr = 1e-3;
  r.registers = 168;
  DeviceInfo dev;
  dev.name = "NVIDIA H200";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(measureResultJson("ok", "", 7, &r, &dev));
  Measurement m = readMeasurement(exited(0), text, "", 60);
  EXPECT_EQ(m.status, "ok");
  EXPECT_DOUBLE_EQ(m.msMedian, 0.25);
  EXPECT_DOUBLE_EQ(m.msMin, 0.2);
  EXPECT_DOUBLE_EQ(m.baselineMs, 0.3);
  EXPECT_DOUBLE_EQ(m.relErr, 1e-3);

  text.clear();
  llvm::raw_string_ostream(text) << llvm::json::Value(measureResultJson(
      "wrong", "verification failed: relative error 5.00e-01", 7, &r, &dev));
  m = readMeasurement(exited(3), text, "", 60);
  EXPECT_EQ(m.status, "wrong");
  EXPECT_EQ(m.error, "verification failed: relative error 5.00e-01");

  // "ok" without a time does not count.
  m = readMeasurement(exited(0), std::string("{\"status\":\"ok\"}"), "", 60);
  EXPECT_EQ(m.status, "failed");
  EXPECT_EQ(m.error, "no time measured");
  // No result file: the exit and the log say why.
  ChildExit sig = exited(11);
  sig.signaled = true;
  m = readMeasurement(sig, std::nullopt, "Segmentation fault", 60);
  EXPECT_EQ(m.status, "crashed");
  EXPECT_EQ(m.error, "killed by signal 11: Segmentation fault");
  m = readMeasurement(exited(3), std::string("{torn"), "gemmgen: error: x", 60);
  EXPECT_EQ(m.status, "failed");
  EXPECT_EQ(m.error, "exit code 3: gemmgen: error: x");
  ChildExit killed = exited(9);
  killed.killed = true;
  m = readMeasurement(killed, std::nullopt, "", 96);
  EXPECT_EQ(m.status, "timeout");
  EXPECT_EQ(m.error, "killed after 96 s (no result; the child's watchdog did not fire)");
}

TEST(BenchOutput, TheTunerReadsCublasFromWhatBenchWrites) {
  BenchRun run;
  run.spec = "specs/sm90/05_fast_f16.yaml";
  run.dtype = "f16";
  run.commit = "abc1234";
  run.date = "2026-11-30T23:00:00Z";
  run.cublasVersion = 130100;
  BenchResult r;
  r.M = r.N = r.K = 4096;
  r.gemmgen = Spread::of({0.20});
  r.cublas = Spread::of({0.22, 0.24});
  r.pass = true;
  run.results.push_back(r);
  std::string text;
  llvm::raw_string_ostream(text) << benchJson(run);
  ShapeKey shape{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  std::optional<Record> rec = cublasRecordFromBench(text, shape, run.spec);
  ASSERT_TRUE(rec.has_value()) << text;
  EXPECT_EQ(rec->kind, "cublas");
  EXPECT_DOUBLE_EQ(rec->msMedian, 0.23);
  EXPECT_DOUBLE_EQ(rec->baselineMs, 0.20);
  EXPECT_DOUBLE_EQ(rec->tflops, tflops(4096, 4096, 4096, 0.23));
  EXPECT_EQ(rec->cublasVersion, 130100);
  EXPECT_EQ(rec->error, "");
  EXPECT_EQ(rec->commit, "abc1234");
  // A shape that failed has no cuBLAS time.
  run.results[0].error = "no CUDA driver/GPU found";
  text.clear();
  llvm::raw_string_ostream(text) << benchJson(run);
  EXPECT_FALSE(cublasRecordFromBench(text, shape, run.spec).has_value());
  EXPECT_FALSE(cublasRecordFromBench("not json", shape, run.spec).has_value());
  // The CSV has the header and one row per shape.
  std::string csv;
  llvm::raw_string_ostream os(csv);
  writeBenchCsv(os, run);
  os.flush();
  EXPECT_EQ(llvm::StringRef(csv).count('\n'), 2u) << csv;
  EXPECT_NE(csv.find(",abc1234,"), std::string::npos) << csv;
}

/// The commit is the one that was built: a short hash of this repository
/// (with -dirty when the tree had changes), or "unknown" outside a checkout.
TEST(BuildInfo, TheCommitIsBakedInAtBuildTime) {
  llvm::StringRef c = buildCommit();
  ASSERT_FALSE(c.empty());
  if (c == "unknown")
    GTEST_SKIP() << "built outside a git checkout";
  llvm::StringRef hash = c;
  hash.consume_back("-dirty");
  EXPECT_GE(hash.size(), 7u) << c.str();
  EXPECT_TRUE(llvm::all_of(hash, [](char ch) { return llvm::isHexDigit(ch); })) << c.str();
  std::string cmd = "git -C '" + std::string(GEMMGEN_SOURCE_DIR) + "' cat-file -e " +
                    hash.str() + "^{commit} 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << c.str() << " is not a commit of this repository";
}

} // namespace

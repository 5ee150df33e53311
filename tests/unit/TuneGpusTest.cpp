//===- TuneGpusTest.cpp - tune --gpus: parsing, selection, scheduling -----===//
//
// The scheduler runs one measure call per GPU at a time and commits records
// in candidate order. Here the fake timer makes GPU 0 the slowest, so
// candidates finish out of order; the DB must still be the one a single-GPU
// tune writes (ordinals and dates aside), and every GPU must have been used
// at the same time as the others. The CLI side (children pinned by
// --device, the fake libcuda's devices) is tests/cli/tune_gpus.sh.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/Gpus.h"
#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/Tuner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace gemmgen;
using namespace gemmgen::tune;

namespace {

template <typename T> std::string errorOf(llvm::Expected<T> v) {
  return v ? std::string("no error") : llvm::toString(v.takeError());
}

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gemmgen-gpus-test", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const char *name) const { return (path + "/" + name).str(); }
};

} // namespace

TEST(TuneGpus, ParsesCountsAndAllAndRefusesTheRest) {
  EXPECT_EQ(*parseGpusOption("1"), 1);
  EXPECT_EQ(*parseGpusOption("8"), 8);
  EXPECT_EQ(*parseGpusOption("all"), 0);
  EXPECT_EQ(*parseGpusOption("ALL"), 0);
  EXPECT_EQ(errorOf(parseGpusOption("0")),
            "--gpus 0: give at least 1 GPU (or `all`: every GPU the driver reports)");
  EXPECT_EQ(errorOf(parseGpusOption("-1")),
            "--gpus -1: give at least 1 GPU (or `all`: every GPU the driver reports)");
  EXPECT_EQ(errorOf(parseGpusOption("x")),
            "--gpus takes a number of GPUs (1, 2, ...) or `all`; got 'x'");
  EXPECT_EQ(errorOf(parseGpusOption("")),
            "--gpus takes a number of GPUs (1, 2, ...) or `all`; got ''");
  EXPECT_EQ(errorOf(parseGpusOption("99999999999999999999")),
            "--gpus takes a number of GPUs (1, 2, ...) or `all`; got '99999999999999999999'");
}

TEST(TuneGpus, SelectsOrdinalsOfOneKindWithinWhatTheHostHas) {
  std::vector<std::string> two = {"NVIDIA H200", "NVIDIA H200"};
  EXPECT_EQ(*selectGpus(0, two), (std::vector<int>{0, 1}));
  EXPECT_EQ(*selectGpus(1, two), (std::vector<int>{0}));
  EXPECT_EQ(errorOf(selectGpus(3, two)),
            "--gpus 3: this host has 2 GPUs (ordinals 0-1, within CUDA_VISIBLE_DEVICES if "
            "set); use --gpus 2 or --gpus all");
  EXPECT_EQ(errorOf(selectGpus(2, {"NVIDIA H200"})),
            "--gpus 2: this host has 1 GPU (ordinal 0, within CUDA_VISIBLE_DEVICES if set); "
            "use --gpus 1 or --gpus all");
  std::vector<std::string> mixed = {"NVIDIA H200", "NVIDIA H200", "NVIDIA H100"};
  EXPECT_EQ(*selectGpus(2, mixed), (std::vector<int>{0, 1})); // the H100 is not used
  EXPECT_NE(errorOf(selectGpus(0, mixed)).find("GPU 2 is a NVIDIA H100 but GPU 0 is a NVIDIA "
                                               "H200; a tune times on one kind of GPU"),
            std::string::npos);
  EXPECT_EQ(describeGpus({0}), "GPU 0");
  EXPECT_EQ(describeGpus({0, 1, 2}), "GPUs 0-2");
}

namespace {

/// A tune of 8 candidates with a fake timer on `gpus`; GPU g's calls take
/// (gpus - g) x 30 ms, so lower ordinals finish later.
struct FakeTune {
  std::vector<int> gpus;
  std::atomic<int> running{0}, maxRunning{0};
  std::mutex mu;
  std::vector<std::string> finishOrder;
  std::set<int> used;

  llvm::Expected<TuneResult> run(ResultsDB &db, std::vector<std::string> *log) {
    TuneConfig cfg;
    cfg.basePath = std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/01_ws_1consumer.yaml";
    cfg.baseYaml = readFile(cfg.basePath);
    cfg.shape = ShapeKey{"Fake GPU", 13000, 2048, 2048, 2048, "f16"};
    EXPECT_FALSE(bool(addSpaceArgs(cfg.space, {"pipeline.depth=3,4",
                                               "scheduler.raster=along_m,along_n",
                                               "epilogue.overlap=true,false"})));
    cfg.gpus = gpus;
    cfg.host = "test-host";
    TuneHooks hooks;
    hooks.compile = [](const CandidateState &) {
      CompileOutcome o;
      o.ok = true;
      return o;
    };
    hooks.log = [log](const std::string &s) { log->push_back(s); };
    hooks.measure = [this](const CandidateState &c, int gpu) {
      int now = ++running;
      for (int m = maxRunning; now > m && !maxRunning.compare_exchange_weak(m, now);)
        ;
      std::this_thread::sleep_for(std::chrono::milliseconds(30 * ((int)gpus.size() - gpu)));
      {
        std::lock_guard<std::mutex> lock(mu);
        finishOrder.push_back(c.cand.id);
        used.insert(gpu);
      }
      --running;
      Measurement m;
      m.msMedian = 0.02 + 0.001 * (double)c.cand.index; // the first is the best
      m.baselineMs = 0.03;
      m.seed = 100 + c.cand.index;
      m.gpuOrdinal = gpu;
      return m;
    };
    return runTune(cfg, db, hooks);
  }
};

/// The DB's record lines without "date" and "gpu_ordinal".
std::vector<std::string> contentOf(const std::string &path) {
  auto db = ResultsDB::open(path);
  EXPECT_TRUE(bool(db));
  std::vector<std::string> out;
  for (Record r : db->all()) {
    r.date.clear();
    r.gpuOrdinal = 0;
    out.push_back(r.toJson());
  }
  return out;
}

} // namespace

TEST(TuneGpus, ThreeGpusTimeAtOnceAndTheDbIsInCandidateOrder) {
  TempDir dir;
  std::vector<std::string> log3, log1;
  FakeTune three;
  three.gpus = {0, 1, 2};
  {
    auto db = ResultsDB::open(dir.file("three.jsonl"));
    auto r = three.run(*db, &log3);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->measured, 8u);
    ASSERT_TRUE(r->best);
    EXPECT_EQ(r->best->candidate, r->candidates[0].cand.id);
  }
  EXPECT_EQ(three.used, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(three.maxRunning.load(), 3) << "the GPUs did not time at the same time";
  std::vector<std::string> started;
  auto db3 = ResultsDB::open(dir.file("three.jsonl"));
  for (const Record &r : db3->all())
    started.push_back(r.candidate);
  EXPECT_NE(three.finishOrder, started) << "the fake timer should finish out of order";
  std::set<int> ordinals;
  for (const Record &r : db3->all()) {
    ordinals.insert(r.gpuOrdinal);
    EXPECT_EQ(r.host, "test-host");
  }
  EXPECT_EQ(ordinals, (std::set<int>{0, 1, 2}));

  FakeTune one;
  one.gpus = {0};
  {
    auto db = ResultsDB::open(dir.file("one.jsonl"));
    auto r = one.run(*db, &log1);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  }
  EXPECT_EQ(one.maxRunning.load(), 1);
  EXPECT_EQ(contentOf(dir.file("three.jsonl")), contentOf(dir.file("one.jsonl")));
  // Progress in candidate order too, with the GPU named only when there are several.
  std::vector<std::string> p3, p1;
  for (const std::string &l : log3)
    if (l.rfind("[", 0) == 0)
      p3.push_back(l.substr(0, 5));
  for (const std::string &l : log1)
    if (l.rfind("[", 0) == 0) {
      p1.push_back(l.substr(0, 5));
      EXPECT_EQ(l.find(" on GPU "), std::string::npos) << l;
    }
  EXPECT_EQ(p3, p1);
  EXPECT_EQ(p3.front(), "[1/8]");
  EXPECT_EQ(p3.back(), "[8/8]");
}

TEST(TuneGpus, ADbWriteErrorStopsEveryGpuAndIsReturned) {
  TempDir dir;
  // A DB path under a regular file cannot be created.
  { std::error_code ec; llvm::raw_fd_ostream(dir.file("file"), ec) << "x"; }
  auto db = ResultsDB::open(dir.file("file") + "/db.jsonl");
  ASSERT_TRUE(bool(db));
  std::vector<std::string> log;
  FakeTune t;
  t.gpus = {0, 1};
  auto r = t.run(*db, &log);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("cannot"), std::string::npos);
  // Each GPU finishes the candidate it has; none starts the rest of the 8.
  EXPECT_LT(t.finishOrder.size(), 8u) << "GPUs went on timing after the DB failed";
}

//===- SimulatorStreamKTest.cpp - The simulator on stream-K kernels -------===//
//
// specs/sm90/18_streamk_f16.yaml (scheduler.kind: stream_k): the shares the
// simulator walks are tile_schedule.cuh's (every k-block iteration of every
// unit exactly once, a share starting inside a unit only with its first
// segment), the hand-over simulates clean on shapes with two- and three-way
// splits, whole data-parallel waves before the shared ones, K = 0, batches
// and beta, and protocol mistakes made by changing the
// lowered kernel are caught: no store_partial is a deadlock naming the wait,
// no add_partials flags left set for the next launch, a partial sum stored
// while its MMAs run a race.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Simulator.h"
#include "gemmgen/device/tile_schedule.cuh"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace gemmgen;
using namespace gemmgen::ir;
using gemmgen::testing::specText;
using gemmgen::testing::withEdit;

namespace {

Kernel streamKKernel() {
  const std::string path =
      (std::filesystem::path(GEMMGEN_SOURCE_DIR) / "specs" / "sm90" / "18_streamk_f16.yaml")
          .string();
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpecFile(path, diags);
  EXPECT_TRUE(spec && checkSpec(*spec, diags)) << path;
  EXPECT_TRUE(spec && spec->scheduler.kind.value == SchedulerKind::StreamK);
  return spec ? lowerToIR(*spec) : Kernel();
}

SimulationResult run(const Kernel &k, unsigned m, unsigned n, unsigned kk, unsigned ctas,
                     unsigned seeds = 6, unsigned batch = 1, float beta = 0.0f) {
  SimulationOptions o;
  o.m = m, o.n = n, o.k = kk, o.ctas = ctas, o.seeds = seeds, o.batch = batch, o.beta = beta;
  return simulate(k, o);
}

std::string report(const SimulationResult &r) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printSimulationResult(r, os);
  return os.str();
}

bool removeFirst(std::vector<Op> &body, const std::function<bool(const Op &)> &pred) {
  for (size_t i = 0; i < body.size(); ++i) {
    if (pred(body[i])) {
      body.erase(body.begin() + i);
      return true;
    }
    if (removeFirst(body[i].body, pred))
      return true;
  }
  return false;
}

std::vector<Op> &consumerBody(Kernel &k) { return k.roles[1].body; }

struct Case {
  unsigned m, n, k, ctas, batch;
  float beta;
};

} // namespace

TEST(SimulatorStreamK, SharesCoverEveryIterationOnceAndHandOverOnlyFirst) {
  Kernel k = streamKKernel();
  // 3x2 tiles of 128x256, 5 k-blocks each: 30 iterations over 7 CTAs.
  SimulationResult r = run(k, 384, 512, 320, 7, 1);
  ASSERT_TRUE(r.ok()) << report(r);
  ASSERT_EQ(r.walks.size(), 7u);
  std::map<std::pair<unsigned, int>, int> seen; // (slot, k-block) -> times
  for (const std::vector<ScheduledUnit> &walk : r.walks) {
    for (size_t i = 0; i < walk.size(); ++i) {
      const ScheduledUnit &s = walk[i];
      ASSERT_LT(s.kBegin, s.kEnd);
      if (s.kBegin > 0) { // (no whole units here: 6 units for 7 CTAs are all shared)
        EXPECT_EQ(i, 0u) << "a share starts inside at most its first unit";
      }
      if (s.kEnd < 5) {
        EXPECT_EQ(i + 1, walk.size()) << "only a share's last unit ends early";
      }
      for (int kb = s.kBegin; kb < s.kEnd; ++kb)
        seen[{s.slot, kb}]++;
    }
  }
  EXPECT_EQ(seen.size(), 30u);
  for (const auto &[key, times] : seen)
    EXPECT_EQ(times, 1) << "slot " << key.first << " k-block " << key.second;
  // The kernels' own split: fewer units than CTAs, all shared; CTA c starts at 30 c / 7.
  EXPECT_EQ(schedule::sk_share_begin(3, 7, 6, 5), 12);
}

TEST(SimulatorStreamK, WholeWavesFirstThenTheLastWavesShared) {
  Kernel k = streamKKernel();
  // 3x4 = 12 tiles of 4 k-blocks on 5 CTAs: 2 whole waves and 2 tiles. The
  // first wave is data-parallel (CTA c takes tile c whole), the last whole
  // wave and the 2 left are shared: 7 x 4 = 28 iterations over 5 CTAs.
  SimulationResult r = run(k, 384, 1024, 256, 5, 2);
  ASSERT_TRUE(r.ok()) << report(r);
  EXPECT_EQ(schedule::sk_dp_waves(12, 5), 1);
  std::map<std::pair<unsigned, int>, int> seen;
  for (unsigned c = 0; c < 5; ++c) {
    const std::vector<ScheduledUnit> &walk = r.walks[c];
    ASSERT_FALSE(walk.empty());
    EXPECT_EQ(walk[0].slot, c);
    EXPECT_EQ(walk[0].kBegin, 0);
    EXPECT_EQ(walk[0].kEnd, 4);
    for (const ScheduledUnit &s : walk)
      for (int kb = s.kBegin; kb < s.kEnd; ++kb)
        seen[{s.slot, kb}]++;
  }
  EXPECT_EQ(seen.size(), 48u);
  for (const auto &[key, times] : seen)
    EXPECT_EQ(times, 1) << "slot " << key.first << " k-block " << key.second;
  EXPECT_EQ(schedule::sk_share_begin(0, 5, 12, 4), 20);
  EXPECT_EQ(schedule::sk_share_begin(5, 5, 12, 4), 48);
  // A whole number of waves: no shared region, every unit whole.
  EXPECT_EQ(schedule::sk_dp_waves(10, 5), 2);
  EXPECT_EQ(schedule::sk_share_begin(3, 5, 10, 4), 40);
}

TEST(SimulatorStreamK, HandOversSimulateClean) {
  Kernel k = streamKKernel();
  const Case cases[] = {
      {256, 512, 256, 5, 1, 0.0f},   // 4 tiles x 4 k-blocks over 5 CTAs
      {128, 256, 256, 3, 1, 0.0f},   // one tile split three ways
      {300, 700, 200, 19, 2, 0.0f},  // residues, two entries, 19 CTAs
      {1000, 300, 640, 17, 1, 0.5f}, // beta: C read by the finishing CTA only
      {256, 256, 0, 2, 1, 0.0f},     // K = 0: one empty iteration per tile
      {256, 256, 64, 2, 1, 0.0f},    // one k-block: nothing to hand over
      {384, 1024, 256, 5, 1, 0.5f},  // a whole wave, then the last two waves shared
      {640, 1024, 320, 3, 1, 0.0f},  // 20 tiles on 3 CTAs: 5 whole waves, then shared
  };
  for (const Case &c : cases) {
    SimulationResult r = run(k, c.m, c.n, c.k, c.ctas, 6, c.batch, c.beta);
    EXPECT_TRUE(r.ok()) << c.m << "x" << c.n << "x" << c.k << " on " << c.ctas << " CTAs\n"
                        << report(r);
  }
}

// The runtime's aligned grid (sk_grid_ctas): slots x S CTAs, each share one
// slice of one unit, every unit cut at the same k-blocks; each owner adds
// S - 1 partials. Simulated at the grids the launch picks.
TEST(SimulatorStreamK, AlignedSharesAreSlicesAndSimulateClean) {
  Kernel k = streamKKernel();
  struct Aligned {
    unsigned m, n, k, resident, split;
  };
  // 128x256 tiles of 64-deep k-blocks: 2x2 tiles x 16 k-blocks on 16 of 16
  // resident (4 shares a tile), 1x3 x 12 on 9 of 12 (3), 3x1 x 16 on 6 of 8 (2).
  const Aligned cases[] = {{256, 512, 1024, 16, 4}, {128, 768, 768, 12, 3}, {384, 256, 1024, 8, 2}};
  for (const Aligned &c : cases) {
    const long long slots = (c.m + 127) / 128 * ((c.n + 255) / 256), kBlocks = c.k / 64;
    ASSERT_EQ(schedule::sk_aligned_split(slots, kBlocks, c.resident), c.split) << c.m;
    const unsigned ctas = (unsigned)schedule::sk_grid_ctas(slots, kBlocks, c.resident);
    ASSERT_EQ(ctas, slots * c.split);
    SimulationResult r = run(k, c.m, c.n, c.k, ctas, 6, 1, 0.5f);
    ASSERT_TRUE(r.ok()) << c.m << "x" << c.n << "x" << c.k << " on " << ctas << " CTAs\n"
                        << report(r);
    const int per = int(kBlocks / c.split);
    for (unsigned cta = 0; cta < ctas; ++cta) {
      ASSERT_EQ(r.walks[cta].size(), 1u) << "CTA " << cta;
      const ScheduledUnit &s = r.walks[cta][0];
      EXPECT_EQ(s.slot, cta / c.split);
      EXPECT_EQ(s.kBegin, int(cta % c.split) * per);
      EXPECT_EQ(s.kEnd, int(cta % c.split + 1) * per);
    }
  }
}

// More CTAs than k-block iterations is no launch the runtime makes (each CTA
// has at least one iteration): the simulator says so instead of reporting
// the deadlock such a grid would have.
TEST(SimulatorStreamK, MoreCtasThanIterationsIsInvalid) {
  Kernel k = streamKKernel();
  // 128x256 tiles: 128x256x640 is one unit of 10 k-blocks.
  SimulationResult r = run(k, 128, 256, 640, 12, 1);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].verdict, SimVerdict::Invalid);
  EXPECT_NE(r.runs[0].message.find("--ctas 12: a stream-K launch has at most one CTA per "
                                   "k-block iteration (10 here: 1 unit(s) x 10 k-blocks)"),
            std::string::npos)
      << r.runs[0].message;
  EXPECT_TRUE(run(k, 128, 256, 640, 10, 2).ok());
}

// A column-major D (layout.d: col): the partial sums are handed over in the
// accumulators' order and added in registers, so only the store after them is
// transposed. Spec 18 with D column-major, hybrid and aligned grids, beta.
TEST(SimulatorStreamK, ColumnMajorDSimulatesClean) {
  const std::string yaml =
      withEdit(specText("sm90/18_streamk_f16.yaml"), "layout: { a: row, b: col }",
               "layout: { a: row, b: col, d: col }");
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpec(yaml, "18_streamk_f16 with d: col", diags);
  ASSERT_TRUE(spec);
  ASSERT_TRUE(checkSpec(*spec, diags));
  ASSERT_EQ(spec->layout.d.value, MatrixLayout::Col);
  const Kernel k = lowerToIR(*spec);
  const Case cases[] = {
      {256, 512, 256, 5, 1, 0.0f},   // 4 tiles x 4 k-blocks over 5 CTAs
      {300, 700, 200, 19, 1, 0.5f},  // residues and beta
      {256, 512, 1024, 16, 1, 0.5f}, // the aligned grid: 4 shares a tile
      {384, 1024, 256, 5, 2, 0.0f},  // a whole wave, then shared; two entries
  };
  for (const Case &c : cases) {
    SimulationResult r = run(k, c.m, c.n, c.k, c.ctas, 6, c.batch, c.beta);
    EXPECT_TRUE(r.ok()) << c.m << "x" << c.n << "x" << c.k << " on " << c.ctas << " CTAs\n"
                        << report(r);
  }
}

// The first k-blocks of each CTA's first step are loaded before its barrier
// (KernelPlan::earlyLoads), from the step's own first k-block: without their
// advance every early k-block lands in the ring's first stage.
TEST(SimulatorStreamKBugs, EarlyLoadsWithoutTheirAdvance) {
  Kernel k = streamKKernel();
  std::vector<Op> &producer = k.roles[0].body;
  ASSERT_FALSE(producer.empty());
  ASSERT_EQ(producer.front().kind, OpKind::EarlyLoads);
  ASSERT_TRUE(
      removeFirst(producer.front().body, [](const Op &op) { return op.kind == OpKind::Advance; }));
  // 256x512x1024 on 16 CTAs: 4 shares of 4 tiles, each starting at its own k-block.
  SimulationResult r = run(k, 256, 512, 1024, 16);
  EXPECT_FALSE(r.ok()) << report(r);
  EXPECT_NE(report(r).find("loaded early"), std::string::npos) << report(r);
}

TEST(SimulatorStreamKBugs, NoStorePartialDeadlocksTheFinishingCta) {
  Kernel k = streamKKernel();
  ASSERT_TRUE(removeFirst(consumerBody(k),
                          [](const Op &op) { return op.kind == OpKind::StorePartial; }));
  SimulationResult r = run(k, 256, 512, 256, 5, 4);
  ASSERT_FALSE(r.ok()) << report(r);
  for (const SeedResult &s : r.runs)
    EXPECT_EQ(s.verdict, SimVerdict::Deadlock) << s.message;
  std::string all = r.firstFailure()->message;
  for (const std::string &d : r.firstFailure()->details)
    all += "\n" + d;
  EXPECT_NE(all.find("waits for the partial sum of CTA"), std::string::npos) << all;
}

// Without add_partials D is wrong, and first the later shares' flags stay 1: the next launch
// (which does not zero them) would take them for new partial sums.
TEST(SimulatorStreamKBugs, NoAddPartialsLeavesTheFlagsSet) {
  Kernel k = streamKKernel();
  ASSERT_TRUE(removeFirst(consumerBody(k),
                          [](const Op &op) { return op.kind == OpKind::AddPartials; }));
  SimulationResult r = run(k, 256, 512, 256, 5, 4);
  ASSERT_FALSE(r.ok()) << report(r);
  for (const SeedResult &s : r.runs) {
    EXPECT_EQ(s.verdict, SimVerdict::Race) << s.message;
    EXPECT_NE(s.message.find("released its partial sum's flag and no CTA took it"),
              std::string::npos)
        << s.message;
  }
}

TEST(SimulatorStreamKBugs, PartialSumStoredWhileItsMmasRun) {
  Kernel k = streamKKernel();
  // The drain after the k-loop (if_any_k { mma_wait 0 ... }).
  ASSERT_TRUE(removeFirst(consumerBody(k), [](const Op &op) {
    return op.kind == OpKind::MmaWait && op.count == 0;
  }));
  SimulationResult r = run(k, 256, 512, 256, 5, 12);
  ASSERT_FALSE(r.ok()) << report(r);
  EXPECT_EQ(r.firstFailure()->verdict, SimVerdict::Race) << r.firstFailure()->message;
}

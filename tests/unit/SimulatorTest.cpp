//===- SimulatorTest.cpp - The CPU simulator and the seeded protocol bugs --===//
//
// Two halves:
//   - IR-level tests: lower a good spec built in C++, optionally break the
//     protocol by mutating the ir::Kernel, simulate, and check the verdict.
//   - The seeded-bug table (tests/sim_bugs/*.yaml): each spec names its
//     expected verdict in header comments; parsed with protocol checks off.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {

struct Config {
  unsigned tileM = 128, tileN = 128, tileK = 64;
  unsigned clusterM = 1;
  unsigned consumers = 1;
  unsigned depth = 4;
  unsigned inFlight = 1;
  bool overlap = true;
  EpilogueStore store = EpilogueStore::Tma;
  RasterOrder raster = RasterOrder::AlongM;
  bool grouped = false; ///< scheduler.grouped: a table of problems
  unsigned chunkN = 0, epilogueBuffers = 1; ///< epilogue.chunk_n, epilogue.buffers
};

Kernel lowerConfig(const Config &c) {
  KernelSpec s;
  s.kernel.value = "sim_test";
  s.tile.m.value = c.tileM;
  s.tile.n.value = c.tileN;
  s.tile.k.value = c.tileK;
  s.cluster.m.value = c.clusterM;
  s.consumers.value = c.consumers;
  s.pipeline.depth.value = c.depth;
  s.pipeline.mmaInFlight.value = c.inFlight;
  s.epilogue.overlap.value = c.overlap;
  s.epilogue.store.value = c.store;
  s.scheduler.raster.value = c.raster;
  s.scheduler.grouped.value = c.grouped;
  s.epilogue.chunkN.value = c.chunkN;
  s.epilogue.buffers.value = c.epilogueBuffers;
  return lowerToIR(s);
}

SimulationResult run(const Kernel &k, unsigned m, unsigned n, unsigned kk, unsigned seeds = 8,
                     unsigned ctas = 0) {
  SimulationOptions o;
  o.m = m;
  o.n = n;
  o.k = kk;
  o.seeds = seeds;
  o.ctas = ctas;
  return simulate(k, o);
}

std::string report(const SimulationResult &r) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printSimulationResult(r, os);
  return os.str();
}

/// Every op of `role` (recursively) for which `pred` holds.
void forOps(std::vector<Op> &body, const std::function<void(Op &)> &f) {
  for (Op &op : body) {
    f(op);
    forOps(op.body, f);
  }
}

/// Removes the first op (depth first) for which `pred` holds.
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

Role &role(Kernel &k, const std::string &name) {
  for (Role &r : k.roles)
    if (r.name == name)
      return r;
  ADD_FAILURE() << "no role " << name;
  return k.roles[0];
}

Barrier &barrier(Kernel &k, const std::string &name) {
  for (Barrier &b : k.barriers)
    if (b.name == name)
      return b;
  ADD_FAILURE() << "no barrier " << name;
  return k.barriers[0];
}

/// Every failing seed has one of `verdicts`, at least one seed fails, and
/// the first failure's message contains `substring`.
void expectCaught(const SimulationResult &r, std::set<SimVerdict> verdicts,
                  const std::string &substring) {
  ASSERT_FALSE(r.ok()) << report(r);
  for (const SeedResult &s : r.runs) {
    if (s.verdict != SimVerdict::Ok) {
      EXPECT_TRUE(verdicts.count(s.verdict)) << "seed " << s.seed << ": " << s.message;
    }
  }
  const SeedResult *f = r.firstFailure();
  std::string all = f->message;
  for (const std::string &d : f->details)
    all += "\n" + d;
  EXPECT_NE(all.find(substring), std::string::npos) << report(r);
}

/// Every seed fails, and each failure's message is, whole, the line given for
/// its verdict (an ECMAScript regex: the numbers that vary by seed as \d+).
void expectEveryFailure(const SimulationResult &r,
                        const std::map<SimVerdict, std::string> &messages) {
  ASSERT_EQ(r.failures(), r.runs.size()) << report(r);
  for (const SeedResult &s : r.runs) {
    auto it = messages.find(s.verdict);
    if (it == messages.end()) {
      ADD_FAILURE() << "seed " << s.seed << ": unexpected " << toString(s.verdict) << ": "
                    << s.message;
      continue;
    }
    EXPECT_TRUE(std::regex_match(s.message, std::regex(it->second)))
        << "seed " << s.seed << ": " << s.message << "\n  expected: " << it->second;
  }
}

/// The first failure's details include `line`.
void expectDetail(const SimulationResult &r, const std::string &line) {
  const SeedResult *f = r.firstFailure();
  ASSERT_NE(f, nullptr);
  std::string all;
  for (const std::string &d : f->details)
    all += d + "\n";
  EXPECT_NE(all.find(line), std::string::npos) << all;
}

//===----------------------------------------------------------------------===//
// Correct kernels simulate clean
//===----------------------------------------------------------------------===//

struct Shape {
  unsigned m, n, k;
};

void expectClean(const Config &c, const std::vector<Shape> &shapes, unsigned seeds = 6) {
  Kernel k = lowerConfig(c);
  for (const Shape &s : shapes) {
    SimulationResult r = run(k, s.m, s.n, s.k, seeds);
    EXPECT_TRUE(r.ok()) << s.m << "x" << s.n << "x" << s.k << "\n" << report(r);
  }
}

TEST(Simulator, OneConsumerClean) {
  expectClean({}, {{256, 256, 256}, {200, 136, 72}, {130, 70, 40}, {512, 128, 64}});
}

TEST(Simulator, TwoConsumersClean) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  expectClean(c, {{256, 256, 256}, {200, 136, 72}, {384, 300, 100}});
}

TEST(Simulator, ClusterTwoMulticastClean) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  c.clusterM = 2;
  expectClean(c, {{512, 256, 256}, {200, 136, 72}, {300, 520, 130}});
}

TEST(Simulator, VariantsClean) {
  Config noOverlap;
  noOverlap.overlap = false;
  Config direct;
  direct.store = EpilogueStore::Direct;
  Config serial;
  serial.inFlight = 0;
  serial.depth = 2;
  Config alongN;
  alongN.raster = RasterOrder::AlongN;
  alongN.depth = 3;
  for (const Config &c : {noOverlap, direct, serial, alongN})
    expectClean(c, {{256, 384, 192}, {200, 136, 72}});
}

TEST(Simulator, DepthOneWithoutMmaInFlightIsClean) {
  Config c;
  c.depth = 1;
  c.inFlight = 0;
  expectClean(c, {{256, 256, 256}});
}

TEST(Simulator, ReproducibleFromSeed) {
  Kernel k = lowerConfig({});
  Role &producer = role(k, "producer");
  producer.states[0].initialPhase = 0;
  SimulationResult a = run(k, 256, 256, 256, 3), b = run(k, 256, 256, 256, 3);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(a.runs[i].message, b.runs[i].message);
    EXPECT_EQ(a.runs[i].steps, b.runs[i].steps);
  }
}

TEST(Simulator, ZeroKStoresZeros) {
  // K = 0: no k-block, no MMA; the consumer zeroes its accumulators
  // (if_no_k { zero_acc }) and D, poisoned with NaN, must be all zeros.
  Config twoConsumers;
  twoConsumers.tileN = 256;
  twoConsumers.consumers = 2;
  Config cluster = twoConsumers;
  cluster.clusterM = 2;
  Config direct;
  direct.store = EpilogueStore::Direct;
  Config serial;
  serial.inFlight = 0;
  Config noOverlap;
  noOverlap.overlap = false;
  for (const Config &c : {Config{}, twoConsumers, cluster, direct, serial, noOverlap}) {
    Kernel k = lowerConfig(c);
    for (const Shape &s : {Shape{256, 256, 0}, Shape{200, 136, 0}}) {
      SimulationResult r = run(k, s.m, s.n, s.k, 4);
      EXPECT_TRUE(r.ok()) << s.m << "x" << s.n << "x0\n" << report(r);
      EXPECT_EQ(r.kBlocks, 0u);
    }
  }
}

std::vector<ScheduledUnit> units(std::initializer_list<std::array<unsigned, 3>> list) {
  std::vector<ScheduledUnit> out;
  for (const auto &u : list)
    out.push_back({u[0], u[1], u[2]});
  return out;
}

std::string walkText(const std::vector<ScheduledUnit> &w) {
  std::string s;
  for (const ScheduledUnit &u : w)
    s += "#" + std::to_string(u.slot) + "(" + std::to_string(u.m) + "," + std::to_string(u.n) + ") ";
  return s;
}

TEST(Simulator, HilbertSpecIsSimulatedInHilbertOrder) {
  // 3 x 3 tiles of 128 x 128: the Hilbert curve over the 4 x 4 square is
  // (m, n) = (0,0) (1,0) (1,1) (0,1) (0,2) (0,3) (1,3) (1,2) (2,2) (2,3) (3,3)
  // (3,2) (3,1) (2,1) (2,0) (3,0); the slots outside 3 x 3 are holes.
  Config c;
  c.raster = RasterOrder::Hilbert;
  Kernel k = lowerConfig(c);
  SimulationResult one = run(k, 384, 384, 128, 4, /*ctas=*/1);
  EXPECT_TRUE(one.ok()) << report(one);
  ASSERT_EQ(one.walks.size(), 1u);
  EXPECT_EQ(one.walks[0], units({{0, 0, 0}, {1, 1, 0}, {2, 1, 1}, {3, 0, 1}, {4, 0, 2},
                                 {7, 1, 2}, {8, 2, 2}, {13, 2, 1}, {14, 2, 0}}))
      << walkText(one.walks[0]);
  // Two clusters take alternate slots, each skipping its own holes, as the
  // kernel's loop does (unit = cluster_id; unit < slots; unit += clusters).
  SimulationResult two = run(k, 384, 384, 128, 4, /*ctas=*/2);
  EXPECT_TRUE(two.ok()) << report(two);
  ASSERT_EQ(two.walks.size(), 2u);
  EXPECT_EQ(two.walks[0], units({{0, 0, 0}, {2, 1, 1}, {4, 0, 2}, {8, 2, 2}, {14, 2, 0}}))
      << walkText(two.walks[0]);
  EXPECT_EQ(two.walks[1], units({{1, 1, 0}, {3, 0, 1}, {7, 1, 2}, {13, 2, 1}}))
      << walkText(two.walks[1]);
  // along_m (group 8) on the same grid walks down M first.
  Kernel alongM = lowerConfig({});
  SimulationResult m = run(alongM, 384, 384, 128, 1, /*ctas=*/1);
  ASSERT_EQ(m.walks.size(), 1u);
  EXPECT_EQ(m.walks[0], units({{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 0, 1}, {4, 1, 1}, {5, 2, 1},
                               {6, 0, 2}, {7, 1, 2}, {8, 2, 2}}))
      << walkText(m.walks[0]);
  // Residues in every dimension, several interleavings.
  SimulationResult residue = run(k, 300, 200, 72, 6);
  EXPECT_TRUE(residue.ok()) << report(residue);
}

TEST(Simulator, BatchedWalkCoversEveryEntryOnce) {
  // 2 entries of 3 x 3 tiles (along_m, group 8), 2 clusters: the kernels'
  // loop takes slots c, c + 2, ... of 18; slot s is entry s / 9, unit s % 9
  // of that entry's walk. Every (entry, m, n) is computed exactly once, and
  // each entry's D is checked against its own A and B.
  Kernel k = lowerConfig({});
  SimulationOptions o;
  o.m = 384, o.n = 384, o.k = 128, o.seeds = 4, o.ctas = 2, o.batch = 2;
  SimulationResult r = simulate(k, o);
  EXPECT_TRUE(r.ok()) << report(r);
  EXPECT_EQ(r.batch, 2u);
  ASSERT_EQ(r.walks.size(), 2u);
  std::set<std::array<unsigned, 3>> seen;
  for (unsigned c = 0; c < 2; ++c)
    for (const ScheduledUnit &u : r.walks[c]) {
      EXPECT_EQ(u.slot % 2, c) << walkText(r.walks[c]);
      EXPECT_EQ(u.entry, u.slot / 9) << walkText(r.walks[c]);
      EXPECT_TRUE(seen.insert({u.entry, u.m, u.n}).second) << "computed twice: " << u.slot;
    }
  EXPECT_EQ(seen.size(), 18u);
  // Residues in every dimension, K = 0, and three entries on one CTA (the
  // ring wraps across entries as it does across tiles).
  for (auto [m, n, kk, ctas] : {std::array<unsigned, 4>{300, 200, 72, 0}, {129, 257, 0, 0},
                                {200, 136, 136, 1}}) {
    o.m = m, o.n = n, o.k = kk, o.ctas = ctas, o.batch = 3;
    SimulationResult b = simulate(k, o);
    EXPECT_TRUE(b.ok()) << m << "x" << n << "x" << kk << " batch 3\n" << report(b);
  }
  // Batch 1 walks as before: no entry but 0.
  o.batch = 1, o.m = 384, o.n = 384, o.k = 128, o.ctas = 2;
  for (const auto &w : simulate(k, o).walks)
    for (const ScheduledUnit &u : w)
      EXPECT_EQ(u.entry, 0u);
}

TEST(Simulator, GridWrapsAcrossTiles) {
  // One CTA walks all 8 tiles: the ring's phases carry across tiles.
  Kernel k = lowerConfig({});
  SimulationResult r = run(k, 512, 256, 320, 4, /*ctas=*/1);
  EXPECT_TRUE(r.ok()) << report(r);
  EXPECT_EQ(r.ctas, 1u);
}

TEST(Simulator, EarlyLoadsStartTheFirstTile) {
  // KernelPlan::earlyLoads puts early_loads first in the producer's body: the
  // first tile's first min(k-blocks, depth) k-blocks, without their waits;
  // the for_k of that tile starts after them. Not where the producer's loads
  // are split across a cluster (multicast); stream-K's: SimulatorStreamKTest.
  Kernel k = lowerConfig({});
  const Role &producer = role(k, "producer");
  ASSERT_EQ(producer.body.size(), 2u);
  const Op &early = producer.body[0];
  ASSERT_EQ(early.kind, OpKind::EarlyLoads);
  EXPECT_EQ(early.state, "load");
  std::vector<OpKind> kinds;
  for (const Op &op : early.body)
    kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::ArriveExpectTx, OpKind::TmaLoad, OpKind::TmaLoad,
                                        OpKind::Advance}));
  EXPECT_EQ(producer.body[1].kind, OpKind::ForEachTile);
  Config cluster;
  cluster.tileN = 256, cluster.consumers = 2, cluster.clusterM = 2;
  EXPECT_NE(lowerConfig(cluster).roles[0].body[0].kind, OpKind::EarlyLoads);
  // Fewer k-blocks than stages (1, 2), as many (4), more (5, 9); K = 0; one
  // CTA walking every tile; CTAs without a tile.
  Kernel early4 = lowerConfig({});
  for (auto [m, n, kk, ctas] :
       {std::array<unsigned, 4>{256, 256, 64, 0}, {256, 256, 128, 0}, {256, 256, 256, 0},
        {200, 136, 320, 0}, {256, 256, 576, 1}, {129, 257, 0, 0}, {128, 128, 192, 3}}) {
    SimulationResult r = run(early4, m, n, kk, 6, ctas);
    EXPECT_TRUE(r.ok()) << m << "x" << n << "x" << kk << " ctas " << ctas << "\n" << report(r);
  }
  // A walk that starts in a hole loads nothing early (the kernels' first slot
  // is the cluster's index): Hilbert over 3 x 3 tiles on 7 CTAs gives CTA 6
  // slots 6 (a hole) and 13.
  Config hilbert;
  hilbert.raster = RasterOrder::Hilbert;
  SimulationResult h = run(lowerConfig(hilbert), 384, 384, 320, 6, /*ctas=*/7);
  EXPECT_TRUE(h.ok()) << report(h);
  ASSERT_EQ(h.walks.size(), 7u);
  EXPECT_EQ(h.walks[6], units({{13, 2, 1}})) << walkText(h.walks[6]);
}

//===----------------------------------------------------------------------===//
// Seeded protocol bugs, by IR mutation
//===----------------------------------------------------------------------===//

TEST(SimulatorBugs, BothEndsStartAtPhaseZero) {
  Kernel k = lowerConfig({});
  role(k, "producer").states[0].initialPhase = 0; // empty barrier waiter
  // A declared phase 0 gets no early loads (KernelPlan::earlyLoads): its
  // first waits are the ones that hang.
  ASSERT_TRUE(removeFirst(role(k, "producer").body,
                          [](const Op &op) { return op.kind == OpKind::EarlyLoads; }));
  SimulationResult r = run(k, 256, 256, 256);
  expectCaught(r, {SimVerdict::Deadlock}, "waits empty[0] for parity 0");
  const SeedResult *f = r.firstFailure();
  std::string all;
  for (const std::string &d : f->details)
    all += d + "\n";
  EXPECT_NE(all.find("expected to arrive: CTA 0 consumer[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("it is blocked: waits full[0] for parity 0"), std::string::npos) << all;
}

TEST(SimulatorBugs, BothEndsStartAtPhaseOne) {
  Kernel k = lowerConfig({});
  role(k, "consumer").states[0].initialPhase = 1; // full barrier waiter
  // The consumer passes its first wait at once and reads a stage before it
  // lands, or before any load wrote it (race); in 3 of 200 seeds the
  // producer ends up waiting on an empty slot instead (deadlock).
  SimulationResult r = run(k, 256, 256, 256);
  expectEveryFailure(
      r, {{SimVerdict::Race,
           R"(race: CTA \d+ consumer\[0\]'s MMA \(tile \(m \d+, n \d+\) k-block \d+\) reads )"
           R"(smem[AB] stage \d+ of CTA \d+ )"
           R"((before the TMA load of [AB] \(tile \(m \d+, n \d+\) k-block \d+\) issued by )"
           R"(CTA \d+ producer\[0\] landed|row \d+, which holds data no TMA load has written )"
           R"(instead of tile #\d+ k-block \d+))"},
          {SimVerdict::Deadlock,
           R"(deadlock: \d+ of \d+ roles blocked, nothing in flight; CTA \d+ producer\[0\] )"
           R"(waits empty\[\d+\] for parity [01] \(barrier in phase \d+, 1/1 arrivals missing\))"}});
  // Each race kind names its cause (which one comes first depends on the
  // seed: the early loads may not have been issued yet, or not landed).
  const bool notLanded = r.firstFailure()->message.find("landed") != std::string::npos;
  expectDetail(r, notLanded ? "the consumer passed its wait on the full barrier before the "
                              "stage's bytes arrived"
                            : "the stage was not loaded for this k-block when the MMA read it");
}

TEST(SimulatorBugs, EmptyBarrierOneArrivalTwoConsumers) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  Kernel k = lowerConfig(c);
  barrier(k, "empty").arriveCount = 1;
  expectCaught(run(k, 256, 512, 512, 12), {SimVerdict::Race, SimVerdict::OverArrival},
               "empty");
}

TEST(SimulatorBugs, ClusterEmptyBarrierCountsOneCta) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  c.clusterM = 2;
  Kernel k = lowerConfig(c);
  barrier(k, "empty").arriveCount = 2; // forgets the peer CTA's consumers
  SimulationResult r = run(k, 512, 256, 512, 12);
  expectEveryFailure(
      r, {{SimVerdict::OverArrival,
           R"(over-arrival: empty\[\d+\] of CTA [01] completed phase \d+ after 2 arrival\(s\), )"
           R"(its arrival count, but 4 roles arrive on it every phase)"}});
  expectDetail(r, "roles that arrive on empty in CTA 0: CTA 0 consumer[0], CTA 0 consumer[1], "
                  "CTA 1 consumer[0], CTA 1 consumer[1]");
  expectDetail(r, "set the barrier's arrivals to 4");
}

TEST(SimulatorBugs, TxForgetsPeerMulticastBytes) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  c.clusterM = 2;
  Kernel k = lowerConfig(c);
  unsigned own = (128 + 256 / 2) * 64 * 2;
  barrier(k, "full").txBytes = own;
  forOps(role(k, "producer").body, [&](Op &op) {
    if (op.kind == OpKind::ArriveExpectTx)
      op.txBytes = own;
  });
  // The phase completes after this CTA's A and its own half of B, before
  // the peer's multicast half of B landed (all of 200 seeds say so).
  SimulationResult r = run(k, 512, 256, 256, 12);
  expectEveryFailure(
      r, {{SimVerdict::TxUnderflow,
           "tx underflow: full\\[\\d+\\] of CTA [01] completed phase \\d+ after the " +
               std::to_string(own) + " bytes expect_tx announced, but the TMA loads of one " +
               "phase write " + std::to_string((128 + 256) * 64 * 2) +
               " bytes into this CTA"}});
  expectDetail(r, "count every copy that signals this barrier, including the peer CTA's "
                  "multicast");
}

TEST(SimulatorBugs, TxTooLargeHangs) {
  Kernel k = lowerConfig({});
  forOps(role(k, "producer").body, [&](Op &op) {
    if (op.kind == OpKind::ArriveExpectTx)
      op.txBytes += 1024;
  });
  expectCaught(run(k, 256, 256, 256, 4), {SimVerdict::TxOverflow}, "1024 transaction byte(s)");
}

TEST(SimulatorBugs, ReleaseSignalledToOneCta) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  c.clusterM = 2;
  Kernel k = lowerConfig(c);
  forOps(role(k, "consumer").body, [&](Op &op) {
    if (op.kind == OpKind::Arrive)
      op.scope = CtaScope::Local; // the peer's producer never hears
  });
  expectCaught(run(k, 512, 256, 512, 4), {SimVerdict::Deadlock}, "2/4 arrivals missing");
}

TEST(SimulatorBugs, TwoConsumersShareOneNamedBarrier) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  Kernel k = lowerConfig(c);
  barrier(k, "epilogue").slots = 1; // both groups on id 1, 128 threads each
  expectCaught(run(k, 256, 256, 128, 4), {SimVerdict::Race}, "is shared by");
}

TEST(SimulatorBugs, NamedBarrierCountsBothGroupsWithOwnIds) {
  Config c;
  c.tileN = 256;
  c.consumers = 2;
  Kernel k = lowerConfig(c);
  barrier(k, "epilogue").namedThreads = 256; // each id only ever sees 128
  expectCaught(run(k, 256, 256, 128, 4), {SimVerdict::Deadlock}, "128 of 256 threads");
}

TEST(SimulatorBugs, ZeroKWithoutZeroAcc) {
  // K = 0 runs no MMA, and only a tile's first MMA overwrites the
  // accumulators: without if_no_k { zero_acc } store_acc stores what the
  // registers held (never written: NaN in the simulator).
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body,
                          [](const Op &op) { return op.kind == OpKind::IfNoK; }));
  SimulationResult r = run(k, 256, 256, 0, 4);
  expectEveryFailure(r, {{SimVerdict::WrongResult,
                          R"(wrong result: tile \(m 0, n 0\) element \[0, 0\]: got nan, want 0)"}});
  expectDetail(r, "acc of CTA 0 was not written by any MMA in tile (m 0, n 0) (0 k-block(s)): "
                  "store_acc wrote stale or uninitialised registers");
}

SimulationResult runAlphaBeta(const Kernel &k, unsigned m, unsigned n, unsigned kk,
                              unsigned seeds, float alpha, float beta) {
  SimulationOptions o;
  o.m = m, o.n = n, o.k = kk, o.seeds = seeds, o.alpha = alpha, o.beta = beta;
  return simulate(k, o);
}

TEST(Simulator, AlphaBetaWithCClean) {
  // D = alpha·A·B + beta·C: C's chunk is loaded into the staging tile
  // (if_beta { arm, tma_load C, wait, advance }), store_acc combines and
  // overwrites it. Every variant, residues, K = 0 (D = beta·C), batches.
  Config twoConsumers;
  twoConsumers.tileN = 256;
  twoConsumers.consumers = 2;
  Config cluster = twoConsumers;
  cluster.clusterM = 2;
  Config noOverlap;
  noOverlap.overlap = false;
  for (const Config &c : {Config{}, twoConsumers, cluster, noOverlap}) {
    Kernel k = lowerConfig(c);
    for (auto [m, n, kk] : {std::array<unsigned, 3>{256, 256, 128}, {300, 200, 72}, {129, 257, 0}}) {
      SimulationResult r = runAlphaBeta(k, m, n, kk, 4, 0.5f, 0.25f);
      EXPECT_TRUE(r.ok()) << m << "x" << n << "x" << kk << "\n" << report(r);
    }
    // beta = 0 skips the C path; alpha alone scales.
    EXPECT_TRUE(runAlphaBeta(k, 256, 256, 128, 2, -2.0f, 0.0f).ok());
  }
}

TEST(SimulatorBugs, StoreAccReadsCBeforeItLanded) {
  // Without the wait on cload, store_acc reads the staging tile while C's
  // TMA load still writes it.
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body, [](const Op &op) {
    return op.kind == OpKind::Wait && op.barrier == "cload";
  }));
  expectCaught(runAlphaBeta(k, 256, 256, 128, 8, 1.0f, 1.0f), {SimVerdict::Race},
               "reads C from smemD");
}

TEST(SimulatorBugs, CNeverLoaded) {
  // Without if_beta, store_acc combines whatever the staging tile held (the
  // previous chunk's D, or never-written NaN) instead of C.
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body,
                          [](const Op &op) { return op.kind == OpKind::IfBeta; }));
  expectCaught(runAlphaBeta(k, 256, 256, 128, 2, 1.0f, 1.0f), {SimVerdict::WrongResult},
               "wrong result");
  // With beta = 0 that kernel is right: the bug only shows where C is read.
  EXPECT_TRUE(runAlphaBeta(k, 256, 256, 128, 2, 1.0f, 0.0f).ok());
}

TEST(SimulatorBugs, CLoadNeverArmed) {
  // The C load's bytes arrive on a barrier nobody armed: its phase never
  // completes and the consumer waits forever.
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body, [](const Op &op) {
    return op.kind == OpKind::ArriveExpectTx && op.barrier == "cload";
  }));
  expectCaught(runAlphaBeta(k, 256, 256, 128, 4, 1.0f, 1.0f),
               {SimVerdict::Deadlock, SimVerdict::TxOverflow}, "cload");
}

TEST(SimulatorBugs, PipelineDepthOne) {
  Config c;
  c.depth = 1;
  Kernel k = lowerConfig(c);
  expectCaught(run(k, 256, 256, 256, 4), {SimVerdict::Deadlock}, "waits");
}

TEST(SimulatorBugs, ArrivalsLargerThanNeeded) {
  Kernel k = lowerConfig({});
  barrier(k, "empty").arriveCount = 2; // one consumer arrives
  expectCaught(run(k, 256, 256, 512, 4), {SimVerdict::Deadlock}, "1/2 arrivals missing");
}

TEST(SimulatorBugs, AccumulatorReadWhileMmaInFlight) {
  Kernel k = lowerConfig({});
  // The drain after the k-loop (mma_wait 0) is the tile body's own MmaWait.
  std::vector<Op> &tile = role(k, "consumer").body[0].body;
  ASSERT_TRUE(removeFirst(tile, [](const Op &op) {
    return op.kind == OpKind::MmaWait && op.count == 0 && op.body.empty();
  }));
  expectCaught(run(k, 256, 256, 256, 8), {SimVerdict::Race}, "still");
}

TEST(SimulatorBugs, StagingRewrittenBeforeStoreFinished) {
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body[0].body,
                          [](const Op &op) { return op.kind == OpKind::TmaStoreWait; }));
  // One CTA walks four tiles, so the staging tile is reused.
  expectCaught(run(k, 256, 256, 128, 12, 1), {SimVerdict::Race}, "smemD");
}

TEST(SimulatorBugs, EarlyLoadsWithoutTheirAdvance) {
  // Every early k-block would load into the ring's first stage.
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "producer").body[0].body,
                          [](const Op &op) { return op.kind == OpKind::Advance; }));
  expectCaught(run(k, 256, 256, 256, 6), {SimVerdict::OverArrival},
               "k-block 1, loaded early (before the CTA's barrier)) brings 1 arrivals");
}

TEST(SimulatorBugs, EarlyLoadsPastTheRing) {
  // Two early_loads: twice the ring's stages loaded before any wait on a
  // freed one.
  Kernel k = lowerConfig({});
  std::vector<Op> &body = role(k, "producer").body;
  body.insert(body.begin(), body.front());
  expectCaught(run(k, 256, 256, 512, 6), {SimVerdict::OverArrival, SimVerdict::Race},
               "loaded early");
}

TEST(SimulatorBugs, MissingProxyFence) {
  Kernel k = lowerConfig({});
  ASSERT_TRUE(removeFirst(role(k, "consumer").body, [](const Op &op) {
    return op.kind == OpKind::Fence && op.fence == FenceKind::ProxyAsync;
  }));
  expectCaught(run(k, 256, 256, 128, 2), {SimVerdict::Race}, "fence.proxy.async");
}

//===----------------------------------------------------------------------===//
// Spec files: the seeded-bug table and every spec of the ladder
//===----------------------------------------------------------------------===//

namespace fs = std::filesystem;

std::vector<fs::path> yamlFiles(const fs::path &dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir))
    return out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".yaml" && e.path().filename() != "defaults.yaml")
      out.push_back(e.path()); // specs/tuned/defaults.yaml maps shapes to specs
  std::sort(out.begin(), out.end());
  return out;
}

/// `# key: value` header lines of a spec file.
std::map<std::string, std::string> headers(const fs::path &path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.rfind("#", 0) == 0) {
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string key = line.substr(1, colon - 1), value = line.substr(colon + 1);
    key.erase(0, key.find_first_not_of(' '));
    value.erase(0, value.find_first_not_of(' '));
    out[key] = value;
  }
  return out;
}

std::vector<Shape> parseShapes(const std::string &text) {
  std::vector<Shape> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    Shape s{};
    char x1, x2;
    std::stringstream is(item);
    if (is >> s.m >> x1 >> s.n >> x2 >> s.k)
      out.push_back(s);
  }
  return out;
}

/// parse -> check (protocol checks off) -> lower. `checkErrors` gets the
/// messages of any other check that rejects the spec.
std::optional<Kernel> loadSpec(const fs::path &path, std::string &checkErrors) {
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpecFile(path.string(), diags);
  if (!spec) {
    ADD_FAILURE() << path << " does not parse";
    return std::nullopt;
  }
  CheckOptions checks;
  checks.protocol = false;
  checkSpec(*spec, diags, checks);
  for (const Diagnostic &d : diags.diagnostics())
    if (d.severity == Severity::Error)
      checkErrors += d.message + "\n";
  return lowerToIR(*spec);
}

std::set<SimVerdict> parseVerdicts(const std::string &text) {
  std::set<SimVerdict> out;
  std::stringstream ss(text);
  std::string word;
  while (ss >> word) {
    for (SimVerdict v : {SimVerdict::Ok, SimVerdict::Deadlock, SimVerdict::Race,
                         SimVerdict::WrongResult, SimVerdict::OverArrival,
                         SimVerdict::TxUnderflow, SimVerdict::TxOverflow, SimVerdict::Invalid,
                         SimVerdict::StepLimit})
      if (word == toString(v))
        out.insert(v);
  }
  return out;
}

/// Each tests/sim_bugs spec is caught with its expected verdict. Headers:
///   # expect: VERDICT [| VERDICT...]   every failing seed has one of these
///   # expect-message: TEXT             in the first failure's message
///   # expect-detail: TEXT              in the first failure's details
///   # checks-reject: TEXT              a non-protocol check also rejects it
///   # shapes: MxNxK[,...]   # seeds: S
TEST(SimulatorBugTable, EverySeededBugIsCaught) {
  std::vector<fs::path> files = yamlFiles(fs::path(GEMMGEN_SOURCE_DIR) / "tests" / "sim_bugs");
  ASSERT_GE(files.size(), 8u);
  for (const fs::path &path : files) {
    SCOPED_TRACE(path.filename().string());
    auto h = headers(path);
    std::set<SimVerdict> want = parseVerdicts(h["expect"]);
    ASSERT_FALSE(want.empty()) << "no '# expect:' header";
    std::string checkErrors;
    std::optional<Kernel> k = loadSpec(path, checkErrors);
    if (!k)
      continue;
    if (h.count("checks-reject"))
      EXPECT_NE(checkErrors.find(h["checks-reject"]), std::string::npos) << checkErrors;
    else
      EXPECT_EQ(checkErrors, "");
    std::vector<Shape> shapes = parseShapes(h.count("shapes") ? h["shapes"] : "256x256x256");
    unsigned seeds = h.count("seeds") ? unsigned(std::stoul(h["seeds"])) : 8;
    for (const Shape &s : shapes) {
      SimulationResult r = run(*k, s.m, s.n, s.k, seeds);
      std::string detail = h["expect-detail"];
      expectCaught(r, want, h["expect-message"]);
      const SeedResult *f = r.firstFailure();
      if (!f)
        continue;
      EXPECT_TRUE(h["expect-message"].empty() ||
                  f->message.find(h["expect-message"]) != std::string::npos)
          << f->message;
      if (!detail.empty()) {
        std::string all;
        for (const std::string &d : f->details)
          all += d + "\n";
        EXPECT_NE(all.find(detail), std::string::npos) << report(r);
      }
    }
  }
}

/// Every spec of the ladder simulates clean on several shapes, residues
/// included (M, N, K not multiples of the tile), with several seeds.
TEST(SimulatorSpecs, EverySpecSimulatesClean) {
  std::vector<fs::path> files = yamlFiles(fs::path(GEMMGEN_SOURCE_DIR) / "specs");
  ASSERT_FALSE(files.empty());
  for (const fs::path &path : files) {
    SCOPED_TRACE(path.filename().string());
    DiagnosticEngine diags(nullptr);
    std::optional<KernelSpec> spec = parseSpecFile(path.string(), diags);
    ASSERT_TRUE(spec && checkSpec(*spec, diags)) << path;
    if (spec->target.value != Target::SM90a)
      continue; // sm_100a: SimulatorSm100Test.cpp (shapes per cluster tile)
    Kernel k = lowerToIR(*spec);
    unsigned cm = k.clusterM * k.tileM;
    std::vector<Shape> shapes = {{2 * cm, 2 * k.tileN, 4 * k.tileK},
                                 {200, 136, 72},
                                 {cm + 72, k.tileN + 40, 3 * k.tileK + 24},
                                 {3 * cm, 3 * k.tileN, 2 * k.tileK},
                                 {2 * cm, 2 * k.tileN, 0}}; // K = 0: D = 0
    // specs/tuned/ holds machine-written variants of the ladder's specs:
    // one residue shape and 2 seeds each keep CI fast; the ladder gets all.
    bool tunedVariant = path.parent_path().parent_path().filename() == "tuned";
    unsigned seeds = tunedVariant ? 2 : 8;
    if (tunedVariant)
      shapes = {shapes[2]};
    auto start = std::chrono::steady_clock::now();
    for (const Shape &s : shapes) {
      SimulationResult r = run(k, s.m, s.n, s.k, seeds);
      EXPECT_TRUE(r.ok()) << s.m << "x" << s.n << "x" << s.k << "\n" << report(r);
    }
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %s: %zu shapes x %u seeds in %.2f s\n", path.filename().c_str(),
                shapes.size(), seeds, secs);
  }
}

} // namespace

namespace {

// Keeping two wgmma groups in flight but releasing the stage one k-block
// back frees a stage whose MMA may still read it: caught only in the
// interleavings where that MMA is slow, which is why every run tries many.
TEST(SimulatorBugs, ReleaseWhileMmaStillReads) {
  Kernel k = lowerConfig({});
  forOps(role(k, "consumer").body, [](Op &op) {
    if (op.kind == OpKind::MmaWait && op.count == 1)
      op.count = 2;
  });
  SimulationResult r = run(k, 256, 256, 512, 16);
  expectCaught(r, {SimVerdict::Race}, "still reads it");
  std::printf("  caught in %u of %zu interleavings\n", r.failures(), r.runs.size());
}

} // namespace

// --- grouped GEMM ----------------------------------------------------------

Kernel lowerGrouped(Config c) {
  c.grouped = true;
  return lowerConfig(c);
}

SimulationResult runGroups(const Kernel &k, std::vector<std::array<unsigned, 3>> groups,
                           unsigned seeds, float beta = 0.0f, unsigned ctas = 0) {
  SimulationOptions o;
  o.groups = std::move(groups);
  o.seeds = seeds, o.beta = beta, o.ctas = ctas;
  return simulate(k, o);
}

// Problems with their own M, N and K, empty ones (M = 0, N = 0) and K = 0
// among them, walked in one launch: small grids so that CTAs cross from one
// problem into the next with the ring mid-phase.
const std::vector<std::array<unsigned, 3>> kMixedGroups = {
    {300, 136, 136}, {0, 256, 64}, {129, 264, 0}, {64, 512, 520}, {37, 128, 64}, {200, 0, 64},
    {256, 256, 192}};

TEST(Simulator, GroupedProblemsClean) {
  Config twoConsumers;
  twoConsumers.tileN = 256, twoConsumers.consumers = 2;
  Config cluster;
  cluster.clusterM = 2;
  Config hilbert;
  hilbert.raster = RasterOrder::Hilbert;
  Config drain;
  drain.inFlight = 0;
  for (const Config &c : {Config{}, twoConsumers, cluster, hilbert, drain}) {
    Kernel k = lowerGrouped(c);
    for (unsigned ctas : {0u, 2u * c.clusterM, 5u * c.clusterM}) {
      SimulationResult r = runGroups(k, kMixedGroups, 4, 0.0f, ctas);
      EXPECT_TRUE(r.ok()) << "ctas " << ctas << ": " << report(r);
      ASSERT_EQ(r.groups.size(), kMixedGroups.size());
    }
    SimulationResult withC = runGroups(k, kMixedGroups, 4, 0.5f);
    EXPECT_TRUE(withC.ok()) << "beta 0.5: " << report(withC);
  }
}

TEST(Simulator, GroupedWalkIsTheKernelsTable) {
  // Every non-empty problem's tiles appear once over all clusters, tagged
  // with their problem; the empty problems (1 and 5) own none.
  Kernel k = lowerGrouped({});
  SimulationResult r = runGroups(k, kMixedGroups, 1, 0.0f, 3);
  ASSERT_TRUE(r.ok()) << report(r);
  std::map<unsigned, unsigned> tilesPerProblem;
  for (const auto &walk : r.walks)
    for (const ScheduledUnit &u : walk)
      tilesPerProblem[u.entry]++;
  std::map<unsigned, unsigned> want = {{0, 3 * 2}, {2, 2 * 3}, {3, 1 * 4}, {4, 1}, {6, 2 * 2}};
  EXPECT_EQ(tilesPerProblem, want);
}

TEST(SimulatorBugs, GroupedReleaseWithoutAnyK) {
  // The consumer released its last stage after every tile, k-blocks or
  // not. Alone (K = 0 everywhere) nothing was loaded, so nothing showed;
  // in a grouped launch a K = 0 problem's extra arrival frees a slot the
  // producer then refills while a consumer still reads it, or runs the
  // release cursor ahead of the read cursor. Put the old release back.
  Kernel k = lowerGrouped({});
  std::vector<Op> &tile = role(k, "consumer").body[0].body;
  auto it = std::find_if(tile.begin(), tile.end(),
                         [](const Op &op) { return op.kind == OpKind::IfAnyK; });
  ASSERT_NE(it, tile.end());
  std::vector<Op> release = it->body;
  it = tile.erase(it);
  tile.insert(it, release.begin(), release.end());
  SimulationResult alone = runGroups(k, {{256, 256, 0}}, 4);
  EXPECT_TRUE(alone.ok()) << report(alone); // why it went unseen
  SimulationResult mixed = runGroups(k, {{256, 256, 256}, {256, 256, 0}, {256, 256, 256},
                                         {256, 256, 0}, {256, 256, 256}},
                                     16, 0.0f, 2);
  // Seen as the producer's next arrival landing on a phase the consumers'
  // early release already let it past (or the race that follows it).
  expectCaught(mixed, {SimVerdict::OverArrival, SimVerdict::Race, SimVerdict::WrongResult,
                       SimVerdict::Deadlock},
               "");
}

TEST(Simulator, GroupedRefusesWhatItCannotRun) {
  Kernel grouped = lowerGrouped({});
  Kernel single = lowerConfig({});
  SimulationOptions o;
  o.groups = {{128, 128, 64}};
  EXPECT_EQ(checkSimulationSize(single, o),
            "kernel 'sim_test' computes one problem (or a strided batch) per launch; simulate "
            "--groups on a spec with scheduler.grouped: true");
  o.batch = 2;
  EXPECT_EQ(checkSimulationSize(grouped, o),
            "kernel 'sim_test' is grouped: give its problems (--groups FILE), not a batch");
  o.batch = 1;
  o.groups.assign(40, {1024, 1024, 64});
  EXPECT_EQ(checkSimulationSize(grouped, o),
            "the problems have 2560 output tiles of 128x128; the simulator runs at most 1024 "
            "tiles: use fewer or smaller problems");
}

// --- two staging tiles (epilogue.buffers) ----------------------------------

TEST(Simulator, TwoStagingTilesClean) {
  // Chunk c stages in tile c % 2 and waits only for the store before the
  // previous one (tma_store_wait pending<=1): clean with and without C,
  // residues, a ring that wraps across tiles.
  Config c;
  c.chunkN = 32, c.epilogueBuffers = 2; // 4 chunks of a 128-column tile
  Kernel k = lowerConfig(c);
  const Buffer *d = k.findBuffer("smemD");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->stages, 2u);
  for (auto shape : std::vector<std::array<unsigned, 3>>{{256, 256, 256}, {300, 200, 136}}) {
    SimulationResult r = run(k, shape[0], shape[1], shape[2], 8);
    EXPECT_TRUE(r.ok()) << report(r);
    SimulationResult withC = runAlphaBeta(k, shape[0], shape[1], shape[2], 8, 1.0f, 0.5f);
    EXPECT_TRUE(withC.ok()) << report(withC);
  }
}

TEST(SimulatorBugs, TwoStagingTilesInOneBuffer) {
  // The wait lets one store run on, but the staging buffer has one tile:
  // the next chunk overwrites what that store still reads.
  Config c;
  c.chunkN = 32, c.epilogueBuffers = 2;
  Kernel k = lowerConfig(c);
  for (Buffer &b : k.buffers)
    if (b.name == "smemD")
      b.stages = 1;
  expectCaught(run(k, 256, 256, 256, 8), {SimVerdict::Race}, "still reads it");
}

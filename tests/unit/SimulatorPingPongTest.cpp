//===- SimulatorPingPongTest.cpp - The simulator on ping-pong consumers ---===//
//
// specs/sm90/20_pingpong_f16.yaml (scheduler.consumers: pingpong): the two
// consumers take turns on whole tiles. The turns simulate clean on odd and
// even tile counts per CTA, residues, K = 0, batches and beta; protocol
// mistakes made by changing the lowered kernel are caught: no order barrier
// lets a consumer pass a full-barrier wait on a phase two behind (a race),
// one order slot for both directions lets a consumer arrive twice on one
// phase (an over-arrival), a consumer that does not skip the other's stages
// waits on phases that never come (a deadlock), and both consumers releasing
// every stage over-arrive on the empty ring.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Simulator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <optional>

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {

Kernel pingPongKernel(const char *spec = "20_pingpong_f16.yaml") {
  const std::string path =
      (std::filesystem::path(GEMMGEN_SOURCE_DIR) / "specs" / "sm90" / spec).string();
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> parsed = parseSpecFile(path, diags);
  EXPECT_TRUE(parsed && checkSpec(*parsed, diags)) << path;
  EXPECT_TRUE(parsed && parsed->scheduler.consumers.value == ConsumerMode::PingPong);
  return parsed ? lowerToIR(*parsed) : Kernel();
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

Op *findFirst(std::vector<Op> &body, const std::function<bool(const Op &)> &pred) {
  for (Op &op : body) {
    if (pred(op))
      return &op;
    if (Op *inner = findFirst(op.body, pred))
      return inner;
  }
  return nullptr;
}

bool removeAll(std::vector<Op> &body, const std::function<bool(const Op &)> &pred) {
  bool any = false;
  for (size_t i = 0; i < body.size();) {
    if (pred(body[i])) {
      body.erase(body.begin() + i);
      any = true;
      continue;
    }
    any |= removeAll(body[i].body, pred);
    ++i;
  }
  return any;
}

std::vector<Op> &consumerBody(Kernel &k) { return k.roles[1].body; }

Barrier &barrierNamed(Kernel &k, const std::string &name) {
  for (Barrier &b : k.barriers)
    if (b.name == name)
      return b;
  ADD_FAILURE() << "no barrier " << name;
  return k.barriers[0];
}

} // namespace

TEST(SimulatorPingPong, TheLoweringTakesTurns) {
  Kernel k = pingPongKernel();
  EXPECT_TRUE(k.plan.schedule.pingpong);
  EXPECT_EQ(k.plan.rowsPerConsumer, 128u) << "each consumer computes whole tiles";
  EXPECT_EQ(barrierNamed(k, "empty").arriveCount, 1u) << "one consumer reads each stage";
  const Barrier &order = barrierNamed(k, "order");
  EXPECT_EQ(order.kind, BarrierKind::Named);
  EXPECT_EQ(order.slots, 2u);
  EXPECT_EQ(order.namedThreads, 256u);
  EXPECT_EQ(order.namedId, 3u) << "after the epilogue barriers' ids 1 and 2";
  Op *turn = findFirst(consumerBody(k), [](const Op &op) { return op.kind == OpKind::IfOtherTurn; });
  ASSERT_NE(turn, nullptr);
  ASSERT_EQ(turn->body.size(), 3u);
  EXPECT_EQ(turn->body[0].kind, OpKind::SkipK);
  EXPECT_EQ(turn->body[1].kind, OpKind::SkipK);
  EXPECT_TRUE(turn->body[2].kind == OpKind::NamedBarrierSync && turn->body[2].slotIsTurnOwner);
  EXPECT_NE(findFirst(consumerBody(k),
                      [](const Op &op) { return op.kind == OpKind::NamedBarrierArrive; }),
            nullptr);
}

TEST(SimulatorPingPong, TurnsSimulateClean) {
  struct Case {
    unsigned m, n, k, ctas, batch;
    float beta;
  };
  const Case cases[] = {
      {256, 256, 512, 1, 1, 0.0f},   // 4 tiles on one CTA: two turns each, 8 k-blocks > 6 stages
      {384, 256, 512, 1, 1, 0.0f},   // 6 tiles on one CTA: three turns each
      {384, 384, 448, 2, 1, 0.0f},   // 9 tiles on 2 CTAs: 5 and 4, odd and even
      {300, 200, 200, 3, 1, 0.0f},   // residues in M, N and K
      {256, 384, 0, 2, 1, 0.0f},     // K = 0: turns without k-blocks
      {256, 256, 256, 2, 3, 0.0f},   // a batch of 3: turns continue across entries
      {384, 256, 384, 2, 1, 0.5f},   // beta: C into each consumer's own staging tile
      {128, 128, 1024, 1, 1, 0.0f},  // one tile: consumer 1 only waits consumer 0's hand-over
  };
  for (const char *spec : {"20_pingpong_f16.yaml", "21_pingpong_bf16_bias_gelu.yaml"}) {
    Kernel k = pingPongKernel(spec);
    for (const Case &c : cases) {
      SimulationResult r = run(k, c.m, c.n, c.k, c.ctas, 6, c.batch, c.beta);
      EXPECT_TRUE(r.ok()) << spec << " " << c.m << "x" << c.n << "x" << c.k << " on " << c.ctas
                          << " CTAs\n"
                          << report(r);
    }
  }
}

TEST(SimulatorPingPongBugs, NoOrderBarrierPassesAWaitOnAnOldPhase) {
  Kernel k = pingPongKernel();
  ASSERT_TRUE(removeAll(consumerBody(k), [](const Op &op) {
    return (op.kind == OpKind::NamedBarrierSync && op.slotIsTurnOwner) ||
           op.kind == OpKind::NamedBarrierArrive;
  }));
  // 8 tiles on one CTA, 16 k-blocks each: consumer 1 reaches its first wait
  // while consumer 0 is still early in tile 0.
  SimulationResult r = run(k, 512, 256, 1024, 1, 12);
  ASSERT_FALSE(r.ok()) << report(r);
  EXPECT_EQ(r.firstFailure()->verdict, SimVerdict::Race) << r.firstFailure()->message;
}

TEST(SimulatorPingPongBugs, OneOrderSlotForBothDirectionsOverArrives) {
  Kernel k = pingPongKernel();
  barrierNamed(k, "order").slots = 1;
  SimulationResult r = run(k, 512, 256, 128, 1, 24);
  ASSERT_FALSE(r.ok()) << report(r);
  bool overArrival = false;
  for (const SeedResult &s : r.runs)
    overArrival |= s.verdict == SimVerdict::OverArrival &&
                   s.message.find("again before the phase its earlier bar.arrive") != std::string::npos;
  EXPECT_TRUE(overArrival) << report(r);
}

TEST(SimulatorPingPongBugs, NotSkippingTheOthersStagesDeadlocks) {
  Kernel k = pingPongKernel();
  ASSERT_TRUE(removeAll(consumerBody(k), [](const Op &op) { return op.kind == OpKind::SkipK; }));
  SimulationResult r = run(k, 256, 256, 256, 1, 4);
  ASSERT_FALSE(r.ok()) << report(r);
  EXPECT_NE(r.firstFailure()->verdict, SimVerdict::Ok);
}

TEST(SimulatorPingPongBugs, BothConsumersCountedOnTheEmptyRingDeadlocks) {
  Kernel k = pingPongKernel();
  barrierNamed(k, "empty").arriveCount = 2; // as a cooperative kernel's
  SimulationResult r = run(k, 256, 256, 512, 1, 4);
  ASSERT_FALSE(r.ok()) << report(r);
  for (const SeedResult &s : r.runs)
    EXPECT_EQ(s.verdict, SimVerdict::Deadlock) << s.message;
}

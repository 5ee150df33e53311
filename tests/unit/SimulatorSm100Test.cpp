//===- SimulatorSm100Test.cpp - The simulator on sm_100a (tcgen05) kernels -===//
//
// The seed's Blackwell steps 7, 8 and 9 (specs/sm100) simulate clean on
// several shapes, residues included, and on one cluster walking several
// tiles; protocol bugs made by changing a lowered sm_100a ir::Kernel are
// caught with the right verdict. The seeded sm_100a bug specs
// (tests/sim_bugs/sm100_*.yaml) run in SimulatorBugTable.EverySeededBugIsCaught
// (SimulatorTest.cpp), which takes every file of tests/sim_bugs;
// SimulatorSm100BugTable checks that the ones issue 5 asks for are there.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {

namespace fs = std::filesystem;

const fs::path kSpecs = fs::path(GEMMGEN_SOURCE_DIR) / "specs" / "sm100";
const fs::path kBugs = fs::path(GEMMGEN_SOURCE_DIR) / "tests" / "sim_bugs";

/// Parses, checks (all checks) and lowers one of specs/sm100.
Kernel lowerSpec(const std::string &file) {
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpecFile((kSpecs / file).string(), diags);
  EXPECT_TRUE(spec && checkSpec(*spec, diags)) << file;
  if (!spec)
    return Kernel();
  EXPECT_EQ(spec->target.value, Target::SM100a);
  return lowerToIR(*spec);
}

SimulationResult run(const Kernel &k, unsigned m, unsigned n, unsigned kk, unsigned seeds,
                     unsigned ctas = 0, float alpha = 1.0f, float beta = 0.0f) {
  SimulationOptions o;
  o.m = m;
  o.n = n;
  o.k = kk;
  o.seeds = seeds;
  o.ctas = ctas;
  o.alpha = alpha;
  o.beta = beta;
  return simulate(k, o);
}

std::string report(const SimulationResult &r) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printSimulationResult(r, os);
  return os.str();
}

void forOps(std::vector<Op> &body, const std::function<void(Op &)> &f) {
  for (Op &op : body) {
    f(op);
    forOps(op.body, f);
  }
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

Role &role(Kernel &k, const std::string &name) {
  for (Role &r : k.roles)
    if (r.name == name)
      return r;
  ADD_FAILURE() << "no role " << name;
  return k.roles[0];
}

/// Every failing seed has one of `verdicts`, at least one fails, and the
/// first failure's message or details contain `substring`.
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

//===----------------------------------------------------------------------===//
// The three specs simulate clean
//===----------------------------------------------------------------------===//

struct Shape {
  unsigned m, n, k, ctas;
};

/// 256×256×256; 200×136×72 (every dimension a residue); a cluster tile plus
/// residues in M, N and K; and one cluster walking 3 × 2 cluster tiles (the
/// rings and the accumulator hand-off wrap across tiles).
std::vector<Shape> shapesFor(const Kernel &k) {
  unsigned ctRows = k.consumers * k.ctaGroup * k.tileM;
  return {{256, 256, 256, 0},
          {200, 136, 72, 0},
          {ctRows + 72, k.tileN + 40, 3 * k.tileK + 24, 0},
          {3 * ctRows, 2 * k.tileN, 2 * k.tileK, k.ctaGroup}};
}

void expectSpecClean(const std::string &file, unsigned seeds) {
  Kernel k = lowerSpec(file);
  ASSERT_EQ(k.target, Target::SM100a);
  auto start = std::chrono::steady_clock::now();
  for (const Shape &s : shapesFor(k)) {
    SimulationResult r = run(k, s.m, s.n, s.k, seeds, s.ctas);
    EXPECT_TRUE(r.ok()) << file << " " << s.m << "x" << s.n << "x" << s.k << "\n" << report(r);
    if (s.ctas) {
      EXPECT_EQ(r.ctas, k.ctaGroup) << "one cluster walks every tile";
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %s: 4 shapes x %u seeds in %.2f s\n", file.c_str(), seeds, secs);
}

TEST(SimulatorSm100, Step7WarpRolesClean) { expectSpecClean("07_ws_tcgen05.yaml", 6); }
TEST(SimulatorSm100, Step8CtaPairClean) { expectSpecClean("08_cta_pair.yaml", 5); }
TEST(SimulatorSm100, Step9TwoConsumersClean) { expectSpecClean("09_two_consumers.yaml", 4); }

TEST(SimulatorSm100, ZeroKStoresZeros) {
  // K = 0: no MMA; the writeback zeroes the registers it loaded from TMEM
  // (if_no_k { zero_acc }), so D, poisoned with NaN, must be all zeros.
  for (const char *file : {"07_ws_tcgen05.yaml", "08_cta_pair.yaml", "09_two_consumers.yaml"}) {
    Kernel k = lowerSpec(file);
    unsigned ctRows = k.consumers * k.ctaGroup * k.tileM;
    SimulationResult r = run(k, 2 * ctRows, 2 * k.tileN, 0, 4);
    EXPECT_TRUE(r.ok()) << file << "\n" << report(r);
    EXPECT_EQ(r.kBlocks, 0u);
  }
}

TEST(SimulatorSm100, AlphaBetaReadsCThroughTheStagingTile) {
  // β ≠ 0: each writeback warpgroup loads C's chunk into its staging tile
  // (if_beta: expect_tx, TMA load, wait on cload) and store_acc writes
  // α·acc + β·C over it; every spec's shapes, K = 0 (D = β·C) included.
  for (const char *file : {"07_ws_tcgen05.yaml", "08_cta_pair.yaml", "09_two_consumers.yaml",
                           "10_cta_pair_e4m3.yaml"}) {
    Kernel k = lowerSpec(file);
    for (const Shape &s : shapesFor(k)) {
      SimulationResult r = run(k, s.m, s.n, s.k, 2, s.ctas, 1.5f, 0.5f);
      EXPECT_TRUE(r.ok()) << file << " " << s.m << "x" << s.n << "x" << s.k << "\n" << report(r);
    }
    SimulationResult zeroK = run(k, 300, 200, 0, 2, 0, 1.5f, -0.5f);
    EXPECT_TRUE(zeroK.ok()) << file << " K = 0\n" << report(zeroK);
  }
}

TEST(SimulatorSm100, GeometryOfTheCtaPair) {
  Kernel k = lowerSpec("09_two_consumers.yaml");
  // Cluster tiles of 2 consumers × 2 CTAs × 128 rows by 256 columns.
  SimulationResult r = run(k, 1000, 300, 64, 1);
  EXPECT_TRUE(r.ok()) << report(r);
  EXPECT_EQ(r.clusterSize, 2u);
  EXPECT_EQ(r.tilesM, 8u); // 128-row blocks of D
  EXPECT_EQ(r.tilesN, 2u);
  // 2 × 2 cluster tiles: half as many clusters by default.
  EXPECT_EQ(r.ctas, 4u);
}

TEST(SimulatorSm100, ReproducibleFromSeed) {
  Kernel k = lowerSpec("08_cta_pair.yaml");
  SimulationResult a = run(k, 512, 256, 256, 2), b = run(k, 512, 256, 256, 2);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i)
    EXPECT_EQ(a.runs[i].steps, b.runs[i].steps);
}

//===----------------------------------------------------------------------===//
// Seeded sm_100a bugs, by IR mutation
//===----------------------------------------------------------------------===//

TEST(SimulatorSm100Bugs, ZeroKWithoutZeroAccStoresStaleTmem) {
  // K = 0 without if_no_k { zero_acc }: the writeback stores what TMEM held.
  Kernel k = lowerSpec("07_ws_tcgen05.yaml");
  ASSERT_TRUE(removeFirst(role(k, "writeback").body,
                          [](const Op &op) { return op.kind == OpKind::IfNoK; }));
  expectCaught(run(k, 256, 128, 0, 2), {SimVerdict::WrongResult},
               "acc of CTA 0 was not written by any MMA in cluster tile (m 0, n 0) (0 k-block(s)): "
               "load_acc read stale TMEM");
}

TEST(SimulatorSm100Bugs, CReadBeforeItLands) {
  // if_beta without its wait on cload: store_acc reads the staging tile
  // while C's TMA load still writes it.
  Kernel k = lowerSpec("09_two_consumers.yaml");
  ASSERT_TRUE(removeFirst(role(k, "writeback").body, [](const Op &op) {
    return op.kind == OpKind::Wait && op.state == "cload";
  }));
  expectCaught(run(k, 512, 256, 128, 3, 0, 1.0f, 0.5f), {SimVerdict::Race},
               "wait on the C-load barrier (cload) before store_acc reads the staging tile");
}

TEST(SimulatorSm100Bugs, StoreWithoutLoadAcc) {
  Kernel k = lowerSpec("07_ws_tcgen05.yaml");
  ASSERT_TRUE(removeFirst(role(k, "writeback").body,
                          [](const Op &op) { return op.kind == OpKind::LoadAcc; }));
  // One tile: the registers were never loaded.
  expectCaught(run(k, 128, 128, 128, 2), {SimVerdict::WrongResult}, "before any load_acc");
  // Two tiles on one CTA: the accumulator is released unread, and the next
  // tile's MMA overwrites it.
  expectCaught(run(k, 256, 128, 128, 2, 1), {SimVerdict::Race}, "(0 of 1 chunk(s) loaded)");
}

TEST(SimulatorSm100Bugs, WritebackStartsAtPhaseOne) {
  // The writeback's first wait on mma2ld passes at once: it reads TMEM while
  // the MMAs still write it, or the next tile's MMAs overwrite it first.
  Kernel k = lowerSpec("08_cta_pair.yaml");
  role(k, "writeback").states[0].initialPhase = 1;
  expectCaught(run(k, 512, 512, 256, 6), {SimVerdict::Race}, "accumulator");
}

TEST(SimulatorSm100Bugs, AccumulatorFreedToOwnCtaOnly) {
  // The peer's writeback arrives on its own ld2mma instead of the leader's:
  // the leader's barrier never gets the peer's 128 arrivals.
  Kernel k = lowerSpec("08_cta_pair.yaml");
  forOps(role(k, "writeback").body, [](Op &op) {
    if (op.kind == OpKind::Arrive)
      op.scope = CtaScope::Local;
  });
  expectCaught(run(k, 512, 256, 128, 3), {SimVerdict::Deadlock}, "128/256 arrivals missing");
}

TEST(SimulatorSm100Bugs, AccumulatorFreedByOneThread) {
  // An elected ld2mma arrival counts 1, not 128: the MMA warp waits forever.
  Kernel k = lowerSpec("07_ws_tcgen05.yaml");
  forOps(role(k, "writeback").body, [](Op &op) {
    if (op.kind == OpKind::Arrive)
      op.exec = Exec::Elected;
  });
  expectCaught(run(k, 256, 256, 128, 2), {SimVerdict::Deadlock}, "127/128 arrivals missing");
}

TEST(SimulatorSm100Bugs, StageFreedBeforeMmaCompletes) {
  // A plain arrive on mma2tma (at issue) instead of tcgen05.commit (at
  // completion): the producer refills a stage an MMA may still read.
  Kernel k = lowerSpec("07_ws_tcgen05.yaml");
  forOps(role(k, "mma").body, [](Op &op) {
    if (op.kind == OpKind::MmaCommitArrive && !op.slotIsInstance) {
      op.kind = OpKind::Arrive;
      op.exec = Exec::Elected;
    }
  });
  SimulationResult r = run(k, 256, 256, 512, 16, 1);
  expectCaught(r, {SimVerdict::Race}, "still reads it");
  std::printf("  caught in %u of %zu interleavings\n", r.failures(), r.runs.size());
}

TEST(SimulatorSm100Bugs, PeerLoadsCompleteOnOwnBarrier) {
  // The peer CTA's loads complete on its own tma2mma (scope local), which
  // nobody arms: the leader's barrier waits for bytes that never come.
  Kernel k = lowerSpec("08_cta_pair.yaml");
  forOps(role(k, "producer").body, [](Op &op) {
    if (op.kind == OpKind::TmaLoad)
      op.scope = CtaScope::Local;
  });
  expectCaught(run(k, 512, 256, 128, 3), {SimVerdict::TxOverflow}, "32768 transaction byte(s)");
}

//===----------------------------------------------------------------------===//
// The seeded-bug table has the sm_100a bugs (they run in SimulatorTest.cpp)
//===----------------------------------------------------------------------===//

std::string expectHeader(const fs::path &path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.rfind("#", 0) == 0)
    if (line.rfind("# expect:", 0) == 0)
      return line.substr(9);
  return "";
}

TEST(SimulatorSm100BugTable, TheSeededSm100BugsAreInTheTable) {
  // issue 5: a cluster writeback barrier counting one CTA's threads; a tx
  // count forgetting the other CTA's bytes or the second A block; a
  // completion signalled to one CTA where both must hear it; two writeback
  // groups sharing one named barrier.
  const std::vector<std::pair<std::string, std::string>> want = {
      {"sm100_ld2mma_counts_one_cta.yaml", "over-arrival"},
      {"sm100_tx_forgets_peer_cta.yaml", "tx-underflow"},
      {"sm100_tx_forgets_second_a_block.yaml", "tx-underflow"},
      {"sm100_mma2ld_one_cta.yaml", "deadlock"},
      {"sm100_mma2tma_one_cta.yaml", "deadlock"},
      {"sm100_shared_named_barrier.yaml", "race"},
  };
  for (const auto &[file, verdict] : want) {
    fs::path path = kBugs / file;
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_NE(expectHeader(path).find(verdict), std::string::npos) << file;
    DiagnosticEngine diags(nullptr);
    std::optional<KernelSpec> spec = parseSpecFile(path.string(), diags);
    ASSERT_TRUE(spec) << file;
    EXPECT_EQ(spec->target.value, Target::SM100a) << file;
    // The protocol checks reject each one; with them off, it reaches the
    // simulator (the table runs it).
    DiagnosticEngine strict(nullptr);
    EXPECT_FALSE(checkSpec(*spec, strict)) << file << ": the protocol checks should reject it";
  }
}

} // namespace

TEST(SimulatorSm100, BatchIsRefusedLikeThePrinterDoes) {
  // The sm_100a printer emits one problem per launch (no batch parameter):
  // the simulator refuses to model a batch that no generated kernel runs.
  Kernel k = lowerSpec("07_ws_tcgen05.yaml");
  SimulationOptions o;
  o.m = 256, o.n = 256, o.k = 128, o.seeds = 1, o.batch = 2;
  SimulationResult r = simulate(k, o);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].verdict, SimVerdict::Invalid);
  EXPECT_EQ(r.runs[0].message,
            "invalid: kernel 'gemm_sm100_step7_ws' (sm_100a) computes one problem per launch "
            "(its printer has no batch yet); simulate --batch on an sm_90a spec, or one entry "
            "at a time");
  o.batch = 1;
  EXPECT_TRUE(simulate(k, o).ok());
}

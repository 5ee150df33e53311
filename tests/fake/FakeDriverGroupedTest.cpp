//===- FakeDriverGroupedTest.cpp - Grouped launches -----------------------===//
//
// A grouped kernel (scheduler.grouped) against the stand-in driver: its
// problems become a table in the workspace, a map set per non-empty
// problem and one launch over every problem's tiles; what a grouped launch
// refuses, with its messages; problems TMA cannot address staged one by
// one.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

TEST(FakeDriver, GroupedProblemsBecomeATableTheWalkAndOneLaunch) {
  // specs/sm90/11_fast_f16_grouped.yaml (128x256 tiles, along_m): four
  // problems — 300x512x64 (3x2 tiles), an empty one (M = 0), 129x256 with
  // K = 0 (D = beta·C: A and B stand in, 2x1 tiles) and 64x264x72 (1x2) —
  // give a table of 4 entries whose slots follow each other (empty: none),
  // one map set per non-empty problem, the table copied before one launch
  // of 10 slots; launch(args) allocates the table's workspace on the stream.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_TRUE(k->info().grouped);
  EXPECT_FALSE(fake.kernel->info().grouped);
  GemmArgs a;
  a.beta = 0.5f;
  const CUdeviceptr base = 0x10000000;
  auto problem = [&](long long M, long long N, long long K, int i) {
    GemmProblem p;
    p.M = M, p.N = N, p.K = K;
    p.A = base + 0x1000000 * (4 * i + 0), p.B = base + 0x1000000 * (4 * i + 1);
    p.D = base + 0x1000000 * (4 * i + 2), p.C = base + 0x1000000 * (4 * i + 3);
    return p;
  };
  a.problems = {problem(300, 512, 64, 0), problem(0, 512, 64, 1), problem(129, 256, 0, 2),
                problem(64, 264, 72, 3)};
  EXPECT_EQ(k->workspaceBytes(a), 4u * 576u);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  std::vector<std::string> want = {
      "allocAsync bytes=2304",
      // problem 0: A, B, D, C
      "encode rows=300 cols=64 stride=128", "encode rows=512 cols=64 stride=128",
      "encode rows=300 cols=512 stride=1024", "encode rows=300 cols=512 stride=1024",
      // problem 2 (K = 0): A and B stand in over one box at D's address
      "encode rows=128 cols=64 stride=128", "encode rows=256 cols=64 stride=128",
      "encode rows=129 cols=256 stride=512", "encode rows=129 cols=256 stride=512",
      // problem 3
      "encode rows=64 cols=72 stride=144", "encode rows=264 cols=72 stride=144",
      "encode rows=64 cols=264 stride=528", "encode rows=64 cols=264 stride=528",
      "copyHtoDAsync bytes=2304",
      "launchEx gemm_sm90_fast_f16 grid=10 problems=4 slots=10 alpha=1 beta=0.5",
      "freeAsync"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  a.workspace = 0x7000000, a.workspaceBytes = 2304;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+grouped(4 problems)");
  ASSERT_EQ(p->groupedEntries.size(), 2304u);
  struct Entry {
    int m, n, k, begin, end;
  } want_entries[] = {{300, 512, 64, 0, 6}, {0, 512, 64, 6, 6}, {129, 256, 0, 6, 8},
                      {64, 264, 72, 8, 10}};
  for (int i = 0; i < 4; ++i) {
    int got[5];
    std::memcpy(got, p->groupedEntries.data() + 576 * i + 512, sizeof got);
    const Entry &w = want_entries[i];
    EXPECT_EQ(std::vector<int>(got, got + 5), (std::vector<int>{w.m, w.n, w.k, w.begin, w.end}))
        << "entry " << i;
  }
}

TEST(FakeDriver, GroupedLaunchErrors) {
  // What a grouped launch refuses, each with what to do.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmProblem ok;
  ok.M = 256, ok.N = 256, ok.K = 64, ok.A = 0x1000000, ok.B = 0x2000000, ok.D = 0x3000000;
  auto withProblem = [&](GemmProblem p) {
    GemmArgs a;
    a.problems = {ok, p};
    a.workspace = 0x7000000, a.workspaceBytes = 1 << 20;
    return a;
  };
  struct Case {
    const char *what;
    GemmArgs args;
    const Kernel *kernel;
    std::string message;
  };
  GemmProblem negM = ok, shortLd = ok;
  negM.M = -1;
  shortLd.lda = 32;
  GemmArgs none;
  GemmArgs batched = withProblem(ok);
  batched.batch = 2;
  GemmArgs smallWs = withProblem(ok);
  smallWs.workspaceBytes = 1000;
  GemmArgs oddWs = withProblem(ok);
  oddWs.workspace += 32;
  std::vector<Case> cases = {
      {"problems for a one-problem kernel", withProblem(ok), &*fake.kernel,
       "kernel 'gemm_sm90_fast_f16' computes one problem per launch, and GemmArgs::problems "
       "holds 2; compile the spec with scheduler.grouped: true (SpecOverrides::grouped, "
       "`--groups`), or launch each problem on its own (groupedProblem())"},
      {"no problems", none, &*k,
       "kernel 'gemm_sm90_fast_f16' is grouped: give it its problems in GemmArgs::problems (M, "
       "N, K and operands of each)"},
      {"a batch", batched, &*k,
       "a grouped launch takes its problems from GemmArgs::problems; batch must be 1 (got 2); "
       "give a batch as problems of its own"},
      {"a negative M", withProblem(negM), &*k,
       "problem 1 (-1x256x64): M, N and K must be between 0 and 2147483647"},
      {"lda below K", withProblem(shortLd), &*k,
       "problem 1 (256x256x64): operand A: leading dimension 32 is smaller than its row length "
       "K=64"},
      {"too small a workspace", smallWs, &*k,
       "a grouped launch of 2 problems needs a workspace of 1280 bytes for their table and "
       "staged copies (Kernel::workspaceBytes); got 1000 (Kernel::launch(args, stream) "
       "allocates one when none is given)"},
      {"an unaligned workspace", oddWs, &*k,
       "workspace 0x7000020 is not 256-byte aligned; the problems' tensor maps and staged "
       "copies need it (cuMemAlloc's pointers are)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    Expected<PreparedLaunch> p = c.kernel->prepare(c.args);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().message(), c.message);
  }
}

TEST(FakeDriver, GroupedProblemsTmaCannotAddressAreStaged) {
  // Problem by problem, what TMA cannot address goes through the staging
  // path: 256x250 (D's rows are 500 bytes, not whole 16-byte chunks: the
  // store's last chunk would write past column 249) computes into an
  // aligned copy of D, copied out after the launch; an A two bytes off is
  // copied in before it. The copies follow the table in the workspace.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmProblem ok;
  ok.M = 256, ok.N = 256, ok.K = 64, ok.A = 0x1000000, ok.B = 0x2000000, ok.D = 0x3000000;
  GemmProblem oddN = ok, offA = ok;
  oddN.N = 250, oddN.A = 0x4000000, oddN.B = 0x5000000, oddN.D = 0x6000000;
  offA.A = 0x8000002, offA.B = 0x9000000, offA.D = 0xa000000;
  GemmArgs a;
  a.problems = {ok, oddN, offA};
  // The table (3 x 576, to 1792), D's copy (256 x 256), A's copy (256 x 64).
  const std::size_t need = 1792 + 256 * 256 * 2 + 256 * 64 * 2;
  EXPECT_EQ(k->workspaceBytes(a), need);
  a.workspace = 0x70000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+grouped(3 problems, staged 1:D 2:A)");
  ASSERT_EQ(p->before.size(), 1u);
  EXPECT_EQ(p->before[0].src, 0x8000002u);
  EXPECT_EQ(p->before[0].dst, 0x70000000u + 1792 + 256 * 256 * 2);
  ASSERT_EQ(p->after.size(), 1u);
  EXPECT_EQ(p->after[0].src, 0x70000000u + 1792);
  EXPECT_EQ(p->after[0].dst, 0x6000000u);
  EXPECT_EQ(p->after[0].length, 250);
  EXPECT_EQ(p->after[0].srcLd, 256);
  fake.clear();
  Status launched = k->launch(*p, nullptr);
  ASSERT_TRUE(launched.ok()) << launched.message() << "\n" << fake.log();
  std::vector<std::string> got = fake.lines();
  ASSERT_EQ(got.size(), 4u) << fake.log();
  EXPECT_EQ(got[0], "launch gg_copy2d grid=256"); // A of problem 2 in: a block per line
  EXPECT_EQ(got[1], "copyHtoDAsync bytes=1728");
  EXPECT_EQ(got[2], "launchEx gemm_sm90_fast_f16 grid=6 problems=3 slots=6 alpha=1 beta=0");
  EXPECT_EQ(got[3], "launch gg_copy2d grid=256"); // D of problem 1 out: 125 4-byte words a line
}

//===- FakeDriverNarrowTest.cpp - The SIMT narrow path --------------------===//
//
// scheduler.simt_narrow against the stand-in driver: which launches the
// narrow kernels take (one to four rows or columns of D, K-major or packed
// MN-major short operands, rows not 16-byte aligned) and which keep the
// GEMM kernel, their kernel names, grids and launch arguments, and the
// spec's epilogue chain on the narrow path.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

namespace {
/// A launch the narrow path takes: its path and the narrow kernel's launch line.
struct NarrowLaunch {
  GemmArgs a;
  std::string path;
  std::vector<std::string> log;
};

/// Each launch needs no workspace, prepares with its path and launches as logged.
void expectNarrowLaunches(Fake &fake, const Kernel &k, const std::vector<NarrowLaunch> &cases) {
  for (const NarrowLaunch &c : cases) {
    SCOPED_TRACE(c.log.empty() ? c.path : c.log[0]);
    EXPECT_EQ(k.workspaceBytes(c.a), 0u);
    Expected<PreparedLaunch> p = k.prepare(c.a);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->path, c.path);
    fake.clear();
    ASSERT_TRUE(k.launch(*p, nullptr).ok()) << fake.log();
    EXPECT_EQ(fake.lines(), c.log) << fake.log();
  }
}
} // namespace

/// scheduler.simt_narrow: 2 — a D of one or two rows (or columns) with
/// K-major operands is a narrow kernel's alone (gg_narrow_f16_ and its column
/// count), every column of it: the rows of the long operand as its rows, D^T
/// written through D's column stride where B is the long one; no tensor map,
/// no workspace; two rows a warp where one would take more than a wave, 2 or
/// 4 warps a row where that many fill at most one;
/// narrower loads for rows not 16-byte aligned. Launches it does not take (3
/// rows) keep the GEMM kernel.
TEST(FakeDriver, NarrowLaunchesTakeTheSimtPath) {
  REQUIRE_FAKE();
  const std::string text = specWithScheduler("05_fast_f16.yaml", "simt_narrow: 2");
  ASSERT_FALSE(text.empty());
  Expected<Kernel> k = fake.rt->compileString(text, "narrow05.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs oneRow = args(1, 4096, 4096, 4104); // half a wave: 2 warps a row of B
  GemmArgs wave = args(1, 6144, 4096, 6144);    // 0.73 waves of blocks of 8 rows of B
  GemmArgs twoCols = args(1000, 2, 520, 8);    // rows of A
  twoCols.alpha = 0.5f, twoCols.beta = 2.0f, twoCols.C = 0x4000000, twoCols.ldc = 16;
  GemmArgs batched = args(2, 3000, 1024, 3000);
  batched.batch = 3, batched.strideA = 2 * 1024 + 8, batched.strideB = 3000 * 1024,
  batched.strideD = 2 * 3000 + 8;
  GemmArgs colD = args(4000, 1, 2056, 4000); // D^T has one row: rows of B (A's, transposed)
  colD.layoutD = Layout::Col;
  // 1.30 and 1.42 waves of blocks at one row a warp: two a warp, one wave.
  GemmArgs pairB = args(1, 11008, 4096, 11008), pairA = args(9000, 2, 520, 8);
  expectNarrowLaunches(fake, *k, {
      {pairB, "simt_narrow(rows of B, two a warp)",
       {"launch gg_narrow_f16_1_r2 grid=688 M=11008 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 cols=1 "
        "d_cs=11008"}},
      {pairA, "simt_narrow(rows of A, two a warp)",
       {"launch gg_narrow_f16_2_r2 grid=563 M=9000 K=520 a=520,1 b=520,1 ldd=8 n0=0 cols=2"}},
      {oneRow, "simt_narrow(rows of B, 2 warps a row)",
       {"launch gg_narrow_f16_1_k2 grid=1024 M=4096 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 cols=1 "
        "d_cs=4104"}},
      {wave, "simt_narrow(rows of B)",
       {"launch gg_narrow_f16_1 grid=768 M=6144 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 cols=1 "
        "d_cs=6144"}},
      {twoCols, "simt_narrow(rows of A, 4 warps a row)",
       {"launch gg_narrow_f16_2_k4 grid=500 M=1000 K=520 a=520,1 b=520,1 ldd=8 n0=0 cols=2 "
        "alpha=0.5 beta=2 c=0x4000000 ldc=16"}},
      {batched, "simt_narrow(rows of B, two a warp)", // 3 x 3000 rows: 1.42 waves of one a warp
       {"launch gg_narrow_f16_2_r2 grid=188 M=3000 K=1024 a=1024,1 b=1024,1 ldd=1 n0=0 cols=2 "
        "d_cs=3000 batch=3 grid_y=3 strides=3072000,2056,6008"}},
      {colD, "simt_narrow(rows of B, 2 warps a row)",
       {"launch gg_narrow_f16_1_k2 grid=1000 M=4000 K=2056 a=2056,1 b=2056,1 ldd=1 n0=0 cols=1 "
        "d_cs=4000"}},
  });
  // Rows not 16-byte aligned (K = 4100, A two bytes off, K odd): realigned
  // (16-byte words), one row a warp or shared (six blocks of one column an
  // SM, four of two); no staging copy.
  GemmArgs off = args(1, 4096, 4096, 4096), k4100 = args(4096, 1, 4100, 8),
           odd = args(2, 3000, 1001, 3000), oddShared = args(1, 3000, 1001, 3000);
  off.A += 2;
  expectNarrowLaunches(fake, *k, {
      {off, "simt_narrow(rows of B, rows realigned)",
       {"launch gg_narrow_f16_1_u grid=512 M=4096 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 cols=1 "
        "d_cs=4096"}},
      {k4100, "simt_narrow(rows of A, rows realigned)",
       {"launch gg_narrow_f16_1_u grid=512 M=4096 K=4100 a=4100,1 b=4100,1 ldd=8 n0=0 cols=1"}},
      {odd, "simt_narrow(rows of B, rows realigned)",
       {"launch gg_narrow_f16_2_u grid=375 M=3000 K=1001 a=1001,1 b=1001,1 ldd=1 n0=0 cols=2 "
        "d_cs=3000"}},
      {oddShared, "simt_narrow(rows of B, 2 warps a row, rows realigned)",
       {"launch gg_narrow_f16_1_k2_u grid=750 M=3000 K=1001 a=1001,1 b=1001,1 ldd=1 n0=0 "
        "cols=1 d_cs=3000"}},
  });
  // Three rows: the GEMM kernel.
  Expected<PreparedLaunch> three = k->prepare(args(3, 4096, 4096, 4096));
  ASSERT_TRUE(three.ok()) << three.status().message();
  EXPECT_EQ(three->path, "tma");
  // A spec without the field: the GEMM kernel at one row.
  Expected<PreparedLaunch> plain = fake.kernel->prepare(oneRow);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->path, "tma");
}

/// The spec's epilogue chain on the narrow path (spec 14: a column bias,
/// then gelu_tanh): the chain's kernels (`_c`, 16-byte words; their grids
/// by the waves of their own launch bounds); where the kernel streams B's
/// rows it writes D^T, so D's column bias is its row bias (op 1, not 2).
/// Rows not 16-byte aligned realigned (`_u_c`).
TEST(FakeDriver, NarrowLaunchesApplyTheEpilogueChain) {
  REQUIRE_FAKE();
  const std::string text = specWithScheduler("14_fast_bf16_bias_gelu.yaml", "simt_narrow: 2");
  ASSERT_FALSE(text.empty());
  Expected<Kernel> k = fake.rt->compileString(text, "narrow14.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs rowsOfB = args(1, 6144, 4096, 6144), shared = args(1, 4096, 4096, 4096),
           rowsOfA = args(1000, 2, 520, 8), pair = args(1, 11008, 4096, 11008);
  rowsOfB.bias = shared.bias = rowsOfA.bias = pair.bias = 0x5000000;
  expectNarrowLaunches(fake, *k, {
      {rowsOfB, "simt_narrow(rows of B)",
       {"launch gg_narrow_bf16_1_c grid=768 M=6144 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 cols=1 "
        "d_cs=6144 chain=1,4 bias=0x5000000"}},
      {shared, "simt_narrow(rows of B, 2 warps a row)",
       {"launch gg_narrow_bf16_1_k2_c grid=1024 M=4096 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 "
        "cols=1 d_cs=4096 chain=1,4 bias=0x5000000"}},
      {rowsOfA, "simt_narrow(rows of A, 4 warps a row)",
       {"launch gg_narrow_bf16_2_k4_c grid=500 M=1000 K=520 a=520,1 b=520,1 ldd=8 n0=0 cols=2 "
        "chain=2,4 bias=0x5000000"}},
      {pair, "simt_narrow(rows of B, two a warp)",
       {"launch gg_narrow_bf16_1_r2_c grid=688 M=11008 K=4096 a=4096,1 b=4096,1 ldd=1 n0=0 "
        "cols=1 d_cs=11008 chain=1,4 bias=0x5000000"}},
  });
  // Rows not 16-byte aligned: realigned, nothing staged; a shared row of two
  // columns.
  GemmArgs odd = args(1, 4096, 1001, 4096), k4100 = args(4096, 1, 4100, 8),
           oddTwo = args(1000, 2, 777, 8);
  odd.bias = k4100.bias = oddTwo.bias = 0x5000000;
  EXPECT_EQ(k->workspaceBytes(odd), 0u);
  expectNarrowLaunches(fake, *k, {
      {odd, "simt_narrow(rows of B, rows realigned)",
       {"launch gg_narrow_bf16_1_u_c grid=512 M=4096 K=1001 a=1001,1 b=1001,1 ldd=1 n0=0 cols=1 "
        "d_cs=4096 chain=1,4 bias=0x5000000"}},
      {k4100, "simt_narrow(rows of A, rows realigned)",
       {"launch gg_narrow_bf16_1_u_c grid=512 M=4096 K=4100 a=4100,1 b=4100,1 ldd=8 n0=0 cols=1 "
        "chain=2,4 bias=0x5000000"}},
      {oddTwo, "simt_narrow(rows of A, 4 warps a row, rows realigned)",
       {"launch gg_narrow_bf16_2_k4_u_c grid=500 M=1000 K=777 a=777,1 b=777,1 ldd=8 n0=0 cols=2 "
        "chain=2,4 bias=0x5000000"}},
  });
}

TEST(FakeDriver, NarrowLaunchesTakeAPackedMNMajorShortOperand) {
  // The same spec compiled for B row-major (N-major): a row-major D of few
  // columns, and a column-major D of column-major operands (D^T = B^T·A^T:
  // the tokens are its N-major B). The short operand packed (ld = columns)
  // takes the _mn kernels, one packed column the K-major one; padded, or a
  // long operand MN-major, the GEMM kernel.
  REQUIRE_FAKE();
  CompileOptions o;
  o.spec.layoutB = Layout::Row;
  Expected<Kernel> k = fake.rt->compileString(
      specWithScheduler("05_fast_f16.yaml", "simt_narrow: 4"), "narrow05rr.yaml", o);
  ASSERT_TRUE(k.ok()) << k.status().message();
  auto rowRow = [](long long M, long long N, long long K, long long ldb) {
    GemmArgs a = args(M, N, K, 8);
    a.layoutB = Layout::Row, a.ldb = ldb;
    return a;
  };
  GemmArgs colD = args(3, 4096, 2048, 3); // 3 tokens, column-major: D^T = W^T·X^T
  colD.layoutA = Layout::Col, colD.layoutB = Layout::Col, colD.layoutD = Layout::Col;
  colD.lda = 3, colD.ldb = 2048;
  GemmArgs colDBatched = colD;
  colDBatched.M = 1, colDBatched.lda = 1, colDBatched.ldd = 1;
  colDBatched.batch = 2, colDBatched.strideA = 2048 + 8, colDBatched.strideB = 2048 * 4096,
  colDBatched.strideD = 4096;
  expectNarrowLaunches(fake, *k, {
      {rowRow(4096, 2, 4096, 2), "simt_narrow(rows of A)",
       {"launch gg_narrow_f16_2_mn grid=512 M=4096 K=4096 a=4096,1 b=1,2 ldd=8 n0=0 cols=2"}},
      {rowRow(3000, 2, 1024, 2), "simt_narrow(rows of A)", // no shared rows for packed tokens
       {"launch gg_narrow_f16_2_mn grid=375 M=3000 K=1024 a=1024,1 b=1,2 ldd=8 n0=0 cols=2"}},
      {rowRow(4096, 4, 1024, 4), "simt_narrow(rows of A)",
       {"launch gg_narrow_f16_4_mn grid=512 M=4096 K=1024 a=1024,1 b=1,4 ldd=8 n0=0 cols=4"}},
      {rowRow(4096, 1, 4096, 1), "simt_narrow(rows of A, 2 warps a row)",
       {"launch gg_narrow_f16_1_k2 grid=1024 M=4096 K=4096 a=4096,1 b=1,1 ldd=8 n0=0 cols=1"}},
      {colD, "simt_narrow(rows of A)",
       {"launch gg_narrow_f16_3_mn grid=512 M=4096 K=2048 a=2048,1 b=1,3 ldd=3 n0=0 cols=3"}},
      {colDBatched, "simt_narrow(rows of A)", // 2 x 4096 rows: one wave
       {"launch gg_narrow_f16_1 grid=512 M=4096 K=2048 a=2048,1 b=1,1 ldd=1 n0=0 cols=1 "
        "batch=2 grid_y=2 strides=8388608,2056,4096"}},
  });
  // Not taken: the short operand padded (ld 8 > 2 columns), 16 bytes off,
  // the long operand's rows not 16-byte aligned (K = 4100: the packed
  // operand is read in 16-byte words only), or the long operand N-major (one
  // row of D: B's rows are the long ones).
  GemmArgs off = rowRow(4096, 2, 4096, 2);
  off.B += 8;
  GemmArgs oneRow = rowRow(1, 4096, 4096, 4096);
  oneRow.ldd = 4096;
  for (GemmArgs a : {rowRow(4096, 2, 4096, 8), off, rowRow(4096, 2, 4100, 2), oneRow}) {
    a.workspace = 0x7000000, a.workspaceBytes = k->workspaceBytes(a); // B's rows may be staged
    Expected<PreparedLaunch> p = k->prepare(a);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->path.rfind("tma", 0), 0u) << p->path;
  }
}

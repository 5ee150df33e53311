//===- FakeDriverLayoutsTest.cpp - Layouts, batches, alpha/beta -----------===//
//
// What the runtime asks the stand-in driver for (tests/fake/FakeCuda.cpp)
// when the operands or D are not the spec's row-major A, column-major B and
// row-major D: A's and B's layouts through the overrides and the check's
// message, a column-major D as the transposed problem (and a kernel that
// stores D column-major, with split-K too), a spec's L2 promotion on its
// operand maps, strided batches in the maps, the grid and the tail, and
// alpha/beta with C's own map.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

TEST(FakeDriver, OperandLayoutsReachTheTensorMapsAndTheTail) {
  // One spec, compiled for a column-major A and a row-major B through the
  // overrides: A's map covers K lines of M, B's K lines of N, each with its
  // own leading dimension; the tail kernel reads both through strides.
  REQUIRE_FAKE();
  CompileOptions o;
  o.spec.layoutA = Layout::Col;
  o.spec.layoutB = Layout::Row;
  Expected<Kernel> k =
      fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/05_fast_f16.yaml", o);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->info().layoutA, Layout::Col);
  EXPECT_EQ(k->info().layoutB, Layout::Row);
  EXPECT_EQ(k->info().kAlignment, 1u); // K is nobody's contiguous dimension

  GemmArgs a = args(129, 257, 72, 264);
  // The arguments still say row,col: refused with what to change.
  Status wrong = k->check(a);
  EXPECT_EQ(wrong.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(wrong.message(),
            "the arguments store A row-major and B col-major, but kernel 'gemm_sm90_fast_f16' "
            "was compiled for A col-major and B row-major; compile the spec with layout: { a: "
            "row, b: col } (SpecOverrides, `--layout`)");
  a.layoutA = Layout::Col, a.layoutB = Layout::Row;
  a.lda = 129; // M = 129 elements: not a 16-byte multiple, so A is staged
  a.ldb = 264;
  EXPECT_TRUE(k->check(a).ok()) << k->check(a).message();
  EXPECT_EQ(k->workspaceBytes(a), 19712u); // 72 lines of 136 elements (19584 B), to 256 B
  a.lda = 136;
  EXPECT_EQ(k->workspaceBytes(a), 0u);
  // K = 0 reads neither A nor B: their leading dimensions are not checked.
  GemmArgs z = args(129, 257, 0, 264);
  z.layoutA = Layout::Col, z.layoutB = Layout::Row;
  EXPECT_TRUE(k->check(z).ok()) << k->check(z).message();
  fake.clear();
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_TRUE(k->launch(*p, nullptr).ok());
  std::vector<std::string> want = {
      "encode rows=72 cols=129 stride=272", // A: K lines of M
      "encode rows=72 cols=257 stride=528", // B: K lines of N
      "encode rows=129 cols=256 stride=528",
      "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=72 batch=1",
      "launch gg_tail_columns grid=17 M=129 K=72 a=1,136 b=1,264 ldd=264 n0=256 cols=1"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
}

TEST(FakeDriver, AColumnMajorDIsTheTransposedProblem) {
  // D col-major (N lines of M) = D^T row-major = B^T·A^T: the kernel for
  // A row, B col (05) computes it with A and B swapped, M and N swapped.
  REQUIRE_FAKE();
  GemmArgs a = args(129, 257, 72, 136); // ldd >= M = 129, a multiple of 8
  a.layoutD = Layout::Col;
  GemmArgs t = rowMajorProblem(a);
  EXPECT_EQ(t.A, a.B);
  EXPECT_EQ(t.B, a.A);
  EXPECT_EQ(t.M, 257);
  EXPECT_EQ(t.N, 129);
  EXPECT_EQ(t.layoutA, Layout::Row); // B stored N×K is B^T row-major
  EXPECT_EQ(t.layoutB, Layout::Col); // A stored M×K is A^T (K×M) column-major
  EXPECT_EQ(storedShape(a, 'D').lines, 257);
  EXPECT_EQ(storedShape(a, 'D').length, 129);
  fake.clear();
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->tailColumns, 1u); // the transposed problem's N = 129
  ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
  std::vector<std::string> want = {
      "encode rows=257 cols=72 stride=144", "encode rows=129 cols=72 stride=144",
      "encode rows=257 cols=128 stride=272",
      "launchEx gemm_sm90_fast_f16 grid=3 M=257 N=128 K=72 batch=1",
      "launch gg_tail_columns grid=33 M=257 K=72 a=72,1 b=72,1 ldd=136 n0=128 cols=1"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // Row-major A and B with a column-major D need the kernel for A col, B col.
  a.layoutB = Layout::Row;
  EXPECT_EQ(fake.kernel->check(a).message(),
            "the arguments store A row-major and B row-major with D col-major (computed as D^T "
            "= B^T·A^T: A col-major, B col-major), but kernel 'gemm_sm90_fast_f16' was compiled "
            "for A row-major and B col-major; compile the spec with layout: { a: col, b: col } "
            "(SpecOverrides, `--layout`)");
}

TEST(FakeDriver, AKernelThatStoresDColumnMajorComputesARowMajorDTransposed) {
  // Spec 23 (layout.d: col, 64x16 tiles) on decode: D = X·W^T with 16
  // tokens is computed as D^T = W·X^T, the weights on the kernel's M side;
  // D^T column-major is the user's row-major D, mapped as stored (16 lines
  // of 6144). A user's column-major D is that kernel's own problem.
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(
      std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/23_decode_col_d_f16.yaml", CompileOptions{});
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->info().layoutD, Layout::Col);
  GemmArgs a = args(16, 6144, 4096, 6144); // X 16x4096, W stored 6144x4096, D 16x6144
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  std::vector<std::string> want = {
      "encode rows=6144 cols=4096 stride=8192", // the kernel's A: W
      "encode rows=16 cols=4096 stride=8192",   // its B: X
      "encode rows=16 cols=6144 stride=12288",  // D as stored: 16 lines of 6144
      // 96 tiles of 64 weights on the fake's 66 resident CTAs: two rounds, 48 CTAs
      "launchEx gemm_sm90_decode_col_d_f16 grid=48 M=6144 N=16 K=4096 batch=1"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // N = 257 weights: the kernel stores whole 16-byte chunks of its M, so D
  // goes through an aligned copy (lines of 264), not the tail kernel.
  a = args(16, 257, 64, 264);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  EXPECT_NE(std::string(fake.log()).find("encode rows=16 cols=257 stride=528"), std::string::npos)
      << fake.log();
  EXPECT_EQ(std::string(fake.log()).find("gg_tail_columns"), std::string::npos) << fake.log();
  a.workspace = 0x7000000, a.workspaceBytes = k->workspaceBytes(a);
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+staged(D)");
  // A column-major D (6144 lines of 16 tokens) is the kernel's own problem.
  a = args(16, 6144, 4096, 16);
  a.layoutD = Layout::Col;
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  EXPECT_NE(std::string(fake.log()).find("M=16 N=6144 K=4096"), std::string::npos) << fake.log();
  // A column-major A with a row-major D would need the transposed problem's
  // B row-major: the check says which layouts to compile for.
  a = args(16, 6144, 4096, 6144);
  a.layoutA = Layout::Col;
  EXPECT_EQ(k->check(a).message(),
            "the arguments store A col-major and B col-major with D row-major (computed as D^T "
            "= B^T·A^T: A row-major, B row-major), but kernel 'gemm_sm90_decode_col_d_f16' was "
            "compiled for A row-major and B col-major; compile the spec with layout: { a: row, "
            "b: row } (SpecOverrides, `--layout`)");
}

TEST(FakeDriver, AKernelsL2PromotionReachesItsOperandMapsOnly) {
  // Spec 25 (pipeline.l2_promotion: 128): A's and B's maps request 128
  // bytes where rows on 128-byte lines would get 256; D's keeps the rule.
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(
      std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/25_decode_two_ctas_f16.yaml",
      CompileOptions{});
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = args(4, 6144, 4096, 6144);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  ASSERT_GE(fake.lines().size(), 3u) << fake.log();
  EXPECT_EQ(fake.lines()[0], "encode rows=6144 cols=4096 stride=8192 l2=128");
  EXPECT_EQ(fake.lines()[1], "encode rows=4 cols=4096 stride=8192 l2=128");
  EXPECT_EQ(fake.lines()[2], "encode rows=4 cols=6144 stride=12288");
  // Spec 23, the same kernel without the key: the rule's 256 (not logged).
  Expected<Kernel> k23 = fake.rt->compileFile(
      std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/23_decode_col_d_f16.yaml", CompileOptions{});
  ASSERT_TRUE(k23.ok()) << k23.status().message();
  fake.clear();
  ASSERT_TRUE(k23->launch(a, nullptr).ok()) << fake.log();
  EXPECT_EQ(fake.lines()[0], "encode rows=6144 cols=4096 stride=8192");
}

TEST(FakeDriver, AColumnMajorDKernelThatSplitsKReducesIntoDTransposed) {
  // Spec 24 (spec 23 with split_k 4) on 1x2112x7168: the kernel's problem
  // is D^T = W·X^T (M = 2112 weights, N = 1 token), its 4 slices of 1792
  // store row-major f32 partial sums W' (2112 lines of 4: 16-byte rows), and
  // the reduction writes D^T column-major, i.e. the user's row-major D.
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                            "/specs/sm90/24_decode_col_d_split_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->info().layoutD, Layout::Col);
  EXPECT_EQ(k->info().splitK, 4u);
  GemmArgs a = args(1, 2112, 7168, 2112); // X 1x7168, W stored 2112x7168, D 1x2112
  a.alpha = 2.0f, a.beta = 0.5f, a.C = 0x5000000, a.ldc = 2112;
  const std::size_t need = 4u * 2112 * 4 * 4;
  EXPECT_EQ(k->workspaceBytes(a), need);
  a.workspace = 0x70000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+split_k(4)");
  EXPECT_EQ(p->M, 2112);
  EXPECT_EQ(p->N, 1);
  EXPECT_EQ(p->K, 1792);
  const PreparedLaunch::SplitReduce &r = p->splitReduce;
  EXPECT_EQ(r.slices, 4);
  EXPECT_EQ(r.m, 2112);
  EXPECT_EQ(r.n, 1);
  EXPECT_EQ(r.ldw, 4);
  EXPECT_EQ(r.strideW, 2112 * 4);
  EXPECT_TRUE(r.dColMajor);
  EXPECT_EQ(r.d, 0x3000000u);
  EXPECT_EQ(r.ldd, 2112);
  EXPECT_EQ(r.c, 0x5000000u);
  EXPECT_EQ(r.ldc, 2112);
  EXPECT_EQ(r.alpha, 2.0f);
  fake.clear();
  ASSERT_TRUE(k->launch(*p, nullptr).ok()) << fake.log();
  std::vector<std::string> want = {
      // 33 tiles x 4 slices: 132 units on the fake's 66 resident CTAs
      "launchEx gemm_sm90_decode_col_d_split_f16 grid=66 M=2112 N=1 K=1792 batch=4",
      "launchEx gg_splitk_reduce grid=9 programmatic"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // The maps: A is W (the slices 1792 elements apart along K), B is X, D is
  // W' row-major (lines of 16 bytes, 2112 x 4 apart).
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  for (const char *map : {"encode rows=2112 cols=1792 stride=14336 batch=4 bstride=3584",
                          "encode rows=1 cols=1792 stride=14336 batch=4 bstride=3584",
                          "encode rows=2112 cols=1 stride=16 batch=4 bstride=33792"})
    EXPECT_NE(std::string(fake.log()).find(map), std::string::npos) << map << "\n" << fake.log();
}

TEST(FakeDriver, StridedBatchReachesTheMapsTheGridAndTheTail) {
  // Three entries of 129 x 257 x 72 in one launch: every map gets the batch
  // as its third dimension with the operand's stride (bytes), the persistent
  // grid covers all entries' tiles, the kernel gets batch = 3, and the tail
  // kernel walks the entries with the same strides (elements).
  REQUIRE_FAKE();
  GemmArgs a = args(129, 257, 72, 264);
  a.batch = 3;
  a.strideA = 129 * 72 + 8; // a gap between A's entries
  a.strideB = 0;            // one B for every entry
  a.strideD = 129 * 264;
  fake.clear();
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->batch, 3);
  ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
  std::vector<std::string> want = {
      "encode rows=129 cols=72 stride=144 batch=3 bstride=18592",
      "encode rows=257 cols=72 stride=144 batch=3 bstride=0",
      "encode rows=129 cols=256 stride=528 batch=3 bstride=68112",
      // 2 x 2 tiles of 128 x 256 per entry: 12 units, one CTA each.
      "launchEx gemm_sm90_fast_f16 grid=6 M=129 N=256 K=72 batch=3",
      "launch gg_tail_columns grid=17 M=129 K=72 a=72,1 b=72,1 ldd=264 n0=256 cols=1 batch=3 "
      "grid_y=3 strides=9296,0,34056"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  EXPECT_EQ(fake.kernel->gridSize(129, 256, 3), 6u);
  EXPECT_EQ(fake.kernel->gridSize(129, 256, 0), 0u);
  // A column-major D: the transposed problem, A's and B's strides swapped.
  a.layoutD = Layout::Col;
  a.ldd = 136;
  a.strideD = 257 * 136;
  fake.clear();
  p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  std::vector<std::string> got = fake.lines();
  ASSERT_GE(got.size(), 2u) << fake.log();
  EXPECT_EQ(got[0], "encode rows=257 cols=72 stride=144 batch=3 bstride=0");
  EXPECT_EQ(got[1], "encode rows=129 cols=72 stride=144 batch=3 bstride=18592");
}

TEST(FakeDriver, AlphaBetaReachTheKernelTheCMapAndTheTail) {
  // beta != 0: C gets its own map (D's box, C's ld), encoded after D's; the
  // kernel gets alpha and beta; the tail kernel gets them with C and ldc.
  // beta = 0 encodes no C map (the kernel never reads it).
  REQUIRE_FAKE();
  GemmArgs a = args(129, 257, 72, 264);
  a.alpha = 0.5f, a.beta = 2.0f;
  a.C = 0x4000000, a.ldc = 272;
  fake.clear();
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
  std::vector<std::string> want = {
      "encode rows=129 cols=72 stride=144", "encode rows=257 cols=72 stride=144",
      "encode rows=129 cols=256 stride=528", "encode rows=129 cols=256 stride=544",
      "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=72 batch=1 alpha=0.5 beta=2",
      "launch gg_tail_columns grid=17 M=129 K=72 a=72,1 b=72,1 ldd=264 n0=256 cols=1 alpha=0.5 "
      "beta=2 c=0x4000000 ldc=272"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // In place: C = D.
  a.C = a.D, a.ldc = a.ldd;
  fake.clear();
  p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(fake.lines()[3], "encode rows=129 cols=256 stride=528");
  // alpha alone: no C map, C never read.
  a.beta = 0.0f, a.C = 0;
  fake.clear();
  p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(fake.lines().size(), 3u) << fake.log();
}

//===- FakeDriverStagingTest.cpp - Staged operands, straddled rows --------===//
//
// Operands TMA cannot address (pointers and line strides off the 16-byte
// grid, D's rows not whole chunks) copied through the workspace, one
// problem or a strided batch, with the copies and the workspace size the
// runtime asks the stand-in driver for; rows that straddle L2 lines copied
// where the copy pays (GEMMGEN_STAGE_STRADDLING), not for kernels that
// multicast B; f32 D's chunks of four elements; 8-bit operands stored M- or
// N-major copied K-major (transposed) for the fp8 kernels.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

TEST(FakeDriver, UnalignedOperandsAreStagedThroughTheWorkspace) {
  // A packed K = 100 (200-byte rows), a D pointer 2 bytes off and ldd = 257:
  // TMA can address neither, so A is copied into an aligned buffer (rows of
  // 104), the GEMM (and the tail) write D's aligned copy, which is copied out
  // to the user's D. Without a workspace prepare() says how much it needs;
  // launch(args) allocates it on the stream and frees it after.
  REQUIRE_FAKE();
  GemmArgs a = args(129, 257, 100, 257);
  a.D += 2;
  const std::size_t need = fake.kernel->workspaceBytes(a);
  // A 129 x 104, B 257 x 104, D 129 x 264 elements, each rounded to 256 bytes.
  EXPECT_EQ(need, 26880u + 53504u + 68352u);
  Expected<PreparedLaunch> none = fake.kernel->prepare(a);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(
      none.status().message(),
      "operands TMA cannot address (16-byte aligned pointers and line strides) and 8-bit "
      "operands stored M- or N-major (copied K-major) are copied through a workspace of " +
          std::to_string(need) +
          " bytes; pass "
          "GemmArgs::workspace (null, see Kernel::workspaceBytes), or use Kernel::launch(args, "
          "stream), which allocates it on the stream");
  fake.clear();
  ASSERT_TRUE(fake.kernel->launch(a, nullptr).ok());
  std::vector<std::string> want = {
      "allocAsync bytes=" + std::to_string(need),
      "encode rows=129 cols=100 stride=208", // A's copy: rows of 104
      "encode rows=257 cols=100 stride=208", // B's copy (packed K = 100: 200-byte rows)
      "encode rows=129 cols=256 stride=528", // D's copy: rows of 264
      // gg_copy2d's grid (copyLaunchOf): a word per thread below 64 words a
      // line, else a block per line. 200-byte rows: 25 words of 8 bytes.
      "launch gg_copy2d grid=13",            // A -> its copy (129 x 25 words / 256)
      "launch gg_copy2d grid=26",            // B -> its copy (257 x 25 words / 256)
      "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=100 batch=1",
      "launch gg_tail_columns grid=17 M=129 K=100 a=104,1 b=104,1 ldd=264 n0=256 cols=1",
      "launch gg_copy2d grid=129",           // D's copy -> D (129 lines of 257 2-byte words)
      "freeAsync"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // With the caller's workspace: no allocation; too small a one is refused.
  a.workspace = 0x7000000, a.workspaceBytes = need;
  fake.clear();
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+staged(A,B,D)");
  EXPECT_EQ(p->before.size(), 2u);
  EXPECT_EQ(p->after.size(), 1u);
  a.workspaceBytes = need - 1;
  EXPECT_NE(fake.kernel->prepare(a).status().message().find("got " + std::to_string(need - 1) +
                                                            " bytes"),
            std::string::npos);
}

TEST(FakeDriver, RowsThatStraddleL2LinesAreCopiedWhereTheCopyPays) {
  // K = 8200 packed: A's and B's rows are 16400 bytes apart (16 mod 128), so
  // every 128-byte TMA row touches two L2 lines. At 8192 x 8192 the copy to
  // rows of 8256 elements (16512 bytes, a multiple of 128) costs far less
  // than the straddle; at 1 x 8192 (decode: B streamed once) it would cost
  // more than the GEMM; GEMMGEN_STAGE_STRADDLING=0 turns it off. 4096 x 4096
  // x 4104 (the sweep's shape) is just inside the rule; 512 x 4096 x 4104 not.
  REQUIRE_FAKE();
  struct Case {
    long long M;
    const char *env;
    const char *path;
    const char *firstMap;
  } cases[] = {
      {8192, nullptr, "tma+staged(A,B)", "encode rows=8192 cols=8200 stride=16512"},
      {1, nullptr, "tma", "encode rows=1 cols=8200 stride=16400"},
      {8192, "0", "tma", "encode rows=8192 cols=8200 stride=16400"},
      {1, "1", "tma+staged(A,B)", "encode rows=1 cols=8200 stride=16512"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("M=" + std::to_string(c.M) + " GEMMGEN_STAGE_STRADDLING=" + (c.env ? c.env : "-"));
    if (c.env)
      setenv("GEMMGEN_STAGE_STRADDLING", c.env, 1);
    else
      unsetenv("GEMMGEN_STAGE_STRADDLING");
    GemmArgs a = args(c.M, 8192, 8200, 8192);
    a.workspaceBytes = fake.kernel->workspaceBytes(a);
    a.workspace = a.workspaceBytes ? 0x70000000 : 0;
    fake.clear();
    Expected<PreparedLaunch> p = fake.kernel->prepare(a);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->path, c.path);
    std::vector<std::string> got = fake.lines();
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], c.firstMap) << fake.log();
  }
  unsetenv("GEMMGEN_STAGE_STRADDLING");
  for (auto [M, path] : {std::pair<long long, const char *>{4096, "tma+staged(A,B)"}, {512, "tma"}}) {
    GemmArgs a = args(M, 4096, 4104, 4096);
    a.workspaceBytes = fake.kernel->workspaceBytes(a);
    a.workspace = a.workspaceBytes ? 0x70000000 : 0;
    Expected<PreparedLaunch> p = fake.kernel->prepare(a);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->path, path) << M << "x4096x4104";
  }
}

TEST(FakeDriver, KernelsThatMulticastBReadStraddlingRowsWithoutACopy) {
  // The 2x1 cluster sharing B read packed rows of K = 4104 and 8200 at 0.98
  // and 1.01 of cuBLAS without the copy, 0.81 and 0.93 with it
  // (2026-12-03_kres_cluster_h200): its operands are not staged for the
  // straddle, and no workspace is asked for; GEMMGEN_STAGE_STRADDLING=1
  // still forces the copy.
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(
      std::string(GEMMGEN_SOURCE_DIR) + "/bench/variants/cluster2_group16.yaml", CompileOptions{});
  ASSERT_TRUE(k.ok()) << k.status().message();
  for (const char *env : {(const char *)nullptr, "1"}) {
    if (env)
      setenv("GEMMGEN_STAGE_STRADDLING", env, 1);
    else
      unsetenv("GEMMGEN_STAGE_STRADDLING");
    for (long long M : {4096LL, 8192LL}) {
      const long long K = M == 4096 ? 4104 : 8200;
      GemmArgs a = args(M, M, K, M);
      a.workspaceBytes = k->workspaceBytes(a);
      EXPECT_EQ(a.workspaceBytes == 0, env == nullptr) << M << " " << (env ? env : "-");
      a.workspace = a.workspaceBytes ? 0x70000000 : 0;
      fake.clear();
      Expected<PreparedLaunch> p = k->prepare(a);
      ASSERT_TRUE(p.ok()) << p.status().message();
      EXPECT_EQ(p->path, env ? "tma+staged(A,B)" : "tma") << M << "x" << M << "x" << K;
    }
  }
  unsetenv("GEMMGEN_STAGE_STRADDLING");
}

TEST(FakeDriver, StridedBatchTmaCannotAddressIsStaged) {
  // A strided batch stages like one problem, every entry in one copy: A's
  // entries 4 elements off the 16-byte grid (stride 129 x 72 + 4) are copied
  // into packed aligned entries before the GEMM; D's rows of 257 packed
  // (514 bytes) are computed into an aligned copy (rows of 264) and copied
  // out entry by entry to the user's stride; B (stride 0) stays broadcast.
  REQUIRE_FAKE();
  GemmArgs a = args(129, 257, 72, 257);
  a.batch = 3;
  a.strideA = 129 * 72 + 4, a.strideB = 0, a.strideD = 129 * 257 + 3;
  // A: 3 x 129 x 72, D: 3 x 129 x 264 (each rounded to 256 bytes).
  const std::size_t need = 55808 + 204544;
  EXPECT_EQ(fake.kernel->workspaceBytes(a), need);
  a.workspace = 0x70000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+staged(A,D)");
  ASSERT_EQ(p->before.size(), 1u);
  EXPECT_EQ(p->before[0].batch, 3);
  EXPECT_EQ(p->before[0].srcStride, 129 * 72 + 4);
  EXPECT_EQ(p->before[0].dstStride, 129 * 72);
  ASSERT_EQ(p->after.size(), 1u);
  EXPECT_EQ(p->after[0].batch, 3);
  EXPECT_EQ(p->after[0].srcStride, 129 * 264);
  EXPECT_EQ(p->after[0].dstStride, 129 * 257 + 3);
  EXPECT_EQ(p->after[0].dstLd, 257);
  fake.clear();
  ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
  std::vector<std::string> want = {
      "launch gg_copy2d grid=28", // A's 3 entries in (3 x 129 x 18 8-byte words / 256)
      "launchEx gemm_sm90_fast_f16 grid=6 M=129 N=256 K=72 batch=3",
      // the tail reads A's copy (entries 129 x 72 apart) and B broadcast, writes D's copy
      "launch gg_tail_columns grid=17 M=129 K=72 a=72,1 b=72,1 ldd=264 n0=256 cols=1 batch=3 "
      "grid_y=3 strides=9288,0,34056",
      "launch gg_copy2d grid=387"}; // D's 3 entries out (a block for each of 3 x 129 lines)
  EXPECT_EQ(fake.lines(), want) << fake.log();
}

TEST(FakeDriver, StagingCountsFourF32ElementsPerChunk) {
  // An f32 D's rows are 16-byte multiples every 4 elements, A's and B's every
  // 8: ldd 252 is taken as it is in f32 (and staged in f16), 254 is staged,
  // lda 68 is staged in both.
  REQUIRE_FAKE();
  Expected<Kernel> f32 = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                              "/specs/sm90/10_fast_f16_out_f32.yaml");
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  GemmArgs a = args(256, 252, 64, 252);
  EXPECT_EQ(f32->workspaceBytes(a), 0u);
  EXPECT_EQ(fake.kernel->workspaceBytes(a), 256u * 256 * 2); // f16 D: rows of 256
  a.ldd = 254;
  EXPECT_EQ(f32->workspaceBytes(a), 256u * 252 * 4); // the copy's rows: 252, whole chunks
  a = args(256, 256, 64, 256);
  a.lda = 68;
  EXPECT_EQ(f32->workspaceBytes(a), 256u * 64 * 2);
}

TEST(FakeDriver, Fp8OperandsStoredMOrNMajorAreCopiedTransposed) {
  // wgmma reads 8-bit operands K-major only, so spec 13 (e4m3) is compiled
  // K-major and an A stored column-major (K x M) or a B stored row-major
  // (K x N) reaches it through a transposed copy: rows of K, 128 bytes apart.
  REQUIRE_FAKE();
  Expected<Kernel> k =
      fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/13_fast_e4m3.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = args(256, 512, 1000, 512);
  a.layoutA = Layout::Col, a.lda = 256; // A stored K x M
  a.layoutB = Layout::Row, a.ldb = 520; // B stored K x N, lines 520 bytes apart
  // A's copy 256 x 1024 bytes, B's 512 x 1024.
  const std::size_t need = 262144u + 524288u;
  EXPECT_EQ(k->workspaceBytes(a), need);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  const std::vector<std::string> want = {
      "allocAsync bytes=" + std::to_string(need),
      "encode rows=256 cols=1000 stride=1024", // A's copy, K-major
      "encode rows=512 cols=1000 stride=1024", // B's copy
      "encode rows=256 cols=512 stride=1024",  // D (bf16)
      // 64 x 64 tiles: 16 x 4 of A, 16 x 8 of B.
      "launch gg_transpose2d grid=64 lines=1000 length=256 sl=256 dl=1024 elem=1",
      "launch gg_transpose2d grid=128 lines=1000 length=512 sl=520 dl=1024 elem=1",
      "launchEx gemm_sm90_fast_e4m3 grid=4 M=256 N=512 K=1000 batch=1", "freeAsync"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  a.workspace = 0x7000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+staged(A^T,B^T)");
  // Only the operand stored the other way is copied; a K-major one is not.
  a.layoutA = Layout::Row, a.lda = 1024;
  a.workspaceBytes = 524288;
  p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+staged(B^T)");
  ASSERT_EQ(p->before.size(), 1u);
  EXPECT_TRUE(p->before[0].transpose);
  // A batch: each entry transposed, the copies' entries packed.
  a.batch = 3, a.strideB = 1000LL * 520, a.strideA = 256LL * 1024, a.strideD = 256LL * 512;
  a.workspace = 0, a.workspaceBytes = 0;
  EXPECT_EQ(k->workspaceBytes(a), 3u * 524288u);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  EXPECT_NE(std::string(fake.log())
                .find("launch gg_transpose2d grid=384 lines=1000 length=512 sl=520 "
                      "dl=1024 elem=1 batch=3 strides=520000,524288"),
            std::string::npos)
      << fake.log();
}

TEST(FakeDriver, SixteenBitOperandsStoredTheOtherWayAreNotCopied) {
  // 16-bit kernels read either major natively: a layout other than the
  // kernel's is the user's to compile for, not a copy (the message says how).
  REQUIRE_FAKE();
  GemmArgs a = args(256, 512, 1024, 512);
  a.layoutA = Layout::Col, a.lda = 256;
  Status s = fake.kernel->check(a);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("compile the spec with layout: { a: col, b: col }"), std::string::npos)
      << s.message();
}

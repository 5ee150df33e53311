//===- FakeDriverStagingTest.cpp - Staged operands, straddled rows --------===//
//
// Operands TMA cannot address (pointers and line strides off the 16-byte
// grid, D's rows not whole chunks) copied through the workspace, one
// problem or a strided batch, with the copies and the workspace size the
// runtime asks the stand-in driver for; rows that straddle L2 lines copied
// where the copy pays (GEMMGEN_STAGE_STRADDLING), not for kernels that
// multicast B; f32 D's chunks of four elements.
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
  EXPECT_EQ(none.status().message(),
            "operands TMA cannot address (16-byte aligned pointers and line strides) are copied "
            "through a workspace of " + std::to_string(need) + " bytes; pass "
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

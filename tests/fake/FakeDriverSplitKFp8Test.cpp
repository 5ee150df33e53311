//===- FakeDriverSplitKFp8Test.cpp - Split-K, stream-K, fp8 ---------------===//
//
// The launches that hand partial sums over through the workspace, against
// the stand-in driver: split-K's slices and reduction (fp8 too, with the
// scales each gets), stream-K's flags zeroed before every launch over every
// resident CTA. And fp8's inputs: bench's shape check with placeholders
// for the scales and bias, blockwise scale arrays past 32-bit indices
// refused, an 8-bit D's amax zeroed before the kernel.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include "gemmgen/tune/Workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

TEST(FakeDriver, SplitKSlicesIntoTheWorkspaceThenReduces) {
  // specs/sm90/12_splitk_f16.yaml (split_k 8) on 16x4096x4096: 64 k-blocks
  // split into 8 slices of 512, the kernel's 8 batch entries into an f32
  // workspace W (16 x 4096 per slice), A's and B's entries 512 elements
  // apart along K; then the reduction writes D (f16, alpha and beta·C
  // there). K = 4100 (not whole k-blocks) stays one slice.
  REQUIRE_FAKE();
  Expected<Kernel> k =
      fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/12_splitk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->info().splitK, 8u);
  EXPECT_EQ(k->info().outType, DType::F16);
  GemmArgs a = args(16, 4096, 4096, 4096);
  a.alpha = 2.0f, a.beta = 0.5f, a.C = 0x5000000, a.ldc = 4096;
  const std::size_t need = 8u * 16 * 4096 * 4;
  EXPECT_EQ(k->workspaceBytes(a), need);
  a.workspace = 0x70000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+split_k(8)");
  EXPECT_EQ(p->batch, 8);
  EXPECT_EQ(p->K, 512);
  EXPECT_EQ(p->splitReduce.slices, 8);
  EXPECT_EQ(p->splitReduce.strideW, 16 * 4096);
  EXPECT_EQ(p->splitReduce.d, 0x3000000u);
  EXPECT_EQ(p->splitReduce.c, 0x5000000u);
  fake.clear();
  ASSERT_TRUE(k->launch(*p, nullptr).ok()) << fake.log();
  std::vector<std::string> want = {
      "launchEx gemm_sm90_splitk_f16 grid=64 M=16 N=4096 K=512 batch=8", // 256 units, 4 waves
      "launchEx gg_splitk_reduce grid=256 programmatic"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  // Packed operands (lda = ldb = 0) keep the rows of the whole K (8192
  // bytes), not of one slice: found on the H200 as a wrong D (rel. error
  // 1.41) from `chooseKernel`'s split-K kernels in the GPU tests.
  GemmArgs packed = a;
  packed.lda = packed.ldb = packed.ldd = packed.ldc = 0;
  fake.clear();
  Expected<PreparedLaunch> pp = k->prepare(packed);
  ASSERT_TRUE(pp.ok()) << pp.status().message();
  std::vector<std::string> maps = fake.lines();
  ASSERT_GE(maps.size(), 2u) << fake.log();
  EXPECT_EQ(maps[0], "encode rows=16 cols=512 stride=8192 batch=8 bstride=1024") << fake.log();
  EXPECT_EQ(maps[1], "encode rows=4096 cols=512 stride=8192 batch=8 bstride=1024")
      << fake.log();
  // The maps: A and B as 8 entries of 512 along K (rows of 4096), W in f32.
  a.K = 4100, a.lda = a.ldb = 4104;
  Expected<PreparedLaunch> one = k->prepare(a);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->path, "tma+split_k(1)");
  EXPECT_EQ(one->batch, 1);
  EXPECT_EQ(one->K, 4100);
}

/// bench's shape check (tune::checkShape, before any buffer exists) passes
/// for kernels whose launch needs more than A, B and D: a chain's bias, a
/// blockwise kernel's scale arrays (on the H200 it refused every shape of
/// spec 15 before it gave them placeholders), while the real check still
/// refuses the launch without them.
TEST(FakeDriver, BenchShapeCheckGivesEveryInputAPlaceholder) {
  REQUIRE_FAKE();
  for (const char *spec : {"/specs/sm90/15_blockwise_e4m3.yaml", "/specs/sm90/14_fast_bf16_bias_gelu.yaml"}) {
    Expected<Kernel> k = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + spec);
    ASSERT_TRUE(k.ok()) << k.status().message();
    Status shape = tune::checkShape(*k, 4096, 7168, 2048);
    EXPECT_TRUE(shape.ok()) << spec << ": " << shape.message();
    Status bare = k->check(args(4096, 7168, 2048, 7168));
    EXPECT_FALSE(bare.ok()) << spec;
    EXPECT_NE(bare.message().find(k->info().blockwiseScales ? "must be its scale arrays"
                                                            : "GemmArgs::bias is null"),
              std::string::npos)
        << bare.message();
  }
}


/// A blockwise kernel's producer indexes the scale arrays in 32 bits: a
/// launch whose A scales would pass 2^31 floats is refused with the counts
/// and what to do, one just under it is not refused for that.
TEST(FakeDriver, BlockwiseScaleArraysPast32BitIndicesAreRefused) {
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                            "/specs/sm90/15_blockwise_e4m3.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = args(4096, 256, 1024, 256);
  a.scaleA = 0x6000000, a.scaleB = 0x6100000;
  ASSERT_TRUE(k->check(a).ok()) << k->check(a).message();
  a.batch = 65536, a.strideA = 4096LL * 1024, a.strideB = 256LL * 1024, a.strideD = 4096LL * 256;
  Status big = k->check(a); // 65536 x 8 k-blocks x 4096 rows = 2^31 A scales
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.message().find("2147483648 (A)"), std::string::npos) << big.message();
  EXPECT_NE(big.message().find("split the batch"), std::string::npos) << big.message();
  a.batch = 65535;
  Status under = k->check(a);
  EXPECT_EQ(under.message().find("indexes them in 32 bits"), std::string::npos) << under.message();
}

/// An 8-bit D (specs/sm90/16_fast_e4m3_out_e4m3.yaml): the kernel takes the
/// output scale and the amax after the fp8 scales, the launch zeroes the
/// amax on the stream just before the kernel (the kernel raises it with
/// red.max), and the launch checks refuse an amax a kernel does not keep or
/// one that is not an aligned f32.
TEST(FakeDriver, AnFp8OutputZeroesItsAmaxBeforeTheKernel) {
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                            "/specs/sm90/16_fast_e4m3_out_e4m3.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_TRUE(k->info().fp8Output);
  EXPECT_EQ(k->info().outType, DType::E4M3);
  GemmArgs a = args(256, 512, 1024, 512);
  a.scaleD = 0x6000000, a.amaxD = 0x6000100;
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  std::vector<std::string> lines = fake.lines();
  std::vector<std::string> tail(lines.end() - std::min<size_t>(2, lines.size()), lines.end());
  std::vector<std::string> want = {"memsetD32 0x6000100 value=0 count=1",
                                   "launchEx gemm_sm90_fast_e4m3_out_e4m3 grid=4 M=256 N=512 "
                                   "K=1024 batch=1"};
  EXPECT_EQ(tail, want) << fake.log();
  // Without an amax nothing is zeroed (the kernel gets null and keeps none).
  a.amaxD = 0;
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  // (strides in bytes: D's 512 e4m3 columns are 512 bytes a row)
  EXPECT_EQ(fake.log(), std::string("encode rows=256 cols=1024 stride=1024\n"
                                    "encode rows=512 cols=1024 stride=1024\n"
                                    "encode rows=256 cols=512 stride=512\n"
                                    "launchEx gemm_sm90_fast_e4m3_out_e4m3 grid=4 M=256 N=512 "
                                    "K=1024 batch=1\n"));
  a.amaxD = 0x6000102;
  EXPECT_EQ(k->check(a).message(),
            "kernel 'gemm_sm90_fast_e4m3_out_e4m3': GemmArgs::amaxD 0x6000102 is not 4-byte "
            "aligned (one f32)");
  Expected<Kernel> bf16Out = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                                  "/specs/sm90/13_fast_e4m3.yaml");
  ASSERT_TRUE(bf16Out.ok()) << bf16Out.status().message();
  EXPECT_FALSE(bf16Out->info().fp8Output);
  a.amaxD = 0x6000100;
  EXPECT_EQ(bf16Out->check(a).message(),
            "kernel 'gemm_sm90_fast_e4m3' writes a bf16 D and keeps no amax (got "
            "GemmArgs::amaxD); the amax is kept by kernels with an 8-bit D (types.d e4m3 or "
            "e5m2): pass null");
}

/// Split-K with fp8 operands. Per tensor (spec 13 with split_k 4): the
/// slices' kernel gets the user's scale pointers and alpha 1, stores whole
/// chunks (no tail kernel: it reads 16-bit operands), and the reduction
/// applies alpha. Blockwise (spec 17): A's scales are the user's array (slice
/// l's k-blocks are where the kernel looks for entry l's), B's are copied
/// into the workspace per slice first ([l][nb][kb'], one gg_copy2d).
TEST(FakeDriver, Fp8SplitKPassesTheScalesAndCopiesBsBlocksPerSlice) {
  REQUIRE_FAKE();
  const std::string text = specWithScheduler("13_fast_e4m3.yaml", "split_k: 4");
  ASSERT_FALSE(text.empty());
  Expected<Kernel> perTensor = fake.rt->compileString(text, "split13.yaml");
  ASSERT_TRUE(perTensor.ok()) << perTensor.status().message();
  EXPECT_EQ(perTensor->info().splitK, 4u);
  EXPECT_EQ(perTensor->info().outType, DType::BF16);
  GemmArgs a = args(128, 2112, 7168, 2112);
  a.alpha = 0.5f, a.scaleA = 0x6000000, a.scaleB = 0x6100000;
  a.workspace = 0x70000000, a.workspaceBytes = perTensor->workspaceBytes(a);
  EXPECT_EQ(a.workspaceBytes, 4u * 128 * 2112 * 4); // W: 4 slices of 128 x 2112 f32
  Expected<PreparedLaunch> p = perTensor->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+split_k(4)");
  EXPECT_EQ(p->scaleA, 0x6000000u);
  EXPECT_EQ(p->scaleB, 0x6100000u);
  EXPECT_EQ(p->alpha, 1.0f);
  EXPECT_EQ(p->splitReduce.alpha, 0.5f);
  EXPECT_EQ(p->tailColumns, 0u);
  EXPECT_EQ(p->N, 2112);
  EXPECT_TRUE(p->before.empty());

  Expected<Kernel> blockwise = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                                    "/specs/sm90/17_splitk_blockwise_e4m3.yaml");
  ASSERT_TRUE(blockwise.ok()) << blockwise.status().message();
  ASSERT_TRUE(blockwise->info().blockwiseScales);
  GemmArgs b = args(128, 2112, 7168, 2112);
  b.scaleA = 0x6000000, b.scaleB = 0x6100000;
  const std::size_t w = 4u * 128 * 2112 * 4, scales = (17u * 56 * 4 + 255) / 256 * 256;
  EXPECT_EQ(blockwise->workspaceBytes(b), w + scales);
  b.workspace = 0x70000000, b.workspaceBytes = w + scales;
  Expected<PreparedLaunch> q = blockwise->prepare(b);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->scaleA, 0x6000000u);
  EXPECT_EQ(q->scaleB, 0x70000000u + w);
  ASSERT_EQ(q->before.size(), 1u);
  const PreparedLaunch::Copy &c = q->before[0];
  EXPECT_EQ(c.src, 0x6100000u);
  EXPECT_EQ(c.dst, 0x70000000u + w);
  EXPECT_EQ(c.elemBytes, 4u);
  EXPECT_EQ(c.lines, 17);   // N / 128 blocks (2112 = 16.5)
  EXPECT_EQ(c.length, 14);  // 56 k-blocks in 4 slices
  EXPECT_EQ(c.srcLd, 56);
  EXPECT_EQ(c.dstLd, 14);
  EXPECT_EQ(c.batch, 4);
  EXPECT_EQ(c.srcStride, 14);
  EXPECT_EQ(c.dstStride, 17 * 14);
  fake.clear();
  ASSERT_TRUE(blockwise->launch(*q, nullptr).ok()) << fake.log();
  // 4 x 17 x 14 scales copied (4 x 17 x 7 8-byte words: 2 blocks); 68 units (17 tiles x 4 slices) in two rounds
  // of the fake's 66 CTAs: 34 CTAs; the reduction over 128 x 2112.
  std::vector<std::string> want = {
      "launch gg_copy2d grid=2",
      "launchEx gemm_sm90_splitk_blockwise_e4m3 grid=34 M=128 N=2112 K=1792 batch=4",
      "launchEx gg_splitk_reduce grid=1056 programmatic"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
}

/// Stream-K (specs/sm90/18_streamk_f16.yaml): the workspace leads with a
/// partial-sum slot per resident CTA (the fake H200 has 66) and their flags,
/// the grid is every resident CTA (or one per k-block iteration when there
/// are fewer), the flags are zeroed on the stream before a prepared launch's
/// first run only (each run leaves them zero), and a launch without the
/// workspace is refused.
TEST(FakeDriver, StreamKZeroesItsFlagsOnceAndUsesEveryResidentCta) {
  REQUIRE_FAKE();
  Expected<Kernel> k = fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                            "/specs/sm90/18_streamk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().streamK);
  GemmArgs a = args(768, 3072, 3072, 3072);
  const std::size_t partials = 66u * 128 * 256 * 4, flags = 768; // 66 x 2 ints, 256-byte rounded
  EXPECT_EQ(k->workspaceBytes(a), partials + flags);
  EXPECT_EQ(k->prepare(a).status().message(),
            "kernel 'gemm_sm90_streamk_f16' hands stream-K partial sums over through a workspace "
            "of at least " + std::to_string(partials + flags) +
                " bytes (Kernel::workspaceBytes); got 0 (Kernel::launch(args, stream) allocates "
                "one when none is given)");
  a.workspace = 0x70000000, a.workspaceBytes = partials + flags;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->gridX, 66u); // 72 tiles x 48 k-blocks of work over every resident CTA
  EXPECT_EQ(p->skPartials, 0x70000000u);
  EXPECT_EQ(p->skFlags, 0x70000000u + partials);
  EXPECT_EQ(p->skFlagCount, 132u);
  EXPECT_EQ(p->path, "tma+stream_k(66 CTAs)");
  char flagsAt[32];
  std::snprintf(flagsAt, sizeof flagsAt, "%llx", (unsigned long long)(0x70000000u + partials));
  const std::string memset = "memsetD32 0x" + std::string(flagsAt) + " value=0 count=132";
  const std::string launched = "launchEx gemm_sm90_streamk_f16 grid=66 M=768 N=3072 K=3072 batch=1";
  EXPECT_FALSE(p->skFlagsZero);
  for (int launch = 0; launch < 3; ++launch) { // the first run zeroes the flags, later ones not
    fake.clear();
    ASSERT_TRUE(k->launch(*p, nullptr).ok()) << fake.log();
    std::vector<std::string> want = {launched};
    if (launch == 0)
      want.insert(want.begin(), memset);
    EXPECT_EQ(fake.lines(), want) << "launch " << launch << ": " << fake.log();
    EXPECT_TRUE(p->skFlagsZero);
  }
  // A new prepare (the workspace's state unknown) and launch(GemmArgs) (its
  // own prepare each time) zero them again.
  Expected<PreparedLaunch> again = k->prepare(a);
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (int launch = 0; launch < 2; ++launch) {
    fake.clear();
    ASSERT_TRUE((launch == 0 ? k->launch(*again, nullptr) : k->launch(a, nullptr)).ok());
    std::vector<std::string> lines = fake.lines(); // launch(GemmArgs) encodes its maps first
    lines.erase(lines.begin(), lines.end() - std::min<std::ptrdiff_t>(2, lines.size()));
    EXPECT_EQ(lines, (std::vector<std::string>{memset, launched})) << fake.log();
  }
  // Fewer iterations than resident CTAs: one CTA each (one tile, 2 k-blocks).
  GemmArgs small = args(128, 256, 128, 256);
  small.workspace = 0x70000000, small.workspaceBytes = partials + flags;
  Expected<PreparedLaunch> q = k->prepare(small);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->gridX, 2u);
  EXPECT_EQ(q->skFlagCount, 4u);
  // Fewer tiles than CTAs, K cut evenly: shares aligned to the tiles' slices
  // (16 tiles x 32 k-blocks, 4 shares each: 64 of the 66 resident CTAs), or
  // every resident CTA with GEMMGEN_STREAMK_GRID=full.
  GemmArgs aligned = args(512, 1024, 2048, 1024);
  aligned.workspace = 0x70000000, aligned.workspaceBytes = partials + flags;
  Expected<PreparedLaunch> r = k->prepare(aligned);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->gridX, 64u);
  EXPECT_EQ(r->skFlagCount, 128u);
  EXPECT_EQ(r->path, "tma+stream_k(64 CTAs, K in 4 aligned shares a unit)");
  ::setenv("GEMMGEN_STREAMK_GRID", "full", 1);
  Expected<PreparedLaunch> full = k->prepare(aligned);
  ::unsetenv("GEMMGEN_STREAMK_GRID");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->gridX, 66u);
  EXPECT_EQ(full->path, "tma+stream_k(66 CTAs)");
}

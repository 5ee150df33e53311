//===- RuntimeInternalTest.cpp - Runtime-private pieces without a GPU -----===//
//
// The split of D's columns between the GEMM kernel's TMA store (whole
// 16-byte chunks) and the SIMT tail kernel, and the tail kernel compiling
// with NVRTC for the H200's architecture without spills. Its results are
// checked on the GPU (tests/gpu/GpuBoundsThreadsTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/EpilogueChain.h"

#include <gtest/gtest.h>

using namespace gemmgen;

TEST(TailColumns, TheStoreKeepsWholeSixteenByteChunks) {
  struct {
    long long N, stored;
  } cases[] = {{1, 0}, {5, 0}, {7, 0}, {8, 8}, {9, 8}, {250, 248}, {256, 256}, {257, 256},
               {4099, 4096}, {50257, 50256}};
  for (auto c : cases) {
    EXPECT_EQ(tmaStoreColumns(c.N, DType::F16), c.stored) << "N=" << c.N;
    EXPECT_EQ(tmaStoreColumns(c.N, DType::BF16), c.stored) << "N=" << c.N;
  }
}

TEST(TailColumns, KernelCompilesForSm90WithoutSpills) {
  CompileOptions opts;
  opts.useCache = false;
  Expected<CubinResult> r =
      compileCudaSource(tailColumnsSource(), "tail.cu", "sm_90", "gg_tail_columns", opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->usage.valid) << r->log;
  EXPECT_FALSE(r->usage.hasSpills()) << r->log;
  EXPECT_LE(r->usage.registers, 255);
}

// The chain as the runtime hands it to the tail kernel and the reference
// (chainData, from KernelInfo::epilogue) is the chain as the compiler and
// the simulator read it (toChainData, from the spec's steps): op codes,
// clamp bounds and the bias type's code, for each bias type.
TEST(EpilogueChainData, RuntimeAndCompilerAgree) {
  for (ScalarType bias : {ScalarType::F16, ScalarType::BF16, ScalarType::F32}) {
    std::vector<EpilogueStep> steps(3);
    steps[0].kind = EpilogueOpKind::Bias, steps[0].axis = BiasAxis::Row, steps[0].biasType = bias;
    steps[1].kind = EpilogueOpKind::GeluTanh;
    steps[2].kind = EpilogueOpKind::Clamp, steps[2].lo = -2.0f, steps[2].hi = 3.0f;
    const epilogue::Chain want = toChainData(steps);
    GemmArgs a;
    a.bias = 0x1000, a.strideBias = 7, a.scaleD = 0x2000;
    const epilogue::Chain got = chainData(epilogueInfo(steps), a);
    ASSERT_EQ(got.steps, want.steps);
    for (int s = 0; s < want.steps; ++s) {
      EXPECT_EQ(got.op[s], want.op[s]) << s;
      EXPECT_EQ(got.lo[s], want.lo[s]) << s;
      EXPECT_EQ(got.hi[s], want.hi[s]) << s;
    }
    EXPECT_EQ(got.bias_type, want.bias_type) << describe(steps[0]);
    EXPECT_EQ(got.bias_stride, 7);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got.bias), 0x1000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got.scale_d), 0x2000u);
  }
}

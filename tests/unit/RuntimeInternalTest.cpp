//===- RuntimeInternalTest.cpp - Runtime-private pieces without a GPU -----===//
//
// The split of D's columns between the GEMM kernel's TMA store (whole
// 16-byte chunks) and the SIMT tail kernel, and the tail kernel compiling
// with NVRTC for the H200's architecture without spills. Its results are
// checked on the GPU (tests/gpu/GpuBoundsThreadsTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

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

//===- ApiTest.cpp - Host API basics that need no GPU ---------------------===//
//
// toString(ErrorCode); default-constructed (empty) Runtime, Kernel and Module
// report a clear error from every call instead of crashing; the pre-launch
// check table for D (issue 11: a packed D with N = 250 cannot be stored by
// TMA and is refused with what to change).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

using namespace gemmgen;

TEST(Api, ErrorCodeNames) {
  EXPECT_STREQ(toString(ErrorCode::Ok), "ok");
  EXPECT_STREQ(toString(ErrorCode::NoDriver), "no driver");
  EXPECT_STREQ(toString(ErrorCode::InvalidArgument), "invalid argument");
  EXPECT_STREQ(toString(ErrorCode::Unsupported), "unsupported");
  EXPECT_STREQ(toString(ErrorCode::SpecError), "spec error");
  EXPECT_STREQ(toString(ErrorCode::CompileError), "compile error");
  EXPECT_STREQ(toString(ErrorCode::CudaError), "CUDA error");
  EXPECT_STREQ(toString(ErrorCode::Timeout), "timeout");
  EXPECT_STREQ(toString(ErrorCode::Io), "I/O error");
  EXPECT_STREQ(toString(ErrorCode::VerificationFailed), "verification failed");
  EXPECT_STREQ(toString((ErrorCode)1234), "unknown error");
}

TEST(Api, EmptyRuntimeReportsInsteadOfCrashing) {
  Runtime rt; // storable without std::optional
  EXPECT_TRUE(rt.empty());
  const std::string msg = "this Runtime is empty (default-constructed or moved from): assign it "
                          "the result of Runtime::open() first";
  EXPECT_EQ(rt.makeCurrent().message(), msg);
  EXPECT_EQ(rt.makeCurrent().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(rt.compileString("kernel: {}", "x.yaml").status().message(), msg);
  EXPECT_EQ(rt.compileFile("x.yaml").status().message(), msg);
  EXPECT_EQ(rt.loadModule("", "m.cu").status().message(), msg);
  EXPECT_EQ(rt.loadKernel("", KernelABI()).status().message(), msg);
  EXPECT_EQ(rt.alloc(16).status().message(), msg);
  EXPECT_EQ(rt.free(0x1000).message(), msg);
  EXPECT_EQ(rt.copyToDevice(0x1000, "x", 1).message(), msg);
  char c;
  EXPECT_EQ(rt.copyToHost(&c, 0x1000, 1).message(), msg);
  EXPECT_EQ(rt.fill16Async(0x1000, 0, 1, nullptr).message(), msg);
  EXPECT_EQ(rt.createStream().status().message(), msg);
  EXPECT_EQ(rt.destroyStream(nullptr).message(), msg);
  EXPECT_EQ(rt.wait(nullptr, 1).message(), msg);
  EXPECT_EQ(rt.createTimer().status().message(), msg);
  EXPECT_EQ(rt.launchRaw(nullptr, 1, 1, 32, 0, nullptr, nullptr).message(), msg);
  EXPECT_FALSE(rt.timedOut());
  EXPECT_EQ(rt.device().name, "");
  EXPECT_EQ(GemmVerifier::create(rt).status().message(), msg);
}

TEST(Api, EmptyKernelAndModuleReportInsteadOfCrashing) {
  std::vector<Kernel> kernels(2); // default-constructible: usable in containers
  const Kernel &k = kernels[0];
  EXPECT_TRUE(k.empty());
  const std::string msg = "this Kernel is empty (default-constructed or moved from): assign it "
                          "the result of Runtime::compileFile, compileString or loadKernel first";
  GemmArgs a{0x10000, 0x20000, 0x30000, 256, 256, 64, 0, 0, 0};
  EXPECT_EQ(k.check(a).message(), msg);
  EXPECT_EQ(k.prepare(a).status().message(), msg);
  EXPECT_EQ(k.launch(a, nullptr).message(), msg);
  EXPECT_EQ(k.launch(PreparedLaunch(), nullptr).message(), msg);
  EXPECT_EQ(k.gridSize(256, 256), 0u);
  EXPECT_EQ(k.function(), nullptr);
  EXPECT_EQ(k.info().name, "");
  EXPECT_EQ(k.source(), "");
  Module m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.function("f").status().message(),
            "this Module is empty (default-constructed or moved from): assign it the result of "
            "Runtime::loadModule first");
}

namespace {
KernelABI abi16() {
  KernelABI abi;
  abi.kernelName = "k";
  abi.threadsPerBlock = 384;
  abi.sharedMemBytes = 200000;
  abi.tileM = 128, abi.tileN = 256, abi.tileK = 64;
  return abi;
}
DeviceInfo hopper() {
  DeviceInfo d;
  d.ccMajor = 9;
  d.smCount = 132;
  d.maxSmemOptinBytes = 232448;
  return d;
}
} // namespace

/// D's rows: packed or padded, N any; what the TMA store can address.
TEST(Api, PreLaunchChecksForD) {
  // D's rows: packed or padded, N any. What a TMA store cannot address (an
  // ldd that is not a multiple of 8) is staged, one problem or a strided
  // batch alike (D computed into an aligned copy, then copied out): only an
  // ldd below N is refused.
  struct Case {
    long long N, ldd;
    const char *message; ///< "" = accepted
  } cases[] = {
      {256, 0, ""},   {256, 256, ""}, {257, 264, ""}, {257, 272, ""}, {250, 256, ""},
      {5, 8, ""},     {250, 0, ""},   {250, 250, ""}, {257, 0, ""},   {257, 260, ""},
      {257, 256, "operand D: leading dimension 256 is smaller than its row length N=257"},
      {1, 0, ""},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("N=" + std::to_string(c.N) + " ldd=" + std::to_string(c.ldd));
    GemmArgs a{0x10000, 0x20000, 0x30000, 129, c.N, 72, 0, 0, c.ldd};
    KernelABI abi = abi16();
    abi.batched = true;
    GemmArgs batch = a;
    batch.batch = 2, batch.strideA = 129 * 72, batch.strideB = c.N * 72;
    batch.strideD = 129 * std::max(c.ldd ? c.ldd : c.N, c.N) * 2;
    EXPECT_EQ(checkGemmArgs(abi, hopper(), batch).message(), c.message);
    EXPECT_EQ(checkGemmArgs(abi16(), hopper(), a).message(), c.message);
  }
}

//===- GpuGemmTest.cpp - Every sm_90a spec on the GPU (ctest label gpu) ----===//
//
// For every spec in specs/sm90/*.yaml (and the hand-written prototype
// tools/proto/ws_gemm_sm90.cu, when present) × a shape set with residues:
// fresh random normal inputs per run, D poisoned with NaN, one launch under
// the watchdog, every element checked written, relative Frobenius error
// against an fp32-accumulate reference ≤ GemmVerifier::kTolerance.
// Plus K = 0 (D all zeros), the pre-launch checks with their exact messages,
// and the watchdog.
//
// The other GEMM tests on the GPU: GpuLayoutsTest.cpp (column-major D,
// strided batches, alpha/beta, staged operands, grouped GEMM),
// GpuEpilogueTest.cpp (epilogue chains and chunks), GpuChosenTest.cpp
// (chooseKernel's choices, the narrow path, split-K and stream-K); what they
// share is in GpuHarness.h.
//
// Without a GPU every test is skipped with the reason. Specs are found in
// $GEMMGEN_SPECS_DIR, else <source>/specs/sm90, else ./specs/sm90.
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::gputest;

namespace {

const Shape kShapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4000, 4000},
                         {129, 257, 72},     {1, 4096, 4096},    {8192, 136, 8192},
                         {4096, 4096, 8},    {256, 256, 64}};

class SpecShape : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

TEST_P(SpecShape, MatchesReferenceAndWritesEveryElement) {
  REQUIRE_GPU();
  const auto &[name, shape] = GetParam();
  SM90_KERNEL_OR_SKIP(k, name);
  GemmArgs a;
  a.M = shape.M, a.N = shape.N, a.K = shape.K;
  setUserLayouts(a, k->info());
  // TMA: 16-byte line strides (N = 257, or M = 129 for a column-major A, padded)
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(a.N, 8);
  expectMatchesReference(name, *k, a);
}

std::string paramName(const ::testing::TestParamInfo<SpecShape::ParamType> &info) {
  std::string n = std::get<0>(info.param);
  for (char &ch : n)
    if (!isalnum((unsigned char)ch))
      ch = '_';
  const Shape &s = std::get<1>(info.param);
  return n + "_" + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

INSTANTIATE_TEST_SUITE_P(Sm90, SpecShape,
                         ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()),
                                            ::testing::ValuesIn(kShapes)),
                         paramName);

/// K = 0: D = A·B^T is all zeros (cuBLAS without C). A and B are null (not
/// read), D is poisoned before the launch, and every element of D (and
/// nothing past column N) is checked on the host.
class ZeroK : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

TEST_P(ZeroK, EveryElementOfDIsZero) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, shape] = GetParam();
  SM90_KERNEL_OR_SKIP(k, name);
  if (!k->info().epilogue.empty())
    GTEST_SKIP() << name << "'s epilogue chain makes D = chain(0), not 0 (AlphaBeta.zeroK "
                            "checks it against the reference)";
  if (k->info().blockwiseScales)
    GTEST_SKIP() << name << " needs its scale arrays (AlphaBeta.zeroK runs K = 0 with them)";
  const Runtime &rt = *gpu.rt;
  GemmArgs a;
  a.M = shape.M, a.N = shape.N, a.K = 0;
  setUserLayouts(a, k->info());
  a.ldd = roundUp(a.N, 8);
  const DType out = k->info().outType;
  Expected<CUdeviceptr> d = rt.alloc(a.M * a.ldd * sizeOf(out));
  ASSERT_TRUE(d.ok()) << d.status().message();
  a.D = *d;
  struct Free {
    const Runtime &rt;
    CUdeviceptr p;
    ~Free() { (void)rt.free(p); }
  } freeD{rt, a.D};
  ASSERT_TRUE(gpu.ver->poison(a.D, a.M * a.ldd, out, gpu.stream).ok());
  Status s = launchAsGiven(*k, a, gpu.stream);
  ASSERT_TRUE(s.ok()) << s.message();
  s = rt.wait(gpu.stream, 60);
  if (s.code() == ErrorCode::Timeout) {
    fprintf(stderr, "%s\n", s.message().c_str());
    std::_Exit(4);
  }
  ASSERT_TRUE(s.ok()) << s.message();
  HostD host;
  ASSERT_TRUE(readBack(rt, a.D, a.M * a.ldd, out, host).ok());
  long long nonZero = 0, firstRow = -1, firstCol = -1;
  for (long long i = 0; i < a.M; ++i)
    for (long long j = 0; j < a.ldd; ++j) {
      bool want0 = j < a.N; // padding columns keep the poison
      if (want0 ? host.isZero(i * a.ldd + j) : host.isPoison(i * a.ldd + j))
        continue;
      if (nonZero++ == 0)
        firstRow = i, firstCol = j;
    }
  EXPECT_EQ(nonZero, 0) << "first wrong element D[" << firstRow << ", " << firstCol << "] = 0x"
                        << std::hex << host.bits(firstRow * a.ldd + firstCol);
  printf("[ result ] %s %lldx%lldx0: %lld element(s) not zero\n", name.c_str(), a.M, a.N,
         nonZero);
}

const Shape kZeroKShapes[] = {{256, 256, 0}, {4096, 4096, 0}, {129, 257, 0}, {8192, 136, 0}};

INSTANTIATE_TEST_SUITE_P(Sm90, ZeroK,
                         ::testing::Combine(::testing::ValuesIn(generatedKernelsUnderTest()),
                                            ::testing::ValuesIn(kZeroKShapes)),
                         paramName);

/// The pre-launch checks on a real kernel and real pointers.
TEST(LaunchChecksOnGpu, ExactMessages) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  std::string first = kernelsUnderTest().front();
  const Expected<Kernel> &k = gpu.kernel(first);
  ASSERT_TRUE(k.ok()) << k.status().message();
  const Runtime &rt = *gpu.rt;
  Expected<CUdeviceptr> buf = rt.alloc(3 << 20);
  ASSERT_TRUE(buf.ok());
  GemmArgs good{*buf, *buf + (1 << 20), *buf + (2 << 20), 256, 256, 64, 0, 0, 0};
  EXPECT_TRUE(k->check(good).ok()) << k->check(good).message();

  // What TMA cannot address (an A pointer 2 bytes off, ldb 1001, a packed
  // K = 1001) is staged, not refused: these launch (Staged checks results).
  GemmArgs a = good;
  a.A += 2;
  EXPECT_TRUE(k->launch(a, gpu.stream).ok()) << k->launch(a, gpu.stream).message();
  a = good;
  a.K = 1000, a.ldb = 1001;
  EXPECT_TRUE(k->launch(a, gpu.stream).ok()) << k->launch(a, gpu.stream).message();
  a = good;
  a.K = 1001;
  EXPECT_TRUE(k->launch(a, gpu.stream).ok()) << k->launch(a, gpu.stream).message();
  EXPECT_TRUE(rt.wait(gpu.stream, 60).ok());
  a = good;
  a.M = 0;
  EXPECT_EQ(k->launch(a, gpu.stream).message(),
            "M and N must be positive and K non-negative (got M=0, N=256, K=64)");
  a = good;
  a.N = 0, a.K = -8;
  EXPECT_EQ(k->launch(a, gpu.stream).message(),
            "M and N must be positive and K non-negative (got M=256, N=0, K=-8)");
  (void)rt.free(*buf);

  // An sm_100a kernel is refused on this GPU before anything is compiled.
  KernelABI abi;
  abi.kernelName = "k";
  abi.target = Target::SM100a;
  abi.threadsPerBlock = 128;
  abi.tileM = abi.tileN = 128;
  Expected<Kernel> bw = rt.loadKernel("", abi);
  ASSERT_FALSE(bw.ok());
  if (rt.device().ccMajor == 9 && rt.device().ccMinor == 0) {
    EXPECT_EQ(bw.status().message(),
              "this kernel targets sm_100a (Blackwell); this GPU is sm_90 — sm_100a code is "
              "compile-verified and simulated here, not run");
  }
}

/// A kernel that never finishes (it spins for at most 30 s) is reported by
/// the watchdog; run in a child process (the context is unusable after).
TEST(WatchdogDeathTest, ReportsAHungKernelAndExits) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Expected<Runtime> rt = Runtime::open();
        if (!rt)
          std::_Exit(10);
        Expected<Module> m = rt->loadModule(R"(
          extern "C" __global__ void gg_spin() {
            unsigned long long t0, t;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
            do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < 30000000000ull);
          })",
                                            "spin.cu");
        if (!m)
          std::_Exit(11);
        Expected<CUfunction> f = m->function("gg_spin");
        Expected<CUstream> s = rt->createStream();
        if (!f || !s || !rt->launchRaw(*f, 1, 1, 32, 0, *s, nullptr).ok())
          std::_Exit(12);
        Status st = rt->wait(*s, 2.0);
        fprintf(stderr, "%s\n", st.message().c_str());
        std::_Exit(st.code() == ErrorCode::Timeout ? 4 : 13);
      },
      ::testing::ExitedWithCode(4),
      "kernel did not finish within 2 s: likely a barrier deadlock; rerun with --debug-hangs");
}

} // namespace

//===- FakeDriverTest.cpp - The launch path against a stand-in driver -----===//
//
// CPU tests of what the runtime asks the driver for, with tests/fake/
// FakeCuda.cpp loaded as libcuda (GEMMGEN_LIBCUDA). That driver keeps a
// current context per thread and fails calls made without the runtime's
// (CUDA_ERROR_INVALID_CONTEXT, as cuTensorMapEncodeTiled did on the H200
// from a thread that never called makeCurrent()), and logs tensor-map
// encodes and launches. Checked here:
//  - prepare/launch/wait from fresh threads, each as the thread's first call;
//  - a caller's own context is restored after a call, none stays ours;
//  - D's tensor map ends at N rounded down to 8, the GEMM kernel gets that N,
//    and the tail kernel gets columns [N8, N) (N = 256, 257, 263, 5);
//  - concurrent launches of one Kernel from 8 threads;
//  - K = 0 with null A and B; kernel names NVRTC cannot take.
// The numbers themselves are checked on the H200 (tests/gpu/).
//
// The other launch-path tests against the stand-in: FakeDriverLayoutsTest.cpp
// (operand and D layouts, L2 promotion, strided batches, alpha/beta),
// FakeDriverStagingTest.cpp (operands TMA cannot address, rows that straddle
// L2 lines), FakeDriverGroupedTest.cpp (grouped launches),
// FakeDriverSplitKFp8Test.cpp (split-K, stream-K, fp8 scales and amax) and
// FakeDriverNarrowTest.cpp (the SIMT narrow path); what they share is in
// FakeDriverHarness.h.
//
//===----------------------------------------------------------------------===//
#include "FakeDriverHarness.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>
#include <thread>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::faketest;

TEST(FakeDriver, TheFakeRefusesCallsWithoutTheContext) {
  // The stand-in behaves like the driver did: without a current context the
  // tensor-map encode fails (so the tests below can fail).
  REQUIRE_FAKE();
  std::string msg;
  std::thread([&] {
    void *lib = dlopen(GEMMGEN_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    auto getProc = (CUresult(*)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *))dlsym(lib, "cuGetProcAddress_v2");
    void *encode = nullptr;
    getProc("cuTensorMapEncodeTiled", &encode, CUDA_VERSION, 0, nullptr);
    CUtensorMap map;
    cuuint64_t dims[2] = {64, 64}, strides[1] = {128};
    cuuint32_t box[2] = {64, 64}, es[2] = {1, 1};
    CUresult r = ((decltype(&cuTensorMapEncodeTiled))encode)(
        &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, nullptr, dims, strides, box, es,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    msg = r == CUDA_ERROR_INVALID_CONTEXT ? "invalid context" : "other";
  }).join();
  EXPECT_EQ(msg, "invalid context");
}

TEST(FakeDriver, FreshThreadsPrepareLaunchAndWait) {
  REQUIRE_FAKE();
  const Kernel &k = *fake.kernel;
  const Runtime &rt = *fake.rt;
  std::optional<Expected<PreparedLaunch>> prep;
  std::thread([&] { prep.emplace(k.prepare(args(1024, 1024, 512, 0))); }).join();
  ASSERT_TRUE(prep->ok()) << prep->status().message();
  Status launched, waited;
  std::thread([&] { launched = k.launch(**prep, nullptr); }).join();
  EXPECT_TRUE(launched.ok()) << launched.message();
  std::thread([&] { launched = k.launch(args(1024, 1001, 512, 1008), nullptr); }).join();
  EXPECT_TRUE(launched.ok()) << launched.message();
  std::thread([&] { waited = rt.wait(nullptr, 5); }).join();
  EXPECT_TRUE(waited.ok()) << waited.message();
  Status other;
  std::thread([&] {
    Expected<CUdeviceptr> p = rt.alloc(256);
    Expected<CUstream> s = rt.createStream();
    Expected<Runtime::Timer> t = rt.createTimer();
    other = !p ? p.status() : !s ? s.status() : !t ? t.status() : Status();
    if (other.ok())
      other = rt.fill16Async(*p, 0x7fff, 128, *s);
  }).join();
  EXPECT_TRUE(other.ok()) << other.message();
}

TEST(FakeDriver, ACallersOwnContextIsRestored) {
  REQUIRE_FAKE();
  int foreignObject;
  CUcontext foreign = reinterpret_cast<CUcontext>(&foreignObject);
  CUcontext after = nullptr, afterNone = foreign;
  Status s1, s2;
  std::thread([&] {
    fake.setCurrent(foreign); // the application's own context
    s1 = fake.kernel->launch(args(256, 256, 64, 0), nullptr);
    after = fake.current();
  }).join();
  std::thread([&] {
    s2 = fake.kernel->launch(args(256, 256, 64, 0), nullptr);
    afterNone = fake.current();
  }).join();
  EXPECT_TRUE(s1.ok()) << s1.message();
  EXPECT_TRUE(s2.ok()) << s2.message();
  EXPECT_EQ(after, foreign);
  EXPECT_EQ(afterNone, fake.primary());
}

TEST(FakeDriver, TheStoreStopsAtWholeChunksAndTheTailTakesTheRest) {
  REQUIRE_FAKE();
  struct Case {
    long long N, ldd;
    std::vector<std::string> expected; ///< the D encode and the launches, in order
  } cases[] = {
      {256, 264,
       {"encode rows=129 cols=256 stride=528", "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=72 batch=1"}},
      {257, 264,
       {"encode rows=129 cols=256 stride=528", "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=72 batch=1",
        "launch gg_tail_columns grid=17 M=129 K=72 a=72,1 b=72,1 ldd=264 n0=256 cols=1"}},
      {263, 272,
       {"encode rows=129 cols=256 stride=544", "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=72 batch=1",
        "launch gg_tail_columns grid=17 M=129 K=72 a=72,1 b=72,1 ldd=272 n0=256 cols=7"}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("N=" + std::to_string(c.N));
    fake.clear();
    Expected<PreparedLaunch> p = fake.kernel->prepare(args(129, c.N, 72, c.ldd));
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->tailColumns, (unsigned)(c.N % 8));
    ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
    std::vector<std::string> got = fake.lines();
    ASSERT_GE(got.size(), 2u) << fake.log();
    // A and B are encoded first (rows × K); then D, then the launches.
    EXPECT_EQ(got[0], "encode rows=129 cols=72 stride=144");
    EXPECT_EQ(got[1], "encode rows=" + std::to_string(c.N) + " cols=72 stride=144");
    std::vector<std::string> rest(got.begin() + 2, got.end());
    EXPECT_EQ(rest, c.expected) << fake.log();
  }
}

TEST(FakeDriver, FewerColumnsThanAChunkAreStagedNotAllTheTails) {
  // N < 8 (16-bit D): no whole 16-byte chunk, so the tail kernel would
  // compute every column (28672x4x4096 ran at 0.69 of cuBLAS that way). D
  // goes through an aligned copy whose padding takes the kernel's one chunk,
  // and the GEMM kernel computes it; without a workspace prepare() says so.
  REQUIRE_FAKE();
  for (long long N : {1LL, 5LL, 7LL}) {
    SCOPED_TRACE("N=" + std::to_string(N));
    fake.clear();
    GemmArgs a = args(129, N, 72, 8);
    const std::size_t need = fake.kernel->workspaceBytes(a);
    EXPECT_EQ(need, 129u * 8 * 2 / 256 * 256 + 256); // 129 lines of 8 elements, to 256 B
    Expected<PreparedLaunch> none = fake.kernel->prepare(a);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.status().message().find("pass GemmArgs::workspace"), std::string::npos)
        << none.status().message();
    a.workspace = 0x7000000, a.workspaceBytes = need;
    Expected<PreparedLaunch> p = fake.kernel->prepare(a);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->tailColumns, 0u);
    EXPECT_EQ(p->path, "tma+staged(D)");
    ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
    const std::vector<std::string> expected = {
        "encode rows=129 cols=72 stride=144",
        "encode rows=" + std::to_string(N) + " cols=72 stride=144",
        "encode rows=129 cols=" + std::to_string(N) + " stride=16", // D's copy: rows of 8
        "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=" + std::to_string(N) + " K=72 batch=1",
        "launch gg_copy2d grid=" + std::to_string((129 * N + 255) / 256)}; // D's copy -> D
    EXPECT_EQ(fake.lines(), expected) << fake.log();
  }
}

TEST(FakeDriver, ZeroKLaunchesWithNullAAndB) {
  // K = 0 (D = 0): A and B may be null; their tensor maps stand in over one
  // box at D's address (a map needs extents > 0), and the kernel runs with
  // K = 0 (its if_no_k zeroes the accumulators).
  REQUIRE_FAKE();
  fake.clear();
  GemmArgs a = args(129, 256, 0, 256);
  a.A = a.B = 0;
  Expected<PreparedLaunch> p = fake.kernel->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_TRUE(fake.kernel->launch(*p, nullptr).ok());
  std::vector<std::string> got = fake.lines();
  EXPECT_EQ(got, (std::vector<std::string>{
                     "encode rows=128 cols=64 stride=128", "encode rows=256 cols=64 stride=128",
                     "encode rows=129 cols=256 stride=512",
                     "launchEx gemm_sm90_fast_f16 grid=2 M=129 N=256 K=0 batch=1"}))
      << fake.log();
}

TEST(FakeDriver, ConcurrentLaunchesOfOneKernel) {
  REQUIRE_FAKE();
  fake.clear();
  std::vector<std::thread> threads;
  std::vector<Status> results(8);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < 50 && results[i].ok(); ++round)
        results[i] = fake.kernel->launch(args(512, 1000 + i, 256, 1008 + 8 * (i / 8 + 1)), nullptr);
    });
  for (std::thread &t : threads)
    t.join();
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(results[i].ok()) << "thread " << i << ": " << results[i].message();
  int gemms = 0, tails = 0;
  for (const std::string &l : fake.lines()) {
    gemms += l.rfind("launchEx ", 0) == 0;
    tails += l.rfind("launch gg_tail_columns", 0) == 0;
  }
  EXPECT_EQ(gemms, 8 * 50);
  EXPECT_EQ(tails, 7 * 50); // N = 1000 (thread 0) has no tail
}

TEST(FakeDriver, LoadKernelRefusesNamesNvrtcCannotTake) {
  REQUIRE_FAKE();
  KernelABI abi;
  abi.threadsPerBlock = 384;
  abi.tileM = 128, abi.tileN = 256, abi.tileK = 64;
  abi.kernelName = std::string(100000, 'k');
  Expected<Kernel> k = fake.rt->loadKernel("", abi);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(), "kernel name '" + std::string(32, 'k') +
                                      "...' has 100000 characters; at most 1024 are allowed");
  for (const char *bad : {"", "2fast", "gemm-f16", "a b", "k\n"}) {
    abi.kernelName = bad;
    k = fake.rt->loadKernel("", abi);
    ASSERT_FALSE(k.ok()) << bad;
    EXPECT_EQ(k.status().message(), "kernel name '" + std::string(bad) +
                                        "' is not a C identifier (letters, digits and '_', not "
                                        "starting with a digit)");
  }
}

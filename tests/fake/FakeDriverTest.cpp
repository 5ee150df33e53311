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
//  - concurrent launches of one Kernel from 8 threads.
// The numbers themselves are checked on the H200 (tests/gpu/).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"
#include "gemmgen/tune/Workload.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace gemmgen;

namespace {

struct Fake {
  const char *(*log)() = nullptr;
  void (*clear)() = nullptr;
  CUcontext (*primary)() = nullptr;
  CUcontext (*current)() = nullptr;
  void (*setCurrent)(CUcontext) = nullptr;
  std::optional<Runtime> rt;
  std::optional<Kernel> kernel; ///< specs/sm90/05_fast_f16.yaml
  std::string why;

  static Fake &get() {
    static Fake f;
    return f;
  }
  Fake() {
    setenv("GEMMGEN_LIBCUDA", GEMMGEN_FAKE_CUDA, 1);
    void *lib = dlopen(GEMMGEN_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      why = dlerror();
      return;
    }
    log = (const char *(*)())dlsym(lib, "fakecuda_log");
    clear = (void (*)())dlsym(lib, "fakecuda_clear");
    primary = (CUcontext(*)())dlsym(lib, "fakecuda_primary");
    current = (CUcontext(*)())dlsym(lib, "fakecuda_current");
    setCurrent = (void (*)(CUcontext))dlsym(lib, "fakecuda_set_current");
    Expected<Runtime> r = Runtime::open();
    if (!r) {
      why = r.status().message();
      return;
    }
    rt = *r;
    Expected<Kernel> k = rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                         "/specs/sm90/05_fast_f16.yaml");
    if (!k) {
      why = k.status().message();
      return;
    }
    kernel = *k;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(log());
    for (std::string l; std::getline(in, l);)
      out.push_back(l);
    return out;
  }
};

#define REQUIRE_FAKE()                                                                           \
  Fake &fake = Fake::get();                                                                      \
  ASSERT_TRUE(fake.kernel.has_value()) << fake.why

/// specs/sm90/05_fast_f16.yaml compiled grouped (scheduler.grouped).
Expected<Kernel> groupedFastF16(Fake &fake) {
  CompileOptions opts;
  opts.spec.grouped = true;
  return fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/05_fast_f16.yaml",
                              opts);
}

GemmArgs args(long long M, long long N, long long K, long long ldd) {
  return GemmArgs{0x1000000, 0x2000000, 0x3000000, M, N, K, 0, 0, ldd};
}

/// specs/sm90/`file` with `group: 16 }` ending its scheduler line replaced
/// by `group: 16, <more> }` (empty: no such line).
std::string specWithScheduler(const std::string &file, const std::string &more) {
  std::ifstream f(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + file);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const size_t at = text.find("group: 16 }");
  if (at == std::string::npos)
    return "";
  return text.replace(at, 11, "group: 16, " + more + " }");
}

} // namespace

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

TEST(FakeDriver, GroupedProblemsBecomeATableTheWalkAndOneLaunch) {
  // specs/sm90/11_fast_f16_grouped.yaml (128x256 tiles, along_m): four
  // problems — 300x512x64 (3x2 tiles), an empty one (M = 0), 129x256 with
  // K = 0 (D = beta·C: A and B stand in, 2x1 tiles) and 64x264x72 (1x2) —
  // give a table of 4 entries whose slots follow each other (empty: none),
  // one map set per non-empty problem, the table copied before one launch
  // of 10 slots; launch(args) allocates the table's workspace on the stream.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_TRUE(k->info().grouped);
  EXPECT_FALSE(fake.kernel->info().grouped);
  GemmArgs a;
  a.beta = 0.5f;
  const CUdeviceptr base = 0x10000000;
  auto problem = [&](long long M, long long N, long long K, int i) {
    GemmProblem p;
    p.M = M, p.N = N, p.K = K;
    p.A = base + 0x1000000 * (4 * i + 0), p.B = base + 0x1000000 * (4 * i + 1);
    p.D = base + 0x1000000 * (4 * i + 2), p.C = base + 0x1000000 * (4 * i + 3);
    return p;
  };
  a.problems = {problem(300, 512, 64, 0), problem(0, 512, 64, 1), problem(129, 256, 0, 2),
                problem(64, 264, 72, 3)};
  EXPECT_EQ(k->workspaceBytes(a), 4u * 576u);
  fake.clear();
  ASSERT_TRUE(k->launch(a, nullptr).ok()) << fake.log();
  std::vector<std::string> want = {
      "allocAsync bytes=2304",
      // problem 0: A, B, D, C
      "encode rows=300 cols=64 stride=128", "encode rows=512 cols=64 stride=128",
      "encode rows=300 cols=512 stride=1024", "encode rows=300 cols=512 stride=1024",
      // problem 2 (K = 0): A and B stand in over one box at D's address
      "encode rows=128 cols=64 stride=128", "encode rows=256 cols=64 stride=128",
      "encode rows=129 cols=256 stride=512", "encode rows=129 cols=256 stride=512",
      // problem 3
      "encode rows=64 cols=72 stride=144", "encode rows=264 cols=72 stride=144",
      "encode rows=64 cols=264 stride=528", "encode rows=64 cols=264 stride=528",
      "copyHtoDAsync bytes=2304",
      "launchEx gemm_sm90_fast_f16 grid=10 problems=4 slots=10 alpha=1 beta=0.5",
      "freeAsync"};
  EXPECT_EQ(fake.lines(), want) << fake.log();
  a.workspace = 0x7000000, a.workspaceBytes = 2304;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+grouped(4 problems)");
  ASSERT_EQ(p->groupedEntries.size(), 2304u);
  struct Entry {
    int m, n, k, begin, end;
  } want_entries[] = {{300, 512, 64, 0, 6}, {0, 512, 64, 6, 6}, {129, 256, 0, 6, 8},
                      {64, 264, 72, 8, 10}};
  for (int i = 0; i < 4; ++i) {
    int got[5];
    std::memcpy(got, p->groupedEntries.data() + 576 * i + 512, sizeof got);
    const Entry &w = want_entries[i];
    EXPECT_EQ(std::vector<int>(got, got + 5), (std::vector<int>{w.m, w.n, w.k, w.begin, w.end}))
        << "entry " << i;
  }
}

TEST(FakeDriver, GroupedLaunchErrors) {
  // What a grouped launch refuses, each with what to do.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmProblem ok;
  ok.M = 256, ok.N = 256, ok.K = 64, ok.A = 0x1000000, ok.B = 0x2000000, ok.D = 0x3000000;
  auto withProblem = [&](GemmProblem p) {
    GemmArgs a;
    a.problems = {ok, p};
    a.workspace = 0x7000000, a.workspaceBytes = 1 << 20;
    return a;
  };
  struct Case {
    const char *what;
    GemmArgs args;
    const Kernel *kernel;
    std::string message;
  };
  GemmProblem negM = ok, shortLd = ok;
  negM.M = -1;
  shortLd.lda = 32;
  GemmArgs none;
  GemmArgs batched = withProblem(ok);
  batched.batch = 2;
  GemmArgs smallWs = withProblem(ok);
  smallWs.workspaceBytes = 1000;
  GemmArgs oddWs = withProblem(ok);
  oddWs.workspace += 32;
  std::vector<Case> cases = {
      {"problems for a one-problem kernel", withProblem(ok), &*fake.kernel,
       "kernel 'gemm_sm90_fast_f16' computes one problem per launch, and GemmArgs::problems "
       "holds 2; compile the spec with scheduler.grouped: true (SpecOverrides::grouped, "
       "`--groups`), or launch each problem on its own (groupedProblem())"},
      {"no problems", none, &*k,
       "kernel 'gemm_sm90_fast_f16' is grouped: give it its problems in GemmArgs::problems (M, "
       "N, K and operands of each)"},
      {"a batch", batched, &*k,
       "a grouped launch takes its problems from GemmArgs::problems; batch must be 1 (got 2); "
       "give a batch as problems of its own"},
      {"a negative M", withProblem(negM), &*k,
       "problem 1 (-1x256x64): M, N and K must be between 0 and 2147483647"},
      {"lda below K", withProblem(shortLd), &*k,
       "problem 1 (256x256x64): operand A: leading dimension 32 is smaller than its row length "
       "K=64"},
      {"too small a workspace", smallWs, &*k,
       "a grouped launch of 2 problems needs a workspace of 1280 bytes for their table and "
       "staged copies (Kernel::workspaceBytes); got 1000 (Kernel::launch(args, stream) "
       "allocates one when none is given)"},
      {"an unaligned workspace", oddWs, &*k,
       "workspace 0x7000020 is not 256-byte aligned; the problems' tensor maps and staged "
       "copies need it (cuMemAlloc's pointers are)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    Expected<PreparedLaunch> p = c.kernel->prepare(c.args);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().message(), c.message);
  }
}

TEST(FakeDriver, GroupedProblemsTmaCannotAddressAreStaged) {
  // Problem by problem, what TMA cannot address goes through the staging
  // path: 256x250 (D's rows are 500 bytes, not whole 16-byte chunks: the
  // store's last chunk would write past column 249) computes into an
  // aligned copy of D, copied out after the launch; an A two bytes off is
  // copied in before it. The copies follow the table in the workspace.
  REQUIRE_FAKE();
  Expected<Kernel> k = groupedFastF16(fake);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmProblem ok;
  ok.M = 256, ok.N = 256, ok.K = 64, ok.A = 0x1000000, ok.B = 0x2000000, ok.D = 0x3000000;
  GemmProblem oddN = ok, offA = ok;
  oddN.N = 250, oddN.A = 0x4000000, oddN.B = 0x5000000, oddN.D = 0x6000000;
  offA.A = 0x8000002, offA.B = 0x9000000, offA.D = 0xa000000;
  GemmArgs a;
  a.problems = {ok, oddN, offA};
  // The table (3 x 576, to 1792), D's copy (256 x 256), A's copy (256 x 64).
  const std::size_t need = 1792 + 256 * 256 * 2 + 256 * 64 * 2;
  EXPECT_EQ(k->workspaceBytes(a), need);
  a.workspace = 0x70000000, a.workspaceBytes = need;
  Expected<PreparedLaunch> p = k->prepare(a);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, "tma+grouped(3 problems, staged 1:D 2:A)");
  ASSERT_EQ(p->before.size(), 1u);
  EXPECT_EQ(p->before[0].src, 0x8000002u);
  EXPECT_EQ(p->before[0].dst, 0x70000000u + 1792 + 256 * 256 * 2);
  ASSERT_EQ(p->after.size(), 1u);
  EXPECT_EQ(p->after[0].src, 0x70000000u + 1792);
  EXPECT_EQ(p->after[0].dst, 0x6000000u);
  EXPECT_EQ(p->after[0].length, 250);
  EXPECT_EQ(p->after[0].srcLd, 256);
  fake.clear();
  Status launched = k->launch(*p, nullptr);
  ASSERT_TRUE(launched.ok()) << launched.message() << "\n" << fake.log();
  std::vector<std::string> got = fake.lines();
  ASSERT_EQ(got.size(), 4u) << fake.log();
  EXPECT_EQ(got[0], "launch gg_copy2d grid=256"); // A of problem 2 in: a block per line
  EXPECT_EQ(got[1], "copyHtoDAsync bytes=1728");
  EXPECT_EQ(got[2], "launchEx gemm_sm90_fast_f16 grid=6 problems=3 slots=6 alpha=1 beta=0");
  EXPECT_EQ(got[3], "launch gg_copy2d grid=256"); // D of problem 1 out: 125 4-byte words a line
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
/// are fewer), the flags are zeroed on the stream before every launch, and a
/// launch without the workspace is refused.
TEST(FakeDriver, StreamKZeroesItsFlagsAndUsesEveryResidentCta) {
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
  for (int launch = 0; launch < 2; ++launch) { // each launch starts from zeroed flags
    fake.clear();
    ASSERT_TRUE(k->launch(*p, nullptr).ok()) << fake.log();
    std::vector<std::string> want = {
        "memsetD32 0x" + [&] {
          char b[32];
          std::snprintf(b, sizeof b, "%llx", (unsigned long long)(0x70000000u + partials));
          return std::string(b);
        }() + " value=0 count=132",
        "launchEx gemm_sm90_streamk_f16 grid=66 M=768 N=3072 K=3072 batch=1"};
    EXPECT_EQ(fake.lines(), want) << fake.log();
  }
  // Fewer iterations than resident CTAs: one CTA each (one tile, 2 k-blocks).
  GemmArgs small = args(128, 256, 128, 256);
  small.workspace = 0x70000000, small.workspaceBytes = partials + flags;
  Expected<PreparedLaunch> q = k->prepare(small);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->gridX, 2u);
  EXPECT_EQ(q->skFlagCount, 4u);
}

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

//===- RuntimeTest.cpp - Runtime pieces that need no GPU -------------------===//
//
// The kernel cache (hashing, atomic writes, corrupt and truncated entries
// rebuilt), NVRTC compiling the device header + a kernel for sm_90a, the
// ptxas report parser, the pre-launch checks' exact messages, and
// Runtime::open() without a driver.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace gemmgen;
namespace fs = std::filesystem;

namespace {

/// A fresh, empty cache directory per test.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gemmgen-runtime-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// Bytes that pass the cache's cubin sanity check (an ELF64 header for
/// e_machine 190, CUDA), padded with `fill`.
std::vector<char> fakeCubin(size_t bytes, char fill = 'c') {
  std::vector<char> c(std::max<size_t>(bytes, 64), fill);
  const char head[] = {'\x7f', 'E', 'L', 'F', 2};
  std::copy(head, head + 5, c.begin());
  c[18] = (char)190;
  c[19] = 0;
  return c;
}

const char *kTinyKernel = R"(
#include "gemmgen/device/sm90_ptx.cuh"
namespace ptx = gemmgen::sm90;
extern "C" __global__ void gg_tiny(float *out, int n) {
  __shared__ __align__(8) unsigned long long bar;
  if (threadIdx.x == 0) {
    ptx::mbar_init(ptx::smem_addr(&bar), 1);
    ptx::fence_mbarrier_init();
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ptx::elect_one_sync() ? 1.f : 0.f;
}
)";

} // namespace

TEST(KernelCache, KeyIsStableAndLengthPrefixed) {
  std::string k1 = KernelCache::key({"ab", "c"});
  EXPECT_EQ(k1.size(), 64u);
  EXPECT_EQ(k1, KernelCache::key({"ab", "c"}));
  EXPECT_NE(k1, KernelCache::key({"a", "bc"}));
  EXPECT_NE(k1, KernelCache::key({"abc"}));
  EXPECT_NE(k1, KernelCache::key({"ab", "c", ""}));
  for (char ch : k1)
    EXPECT_TRUE(isxdigit((unsigned char)ch));
}

TEST(KernelCache, DirectoryFromEnvironment) {
  setenv("GEMMGEN_CACHE_DIR", "/tmp/gg-cache-env-test", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/tmp/gg-cache-env-test");
  EXPECT_EQ(KernelCache().directory(), "/tmp/gg-cache-env-test");
  unsetenv("GEMMGEN_CACHE_DIR");
  EXPECT_EQ(KernelCache("/x/y").directory(), "/x/y");
}

TEST(KernelCache, AtomicStoreAndLoad) {
  TempDir dir;
  KernelCache cache((dir.path / "nested" / "cache").string()); // created on demand
  std::string key = KernelCache::key({"entry"});
  EXPECT_FALSE(cache.load(key).has_value());
  std::vector<char> cubin = fakeCubin(64);
  ASSERT_TRUE(cache.store(key, cubin, "ptxas info : Used 8 registers").ok());
  auto hit = cache.load(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->first, cubin);
  EXPECT_EQ(hit->second, "ptxas info : Used 8 registers");
  // Overwrite (what a second process storing the same key does).
  std::vector<char> cubin2 = fakeCubin(1000, 'x');
  ASSERT_TRUE(cache.store(key, cubin2, "").ok());
  EXPECT_EQ(cache.load(key)->first, cubin2);
  // No temporary files are left behind.
  int files = 0;
  for (auto &e : fs::directory_iterator(cache.directory())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(KernelCache, ConcurrentWritersLeaveAWholeEntry) {
  TempDir dir;
  KernelCache cache(dir.path.string());
  std::string key = KernelCache::key({"racy"});
  std::vector<char> big = fakeCubin(1 << 20, 'q');
  pid_t pids[4];
  for (pid_t &pid : pids) {
    pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 20; ++i)
        if (!cache.store(key, big, "log").ok())
          _exit(1);
      _exit(0);
    }
  }
  for (int i = 0; i < 50; ++i) { // readers never see a partial entry
    auto e = cache.load(key);
    if (e) {
      ASSERT_EQ(e->first.size(), big.size());
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ASSERT_TRUE(cache.load(key).has_value());
}

TEST(KernelCache, CorruptOrTruncatedEntryIsAMiss) {
  TempDir dir;
  KernelCache cache(dir.path.string());
  std::string key = KernelCache::key({"corrupt"});
  std::vector<char> cubin = fakeCubin(4096);
  ASSERT_TRUE(cache.store(key, cubin, "log").ok());
  std::string path = cache.pathFor(key);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2000);
    f.put('X'); // one flipped byte in the payload
  }
  EXPECT_FALSE(cache.load(key).has_value());
  ASSERT_TRUE(cache.store(key, cubin, "log").ok());
  EXPECT_TRUE(cache.load(key).has_value());
  fs::resize_file(path, fs::file_size(path) - 100); // truncated
  EXPECT_FALSE(cache.load(key).has_value());
  fs::resize_file(path, 10); // shorter than the header
  EXPECT_FALSE(cache.load(key).has_value());
  // An entry stored under another key's name is rejected too.
  std::string other = KernelCache::key({"other"});
  ASSERT_TRUE(cache.store(other, cubin, "").ok());
  fs::copy_file(cache.pathFor(other), path, fs::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load(key).has_value());
}

TEST(Nvrtc, CompilesDeviceHeaderForSm90aAndReportsResources) {
  TempDir dir;
  CompileOptions opts;
  opts.cacheDir = dir.path.string();
  Expected<CubinResult> r = compileCudaSource(kTinyKernel, "tiny.cu", "sm_90a", "gg_tiny", opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->fromCache);
  EXPECT_GT(r->cubin.size(), 100u);
  EXPECT_EQ(std::string(r->cubin.data() + 1, 3), "ELF");
  const ResourceUsage &u = r->usage;
  ASSERT_TRUE(u.valid) << r->log;
  EXPECT_EQ(u.function, "gg_tiny");
  EXPECT_EQ(u.arch, "sm_90a");
  EXPECT_GT(u.registers, 0);
  EXPECT_EQ(u.spillStoreBytes, 0);
  EXPECT_EQ(u.spillLoadBytes, 0);
  EXPECT_GE(u.staticSmemBytes, 8);

  // The second compile is a cache hit with the same report.
  Expected<CubinResult> again = compileCudaSource(kTinyKernel, "tiny.cu", "sm_90a", "gg_tiny", opts);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->fromCache);
  EXPECT_EQ(again->cubin, r->cubin);
  EXPECT_EQ(again->usage.registers, u.registers);

  // A corrupted entry is rebuilt.
  int entries = 0;
  for (auto &e : fs::directory_iterator(dir.path)) {
    fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  Expected<CubinResult> rebuilt = compileCudaSource(kTinyKernel, "tiny.cu", "sm_90a", "gg_tiny", opts);
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_FALSE(rebuilt->fromCache);
  EXPECT_EQ(rebuilt->cubin, r->cubin);
  Expected<CubinResult> third = compileCudaSource(kTinyKernel, "tiny.cu", "sm_90a", "gg_tiny", opts);
  EXPECT_TRUE(third.ok() && third->fromCache);

  // Different options are a different entry.
  opts.extraOptions = {"-DSOMETHING=1"};
  Expected<CubinResult> other = compileCudaSource(kTinyKernel, "tiny.cu", "sm_90a", "gg_tiny", opts);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->fromCache);
}

TEST(Nvrtc, CompileErrorCarriesTheLog) {
  CompileOptions opts;
  opts.useCache = false;
  Expected<CubinResult> r =
      compileCudaSource("extern \"C\" __global__ void k() { undefined_thing(); }", "bad.cu",
                        "sm_90a", "k", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::CompileError);
  EXPECT_NE(r.status().message().find("undefined_thing"), std::string::npos)
      << r.status().message();
}

TEST(Nvrtc, Sm100aCompilesWithoutAGpu) {
  CompileOptions opts;
  opts.useCache = false;
  Expected<CubinResult> r = compileCudaSource(
      "extern \"C\" __global__ void k(float *p) { p[threadIdx.x] = 1.f; }", "k.cu", "sm_100a",
      "k", opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->usage.arch, "sm_100a");
}

TEST(PtxasReport, ParsesRegistersSpillsAndWarnings) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
      "ptxas info    : Function properties for other\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 0 barriers, 384 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'gemm' for 'sm_90a'\n"
      "ptxas warning : (C7511) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized\n"
      "ptxas info    : Function properties for gemm\n"
      "    48 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 1536 bytes smem, 400 bytes "
      "cmem[0]\n";
  ResourceUsage u = parsePtxasReport(log, "gemm");
  ASSERT_TRUE(u.valid);
  EXPECT_EQ(u.function, "gemm");
  EXPECT_EQ(u.arch, "sm_90a");
  EXPECT_EQ(u.registers, 168);
  EXPECT_EQ(u.barriers, 1);
  EXPECT_EQ(u.staticSmemBytes, 1536);
  EXPECT_EQ(u.stackFrameBytes, 48);
  EXPECT_EQ(u.spillStoreBytes, 24);
  EXPECT_EQ(u.spillLoadBytes, 16);
  EXPECT_TRUE(u.hasSpills());
  ASSERT_EQ(u.warnings.size(), 1u);
  EXPECT_NE(u.warnings[0].find("C7511"), std::string::npos);

  ResourceUsage first = parsePtxasReport(log);
  EXPECT_EQ(first.function, "other");
  EXPECT_EQ(first.registers, 12);
  EXPECT_FALSE(first.hasSpills());
  EXPECT_FALSE(parsePtxasReport(log, "missing").valid);
  EXPECT_FALSE(parsePtxasReport("").valid);
}

namespace {
KernelABI testABI(Target target = Target::SM90a) {
  KernelABI abi;
  abi.kernelName = "k";
  abi.target = target;
  abi.threadsPerBlock = 384;
  abi.sharedMemBytes = 200000;
  abi.clusterM = 2;
  abi.tileM = 128, abi.tileN = 256, abi.tileK = 64;
  abi.boxA = {64, 128, 128};
  abi.boxB = {64, 128, 128};
  abi.boxD = {64, 64, 128};
  return abi;
}
DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.ccMajor = 9, d.ccMinor = 0;
  d.smCount = 132;
  d.maxSmemOptinBytes = 232448;
  return d;
}
GemmArgs goodArgs() { return GemmArgs{0x10000, 0x20000, 0x30000, 256, 256, 64, 0, 0, 0}; }
std::string check(const GemmArgs &a, const KernelABI &abi = testABI(),
                  const DeviceInfo &d = h200()) {
  return checkGemmArgs(abi, d, a).message();
}
/// The same arguments as a strided batch of two (aligned strides far apart):
/// what TMA cannot address is refused there, while one problem (batch 1)
/// takes it through the staging path.
std::string checkAsBatch(GemmArgs a, KernelABI abi = testABI()) {
  abi.batched = true;
  a.batch = 2;
  a.strideA = a.strideB = a.strideD = a.strideC = 1 << 24;
  return checkGemmArgs(abi, h200(), a).message();
}
} // namespace

TEST(LaunchChecks, ExactMessages) {
  EXPECT_TRUE(checkGemmArgs(testABI(), h200(), goodArgs()).ok());
  GemmArgs a = goodArgs();
  a.M = 0;
  EXPECT_EQ(check(a), "M and N must be positive and K non-negative (got M=0, N=256, K=64)");
  a = goodArgs();
  a.K = -8;
  EXPECT_EQ(check(a), "M and N must be positive and K non-negative (got M=256, N=256, K=-8)");
  // K = 0: D = 0; A and B are not read (null is fine, as in cuBLAS), D is.
  a = goodArgs();
  a.K = 0, a.A = 0, a.B = 0;
  EXPECT_TRUE(checkGemmArgs(testABI(), h200(), a).ok()) << check(a);
  a.D = 0;
  EXPECT_EQ(check(a), "operand D: null device pointer");
  a = goodArgs();
  a.K = 1001; // any K: TMA zero-fills past K; a packed A's rows are then staged
  EXPECT_EQ(check(a), "");
  EXPECT_EQ(checkAsBatch(a), ""); // a strided batch stages it too
  a.lda = a.ldb = 1008; // padded rows: TMA takes them, K stays 1001
  EXPECT_EQ(checkAsBatch(a), "");
  a = goodArgs();
  a.K = 1000, a.ldb = 1001;
  EXPECT_EQ(check(a), "");
  EXPECT_EQ(checkAsBatch(a), "");
  a = goodArgs();
  a.lda = 32;
  EXPECT_EQ(check(a), "operand A: leading dimension 32 is smaller than its row length K=64");
  a = goodArgs();
  a.D += 2;
  EXPECT_EQ(check(a), "");
  EXPECT_EQ(checkAsBatch(a), "");
  a = goodArgs();
  a.A = 0;
  EXPECT_EQ(check(a), "operand A: null device pointer");
  KernelABI big = testABI();
  big.sharedMemBytes = 240000;
  EXPECT_EQ(check(goodArgs(), big),
            "kernel 'k' needs 240000 bytes of dynamic shared memory per block; this GPU "
            "allows at most 232448 (opt-in); use fewer pipeline stages or a smaller tile");
  EXPECT_EQ(check(goodArgs(), testABI(Target::SM100a)),
            "this kernel targets sm_100a (Blackwell); this GPU is sm_90 — sm_100a code is "
            "compile-verified and simulated here, not run");
  DeviceInfo ampere = h200();
  ampere.ccMajor = 8;
  EXPECT_EQ(checkGemmArgs(testABI(), ampere, goodArgs()).code(), ErrorCode::Unsupported);
}

TEST(Runtime, OpenWithoutDriverIsAnErrorNotACrash) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    // This machine has no driver (CI): the real message.
    Expected<Runtime> rt = Runtime::open();
    ASSERT_FALSE(rt.ok());
    EXPECT_EQ(rt.status().code(), ErrorCode::NoDriver);
    EXPECT_EQ(rt.status().message(),
              "no CUDA driver/GPU found (libcuda.so.1 could not be loaded)");
    return;
  }
  GTEST_SKIP() << "libcuda.so.1 is present here; the no-driver path is tested on CPU machines";
}

TEST(Runtime, WatchdogBudgetGrowsWithWork) {
  EXPECT_DOUBLE_EQ(watchdogSeconds(0, 0, 0), 10.0);
  EXPECT_GT(watchdogSeconds(8192, 8192, 8192), 11.0);
  EXPECT_LT(watchdogSeconds(8192, 8192, 8192), 12.0);
}

TEST(LaunchChecks, BatchedExactMessages) {
  // Strided batched GEMM: a table of argument sets and what check says.
  KernelABI batched = testABI();
  batched.batched = true;
  batched.unitRows = 256, batched.unitCols = 256; // the cluster of 2 x 128 rows
  auto with = [](long long batch, long long sA, long long sB, long long sD) {
    GemmArgs a = goodArgs(); // 256 x 256 x 64, packed: A 256 x 64, B 256 x 64, D 256 x 256
    a.batch = batch, a.strideA = sA, a.strideB = sB, a.strideD = sD;
    return a;
  };
  struct Case {
    GemmArgs args;
    std::string message; ///< empty: accepted
  } cases[] = {
      {with(4, 256 * 64, 256 * 64, 256 * 256), ""},
      {with(4, 0, 0, 256 * 256), ""},                       // A and B broadcast
      {with(4, 256 * 64, 256 * 64, 256 * 256 + 8), ""},     // gaps between entries
      {with(1, -5, 3, 0), ""},                              // batch 1: strides unused
      {with(0, 0, 0, 0), "batch must be between 1 and 2147483647 (got 0)"},
      {with(-2, 0, 0, 0), "batch must be between 1 and 2147483647 (got -2)"},
      {with(4, 256 * 64, 256 * 64, 256 * 255),
       "operand D: batch stride 65280 is smaller than one entry (256 x ldd 256 = 65536 elements): "
       "the entries' outputs would overlap; pass strideD >= 65536"},
      {with(4, 256 * 64, 256 * 64, 0),
       "operand D: batch stride 0 is smaller than one entry (256 x ldd 256 = 65536 elements): "
       "the entries' outputs would overlap; pass strideD >= 65536"},
      {with(4, 256 * 64 + 4, 256 * 64, 256 * 256), ""}, // an odd stride: A staged
      {with(4, 256 * 64, -8, 256 * 256), "operand B: strideB -8 is negative"},
      {with(1LL << 31, 0, 0, 1LL << 16),
       "batch must be between 1 and 2147483647 (got 2147483648)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("batch " + std::to_string(c.args.batch) + " strides " +
                 std::to_string(c.args.strideA) + "," + std::to_string(c.args.strideB) + "," +
                 std::to_string(c.args.strideD));
    EXPECT_EQ(check(c.args, batched), c.message);
  }
  // More than 2^31 tiles in all: the kernel's slot counter is an int.
  GemmArgs many = with(1 << 30, 0, 0, 1 << 16);
  many.M = 2048; // 8 units of 256 rows per entry
  many.strideD = 2048LL * 256;
  EXPECT_EQ(check(many, batched),
            "batch 1073741824 of 2048x256 has 8 tiles per entry, more than 2^31 tiles in all; "
            "split the batch into launches of at most 268435455 entries");
  // A split-K kernel's batch entries are its K slices: one problem per launch.
  KernelABI split = batched;
  split.splitK = 8;
  EXPECT_EQ(check(with(1, 0, 0, 0), split), "");
  EXPECT_EQ(check(with(2, 0, 0, 256 * 256), split),
            "kernel 'k' splits K (scheduler.split_k 8) of one problem per launch, and batch is 2; "
            "launch each entry on its own (batchEntry()), or use a spec without split_k");
  // K = 0 reads neither A nor B: their strides are not checked.
  GemmArgs noK = with(4, 3, 5, 256 * 256);
  noK.K = 0;
  EXPECT_EQ(check(noK, batched), "");
  // A kernel without the batched ABI (sm_100a today) takes batch 1 only.
  DeviceInfo b200 = h200();
  b200.ccMajor = 10;
  KernelABI single = testABI(Target::SM100a);
  EXPECT_EQ(check(with(1, 0, 0, 0), single, b200), "");
  EXPECT_EQ(check(with(2, 0, 0, 256 * 256), single, b200),
            "kernel 'k' (sm_100a) computes one problem per launch, and batch is 2; launch it "
            "once per batch entry (batchEntry()), or use an sm_90a kernel");
}

TEST(LaunchChecks, BatchEntryAdvancesEveryOperand) {
  GemmArgs a = goodArgs();
  a.batch = 5, a.strideA = 100, a.strideB = 0, a.strideD = 1 << 16;
  GemmArgs e = batchEntry(a, 3, DType::BF16);
  EXPECT_EQ(e.A, a.A + 3 * 100 * 2);
  EXPECT_EQ(e.B, a.B); // broadcast
  EXPECT_EQ(e.D, a.D + 3ULL * (1 << 16) * 2);
  EXPECT_EQ(e.batch, 1);
  EXPECT_EQ(e.M, a.M);
  // A column-major D swaps A's and B's strides with the operands.
  a.layoutD = Layout::Col;
  GemmArgs t = rowMajorProblem(a);
  EXPECT_EQ(t.strideA, 0);
  EXPECT_EQ(t.strideB, 100);
  EXPECT_EQ(t.strideD, 1 << 16);
}

TEST(LaunchChecks, AlphaBetaExactMessages) {
  // D = alpha·A·B + beta·C: C is checked only when beta != 0, like D (C is
  // stored like D), and must be D itself or apart from it.
  KernelABI ab = testABI();
  ab.batched = true, ab.alphaBeta = true;
  auto with = [](float alpha, float beta, CUdeviceptr C, long long ldc) {
    GemmArgs a = goodArgs(); // 256 x 256 x 64; D at 0x30000, 256 x 256 packed (128 KiB)
    a.alpha = alpha, a.beta = beta, a.C = C, a.ldc = ldc;
    return a;
  };
  struct Case {
    GemmArgs args;
    std::string message; ///< empty: accepted
  } cases[] = {
      {with(2.f, 0.f, 0, 0), ""},                 // alpha alone; C null, unread
      {with(1.f, 0.5f, 0x100000, 0), ""},         // separate C, packed
      {with(1.f, 0.5f, 0x100000, 264), ""},       // padded C
      {with(1.f, 1.f, 0x30000, 0), ""},           // C = D: in place
      {with(1.f, 1.f, 0x30000, 256), ""},         // ldc 256 = ldd (packed)
      {with(1.f, 1.f, 0, 0), "operand C: null device pointer"},
      {with(1.f, 1.f, 0x100008, 0), ""}, // C off 16 bytes: staged
      {with(1.f, 1.f, 0x100000, 100),
       "operand C: leading dimension 100 is smaller than its row length N=256"},
      {with(1.f, 1.f, 0x100000, 260), ""}, // an odd ldc: staged
      {with(1.f, 1.f, 0x30000, 264),
       "C and D overlap but are not the same matrix (C 0x30000 ldc 264, D 0x30000 ldd 256); "
       "pass C = D with ldc = ldd to compute in place, or separate memory"},
      {with(1.f, 1.f, 0x30000 + 512, 0),
       "C and D overlap but are not the same matrix (C 0x30200 ldc 256, D 0x30000 ldd 256); "
       "pass C = D with ldc = ldd to compute in place, or separate memory"},
      {with(1.f, 1.f, 0x30000 + 256 * 256 * 2, 0), ""}, // right after D
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("alpha " + std::to_string(c.args.alpha) + " beta " +
                 std::to_string(c.args.beta) + " C " + std::to_string(c.args.C) + " ldc " +
                 std::to_string(c.args.ldc));
    EXPECT_EQ(check(c.args, ab), c.message);
  }
  // Batched in place: C's stride must be D's.
  GemmArgs b = with(1.f, 1.f, 0x30000, 0);
  b.batch = 2, b.strideA = 256 * 64, b.strideB = 256 * 64, b.strideD = 256 * 256;
  b.strideC = 256 * 256;
  EXPECT_EQ(check(b, ab), "");
  b.strideC = 256 * 256 + 8;
  EXPECT_EQ(check(b, ab),
            "C and D overlap but are not the same matrix (C 0x30000 ldc 256, D 0x30000 ldd 256); "
            "pass C = D with ldc = ldd and strideC = strideD to compute in place, or separate "
            "memory");
  b.strideC = 7; // overlapping D's entries
  EXPECT_EQ(check(b, ab),
            "C and D overlap but are not the same matrix (C 0x30000 ldc 256, D 0x30000 ldd 256); "
            "pass C = D with ldc = ldd and strideC = strideD to compute in place, or separate "
            "memory");
  // A kernel without the C path refuses alpha and beta.
  EXPECT_EQ(check(with(2.f, 0.f, 0, 0)),
            "kernel 'k' (sm_90a) computes D = A·B without alpha, beta and C (got alpha 2.000000, "
            "beta 0.000000); use an sm_90a kernel with `epilogue: { store: tma }`");
  EXPECT_EQ(check(with(1.f, 0.f, 0, 0)), "");
}

TEST(LaunchChecks, F32OutputAlignsDAndCToFourElements) {
  // D (and C) in f32: 16-byte rows are 4 elements; A and B keep 8.
  KernelABI f32 = testABI();
  f32.batched = true, f32.alphaBeta = true;
  f32.dType = ScalarType::F32;
  GemmArgs a = goodArgs();
  // (Which rows TMA takes as they are: FakeDriver.StagingCountsFourF32ElementsPerChunk.)
  // Overlap of C and D counts f32 bytes: C right after a 256 x 256 f32 D is apart.
  a = goodArgs();
  a.beta = 1.f, a.C = 0x30000 + 256 * 256 * 2; // inside an f32 D
  EXPECT_NE(check(a, f32).find("C and D overlap"), std::string::npos);
  a.C = 0x30000 + 256 * 256 * 4;
  EXPECT_EQ(check(a, f32), "");
}

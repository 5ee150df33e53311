//===- GpuBoundsThreadsTest.cpp - D's padding, guard zones, threads -------===//
//
// (ctest label gpu; every test skips without a GPU.)
//
// Bounds: a kernel must never write outside the logical M×N matrix. D sits
// between two guard zones in one allocation, everything poisoned with
// GemmVerifier::kPoison; after the launch every element of the guard zones
// and of D's padding columns [N, ldd) must still be poison, and every
// element of D must match the reference. Shapes with N % 8 != 0 are the
// ones where a TMA store writes past column N-1 (whole 16-byte chunks).
//
// Threads: a thread that never called makeCurrent() launches; several
// threads launch one Kernel at once, each on its own stream with its own
// buffers, and each D is checked element by element.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>

using namespace gemmgen;
namespace fs = std::filesystem;

namespace {

fs::path specPath(const char *name) {
  fs::path dir;
  if (const char *d = getenv("GEMMGEN_SPECS_DIR"); d && *d)
    dir = d;
  else if (const char *s = getenv("GEMMGEN_SOURCE_DIR"); s && *s)
    dir = fs::path(s) / "specs" / "sm90";
  else
    dir = fs::path(GEMMGEN_SOURCE_DIR) / "specs" / "sm90";
  return dir / name;
}

struct Device {
  Runtime rt; // empty when there is no GPU
  std::string why;
  static Device &get() {
    static Device d;
    return d;
  }
  Device() {
    Expected<Runtime> r = Runtime::open();
    if (r)
      rt = *r;
    else
      why = r.status().message();
  }
};

#define REQUIRE_GPU()                                                                            \
  do {                                                                                           \
    if (Device::get().rt.empty())                                                                \
      GTEST_SKIP() << "no GPU: " << Device::get().why;                                           \
  } while (0)

float toFloat(uint16_t h, DType t) {
  if (t == DType::BF16) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  float v = exp == 0 ? std::ldexp((float)mant, -24)
            : exp == 31 ? (mant ? NAN : INFINITY)
                        : std::ldexp((float)(mant | 1024), exp - 25);
  return sign ? -v : v;
}

/// One GEMM's buffers: A, B, reference, and D inside a poisoned allocation
/// [guard | M rows of ldd | guard].
struct Problem {
  const Runtime &rt;
  GemmArgs a;
  DType t;
  long long guard = 4096; ///< elements before and after D (a multiple of 8)
  CUdeviceptr dAlloc = 0, ref = 0;
  std::string error; ///< first failure (set by the helpers)

  Problem(const Runtime &r, long long M, long long N, long long K, long long ldd, DType type,
          Layout layoutA = Layout::Row, Layout layoutB = Layout::Col)
      : rt(r), t(type) {
    a.M = M, a.N = N, a.K = K;
    a.layoutA = layoutA, a.layoutB = layoutB;
    // A's and B's lines padded to 16 bytes (a column-major A with M = 129).
    a.lda = (storedShape(a, 'A').length + 7) / 8 * 8;
    a.ldb = (storedShape(a, 'B').length + 7) / 8 * 8;
    a.ldd = ldd;
    auto alloc = [&](long long bytes) -> CUdeviceptr {
      Expected<CUdeviceptr> p = rt.alloc((size_t)bytes);
      if (!p && error.empty())
        error = p.status().message();
      return p ? *p : 0;
    };
    a.A = alloc(storedShape(a, 'A').lines * a.lda * 2);
    a.B = alloc(storedShape(a, 'B').lines * a.ldb * 2);
    dAlloc = alloc((2 * guard + M * ldd) * 2);
    a.D = dAlloc + guard * 2;
    ref = alloc(M * N * 4);
  }
  ~Problem() {
    for (CUdeviceptr p : {a.A, a.B, dAlloc, ref})
      (void)rt.free(p);
  }
  long long dElements() const { return 2 * guard + a.M * a.ldd; }

  /// Fresh inputs, D's whole allocation poisoned.
  Status fill(const GemmVerifier &v, uint64_t seed, CUstream s) {
    const StoredShape sA = storedShape(a, 'A'), sB = storedShape(a, 'B');
    if (Status st = v.fillNormal2D(a.A, sA.lines, sA.length, sA.ld, t, seed * 2 + 1, s); !st)
      return st;
    if (Status st = v.fillNormal2D(a.B, sB.lines, sB.length, sB.ld, t, seed * 2 + 2, s); !st)
      return st;
    return rt.fill16Async(dAlloc, GemmVerifier::kPoison, (size_t)dElements(), s);
  }

  /// Every element: guards and padding still poison; D within tolerance of
  /// the reference. Returns "" or what is wrong.
  std::string check(const GemmVerifier &v, CUstream s) {
    if (Status st = v.reference(a, t, ref, s); !st)
      return st.message();
    if (Status st = rt.wait(s, 600); !st)
      return st.message();
    std::vector<uint16_t> d((size_t)dElements());
    std::vector<float> r((size_t)(a.M * a.N));
    if (Status st = rt.copyToHost(d.data(), dAlloc, d.size() * 2); !st)
      return st.message();
    if (Status st = rt.copyToHost(r.data(), ref, r.size() * 4); !st)
      return st.message();
    long long guardHits = 0, paddingHits = 0, wrong = 0;
    std::string firstWrong;
    for (long long i = 0; i < guard; ++i) {
      guardHits += d[(size_t)i] != GemmVerifier::kPoison;
      guardHits += d[(size_t)(guard + a.M * a.ldd + i)] != GemmVerifier::kPoison;
    }
    const double tolAbs = 1e-3 * std::sqrt((double)a.K);
    const double tolRel = t == DType::BF16 ? 1.0 / 128 : 1.0 / 1024;
    for (long long m = 0; m < a.M; ++m) {
      const uint16_t *row = d.data() + guard + m * a.ldd;
      for (long long n = a.N; n < a.ldd; ++n)
        paddingHits += row[n] != GemmVerifier::kPoison;
      for (long long n = 0; n < a.N; ++n) {
        const float got = toFloat(row[n], t), want = r[(size_t)(m * a.N + n)];
        if (!(std::fabs(got - want) <= tolRel * std::fabs(want) + tolAbs)) {
          if (!wrong++)
            firstWrong = "D[" + std::to_string(m) + "," + std::to_string(n) + "] = " +
                         std::to_string(got) + ", reference " + std::to_string(want);
        }
      }
    }
    std::string out;
    if (guardHits)
      out += std::to_string(guardHits) + " guard-zone elements overwritten; ";
    if (paddingHits)
      out += std::to_string(paddingHits) + " padding elements (columns N..ldd-1) overwritten; ";
    if (wrong)
      out += std::to_string(wrong) + " wrong elements (first: " + firstWrong + "); ";
    return out;
  }
};

struct Bounds {
  long long M, N, K, ldd;
};

class DBounds : public ::testing::TestWithParam<std::tuple<const char *, Bounds>> {};

TEST_P(DBounds, WritesExactlyTheLogicalMatrix) {
  REQUIRE_GPU();
  const Runtime &rt = Device::get().rt;
  const auto &[spec, b] = GetParam();
  Expected<Kernel> k = rt.compileFile(specPath(spec).string());
  ASSERT_TRUE(k.ok()) << k.status().message();
  Expected<GemmVerifier> v = GemmVerifier::create(rt);
  ASSERT_TRUE(v.ok()) << v.status().message();
  Expected<CUstream> s = rt.createStream();
  ASSERT_TRUE(s.ok()) << s.status().message();
  Problem p(rt, b.M, b.N, b.K, b.ldd, k->info().dtype, k->info().layoutA, k->info().layoutB);
  ASSERT_EQ(p.error, "");
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ASSERT_TRUE(p.fill(*v, seed, *s).ok());
  // An unaligned ldd takes the staging path: D computed into an aligned copy;
  // so does N < 8 (no whole 16-byte chunk: the copy's padding takes it).
  const std::size_t ws = k->workspaceBytes(p.a);
  EXPECT_EQ(ws > 0, b.ldd % 8 != 0 || b.N < 8);
  Expected<CUdeviceptr> wsBuf = rt.alloc(std::max<std::size_t>(ws, 256));
  ASSERT_TRUE(wsBuf.ok()) << wsBuf.status().message();
  struct FreeWs {
    const Runtime &rt;
    CUdeviceptr p;
    ~FreeWs() { (void)rt.free(p); }
  } freeWs{rt, *wsBuf};
  if (ws)
    p.a.workspace = *wsBuf, p.a.workspaceBytes = ws;
  Expected<PreparedLaunch> prep = k->prepare(p.a);
  ASSERT_TRUE(prep.ok()) << prep.status().message();
  EXPECT_EQ(prep->tailColumns, (unsigned)(b.N < 8 ? 0 : b.N % 8)); // the path taken
  EXPECT_EQ(prep->path, ws ? "tma+staged(D)" : "tma");
  Status st = k->launch(*prep, *s);
  ASSERT_TRUE(st.ok()) << st.message();
  st = rt.wait(*s, watchdogSeconds(b.M, b.N, b.K));
  if (st.code() == ErrorCode::Timeout)
    std::_Exit(4);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(p.check(*v, *s), "");
  (void)rt.destroyStream(*s);
}

const Bounds kBounds[] = {
    {129, 257, 72, 264},    // seen on the H200: 903 padding elements overwritten
    {129, 257, 72, 272},    // padding past the straddling 16-byte chunk too
    {300, 250, 128, 256},   // N = 250 padded to 256
    {64, 5, 64, 8},         // N < 8: D staged with padded rows, no tail
    {1, 4097, 4096, 4104},  // one row
    {1000, 1001, 520, 1016},
    {256, 256, 64, 264},    // N % 8 == 0, padded rows
    {4096, 4099, 4096, 4104},
    {129, 250, 72, 250},    // packed N = 250 (500-byte rows): D staged through an aligned copy
    {129, 257, 72, 257},    // packed odd N: staged, and its last column is the tail's
};

std::string boundsName(const ::testing::TestParamInfo<DBounds::ParamType> &info) {
  std::string n = std::get<0>(info.param);
  n = n.substr(0, n.find('.'));
  const Bounds &b = std::get<1>(info.param);
  return n + "_" + std::to_string(b.M) + "x" + std::to_string(b.N) + "x" + std::to_string(b.K) +
         "_ldd" + std::to_string(b.ldd);
}

INSTANTIATE_TEST_SUITE_P(Sm90, DBounds,
                         ::testing::Combine(::testing::Values("05_fast_f16.yaml",
                                                              "06_fast_bf16.yaml",
                                                              "02_ws_cluster2.yaml",
                                                              "07_fast_f16_a_col.yaml",
                                                              "08_fast_f16_b_row.yaml",
                                                              "09_fast_bf16_a_col_b_row.yaml",
                                                              "26_wave_fit_n152_f16.yaml"),
                                            ::testing::ValuesIn(kBounds)),
                         boundsName);

/// A packed D with N = 250 (rows of 500 bytes), which TMA cannot address,
/// is accepted and takes the staging path (DBounds checks what it writes).
TEST(DBoundsChecks, PackedDWithUnalignedRowsIsStaged) {
  REQUIRE_GPU();
  const Runtime &rt = Device::get().rt;
  Expected<Kernel> k = rt.compileFile(specPath("05_fast_f16.yaml").string());
  ASSERT_TRUE(k.ok()) << k.status().message();
  Problem p(rt, 129, 250, 72, 250, DType::F16);
  ASSERT_EQ(p.error, "");
  for (long long ldd : {0LL, 250LL}) {
    p.a.ldd = ldd;
    EXPECT_TRUE(k->check(p.a).ok()) << k->check(p.a).message();
    EXPECT_EQ(k->workspaceBytes(p.a), 129u * 256 * 2); // D's copy: rows of 256
    GemmArgs noWorkspace = p.a;
    EXPECT_EQ(k->prepare(noWorkspace).status().code(), ErrorCode::InvalidArgument);
  }
}

/// Runs one problem start to finish on `stream`; "" or what went wrong.
std::string runOne(const Runtime &rt, const Kernel &k, const GemmVerifier &v, CUstream stream,
                   Bounds b, uint64_t seed) {
  Problem p(rt, b.M, b.N, b.K, b.ldd, k.info().dtype);
  if (!p.error.empty())
    return p.error;
  if (Status st = p.fill(v, seed, stream); !st)
    return st.message();
  if (Status st = k.launch(p.a, stream); !st)
    return st.message();
  if (Status st = rt.wait(stream, watchdogSeconds(b.M, b.N, b.K)); !st) {
    if (st.code() == ErrorCode::Timeout)
      std::_Exit(4);
    return st.message();
  }
  return p.check(v, stream);
}

TEST(Threads, LaunchFromAThreadThatNeverCalledMakeCurrent) {
  REQUIRE_GPU();
  const Runtime &rt = Device::get().rt;
  Expected<Kernel> k = rt.compileFile(specPath("05_fast_f16.yaml").string());
  ASSERT_TRUE(k.ok()) << k.status().message();
  Expected<GemmVerifier> v = GemmVerifier::create(rt);
  ASSERT_TRUE(v.ok()) << v.status().message();
  Expected<CUstream> s = rt.createStream();
  ASSERT_TRUE(s.ok()) << s.status().message();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // N = 1001: the tail kernel is built inside prepare() on the fresh thread too.
  for (bool viaArgs : {false, true}) {
    SCOPED_TRACE(viaArgs ? "launch(GemmArgs)" : "prepare, then launch(PreparedLaunch)");
    Problem p(rt, 512, 1001, 256, 1008, DType::F16);
    ASSERT_EQ(p.error, "");
    ASSERT_TRUE(p.fill(*v, seed + viaArgs, *s).ok());
    ASSERT_TRUE(rt.wait(*s, 60).ok());
    // Each step runs on a new thread as that thread's first gemmgen call: a
    // new thread has no current CUDA context, and nothing calls makeCurrent().
    Status launched = Status::error(ErrorCode::InvalidArgument, "thread did not run");
    if (viaArgs) {
      std::thread([&] { launched = k->launch(p.a, *s); }).join();
    } else {
      std::optional<Expected<PreparedLaunch>> prep;
      std::thread([&] { prep.emplace(k->prepare(p.a)); }).join();
      ASSERT_TRUE(prep && prep->ok()) << (prep ? prep->status().message() : "");
      EXPECT_EQ((*prep)->tailColumns, 1u);
      std::thread([&] { launched = k->launch(**prep, *s); }).join();
    }
    ASSERT_TRUE(launched.ok()) << launched.message();
    Status waited = Status::error(ErrorCode::InvalidArgument, "thread did not run");
    std::thread([&] { waited = rt.wait(*s, watchdogSeconds(512, 1001, 256)); }).join();
    if (waited.code() == ErrorCode::Timeout)
      std::_Exit(4);
    ASSERT_TRUE(waited.ok()) << waited.message();
    EXPECT_EQ(p.check(*v, *s), "");
  }
  // The whole sequence (verifier, stream, buffers, launch, check) on one new thread.
  std::string result = "thread did not run";
  std::thread([&] {
    Expected<GemmVerifier> tv = GemmVerifier::create(rt);
    Expected<CUstream> ts = rt.createStream();
    if (!tv || !ts) {
      result = !tv ? tv.status().message() : ts.status().message();
      return;
    }
    result = runOne(rt, *k, *tv, *ts, {512, 1000, 256, 1008}, seed + 7);
    (void)rt.destroyStream(*ts);
  }).join();
  EXPECT_EQ(result, "");
  (void)rt.destroyStream(*s);
}

TEST(Threads, ConcurrentLaunchesOfOneKernelOnTheirOwnStreams) {
  REQUIRE_GPU();
  const Runtime &rt = Device::get().rt;
  Expected<Kernel> k = rt.compileFile(specPath("06_fast_bf16.yaml").string());
  ASSERT_TRUE(k.ok()) << k.status().message();
  const Kernel kernel = *k;
  const Bounds shapes[] = {{2048, 2048, 1024, 2048},
                           {1000, 1001, 520, 1016},
                           {129, 257, 72, 264},
                           {4096, 512, 2048, 512},
                           {333, 4000, 136, 4008},
                           {64, 5, 64, 8}};
  const int kThreads = 6, kRounds = 4;
  std::vector<std::string> results(kThreads);
  std::vector<std::thread> threads;
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      Expected<GemmVerifier> v = GemmVerifier::create(rt); // its scratch is per verifier
      Expected<CUstream> s = rt.createStream();
      if (!v || !s) {
        results[i] = !v ? v.status().message() : s.status().message();
        return;
      }
      for (int round = 0; round < kRounds && results[i].empty(); ++round) {
        std::string r = runOne(rt, kernel, *v, *s, shapes[(i + round) % 6],
                               seed + 1000 * i + round);
        if (!r.empty())
          results[i] = "round " + std::to_string(round) + ": " + r;
      }
      (void)rt.destroyStream(*s);
    });
  for (std::thread &t : threads)
    t.join();
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(results[i], "") << "thread " << i;
}

} // namespace

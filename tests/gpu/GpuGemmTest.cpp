//===- GpuGemmTest.cpp - Every sm_90a spec on the GPU (ctest label gpu) ----===//
//
// For every spec in specs/sm90/*.yaml (and the hand-written prototype
// tools/proto/ws_gemm_sm90.cu, when present) × a shape set with residues:
// fresh random normal inputs per run, D poisoned with NaN, one launch under
// the watchdog, every element checked written, relative Frobenius error
// against an fp32-accumulate reference ≤ GemmVerifier::kTolerance.
// Plus the pre-launch checks with their exact messages, and the watchdog.
//
// Without a GPU every test is skipped with the reason. Specs are found in
// $GEMMGEN_SPECS_DIR, else <source>/specs/sm90, else ./specs/sm90.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelABI.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

using namespace gemmgen;
namespace fs = std::filesystem;

namespace {

fs::path sourceDir() {
  if (const char *d = getenv("GEMMGEN_SOURCE_DIR"); d && *d)
    return d;
  if (fs::exists(fs::path(GEMMGEN_SOURCE_DIR) / "specs"))
    return GEMMGEN_SOURCE_DIR;
  return fs::current_path();
}

fs::path specsDir() {
  if (const char *d = getenv("GEMMGEN_SPECS_DIR"); d && *d)
    return d;
  return sourceDir() / "specs" / "sm90";
}

/// A's and B's layouts for a problem whose D is stored a.layoutD: the
/// kernel's own where it stores D that way, else those whose transposed
/// problem D^T = B^T·A^T has them (kernelProblem swaps and flips A's and B's
/// layouts; doing it twice gives them back).
void setUserLayouts(GemmArgs &a, const KernelInfo &ki) {
  a.layoutA = ki.layoutA, a.layoutB = ki.layoutB;
  if (a.layoutD != ki.layoutD) {
    const GemmArgs t = kernelProblem(a, ki.layoutD);
    a.layoutA = t.layoutA, a.layoutB = t.layoutB;
  }
}

const char *kProto = "proto:ws_gemm_sm90";

std::vector<std::string> kernelsUnderTest() {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto &e : fs::directory_iterator(specsDir(), ec))
    if (e.path().extension() == ".yaml")
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  if (fs::exists(sourceDir() / "tools/proto/ws_gemm_sm90.cu"))
    out.push_back(kProto);
  if (out.empty())
    out.push_back("(no specs found)");
  return out;
}

struct Shape {
  long long M, N, K;
};
const Shape kShapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4000, 4000},
                         {129, 257, 72},     {1, 4096, 4096},    {8192, 136, 8192},
                         {4096, 4096, 8},    {256, 256, 64}};

/// One Runtime and one compiled kernel per spec for the whole binary.
struct Gpu {
  std::optional<Runtime> rt;
  std::optional<GemmVerifier> ver;
  CUstream stream = nullptr;
  std::string why; ///< why there is no GPU
  std::map<std::string, Expected<Kernel>> kernels;

  static Gpu &get() {
    static Gpu g;
    return g;
  }
  Gpu() {
    Expected<Runtime> r = Runtime::open();
    if (!r) {
      why = r.status().message();
      return;
    }
    rt = *r;
    Expected<GemmVerifier> v = GemmVerifier::create(*rt);
    if (!v) {
      why = "verifier: " + v.status().message();
      rt.reset();
      return;
    }
    ver = *v;
    Expected<CUstream> s = rt->createStream();
    if (s)
      stream = *s;
  }

  const Expected<Kernel> &kernel(const std::string &name) {
    auto it = kernels.find(name);
    if (it != kernels.end())
      return it->second;
    if (name == kProto) {
      // The prototype (tools/proto/ws_gemm_sm90.cu defaults) is the kernel
      // of this spec written by hand: its launch contract is the spec's
      // plan (shared memory, boxes, threads, grid), not numbers kept here.
      std::ifstream f(sourceDir() / "tools/proto/ws_gemm_sm90.cu");
      std::stringstream ss;
      ss << f.rdbuf();
      DiagnosticEngine diags(nullptr);
      auto spec = compileSpecText(R"(kernel: gemmgen_ws_gemm_sm90
types: { a: bf16, b: bf16, d: bf16, accumulate: f32 }
tile: { m: 128, n: 256, k: 64 }
cluster: { m: 2, n: 1 }
pipeline: { depth: 4, mma_in_flight: 1 }
consumers: 2
roles:
  producer: { warps: 1, registers: 40, does: tma_load }
  consumer: { warpgroups: 2, registers: 232, does: [mma, epilogue] }
)",
                                  "proto.yaml", EmitOptions{}, diags);
      if (!spec)
        return kernels.emplace(name, Status::error(ErrorCode::InvalidArgument,
                                                   "the prototype's spec does not compile"))
            .first->second;
      KernelABI abi = spec->abi;
      abi.batched = false;   // written before strided batches: 2-D maps, no `batch` parameter
      abi.alphaBeta = false; // nor alpha, beta and C
      return kernels.emplace(name, rt->loadKernel(ss.str(), abi)).first->second;
    }
    return kernels.emplace(name, rt->compileFile((specsDir() / name).string())).first->second;
  }

  /// Spec `name` compiled as a grouped kernel (scheduler.grouped).
  std::map<std::string, Expected<Kernel>> groupedKernels;
  const Expected<Kernel> &groupedKernel(const std::string &name) {
    auto it = groupedKernels.find(name);
    if (it != groupedKernels.end())
      return it->second;
    CompileOptions o;
    o.spec.grouped = true;
    return groupedKernels.emplace(name, rt->compileFile((specsDir() / name).string(), o))
        .first->second;
  }
};

#define REQUIRE_GPU()                                                                            \
  do {                                                                                           \
    if (!Gpu::get().rt)                                                                          \
      GTEST_SKIP() << "no GPU: " << Gpu::get().why;                                              \
  } while (0)

long long roundUp(long long x, long long m) { return (x + m - 1) / m * m; }

class SpecShape : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

/// Elements one operand's allocation spans: `batch` entries `stride` apart
/// (0: one matrix for all), each `lines` lines `ld` apart.
long long operandExtent(const StoredShape &s, long long batch, long long stride) {
  // At least one 16-byte chunk: K = 0 leaves A and B empty, but allocated.
  return std::max<long long>(8, (batch - 1) * stride + s.lines * s.ld);
}

/// A D (or C) as read back: its bytes and the element type.
struct HostD {
  std::vector<uint8_t> bytes;
  DType type = DType::F16;
  size_t elemBytes() const { return sizeOf(type); }
  /// Whether element i is GemmVerifier::poison's pattern (NaN in every
  /// type) in every byte.
  bool isPoison(long long i) const {
    const size_t e = elemBytes();
    for (size_t b = 0; b < e; ++b) {
      const size_t at = size_t(i) * e + b;
      if (bytes[at] != GemmVerifier::poisonByte(type, at))
        return false;
    }
    return true;
  }
  /// Whether element i is +0.0 (every byte 0, in every type).
  bool isZero(long long i) const {
    const size_t e = elemBytes();
    for (size_t b = 0; b < e; ++b)
      if (bytes[size_t(i) * e + b] != 0)
        return false;
    return true;
  }
  /// Element i's bits (for a message).
  unsigned long long bits(long long i) const {
    unsigned long long v = 0;
    for (size_t b = elemBytes(); b-- > 0;)
      v = v << 8 | bytes[size_t(i) * elemBytes() + b];
    return v;
  }
};

Status readBack(const Runtime &rt, CUdeviceptr p, long long elements, DType t, HostD &out) {
  out.type = t;
  out.bytes.assign(size_t(elements) * sizeOf(t), 0);
  return rt.copyToHost(out.bytes.data(), p, out.bytes.size());
}

/// How a test passes C (beta != 0): a separate random matrix, or D itself
/// (D's entries hold C before the launch, its padding and gaps poison).
enum class CMode { None, Separate, InPlace };

/// `a` as a grouped kernel takes it: every batch entry a problem of its own.
GemmArgs asProblems(const GemmArgs &a, DType t, DType out) {
  GemmArgs g;
  g.layoutA = a.layoutA, g.layoutB = a.layoutB, g.layoutD = a.layoutD;
  g.alpha = a.alpha, g.beta = a.beta;
  for (long long l = 0; l < a.batch; ++l) {
    const GemmArgs e = batchEntry(a, l, t, out);
    g.problems.push_back({e.M, e.N, e.K, e.A, e.B, e.D, e.C, e.lda, e.ldb, e.ldd, e.ldc});
  }
  return g;
}

/// Launches `a` on `k`; a grouped kernel gets `a`'s batch entries as its problems.
Status launchAsGiven(const Kernel &k, const GemmArgs &a, CUstream stream) {
  if (!k.info().grouped)
    return k.launch(a, stream);
  return k.launch(asProblems(a, k.info().dtype, k.info().outType), stream);
}

/// One problem on the GPU: its buffers (A, B, D and C as `a` stores them),
/// fresh random inputs, D poisoned, its reference computed before the launch.
struct ProblemOnGpu {
  GemmArgs a;
  CMode cMode = CMode::None;
  CUdeviceptr ref = 0;
  long long extD = 0;
  uint64_t seed = 0;
};

/// Allocates (into `bufs`, freed by the caller), fills and poisons `p.a`'s
/// operands, `offset` elements into each allocation (a pointer off 16 bytes
/// when odd), and computes the reference.
void setUpProblem(const Kernel &k, ProblemOnGpu &p, long long offset,
                  std::vector<CUdeviceptr> &bufs) {
  Gpu &gpu = Gpu::get();
  const Runtime &rt = *gpu.rt;
  GemmArgs &a = p.a;
  const DType t = k.info().dtype, out = k.info().outType;
  const long long eb = (long long)sizeOf(out); // bytes per D (and C) element
  const StoredShape sA = storedShape(a, 'A'), sB = storedShape(a, 'B'), sD = storedShape(a, 'D');
  const long long L = a.batch;
  const long long extA = operandExtent(sA, L, a.strideA), extB = operandExtent(sB, L, a.strideB);
  p.extD = operandExtent(sD, L, a.strideD);
  auto alloc = [&](size_t bytes) {
    Expected<CUdeviceptr> ptr = rt.alloc(bytes);
    EXPECT_TRUE(ptr.ok()) << ptr.status().message();
    bufs.push_back(ptr.ok() ? *ptr : 0);
    return bufs.back();
  };
  a.A = alloc((extA + offset) * 2) + offset * 2;
  a.B = alloc((extB + offset) * 2) + offset * 2;
  a.D = alloc((p.extD + offset) * eb) + offset * eb;
  p.ref = alloc(std::max<long long>(1, L * a.M * a.N) * 4);
  // C: stored like D. The reference reads a pristine copy (in place, the
  // launch overwrites it).
  CUdeviceptr cPristine = 0;
  if (p.cMode != CMode::None) {
    a.ldc = sD.ld, a.strideC = a.strideD;
    cPristine = alloc(p.extD * eb);
    a.C = p.cMode == CMode::InPlace ? a.D : alloc((p.extD + offset) * eb) + offset * eb;
  }
  ASSERT_FALSE(::testing::Test::HasFailure());
  p.seed = std::random_device{}();
  const uint64_t seed = p.seed;
  ASSERT_TRUE(gpu.ver->fillNormal(a.A, extA, t, seed * 2 + 1, gpu.stream).ok());
  ASSERT_TRUE(gpu.ver->fillNormal(a.B, extB, t, seed * 2 + 2, gpu.stream).ok());
  ASSERT_TRUE(gpu.ver->poison(a.D, p.extD, out, gpu.stream).ok());
  if (p.cMode != CMode::None) {
    // Every entry's logical C (seeded per entry), in the pristine copy, in
    // C's own buffer (its padding poison too) or in D itself.
    if (p.cMode == CMode::Separate) {
      ASSERT_TRUE(gpu.ver->poison(a.C, p.extD, out, gpu.stream).ok());
    }
    for (long long l = 0; l < L; ++l)
      for (CUdeviceptr base : {cPristine, a.C})
        ASSERT_TRUE(gpu.ver->fillNormal2D(base + l * a.strideC * eb, sD.lines, sD.length,
                                          sD.ld, out, seed * 2 + 3 + l, gpu.stream).ok());
  }
  // The epilogue chain's inputs (a random bias vector per entry, 3 elements
  // of gap between them, unless the case gives its own; the scale) and a
  // blockwise kernel's scale arrays (every block its own N(0,1) scale).
  GemmVerifier::KernelInputValues values;
  values.scaleD = -0.75f;
  values.biasGap = 3;
  Expected<std::vector<CUdeviceptr>> inputs =
      gpu.ver->attachKernelInputs(k.info(), a, values, seed, gpu.stream);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  bufs.insert(bufs.end(), inputs->begin(), inputs->end());
  GemmArgs refArgs = a;
  refArgs.C = cPristine;
  if (a.M > 0 && a.N > 0) {
    ASSERT_TRUE(gpu.ver->reference(refArgs, k.info(), p.ref, gpu.stream).ok());
  }
}

/// After the launch: every element of every entry compared with the
/// reference (through D's layout), and every element of D's allocation
/// outside the entries' logical matrices (line padding, gaps between
/// entries) still poison.
void verifyProblem(const std::string &name, const Kernel &k, const ProblemOnGpu &p) {
  Gpu &gpu = Gpu::get();
  const Runtime &rt = *gpu.rt;
  const GemmArgs &a = p.a;
  const DType t = k.info().dtype, out = k.info().outType;
  const StoredShape sD = storedShape(a, 'D');
  const long long L = a.batch, extD = p.extD;
  SCOPED_TRACE("seed " + std::to_string(p.seed));
  GemmVerifier::Comparison c{};
  if (a.M > 0 && a.N > 0) {
    Expected<GemmVerifier::Comparison> cmp = gpu.ver->compare(a, t, p.ref, false, gpu.stream, out);
    ASSERT_TRUE(cmp.ok()) << cmp.status().message();
    c = *cmp;
    EXPECT_EQ(c.nonFinite, 0) << "elements left unwritten (poison) or NaN";
    EXPECT_LE(c.relFrobenius, GemmVerifier::kTolerance);
  }
  // An 8-bit D's amax: max |v| over every entry, before the output scale.
  // The kernel's f32 sums and the reference's differ by the tensor cores'
  // accumulation (~1e-3 relative for fp8 operands, docs/PERF.md), well
  // inside kTolerance; a missed tile or the scale applied twice is not.
  float amax = NAN;
  if (k.info().fp8Output && a.amaxD && a.M > 0 && a.N > 0) {
    ASSERT_TRUE(rt.copyToHost(&amax, a.amaxD, sizeof amax).ok());
    EXPECT_NEAR(amax, c.refAbsMax, GemmVerifier::kTolerance * c.refAbsMax)
        << "the kernel's amax against max |reference|";
  }
  HostD host;
  ASSERT_TRUE(readBack(rt, a.D, extD, out, host).ok());
  std::vector<bool> logical((size_t)extD, false);
  for (long long l = 0; l < L; ++l)
    for (long long line = 0; line < sD.lines; ++line)
      for (long long e = 0; e < sD.length; ++e)
        logical[size_t(l * a.strideD + line * sD.ld + e)] = true;
  long long touched = 0, firstTouched = -1;
  for (long long i = 0; i < extD; ++i)
    if (!logical[size_t(i)] && !host.isPoison(i)) {
      touched += 1;
      if (firstTouched < 0)
        firstTouched = i;
    }
  EXPECT_EQ(touched, 0) << "elements of D's allocation outside the logical matrices written "
                           "(padding or gaps between entries; first at element "
                        << firstTouched << ")";
  const char *cText = p.cMode == CMode::None ? "" : p.cMode == CMode::InPlace ? ", C = D" : ", C";
  printf("[ result ] %s %s%lldx%lldx%lld %s%s%s (A %s, B %s, D %s, alpha %g, beta %g%s): rel err "
         "%.3e, max |err| %.3e, unwritten %lld%s\n",
         name.c_str(), L > 1 ? (std::to_string(L) + "*").c_str() : "", a.M, a.N, a.K,
         toString(t), out != t ? ">" : "", out != t ? toString(out) : "", toString(a.layoutA),
         toString(a.layoutB), toString(a.layoutD), a.alpha, a.beta, cText, c.relFrobenius,
         c.maxAbsError, c.nonFinite,
         std::isnan(amax) ? ""
                          : (", amax " + std::to_string(amax) + " (ref " +
                             std::to_string(c.refAbsMax) + ")").c_str());
}

/// Frees a test's allocations (their own pointers, not the moved ones).
struct FreeAll {
  const Runtime &rt;
  std::vector<CUdeviceptr> bufs;
  ~FreeAll() {
    for (CUdeviceptr p : bufs)
      (void)rt.free(p);
  }
};

/// Waits for the stream under the watchdog; a hung kernel ends the binary
/// (the context is unusable; do not hang the test run).
void waitOrExit(double seconds) {
  // GEMMGEN_TEST_WATCHDOG_SCALE stretches the watchdog for runs under a
  // tool that slows every kernel many times (compute-sanitizer racecheck).
  static const double scale = [] {
    const char *v = std::getenv("GEMMGEN_TEST_WATCHDOG_SCALE");
    const double x = v ? std::atof(v) : 1.0;
    return x >= 1.0 ? x : 1.0;
  }();
  Gpu &gpu = Gpu::get();
  Status s = gpu.rt->wait(gpu.stream, seconds * scale);
  if (s.code() == ErrorCode::Timeout) {
    fprintf(stderr, "%s\n", s.message().c_str());
    std::_Exit(4);
  }
  ASSERT_TRUE(s.ok()) << s.message();
}

/// One launch checked end to end (setUpProblem, launch, verifyProblem).
void expectMatchesReference(const std::string &name, const Kernel &k, GemmArgs a,
                            CMode cMode = CMode::None, long long offset = 0) {
  Gpu &gpu = Gpu::get();
  FreeAll freeAll{*gpu.rt, {}};
  ProblemOnGpu p{a, cMode};
  setUpProblem(k, p, offset, freeAll.bufs);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  Status s = launchAsGiven(k, p.a, gpu.stream);
  ASSERT_TRUE(s.ok()) << s.message();
  waitOrExit(watchdogSeconds(a.M * a.batch, a.N, a.K));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  verifyProblem(name, k, p);
}

TEST_P(SpecShape, MatchesReferenceAndWritesEveryElement) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, shape] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (k->info().target != "sm_90a")
    GTEST_SKIP() << name << " targets " << k->info().target;
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
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (k->info().target != "sm_90a")
    GTEST_SKIP() << name << " targets " << k->info().target;
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

/// The generated kernels only: the hand-written prototype predates K = 0 (its
/// first wgmma overwrites the accumulators, so with no k-block it stores garbage).
std::vector<std::string> generatedKernelsUnderTest() {
  std::vector<std::string> out = kernelsUnderTest();
  out.erase(std::remove(out.begin(), out.end(), std::string(kProto)), out.end());
  return out;
}

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

/// D column-major: computed as D^T = B^T·A^T by a kernel compiled for that
/// problem's layouts (kernelProblem), or directly by a kernel that stores D
/// column-major (spec 23). Each case names the spec whose
/// layouts serve the user's A and B: fresh inputs, D (with padding) poisoned,
/// every element compared with the reference through the column-major index.
struct ColumnMajorDCase {
  const char *spec;
  Layout a, b; ///< as the user stores A and B
};
class ColumnMajorD : public ::testing::TestWithParam<std::tuple<ColumnMajorDCase, Shape>> {};

TEST_P(ColumnMajorD, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[c, shape] = GetParam();
  const Expected<Kernel> &k = gpu.kernel(c.spec);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a;
  a.M = shape.M, a.N = shape.N, a.K = shape.K;
  a.layoutA = c.a, a.layoutB = c.b, a.layoutD = Layout::Col;
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(storedShape(a, 'D').length, 8);
  EXPECT_EQ(storedShape(a, 'D').lines, a.N); // N columns of M
  expectMatchesReference(c.spec, *k, a);
}

const ColumnMajorDCase kColumnMajorD[] = {
    {"05_fast_f16.yaml", Layout::Row, Layout::Col},        // D^T: A row, B col again
    {"07_fast_f16_a_col.yaml", Layout::Row, Layout::Row},  // D^T: A col, B col
    {"08_fast_f16_b_row.yaml", Layout::Col, Layout::Col},  // D^T: A row, B row
    {"09_fast_bf16_a_col_b_row.yaml", Layout::Col, Layout::Row},
    {"23_decode_col_d_f16.yaml", Layout::Row, Layout::Col}, // stores D column-major itself
    {"24_decode_col_d_split_f16.yaml", Layout::Row, Layout::Col}, // its reduction does
    {"25_decode_two_ctas_f16.yaml", Layout::Row, Layout::Col},    // two CTAs per SM
};
const Shape kColumnMajorDShapes[] = {{129, 257, 72}, {1000, 1001, 520}, {4096, 4096, 4096}};

INSTANTIATE_TEST_SUITE_P(
    Sm90, ColumnMajorD,
    ::testing::Combine(::testing::ValuesIn(kColumnMajorD), ::testing::ValuesIn(kColumnMajorDShapes)),
    [](const ::testing::TestParamInfo<ColumnMajorD::ParamType> &info) {
      std::string n = std::get<0>(info.param).spec;
      n = n.substr(0, n.find('.'));
      const Shape &s = std::get<1>(info.param);
      return n + "_" + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
    });

/// `auto` with a column-major D: the kernel chosen for choiceProblem (the
/// problem with D row-major: N×M and its layouts), compiled with those
/// layouts, on the user's column-major D — run transposed (a row-major-D
/// family: the tall twins) or not (a column-major-D one), as its D says.
/// Fresh inputs, D and its padding poisoned, every element against the
/// reference through the column-major index.
struct ChosenColumnMajorDCase {
  long long M, N, K;
  Layout a, b; ///< as the user stores A and B
  DType t;
};
class ChosenKernelColumnMajorD : public ::testing::TestWithParam<ChosenColumnMajorDCase> {};

TEST_P(ChosenKernelColumnMajorD, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const ChosenColumnMajorDCase &c = GetParam();
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  a.layoutA = c.a, a.layoutB = c.b, a.layoutD = Layout::Col;
  const ChoiceProblem asked = choiceProblem(a);
  Expected<KernelChoice> choice = chooseKernel(asked.M, asked.N, asked.K, c.t, asked.options);
  ASSERT_TRUE(choice) << choice.status().message();
  CompileOptions options;
  options.spec.layoutA = asked.options.a, options.spec.layoutB = asked.options.b;
  Expected<Kernel> k = gpu.rt->compileString(choice->specYaml, choice->name, options);
  ASSERT_TRUE(k.ok()) << k.status().message();
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(storedShape(a, 'D').length, 8);
  expectMatchesReference(choice->name + " (" + choice->reason + ")", *k, a);
}

const ChosenColumnMajorDCase kChosenColumnMajorD[] = {
    {16, 4096, 4096, Layout::Row, Layout::Col, DType::F16},   // tall_d16, transposed
    {8, 14336, 4096, Layout::Row, Layout::Col, DType::BF16},  // tall (two CTAs per SM)
    {32, 4096, 4100, Layout::Row, Layout::Col, DType::F16},   // tall32, a K residue
    {64, 3000, 1000, Layout::Row, Layout::Col, DType::BF16},  // tall64, residues
    {3, 4500, 9000, Layout::Row, Layout::Col, DType::F16},    // 3 rows: D staged
    {16, 4096, 4096, Layout::Col, Layout::Col, DType::F16},   // tall_d16: B N-major, 32-byte box
    {1, 2112, 7168, Layout::Col, Layout::Col, DType::BF16},   // tall split 4, one column (padded)
    {8, 14336, 4096, Layout::Col, Layout::Col, DType::F16},   // tall, B N-major in 16 columns
    {32, 4096, 4096, Layout::Col, Layout::Col, DType::BF16},  // tall32, a 64-byte box
    {3, 4500, 9000, Layout::Col, Layout::Col, DType::F16},    // 3 columns of 16, residues
    {24, 6000, 4104, Layout::Col, Layout::Col, DType::BF16},  // tall32 at 24 columns, residues
    {40, 6000, 4100, Layout::Col, Layout::Col, DType::F16},   // tall64, residues
    {16, 4096, 4096, Layout::Row, Layout::Row, DType::BF16},  // kernel layouts col,col
    {1000, 1001, 520, Layout::Row, Layout::Col, DType::F16},  // no decode: transposed as ever
};

INSTANTIATE_TEST_SUITE_P(Sm90, ChosenKernelColumnMajorD, ::testing::ValuesIn(kChosenColumnMajorD),
                         [](const ::testing::TestParamInfo<ChosenColumnMajorDCase> &info) {
                           const ChosenColumnMajorDCase &c = info.param;
                           return std::to_string(c.M) + "x" + std::to_string(c.N) + "x" +
                                  std::to_string(c.K) + "_" + toString(c.a) + "_" +
                                  toString(c.b) + "_" + toString(c.t);
                         });

/// An M×N×K problem with D in `layoutD` that kernel `ki` computes, every
/// line padded to 16 bytes: A and B in the layouts setUserLayouts gives.
GemmArgs paddedArgsFor(const KernelInfo &ki, long long M, long long N, long long K,
                       Layout layoutD) {
  GemmArgs a;
  a.M = M, a.N = N, a.K = K;
  a.layoutD = layoutD;
  setUserLayouts(a, ki);
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(storedShape(a, 'D').length, 8);
  return a;
}

/// Test names of a (spec, case) suite: the spec's file name without its
/// extension, letters and digits only, then the case's label.
template <typename Param>
std::string specCaseName(const ::testing::TestParamInfo<Param> &info) {
  std::string n = std::get<0>(info.param);
  n = n.substr(0, n.find('.'));
  for (char &ch : n)
    if (!isalnum((unsigned char)ch))
      ch = '_';
  return n + "_" + std::get<1>(info.param).label;
}

/// Strided batched GEMM: every sm_90a spec, entries packed, with gaps
/// between them, with one B for all entries (stride 0), many small entries,
/// K = 0, and a column-major D; the gaps and D's padding are checked
/// untouched by expectMatchesReference.
struct BatchCase {
  const char *label;
  long long M, N, K, batch;
  long long gapA, gapB, gapD; ///< elements between entries (-1: stride 0, broadcast)
  Layout layoutD;
};
class Batched : public ::testing::TestWithParam<std::tuple<std::string, BatchCase>> {};

TEST_P(Batched, EveryEntryMatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (k->info().target != "sm_90a")
    GTEST_SKIP() << name << " targets " << k->info().target;
  if (!k->info().batched)
    GTEST_SKIP() << name << " computes one problem per launch (no batch parameter)";
  if (k->info().splitK > 1)
    GTEST_SKIP() << name << " splits K of one problem (its batch entries are the K slices; "
                            "FakeDriver.SplitKSlicesIntoTheWorkspaceThenReduces)";
  if (c.layoutD == Layout::Col && k->info().epilogue.bias)
    GTEST_SKIP() << name << "'s bias indexes D's rows or columns as the kernel computes them "
                            "(a column-major D is refused: EpilogueLaunchChecks)";
  if (c.layoutD == Layout::Col && k->info().blockwiseScales)
    GTEST_SKIP() << name << ": D^T would swap the 1x128 and 128x128 scale blocks (a "
                            "column-major D is refused)";
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, c.layoutD);
  auto stride = [](const StoredShape &s, long long gap) {
    return gap < 0 ? 0 : s.lines * s.ld + gap;
  };
  a.batch = c.batch;
  a.strideA = stride(storedShape(a, 'A'), c.gapA);
  a.strideB = stride(storedShape(a, 'B'), c.gapB);
  a.strideD = stride(storedShape(a, 'D'), c.gapD);
  expectMatchesReference(name, *k, a);
}

const BatchCase kBatchCases[] = {
    {"packed", 1000, 1001, 520, 2, 0, 0, 0, Layout::Row},
    {"gaps", 129, 257, 72, 3, 8, 16, 64, Layout::Row},
    {"broadcastB", 256, 256, 128, 4, 0, -1, 0, Layout::Row},
    {"many", 128, 128, 64, 512, 0, 0, 0, Layout::Row},
    {"zeroK", 129, 257, 0, 3, 0, 0, 8, Layout::Row},
    {"colD", 300, 200, 136, 3, 0, 8, 8, Layout::Col},
    // Strides off the 16-byte grid: A and D staged entry by entry in one copy each.
    {"oddGaps", 129, 257, 72, 3, 3, 0, 5, Layout::Row},
    {"oddGapsBroadcast", 200, 136, 100, 4, 1, -1, 1, Layout::Row},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Batched,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()), ::testing::ValuesIn(kBatchCases)),
    specCaseName<Batched::ParamType>);

/// D = alpha·A·B + beta·C on every sm_90a spec: a separate C, C = D in
/// place, alpha alone (C null, never read), K = 0 (D = beta·C), a batch with
/// gaps, and a column-major D and C. Every element compared with the
/// reference; D's padding and gaps (and C's, when separate) poison.
struct AlphaBetaCase {
  const char *label;
  long long M, N, K, batch;
  float alpha, beta;
  CMode c;
  Layout layoutD;
};
class AlphaBeta : public ::testing::TestWithParam<std::tuple<std::string, AlphaBetaCase>> {};

TEST_P(AlphaBeta, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (!k->info().alphaBeta || !k->info().batched)
    GTEST_SKIP() << name << " computes D = A·B only";
  if (c.batch > 1 && k->info().splitK > 1)
    GTEST_SKIP() << name << " splits K of one problem per launch (no strided batch)";
  if (c.layoutD == Layout::Col && k->info().epilogue.bias)
    GTEST_SKIP() << name << "'s bias indexes D's rows or columns as the kernel computes them "
                            "(a column-major D is refused: EpilogueLaunchChecks)";
  if (c.layoutD == Layout::Col && k->info().blockwiseScales)
    GTEST_SKIP() << name << ": D^T would swap the 1x128 and 128x128 scale blocks (a "
                            "column-major D is refused)";
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, c.layoutD);
  a.batch = c.batch;
  if (c.batch > 1) { // gaps of 8 elements between entries
    a.strideA = storedShape(a, 'A').lines * a.lda + 8;
    a.strideB = storedShape(a, 'B').lines * a.ldb + 8;
    a.strideD = storedShape(a, 'D').lines * a.ldd + 8;
  }
  a.alpha = c.alpha, a.beta = c.beta;
  expectMatchesReference(name, *k, a, c.c);
}

const AlphaBetaCase kAlphaBetaCases[] = {
    {"separateC", 129, 257, 72, 1, 0.5f, 2.0f, CMode::Separate, Layout::Row},
    {"inPlace", 1000, 1001, 520, 1, 1.0f, 1.0f, CMode::InPlace, Layout::Row},
    {"alphaOnly", 256, 256, 128, 1, -1.5f, 0.0f, CMode::None, Layout::Row},
    {"zeroK", 129, 257, 0, 1, 1.0f, 0.5f, CMode::Separate, Layout::Row},
    {"batchGaps", 129, 257, 72, 3, 0.25f, -1.0f, CMode::InPlace, Layout::Row},
    {"colD", 300, 200, 136, 1, 2.0f, 0.5f, CMode::Separate, Layout::Col},
    {"large", 4096, 4096, 4096, 1, 1.0f, 0.5f, CMode::InPlace, Layout::Row},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, AlphaBeta,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()),
                       ::testing::ValuesIn(kAlphaBetaCases)),
    specCaseName<AlphaBeta::ParamType>);

/// Operands TMA cannot address, one problem: every sm_90a spec through the
/// staging path (aligned copies in a workspace that Kernel::launch allocates
/// on the stream): packed odd K and N, an odd ldd, pointers one element off,
/// C = D in place with odd rows. D's padding checked untouched.
struct StagedCase {
  const char *label;
  long long M, N, K;
  long long pad;      ///< elements added to every leading dimension (0: packed)
  long long offset;   ///< elements every pointer is moved by
  float beta;
  CMode c;
};
class Staged : public ::testing::TestWithParam<std::tuple<std::string, StagedCase>> {};

TEST_P(Staged, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (k->info().target != "sm_90a")
    GTEST_SKIP() << name << " targets " << k->info().target;
  if (c.beta != 0.0f && !k->info().alphaBeta)
    GTEST_SKIP() << name << " computes D = A·B only";
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  setUserLayouts(a, k->info());
  a.lda = storedShape(a, 'A').length + c.pad;
  a.ldb = storedShape(a, 'B').length + c.pad;
  a.ldd = storedShape(a, 'D').length + c.pad;
  a.beta = c.beta;
  expectMatchesReference(name, *k, a, c.c, c.offset);
}

const StagedCase kStagedCases[] = {
    {"packedOddK", 129, 257, 100, 0, 0, 0.0f, CMode::None},
    {"oddLd", 300, 200, 136, 1, 0, 0.0f, CMode::None},
    {"offsetPointers", 256, 264, 128, 8, 1, 0.0f, CMode::None},
    {"inPlaceOddN", 129, 257, 72, 0, 0, 1.0f, CMode::InPlace},
    {"separateCOffset", 200, 136, 72, 0, 3, 0.5f, CMode::Separate},
    {"packed1000", 1000, 1001, 520, 0, 0, 0.0f, CMode::None},
    {"K4100", 512, 512, 4100, 0, 0, 0.0f, CMode::None},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Staged,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()), ::testing::ValuesIn(kStagedCases)),
    specCaseName<Staged::ParamType>);

/// Grouped GEMM: every generated spec compiled grouped (scheduler.grouped),
/// each case one launch over a list of problems with their own M (and N, K),
/// empty problems among them; every problem's operands in buffers of their
/// own with padded lines, fresh random inputs, D poisoned, every element of
/// every problem compared with its reference and D's padding checked.
struct GroupedCase {
  const char *label;
  std::vector<Shape> problems;
  float alpha, beta;
  CMode c;
  Layout layoutD;
  bool packed = false; ///< lines not padded: odd K or N leave rows TMA cannot address (staged)
};
class Grouped : public ::testing::TestWithParam<std::tuple<std::string, GroupedCase>> {};

TEST_P(Grouped, EveryProblemMatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().splitK > 1)
    GTEST_SKIP() << name << " splits K: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().streamK)
    GTEST_SKIP() << name << " is stream-K: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && !plain->info().epilogue.empty())
    GTEST_SKIP() << name << " has an epilogue chain: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().perTensorScales)
    GTEST_SKIP() << name << " has fp8 operands: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name);
      plain.ok() && plain->info().layoutD == Layout::Col)
    GTEST_SKIP() << name << " stores D column-major: not compiled grouped (a located spec error)";
  const Expected<Kernel> &k = gpu.groupedKernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().grouped);
  FreeAll freeAll{*gpu.rt, {}};
  std::vector<ProblemOnGpu> problems;
  for (const Shape &s : c.problems) {
    ProblemOnGpu p{paddedArgsFor(k->info(), s.M, s.N, s.K, c.layoutD), c.c};
    p.a.alpha = c.alpha, p.a.beta = c.beta;
    if (c.packed)
      p.a.lda = p.a.ldb = p.a.ldd = 0;
    setUpProblem(*k, p, 0, freeAll.bufs);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    problems.push_back(p);
  }
  GemmArgs g;
  g.layoutA = problems[0].a.layoutA, g.layoutB = problems[0].a.layoutB;
  g.layoutD = c.layoutD, g.alpha = c.alpha, g.beta = c.beta;
  for (const ProblemOnGpu &p : problems) {
    const GemmArgs &a = p.a;
    g.problems.push_back({a.M, a.N, a.K, a.A, a.B, a.D, a.C, a.lda, a.ldb, a.ldd, a.ldc});
  }
  Status s = k->launch(g, gpu.stream);
  ASSERT_TRUE(s.ok()) << s.message();
  long long rows = 0, n = 0, kk = 0;
  for (const Shape &p : c.problems)
    rows += p.M, n = std::max(n, p.N), kk = std::max(kk, p.K);
  waitOrExit(watchdogSeconds(rows, n, kk));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  for (size_t i = 0; i < problems.size(); ++i) {
    SCOPED_TRACE("problem " + std::to_string(i));
    verifyProblem(name + " [grouped " + std::to_string(i) + "/" +
                      std::to_string(problems.size()) + "]",
                  *k, problems[i]);
  }
}

/// 64 problems of M in 0..511 (a fixed draw; every 8th empty), N 256, K 128.
std::vector<Shape> manySmallProblems() {
  std::mt19937 rng(20261201);
  std::vector<Shape> out;
  for (int i = 0; i < 64; ++i)
    out.push_back({i % 8 == 3 ? 0 : (long long)(rng() % 512), 256, 128});
  return out;
}

const GroupedCase kGroupedCases[] = {
    {"moe", {{300, 512, 256}, {0, 512, 256}, {1, 512, 256}, {128, 512, 256}, {513, 512, 256},
             {37, 512, 256}, {0, 512, 256}, {64, 512, 256}},
     1.0f, 0.0f, CMode::None, Layout::Row},
    {"mixedNK", {{129, 264, 72}, {256, 128, 0}, {64, 512, 520}, {0, 256, 64}, {300, 136, 136}},
     1.0f, 0.0f, CMode::None, Layout::Row},
    {"betaInPlace", {{200, 256, 128}, {129, 264, 0}, {64, 128, 64}}, 2.0f, 0.5f, CMode::InPlace,
     Layout::Row},
    {"separateC", {{300, 136, 72}, {0, 64, 64}, {128, 256, 256}}, 0.5f, -1.0f, CMode::Separate,
     Layout::Row},
    {"colD", {{256, 200, 136}, {8, 129, 72}, {0, 64, 64}, {136, 300, 64}}, 1.0f, 0.0f,
     CMode::None, Layout::Col},
    {"many", manySmallProblems(), 1.0f, 0.0f, CMode::None, Layout::Row},
    {"large", {{4096, 4096, 4096}, {1024, 4096, 4096}}, 1.0f, 0.0f, CMode::None, Layout::Row},
    // D's rows not whole 16-byte chunks (N = 250, 257; padded lines): D staged per problem.
    {"oddN", {{129, 250, 72}, {300, 257, 136}, {64, 256, 64}, {0, 250, 64}}, 1.0f, 0.5f,
     CMode::InPlace, Layout::Row},
    // Packed lines with odd K and N: A, B and D staged where their rows are not 16-byte multiples.
    {"packedOdd", {{129, 257, 100}, {256, 256, 64}, {300, 200, 4100}, {37, 129, 0}}, 1.0f, 0.0f,
     CMode::None, Layout::Row, true},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Grouped,
    ::testing::Combine(::testing::ValuesIn(generatedKernelsUnderTest()),
                       ::testing::ValuesIn(kGroupedCases)),
    specCaseName<Grouped::ParamType>);

/// Spec `base` with its last `from` replaced by `to`, compiled once per text
/// (the Epilogue and OverlappingChunks cases' kernels). Empty when `from` is absent.
const Expected<Kernel> *editedSpecKernel(const char *base, const std::string &from,
                                         const std::string &to, const std::string &label) {
  std::ifstream f(specsDir() / base);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string yaml = ss.str();
  const size_t at = yaml.rfind(from);
  if (at == std::string::npos)
    return nullptr;
  yaml.replace(at, from.size(), to);
  static std::map<std::string, Expected<Kernel>> kernels;
  auto it = kernels.find(yaml);
  if (it == kernels.end())
    it = kernels.emplace(yaml, Gpu::get().rt->compileString(yaml, label + ".yaml")).first;
  return &it->second;
}

/// Epilogue chains: every op, bias axes and types, the residual's place, a
/// scale, 16-bit and f32 output, batches with a bias per entry, tail columns
/// (N % 8 != 0), each against the reference that applies the same chain
/// (epilogue_ops.cuh's apply_chain) in f32 on the same inputs.
struct EpilogueCase {
  const char *label;
  const char *base;  ///< spec whose epilogue line gets the chain
  const char *chain; ///< the YAML flow list
  long long M, N, K, batch;
  float alpha, beta;
  CMode c;
};
class Epilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(Epilogue, MatchesReference) {
  REQUIRE_GPU();
  const EpilogueCase &c = GetParam();
  const std::string line = "overlap: true }";
  const Expected<Kernel> *kp =
      editedSpecKernel(c.base, line, "overlap: true, chain: " + std::string(c.chain) + " }", c.label);
  ASSERT_NE(kp, nullptr) << c.base << " has no '" << line << "' epilogue line";
  const Expected<Kernel> &k = *kp;
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_FALSE(k->info().epilogue.empty());
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, Layout::Row);
  a.batch = c.batch;
  if (c.batch > 1) {
    a.strideA = storedShape(a, 'A').lines * a.lda;
    a.strideB = storedShape(a, 'B').lines * a.ldb;
    a.strideD = storedShape(a, 'D').lines * a.ldd;
  }
  a.alpha = c.alpha, a.beta = c.beta;
  printf("[ chain  ] %s: %s\n", c.label, k->info().epilogue.chain.c_str());
  expectMatchesReference(c.label, *k, a, c.c);
}

const EpilogueCase kEpilogueCases[] = {
    {"biasColBf16GeluTanh", "06_fast_bf16.yaml", "[{bias: {per: column, type: bf16}}, gelu_tanh]",
     129, 257, 72, 1, 1.0f, 0.0f, CMode::None},
    {"biasRowF32Relu", "05_fast_f16.yaml", "[{bias: {per: row, type: f32}}, relu]", 1000, 1001,
     520, 1, 0.5f, 0.0f, CMode::None},
    {"geluErfClamp", "05_fast_f16.yaml", "[gelu_erf, {clamp: {min: -0.25, max: 2}}]", 1000, 1001,
     520, 1, 1.0f, 0.5f, CMode::Separate},
    {"siluScale", "06_fast_bf16.yaml", "[silu, scale]", 256, 384, 200, 1, 1.0f, 0.0f, CMode::None},
    {"biasGeluResidual", "05_fast_f16.yaml",
     "[{bias: {per: column, type: f16}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 1.0f,
     CMode::Separate},
    {"residualInPlaceBatch", "06_fast_bf16.yaml", "[{bias: {per: row}}, silu, residual]", 129,
     257, 72, 3, 1.0f, -0.5f, CMode::InPlace},
    {"f32OutBiasSiluResidual", "10_fast_f16_out_f32.yaml",
     "[{bias: {per: column, type: f32}}, silu, residual, {clamp: {max: 1.5}}]", 1000, 1001, 520,
     1, 1.0f, 0.5f, CMode::Separate},
    {"f32OutGeluTanh", "10_fast_f16_out_f32.yaml", "[gelu_tanh, scale]", 129, 257, 72, 2, 1.0f,
     0.0f, CMode::None},
    {"fp8BiasGelu", "13_fast_e4m3.yaml", "[{bias: {per: column, type: bf16}}, gelu_tanh]", 1000,
     1001, 528, 1, 1.0f, 0.0f, CMode::None},
    {"largeBiasGelu", "06_fast_bf16.yaml", "[{bias: {per: column}}, gelu_tanh]", 4096, 4096, 4096,
     1, 1.0f, 0.0f, CMode::None},
    // An 8-bit D: the chain, then the output scale and amax (bias bf16 by default).
    {"fp8OutBiasGeluResidual", "16_fast_e4m3_out_e4m3.yaml",
     "[{bias: {per: column}}, gelu_tanh, residual, {clamp: {min: -4}}]", 1000, 1001, 528, 2, 1.0f,
     0.5f, CMode::Separate},
    {"fp8OutRowBiasRelu", "16_fast_e4m3_out_e4m3.yaml", "[{bias: {per: row, type: f32}}, relu]",
     129, 257, 160, 1, 1.0f, 0.0f, CMode::None},
    // 256x152 (spec 26): the chain on five chunks of 32, the last overlapping
    // the fourth by 8 columns, C read back from the staging tile; in place, the
    // shared columns take the fourth chunk's values (C there is already D).
    {"n152BiasGeluResidual", "26_wave_fit_n152_f16.yaml",
     "[{bias: {per: column, type: f32}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 0.5f,
     CMode::Separate},
    {"n152BiasGeluResidualInPlace", "26_wave_fit_n152_f16.yaml",
     "[{bias: {per: column, type: f32}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 0.5f,
     CMode::InPlace},
    {"n152RowBiasSiluBatch", "26_wave_fit_n152_f16.yaml", "[{bias: {per: row}}, silu]", 300, 457,
     136, 2, 0.5f, 0.0f, CMode::None},
};

INSTANTIATE_TEST_SUITE_P(Sm90, Epilogue, ::testing::ValuesIn(kEpilogueCases),
                         [](const ::testing::TestParamInfo<EpilogueCase> &info) {
                           return std::string(info.param.label);
                         });

/// Epilogue chunks that do not divide tile.n (the last one ends at the
/// tile's edge, overlapping the one before): a spec with its chunk_n
/// replaced, against the reference with beta != 0 (C separate and in place:
/// then the columns the last two chunks share must keep the first one's
/// values, C there being D already) and without.
struct OverlapChunkCase {
  const char *label;
  const char *base;    ///< spec whose "chunk_n: <from>" is replaced
  const char *from, *to;
  long long M, N, K;
  float alpha, beta;
  CMode c;
};
class OverlappingChunks : public ::testing::TestWithParam<OverlapChunkCase> {};

TEST_P(OverlappingChunks, MatchesReference) {
  REQUIRE_GPU();
  const OverlapChunkCase &c = GetParam();
  const Expected<Kernel> *kp = editedSpecKernel(c.base, c.from, c.to, c.label);
  ASSERT_NE(kp, nullptr) << c.base << " has no '" << c.from << "'";
  const Expected<Kernel> &k = *kp;
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, Layout::Row);
  a.alpha = c.alpha, a.beta = c.beta;
  expectMatchesReference(c.label, *k, a, c.c);
}

const OverlapChunkCase kOverlapChunkCases[] = {
    // 128x256 in chunks of 48 (the sixth at column 208, sharing 32 with the
    // fifth): 32-byte slabs, no odd n8 block.
    {"n256c48", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 1000, 1001, 520, 1.0f, 0.5f,
     CMode::Separate},
    {"n256c48InPlace", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 1000, 1001, 520, 1.0f,
     0.5f, CMode::InPlace},
    {"n256c48large", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 4096, 4096, 4096, 1.0f,
     0.0f, CMode::None},
    // 128x256 in chunks of 40 (the seventh at 216, sharing 24): one unswizzled
    // 80-byte slab per chunk, each with an odd n8 block, bf16, C in place.
    {"n256c40bf16", "06_fast_bf16.yaml", "chunk_n: 128", "chunk_n: 40", 129, 257, 72, 2.0f, -1.0f,
     CMode::InPlace},
    // 256x152 in chunks of 40 (the fourth at 112, sharing 8: the odd n8 block
    // of the third and the first of the fourth's pairs), C in place.
    {"n152c40", "26_wave_fit_n152_f16.yaml", "chunk_n: 32", "chunk_n: 40", 3000, 5000, 2048, 1.0f,
     1.0f, CMode::InPlace},
    {"n152c24", "26_wave_fit_n152_f16.yaml", "chunk_n: 32", "chunk_n: 24", 1000, 1001, 520, 1.0f,
     0.5f, CMode::InPlace},
};

INSTANTIATE_TEST_SUITE_P(Sm90, OverlappingChunks, ::testing::ValuesIn(kOverlapChunkCases),
                         [](const ::testing::TestParamInfo<OverlapChunkCase> &info) {
                           return std::string(info.param.label);
                         });

/// The launch checks a chain adds, on a real kernel.
TEST(EpilogueLaunchChecks, BiasRequiredAndRowMajorD) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("14_fast_bf16_bias_gelu.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = paddedArgsFor(k->info(), 256, 256, 64, Layout::Row);
  a.A = a.B = a.D = 256;
  Status s = k->check(a);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("GemmArgs::bias is null; give it a device vector of N bf16 values"),
            std::string::npos)
      << s.message();
  a.bias = 257;
  s = k->check(a);
  EXPECT_NE(s.message().find("is not 2-byte aligned"), std::string::npos) << s.message();
  a.bias = 512;
  EXPECT_TRUE(k->check(a).ok()) << k->check(a).message();
  GemmArgs col = paddedArgsFor(k->info(), 256, 256, 64, Layout::Col);
  col.A = col.B = col.D = 256;
  col.bias = 512;
  s = k->check(col);
  EXPECT_NE(s.message().find("D is column-major"), std::string::npos) << s.message();
}


/// What chooseKernel returns for a shape (and `gemmgen run/bench auto`
/// compiles), run on that shape: every family and split the sweep's shape
/// classes reach, both types, verified and bounds-checked like every spec.
struct ChosenCase {
  long long M, N, K;
  DType t;
};
const ChosenCase kChosenCases[] = {
    {1, 2112, 7168, DType::F16},    {16, 4096, 4096, DType::BF16}, {1, 4096, 14336, DType::F16},
    {512, 4096, 7168, DType::BF16}, {512, 512, 512, DType::F16},   {1024, 1024, 1024, DType::BF16},
    {128, 8192, 8192, DType::F16},  {4096, 2112, 7168, DType::F16}, {3, 1000, 3000, DType::BF16},
    {4096, 4096, 4096, DType::BF16}, {768, 3072, 3072, DType::F16}, {1536, 1536, 1536, DType::BF16},
    {2304, 4608, 4608, DType::F16},
    // The wave-filling widths (fit112, fit160) and the multicast default
    // on packed rows that straddle 32-byte sectors (large_c2, no copy).
    {256, 7168, 7168, DType::F16},  {3072, 768, 3072, DType::BF16}, {4096, 4096, 4104, DType::F16},
    {1000, 3000, 2056, DType::BF16}, {512, 7168, 2048, DType::BF16}, // fit224
    // Decode with D column-major (16x4096x4096 and 1x4096x14336 above too):
    // 4100 weights, not whole 16-byte chunks of the kernel's M, staged; with
    // K split (1x2112x7168 above too): 1601 weights in 4 slices.
    {7, 4100, 1000, DType::BF16}, {32, 4096, 4096, DType::F16}, {21, 6000, 520, DType::BF16},
    {5, 1601, 2048, DType::BF16}, {16, 4096, 9216, DType::F16},
    // 64-95 tiles at K > 8192, unsplit since bench/h200-decode-deep.sh: 71
    // tiles (4500 weights, D staged), K not whole k-blocks.
    {3, 4500, 9000, DType::F16},
    // 33-64 tokens (decode64): 64 tokens, and 37 of 3000 weights (a residue
    // in both).
    {64, 4096, 4096, DType::F16}, {37, 3000, 4100, DType::BF16},
    // 1-16 tokens of >= 96 tiles: two CTAs per SM (decode, unsplit); 7000
    // weights: a residue.
    {1, 6144, 4096, DType::F16}, {9, 7000, 1000, DType::BF16},
    // Short K on many tiles: ping-pong consumers (spec 20's kernel); residues
    // in M and N.
    {4096, 4096, 512, DType::F16}, {4100, 4000, 960, DType::BF16},
    // 152-column tiles on ping-pong consumers, their last epilogue chunk
    // overlapping the one before; a residue in M.
    {3000, 5000, 2048, DType::F16}, {2000, 5000, 2048, DType::BF16},
    // Many rows, at most 64 columns: the decode families' row-major twins
    // (two CTAs per SM, 16 stages, 64x32, 64x64, K in 4 slices); residues
    // in M, N and K.
    {8200, 13, 520, DType::F16}, {6080, 16, 1000, DType::BF16}, {4096, 1, 4100, DType::F16},
    {4100, 30, 1000, DType::BF16}, {3000, 50, 2000, DType::F16}, {1601, 8, 2048, DType::BF16}};

class ChosenKernel : public ::testing::TestWithParam<ChosenCase> {};

TEST_P(ChosenKernel, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const ChosenCase &c = GetParam();
  Expected<KernelChoice> choice = chooseKernel(c.M, c.N, c.K, c.t);
  ASSERT_TRUE(choice) << choice.status().message();
  auto it = gpu.kernels.find(choice->name);
  if (it == gpu.kernels.end())
    it = gpu.kernels.emplace(choice->name, gpu.rt->compileString(choice->specYaml, choice->name))
             .first;
  ASSERT_TRUE(it->second.ok()) << it->second.status().message();
  const Kernel &k = *it->second;
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  a.ldd = roundUp(a.N, 8);
  expectMatchesReference(choice->name + " (" + choice->reason + ")", k, a);
}

INSTANTIATE_TEST_SUITE_P(Sm90, ChosenKernel, ::testing::ValuesIn(kChosenCases),
                         [](const ::testing::TestParamInfo<ChosenCase> &info) {
                           const ChosenCase &c = info.param;
                           return std::to_string(c.M) + "x" + std::to_string(c.N) + "x" +
                                  std::to_string(c.K) + "_" + toString(c.t);
                         });

/// scheduler.simt_narrow: a launch whose D has at most 2 rows (or columns),
/// K-major operands, runs on the SIMT path — prepare's path says so — and
/// every element matches the reference with D's padding untouched: both
/// orientations, 1 and 2 rows, bf16, an f32 D, alpha/beta with C separate
/// and in place, a strided batch with gaps, a column-major D; the short
/// operand packed MN-major (column-major A and B with a column-major D, B
/// row-major), 1-4 columns; two rows a warp; rows not 16-byte aligned
/// (realigned); the spec's epilogue chain (bias along either axis of D,
/// whichever operand's rows the warps stream, activations, residual, clamp,
/// scale); launches it does not take (3 rows, the long operand MN-major,
/// packed tokens against rows not 16-byte aligned) run on the spec's kernel
/// and match too. Fresh inputs each.
struct NarrowCase {
  const char *spec; ///< a specs/sm90 file, compiled with simt_narrow: `narrow` added
  long long M, N, K;
  CMode c;
  long long batch;
  Layout d;
  long long offset; ///< elements every pointer is moved by
  bool taken;
  Layout a = Layout::Row, b = Layout::Col; ///< as the user stores A and B (packed)
  int narrow = 2;
  bool pair = false; ///< two rows a warp (narrowGrid) on a GPU of 132 SMs
  const char *chain = nullptr; ///< an epilogue.chain (YAML flow list) added to the spec
};
class NarrowPath : public ::testing::TestWithParam<NarrowCase> {};

TEST_P(NarrowPath, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const NarrowCase &c = GetParam();
  std::ifstream f(specsDir() / c.spec);
  std::stringstream text;
  text << f.rdbuf();
  std::string yaml = text.str();
  const std::string kind = "scheduler: { kind: persistent,";
  const std::size_t at = yaml.find(kind);
  ASSERT_NE(at, std::string::npos) << c.spec;
  yaml.insert(at + kind.size(), " simt_narrow: " + std::to_string(c.narrow) + ",");
  if (c.chain) {
    const std::string last = "overlap: true }";
    const std::size_t e = yaml.find(last);
    ASSERT_NE(e, std::string::npos) << c.spec << " has no '" << last << "' epilogue line";
    yaml.replace(e, last.size(), "overlap: true, chain: " + std::string(c.chain) + " }");
  }
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K, a.layoutD = c.d, a.batch = c.batch;
  a.layoutA = c.a, a.layoutB = c.b;
  // The kernel's layouts: those of the problem with D row-major.
  const GemmArgs rm = rowMajorProblem(a);
  CompileOptions options;
  options.spec.layoutA = rm.layoutA, options.spec.layoutB = rm.layoutB;
  const std::string name = std::string("narrow_") + std::string(c.spec).substr(0, 2) + "_" +
                           toString(rm.layoutA) + "_" + toString(rm.layoutB) + "_" +
                           std::to_string(c.narrow) +
                           (c.chain ? "_chain" + std::to_string(std::hash<std::string>{}(c.chain))
                                    : std::string());
  auto it = gpu.kernels.find(name);
  if (it == gpu.kernels.end())
    it = gpu.kernels.emplace(name, gpu.rt->compileString(yaml, name, options)).first;
  ASSERT_TRUE(it->second.ok()) << it->second.status().message();
  const Kernel &k = *it->second;
  a.lda = storedShape(a, 'A').length, a.ldb = storedShape(a, 'B').length;
  a.ldd = roundUp(storedShape(a, 'D').length, 8) + 8;
  if (c.batch > 1) {
    a.strideA = storedShape(a, 'A').lines * a.lda + 16;
    a.strideB = storedShape(a, 'B').lines * a.ldb + 8;
    a.strideD = storedShape(a, 'D').lines * a.ldd + 24;
  }
  if (c.c != CMode::None)
    a.alpha = 0.5f, a.beta = -1.5f;
  FreeAll freeAll{*gpu.rt, {}};
  ProblemOnGpu p{a, c.c};
  setUpProblem(k, p, c.offset, freeAll.bufs);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const std::size_t wsBytes = k.workspaceBytes(p.a);
  if (c.taken) {
    EXPECT_EQ(wsBytes, 0u) << "the SIMT path copies nothing";
  }
  if (wsBytes) {
    Expected<CUdeviceptr> ws = gpu.rt->alloc(wsBytes);
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    freeAll.bufs.push_back(*ws);
    p.a.workspace = *ws, p.a.workspaceBytes = wsBytes;
  }
  Expected<PreparedLaunch> prep = k.prepare(p.a);
  ASSERT_TRUE(prep.ok()) << prep.status().message();
  EXPECT_EQ(prep->path.rfind("simt_narrow", 0) == 0, c.taken) << prep->path;
  if (gpu.rt->device().smCount == 132) {
    EXPECT_EQ(prep->path.find("two a warp") != std::string::npos, c.pair) << prep->path;
  }
  ASSERT_TRUE(k.launch(*prep, gpu.stream).ok());
  waitOrExit(watchdogSeconds(a.M * a.batch, a.N, a.K));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  verifyProblem(name + " [" + prep->path + "]", k, p);
}

const NarrowCase kNarrowCases[] = {
    {"05_fast_f16.yaml", 1, 4096, 4096, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 2, 3000, 1000, CMode::Separate, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1000, 1, 520, CMode::InPlace, 1, Layout::Row, 0, true}, // rows of A
    {"05_fast_f16.yaml", 4000, 2, 2056, CMode::None, 1, Layout::Col, 0, true},   // D^T: 2 rows
    {"06_fast_bf16.yaml", 2, 5000, 2048, CMode::Separate, 3, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 777, 1, 136, CMode::None, 4, Layout::Row, 0, true},
    {"10_fast_f16_out_f32.yaml", 1, 4096, 1024, CMode::Separate, 1, Layout::Row, 0, true},
    {"25_decode_two_ctas_f16.yaml", 1, 6144, 4096, CMode::InPlace, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 2112, 7168, CMode::None, 1, Layout::Row, 0, true},
    // The short operand packed MN-major: column-major A, B and D (D^T = B^T·A^T,
    // the tokens its N-major B), or B row-major; one column is K-major.
    {"05_fast_f16.yaml", 2, 4096, 4096, CMode::None, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col},
    {"05_fast_f16.yaml", 1, 4096, 14336, CMode::Separate, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col},
    {"06_fast_bf16.yaml", 4096, 2, 2048, CMode::InPlace, 3, Layout::Row, 0, true, Layout::Row,
     Layout::Row},
    {"05_fast_f16.yaml", 3000, 3, 1024, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row, 4},
    {"06_fast_bf16.yaml", 3000, 2, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row}, // few rows of packed tokens: one row a warp (no shared-row _mn kernel)
    {"06_fast_bf16.yaml", 4, 5000, 512, CMode::Separate, 2, Layout::Col, 0, true, Layout::Col,
     Layout::Col, 4},
    {"10_fast_f16_out_f32.yaml", 2000, 4, 1024, CMode::None, 1, Layout::Row, 0, true,
     Layout::Row, Layout::Row, 4},
    // Two rows a warp (1.30-1.42 waves of one a warp), an odd count: the last
    // warp's second row is past D.
    {"05_fast_f16.yaml", 1, 11001, 1024, CMode::InPlace, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true},
    {"06_fast_bf16.yaml", 9001, 2, 520, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true},
    {"06_fast_bf16.yaml", 4501, 2, 520, CMode::InPlace, 2, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true}, // two batch entries' rows: 1.42 waves of one a warp
    {"05_fast_f16.yaml", 2, 9003, 264, CMode::None, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col, 2, true},
    // A row shared by 2 warps: 3-4 columns under half a wave; 2-4 columns
    // past one wave where half rows fill the last wave better (132 SMs).
    {"05_fast_f16.yaml", 3, 2000, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    {"06_fast_bf16.yaml", 4, 1500, 520, CMode::InPlace, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    {"05_fast_f16.yaml", 2, 14336, 264, CMode::None, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 4, 14336, 256, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    // Rows not 16-byte aligned, realigned: 8-byte rows (K = 4100, 1004), K
    // odd, every pointer one element off.
    {"05_fast_f16.yaml", 4096, 1, 4100, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 2, 1000, 1004, CMode::Separate, 3, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 4096, 4099, CMode::InPlace, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 3001, 2, 1001, CMode::None, 2, Layout::Col, 0, true},
    {"05_fast_f16.yaml", 1, 4096, 1024, CMode::None, 1, Layout::Row, 1, true},
    {"10_fast_f16_out_f32.yaml", 2, 777, 515, CMode::Separate, 1, Layout::Row, 0, true},
    // Realigned rows: a row shared by 2 or 4 warps, K from 1 (edges only) to
    // 20001, every shift of A's rows (K odd) against B's, two columns.
    {"05_fast_f16.yaml", 1, 3000, 1001, CMode::None, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 1000, 4097, CMode::Separate, 1, Layout::Row, 3, true},
    {"05_fast_f16.yaml", 2, 1000, 777, CMode::InPlace, 1, Layout::Row, 1, true},
    {"06_fast_bf16.yaml", 2, 2000, 4099, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 4096, 1, CMode::Separate, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 300, 7, CMode::None, 1, Layout::Row, 5, true},
    {"05_fast_f16.yaml", 2, 300, 15, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 300, 23, CMode::InPlace, 1, Layout::Row, 2, true},
    {"06_fast_bf16.yaml", 2, 500, 24, CMode::None, 1, Layout::Row, 1, true},
    {"05_fast_f16.yaml", 1, 300, 31, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 300, 33, CMode::Separate, 1, Layout::Row, 3, true},
    {"06_fast_bf16.yaml", 2, 200, 47, CMode::None, 2, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 600, 20001, CMode::None, 1, Layout::Row, 7, true},
    {"10_fast_f16_out_f32.yaml", 3001, 1, 1001, CMode::Separate, 1, Layout::Col, 1, true},
    // Not taken: the spec's kernel.
    {"05_fast_f16.yaml", 2, 4096, 1024, CMode::None, 1, Layout::Row, 0, false, Layout::Row,
     Layout::Row}, // B's rows are the long ones, and N-major
    {"05_fast_f16.yaml", 3, 4096, 1024, CMode::None, 1, Layout::Row, 0, false},
    {"06_fast_bf16.yaml", 4096, 2, 4100, CMode::None, 1, Layout::Row, 0, false, Layout::Row,
     Layout::Row}, // packed tokens need 16-byte rows of A
    // The spec's epilogue chain: D^T for rows of B (D's column bias its row
    // bias), rows of A (4 warps a row), a batch with a bias per entry (two
    // rows a warp) and C in place as the residual, 2 warps a row, an f32 D, 3
    // packed columns; rows not 16-byte aligned (realigned).
    {"06_fast_bf16.yaml", 1, 4096, 4096, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column, type: bf16}}, gelu_tanh]"},
    {"05_fast_f16.yaml", 1000, 2, 520, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row, type: f32}}, relu]"},
    {"05_fast_f16.yaml", 2, 3000, 1000, CMode::InPlace, 3, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true, "[{bias: {per: row}}, silu, residual]"},
    {"06_fast_bf16.yaml", 1, 2112, 2048, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column, type: bf16}}, relu]"},
    {"10_fast_f16_out_f32.yaml", 1, 4096, 1024, CMode::Separate, 1, Layout::Row, 0, true,
     Layout::Row, Layout::Col, 2, false, "[gelu_erf, {clamp: {min: -0.25, max: 2}}, scale]"},
    {"06_fast_bf16.yaml", 3000, 3, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row, 4, false, "[{bias: {per: column, type: f32}}, gelu_tanh, residual]"},
    {"05_fast_f16.yaml", 1, 4096, 1001, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column}}, relu]"},
    {"06_fast_bf16.yaml", 4096, 1, 4100, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row, type: bf16}}, gelu_tanh]"},
    {"05_fast_f16.yaml", 2, 1000, 777, CMode::InPlace, 1, Layout::Row, 1, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row}}, silu, residual]"},
    {"10_fast_f16_out_f32.yaml", 1, 3000, 33, CMode::Separate, 1, Layout::Row, 3, true,
     Layout::Row, Layout::Col, 2, false, "[{bias: {per: column, type: f32}}, gelu_erf]"},
};

INSTANTIATE_TEST_SUITE_P(Sm90, NarrowPath, ::testing::ValuesIn(kNarrowCases),
                         [](const ::testing::TestParamInfo<NarrowCase> &info) {
                           const NarrowCase &c = info.param;
                           return std::string(c.spec).substr(0, 2) + "_" + std::to_string(c.M) +
                                  "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + "_" +
                                  std::to_string(info.index);
                         });

/// Split-K's reduction is a programmatic dependent launch: scheduled while
/// the slices still run, it must read W only after the split kernel has
/// finished (griddepcontrol.wait). One workspace kept across rounds, so a
/// reduction that read W early would sum the previous round's slices (other
/// inputs: a wrong D); each round on fresh inputs, one launch verified, then
/// 20 back-to-back launches of the same problem verified again.
TEST(SplitK, DependentReductionReadsFinishedSlices) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("12_splitk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_EQ(k->info().splitK, 8u);
  struct Shape {
    long long M, N, K;
    CMode c;
  } shapes[] = {{16, 4096, 4096, CMode::None}, {1, 2112, 7168, CMode::None},
                {100, 1000, 2048, CMode::Separate}};
  for (const Shape &s : shapes) {
    FreeAll freeAll{*gpu.rt, {}};
    GemmArgs shape;
    shape.M = s.M, shape.N = s.N, shape.K = s.K;
    shape.lda = s.K, shape.ldb = s.K, shape.ldd = (s.N + 7) / 8 * 8;
    if (s.c != CMode::None)
      shape.alpha = 0.5f, shape.beta = 2.0f;
    const std::size_t wsBytes = k->workspaceBytes(shape);
    Expected<CUdeviceptr> ws = gpu.rt->alloc(wsBytes);
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    freeAll.bufs.push_back(*ws);
    for (int round = 0; round < 3; ++round) {
      ProblemOnGpu p{shape, s.c};
      setUpProblem(*k, p, 0, freeAll.bufs);
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      p.a.workspace = *ws, p.a.workspaceBytes = wsBytes;
      Expected<PreparedLaunch> prep = k->prepare(p.a);
      ASSERT_TRUE(prep.ok()) << prep.status().message();
      const std::string name = "12_splitk_f16.yaml " + std::to_string(s.M) + "x" +
                               std::to_string(s.N) + "x" + std::to_string(s.K) + " round " +
                               std::to_string(round);
      ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
      waitOrExit(watchdogSeconds(s.M * 20, s.N, s.K));
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      verifyProblem(name + ", one launch", *k, p);
      for (int i = 0; i < 20; ++i) // C separate: every launch gives the same D
        ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
      waitOrExit(watchdogSeconds(s.M * 20 * 20, s.N, s.K));
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      verifyProblem(name + ", 20 launches", *k, p);
    }
  }
}

/// Stream-K (spec 18) launched again and again: every launch must start from
/// zeroed flags, or a finishing CTA would take a previous launch's flag for
/// this one's partial sum (a stale or half-written sum: a wrong D, or a hang
/// where a flag is never raised). One prepared launch repeated on a fixed
/// workspace, then launches that allocate theirs on the stream (whatever
/// the memory held), each time on fresh inputs and verified.
TEST(StreamK, RepeatedLaunchesStayRight) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("18_streamk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().streamK);
  // 72 tiles of 48 k-blocks over the resident CTAs: most tiles split.
  for (int round = 0; round < 3; ++round) {
    FreeAll freeAll{*gpu.rt, {}};
    GemmArgs a;
    a.M = 768, a.N = 3072, a.K = 3072;
    a.lda = a.K, a.ldb = a.K, a.ldd = a.N;
    ProblemOnGpu p{a, CMode::None};
    setUpProblem(*k, p, 0, freeAll.bufs);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    if (round == 0) {
      Expected<CUdeviceptr> ws = gpu.rt->alloc(k->workspaceBytes(p.a));
      ASSERT_TRUE(ws.ok()) << ws.status().message();
      freeAll.bufs.push_back(*ws);
      p.a.workspace = *ws, p.a.workspaceBytes = k->workspaceBytes(p.a);
      Expected<PreparedLaunch> prep = k->prepare(p.a);
      ASSERT_TRUE(prep.ok()) << prep.status().message();
      for (int i = 0; i < 20; ++i)
        ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
    } else {
      for (int i = 0; i < 5; ++i)
        ASSERT_TRUE(k->launch(p.a, gpu.stream).ok());
    }
    waitOrExit(watchdogSeconds(a.M * 20, a.N, a.K));
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    verifyProblem("18_streamk_f16.yaml repeated (round " + std::to_string(round) + ")", *k, p);
  }
}

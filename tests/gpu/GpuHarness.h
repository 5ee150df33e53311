//===- GpuHarness.h - What the GPU GEMM tests share -------------*- C++ -*-===//
//
// The harness of GpuGemmTest.cpp, GpuLayoutsTest.cpp, GpuEpilogueTest.cpp and
// GpuChosenTest.cpp: where the specs are (sourceDir, specsDir, the kernels
// under test), one Runtime, verifier, stream and kernel cache for the whole
// binary (Gpu, REQUIRE_GPU), and one problem on the GPU from allocation to
// check (ProblemOnGpu: setUpProblem fills the inputs, poisons D and computes
// the reference; verifyProblem compares every element and checks D's padding
// and gaps untouched; expectMatchesReference does both around one launch
// under the watchdog).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TESTS_GPU_GPUHARNESS_H
#define GEMMGEN_TESTS_GPU_GPUHARNESS_H

#include "gemmgen/KernelABI.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gemmgen::gputest {

namespace fs = std::filesystem;

inline fs::path sourceDir() {
  if (const char *d = getenv("GEMMGEN_SOURCE_DIR"); d && *d)
    return d;
  if (fs::exists(fs::path(GEMMGEN_SOURCE_DIR) / "specs"))
    return GEMMGEN_SOURCE_DIR;
  return fs::current_path();
}

inline fs::path specsDir() {
  if (const char *d = getenv("GEMMGEN_SPECS_DIR"); d && *d)
    return d;
  return sourceDir() / "specs" / "sm90";
}

/// A's and B's layouts for a problem whose D is stored a.layoutD: the
/// kernel's own where it stores D that way, else those whose transposed
/// problem D^T = B^T·A^T has them (kernelProblem swaps and flips A's and B's
/// layouts; doing it twice gives them back).
inline void setUserLayouts(GemmArgs &a, const KernelInfo &ki) {
  a.layoutA = ki.layoutA, a.layoutB = ki.layoutB;
  if (a.layoutD != ki.layoutD) {
    const GemmArgs t = kernelProblem(a, ki.layoutD);
    a.layoutA = t.layoutA, a.layoutB = t.layoutB;
  }
}

inline const char *kProto = "proto:ws_gemm_sm90";

inline std::vector<std::string> kernelsUnderTest() {
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

/// The generated kernels only: the hand-written prototype predates K = 0 (its
/// first wgmma overwrites the accumulators, so with no k-block it stores garbage).
inline std::vector<std::string> generatedKernelsUnderTest() {
  std::vector<std::string> out = kernelsUnderTest();
  out.erase(std::remove(out.begin(), out.end(), std::string(kProto)), out.end());
  return out;
}

struct Shape {
  long long M, N, K;
};

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

/// The spec NAME's kernel, compiled here, as `const Expected<Kernel> &K`: the
/// test fails where it does not compile and is skipped where the spec targets
/// another GPU than the sm_90a one the tests run on (the sm_100a specs).
#define SM90_KERNEL_OR_SKIP(K, NAME)                                                               \
  ASSERT_NE(NAME, "(no specs found)") << "no specs in " << specsDir();                             \
  const Expected<Kernel> &K = Gpu::get().kernel(NAME);                                             \
  ASSERT_TRUE(K.ok()) << K.status().message();                                                     \
  if (K->info().target != "sm_90a")                                                                \
  GTEST_SKIP() << NAME << " targets " << K->info().target

inline long long roundUp(long long x, long long m) { return (x + m - 1) / m * m; }

/// Elements one operand's allocation spans: `batch` entries `stride` apart
/// (0: one matrix for all), each `lines` lines `ld` apart.
inline long long operandExtent(const StoredShape &s, long long batch, long long stride) {
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

inline Status readBack(const Runtime &rt, CUdeviceptr p, long long elements, DType t, HostD &out) {
  out.type = t;
  out.bytes.assign(size_t(elements) * sizeOf(t), 0);
  return rt.copyToHost(out.bytes.data(), p, out.bytes.size());
}

/// How a test passes C (beta != 0): a separate random matrix, or D itself
/// (D's entries hold C before the launch, its padding and gaps poison).
enum class CMode { None, Separate, InPlace };

/// `a` as a grouped kernel takes it: every batch entry a problem of its own.
inline GemmArgs asProblems(const GemmArgs &a, DType t, DType out) {
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
inline Status launchAsGiven(const Kernel &k, const GemmArgs &a, CUstream stream) {
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
inline void setUpProblem(const Kernel &k, ProblemOnGpu &p, long long offset,
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
inline void verifyProblem(const std::string &name, const Kernel &k, const ProblemOnGpu &p) {
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
inline void waitOrExit(double seconds) {
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
inline void expectMatchesReference(const std::string &name, const Kernel &k, GemmArgs a,
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

/// An M×N×K problem with D in `layoutD` that kernel `ki` computes, every
/// line padded to 16 bytes: A and B in the layouts setUserLayouts gives.
inline GemmArgs paddedArgsFor(const KernelInfo &ki, long long M, long long N, long long K,
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

} // namespace gemmgen::gputest

#endif // GEMMGEN_TESTS_GPU_GPUHARNESS_H

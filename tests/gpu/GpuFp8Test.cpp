//===- GpuFp8Test.cpp - fp8 GEMMs with per-tensor scales on the GPU --------===//
//
// specs/sm90/13_fast_e4m3.yaml (and a mixed e5m2 x e4m3 -> f32 variant of it, and 8-bit
// outputs with their output scale and amax), the blockwise specs, and chooseFp8Kernel's choices
// on odd and large shapes: fresh random fp8 inputs, D poisoned, scales != 1
// (a kernel that ignored them would be off by 50%), every element compared
// with the fp32-accumulate reference that applies the scales, and D's line
// padding checked untouched. Cases with unaligned pointers and leading
// dimensions take the staging path. Skipped without a GPU (ctest label gpu).
//
// The Runtime, verifier and stream are the harness's (GpuHarness.h: Gpu,
// REQUIRE_GPU, FreeAll); the fp8 kernels have their own cache here (fp8Kernel).
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include "gemmgen/gemmgen.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

using namespace gemmgen;
using namespace gemmgen::gputest;
using gemmgen::testing::fileText;
using gemmgen::testing::withEdit;

namespace {

const char *kSpec13 = "13_fast_e4m3.yaml", *kSpec15 = "15_blockwise_e4m3.yaml";
/// Spec 15 with mma_in_flight 0: one partial-sum buffer; and its producer one
/// warp (roles.producer.warps 1: one elected thread issues every copy).
const char *kSpec15One = "15_blockwise_e4m3.yaml:one_partial";
/// Spec 19 (spec 15 with tile.n 192: every other tile starts halfway into
/// B's scale blocks) and spec 15 with tile.n 64 (a tile inside one block, as
/// bench/variants/blockwise/n64.yaml).
const char *kSpec19 = "19_blockwise_e4m3_n192.yaml", *kSpec15N64 = "15_blockwise_e4m3.yaml:n64";
/// Spec 13 with split_k 4 (per-tensor scales in the slices' alpha), and
/// spec 17 (blockwise, split_k 4: B's scales copied per slice).
const char *kSpec13Split = "13_fast_e4m3.yaml:split_k_4", *kSpec17 = "17_splitk_blockwise_e4m3.yaml";

/// The fp8 cost model's kernel for the case's shape (chooseFp8Kernel), per-tensor or blockwise;
/// the case's types say only D's type (bf16, or f32 / e4m3 with "d: f32" / "d: e4m3").
const char *kAutoTensor = "auto:per_tensor", *kAutoBlock = "auto:blockwise";
bool isChosen(const char *spec) { return spec == kAutoTensor || spec == kAutoBlock; }

/// Spec 13 (or 15, blockwise) with other types (its tile and roles kept), or as written.
std::string specText(const std::string &types, const char *spec = kSpec13) {
  const bool one = spec == kSpec15One, split = spec == kSpec13Split, n64 = spec == kSpec15N64;
  if (one || n64)
    spec = kSpec15;
  if (split)
    spec = kSpec13;
  std::string s = fileText(specsDir() / spec);
  auto swap = [&s](const std::string &from, const std::string &to) { s = withEdit(s, from, to); };
  if (one) { // spec 15 before the pairs of k-blocks: each promoted after its own wgmmas
    swap("depth: 6, mma_in_flight: 1", "depth: 6, mma_in_flight: 0");
    swap("producer: { warps: 4", "producer: { warps: 1");
  }
  if (n64) { // the tile and the stages that fit it (spec 15's staging chunk is 64 already)
    swap("tile: { m: 128, n: 128", "tile: { m: 128, n: 64");
    swap("depth: 6", "depth: 8");
  }
  if (split)
    swap("group: 16 }", "group: 16, split_k: 4 }");
  if (types.empty())
    return s;
  const std::string from = spec == kSpec15 || spec == kSpec17 || spec == kSpec19
                               ? "types:  { a: e4m3, b: e4m3, d: bf16, accumulate: f32, scaling: "
                                 "blockwise }"
                               : "types:  { a: e4m3, b: e4m3, d: bf16, accumulate: f32 }";
  swap(from, "types: " + types);
  // D's type keeps the 16-bit chunk's staging bytes: an f32 D halves chunk_n,
  // an 8-bit D takes at least 128 columns (its TMA store slabs are 128 wide).
  const bool f32 = types.find("d: f32") != std::string::npos;
  const bool eight = types.find("d: e4m3") != std::string::npos ||
                     types.find("d: e5m2") != std::string::npos;
  if (size_t c = s.find("chunk_n: "); c != std::string::npos && (f32 || eight)) {
    c += 9;
    size_t end = s.find_first_not_of("0123456789", c);
    const int chunk = std::stoi(s.substr(c, end - c));
    s.replace(c, end - c, std::to_string(f32 ? chunk / 2 : std::max(128, chunk)));
  }
  return s;
}

/// The case's kernel, compiled once for the binary on the harness's Runtime: spec 13 (or
/// another fp8 spec) with the case's types, or chooseFp8Kernel's for the case's shape.
const Expected<Kernel> &fp8Kernel(const std::string &types, const char *spec = kSpec13,
                                  long long M = 0, long long N = 0, long long K = 0) {
  static std::map<std::string, Expected<Kernel>> kernels;
  std::optional<Runtime> &rt = Gpu::get().rt;
  if (isChosen(spec)) {
    Fp8Problem p;
    p.blockwise = spec == kAutoBlock;
    p.out = types.find("d: f32") != std::string::npos    ? DType::F32
            : types.find("d: e4m3") != std::string::npos ? DType::E4M3
                                                         : DType::BF16;
    Expected<KernelChoice> choice = chooseFp8Kernel(M, N, K, p);
    const std::string key = choice ? choice->name : std::string(spec) + types;
    auto it = kernels.find(key);
    if (it == kernels.end())
      it = kernels
               .emplace(key, choice ? rt->compileString(choice->specYaml, choice->name)
                                    : Expected<Kernel>(choice.status()))
               .first;
    printf("[ chosen ] %s\n", choice ? choice->reason.c_str() : choice.status().message().c_str());
    return it->second;
  }
  const std::string key = std::string(spec) + types;
  auto it = kernels.find(key);
  if (it == kernels.end())
    it = kernels.emplace(key, rt->compileString(specText(types, spec), "fp8_spec.yaml")).first;
  return it->second;
}

struct Fp8Case {
  const char *types; ///< "" = spec 13 as written (e4m3 x e4m3 -> bf16)
  long long M, N, K;
  float scaleA, scaleB, alpha, beta;
  long long ldPad;   ///< added to every leading dimension (odd: rows TMA cannot address)
  long long offset;  ///< bytes A, B, D start into their allocations (not 16: staged)
  /// Spec 13 (per-tensor scales) or 15 (blockwise: random N(0,1) scale
  /// arrays, scaleA/scaleB unused).
  const char *spec = kSpec13;
  /// An fp8 D's output scale (GemmArgs::scaleD); 64 saturates the larger values.
  float scaleD = 0.125f;
  /// Blockwise: bytes (4, 8 or 12) the scale arrays start into allocations
  /// of exactly their size: each array's first and last 16-byte chunks are
  /// partial, which the kernel's producer copies by hand (stage_scales).
  long long scaleOffset = 0;
  /// A stored column-major (K x M), B row-major (K x N): the runtime's
  /// transposing copy hands the K-major kernel K-major copies.
  bool aCol = false, bRow = false;
};

std::string caseName(const ::testing::TestParamInfo<Fp8Case> &info) {
  const Fp8Case &c = info.param;
  const std::string types = c.types;
  std::string t = types.find("d: e4m3") != std::string::npos   ? "out_e4m3"
                  : types.find("d: e5m2") != std::string::npos ? "out_e5m2"
                  : types.find("e5m2") != std::string::npos    ? "mixed_f32"
                  : types.find("f32") != std::string::npos     ? "f32"
                  : c.types[0]                                 ? "other"
                                                               : "e4m3";
  if (c.spec == kSpec15)
    t = "blockwise_" + t;
  if (c.spec == kSpec15One)
    t = "blockwise1_" + t;
  if (c.spec == kSpec19 || c.spec == kSpec15N64)
    t = std::string(c.spec == kSpec19 ? "blockwise_n192_" : "blockwise_n64_") + t;
  if (c.spec == kSpec13Split)
    t = "split_" + t;
  if (c.spec == kSpec17)
    t = "blockwise_split_" + t;
  if (isChosen(c.spec))
    t = std::string(c.spec == kAutoBlock ? "chosen_blockwise_" : "chosen_") + t;
  return t + "_" + std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) +
         (c.beta != 0.f ? "_beta" : "") + (c.ldPad || c.offset ? "_staged" : "") +
         (c.scaleD != 0.125f ? "_saturating" : "") +
         (c.scaleOffset ? "_scales_at_" + std::to_string(c.scaleOffset) : "") +
         (c.aCol ? "_a_col" : "") + (c.bRow ? "_b_row" : "");
}

class Fp8Gemm : public ::testing::TestWithParam<Fp8Case> {};

TEST_P(Fp8Gemm, MatchesScaledReferenceAndWritesEveryElement) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Fp8Case &c = GetParam();
  const Expected<Kernel> &k = fp8Kernel(c.types, c.spec, c.M, c.N, c.K);
  ASSERT_TRUE(k.ok()) << k.status().message();
  const KernelInfo &ki = k->info();
  ASSERT_TRUE(ki.perTensorScales);
  ASSERT_EQ(ki.blockwiseScales, c.spec == kSpec15 || c.spec == kSpec15One || c.spec == kSpec17 ||
                                    c.spec == kSpec19 || c.spec == kSpec15N64 ||
                                    c.spec == kAutoBlock);
  if (c.spec == kSpec19 || c.spec == kSpec15N64) {
    ASSERT_EQ(ki.tileN, c.spec == kSpec19 ? 192u : 64u);
  }
  if (!isChosen(c.spec)) {
    ASSERT_EQ(ki.splitK > 1, c.spec == kSpec13Split || c.spec == kSpec17);
  }
  ASSERT_TRUE(isFp8(ki.dtype) && isFp8(ki.dtypeB));
  const Runtime &rt = *gpu.rt;
  const DType out = ki.outType;
  const long long outEs = (long long)sizeOf(out);

  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  a.layoutA = c.aCol ? Layout::Col : Layout::Row;
  a.layoutB = c.bRow ? Layout::Row : Layout::Col;
  // Stored lines x length: A M x K (K x M column-major), B N x K (K x N row-major).
  const long long linesA = c.aCol ? c.K : c.M, lengthA = c.aCol ? c.M : c.K;
  const long long linesB = c.bRow ? c.K : c.N, lengthB = c.bRow ? c.N : c.K;
  a.lda = lengthA + c.ldPad, a.ldb = lengthB + c.ldPad, a.ldd = (c.N + 7) / 8 * 8 + c.ldPad;
  a.alpha = c.alpha, a.beta = c.beta;
  FreeAll freeAll{rt, {}};
  std::vector<CUdeviceptr> &bufs = freeAll.bufs;
  auto alloc = [&](long long bytes) {
    Expected<CUdeviceptr> p = rt.alloc((size_t)bytes + 256);
    EXPECT_TRUE(p.ok()) << p.status().message();
    bufs.push_back(p.ok() ? *p : 0);
    return bufs.back();
  };
  const long long dBytes = a.M * a.ldd * outEs;
  a.A = alloc(linesA * a.lda) + c.offset;
  a.B = alloc(linesB * a.ldb) + c.offset;
  a.D = alloc(dBytes + c.offset) + c.offset * outEs; // whole elements past the start
  CUdeviceptr cPristine = 0;
  if (c.beta != 0.f) {
    a.C = alloc(dBytes), a.ldc = a.ldd;
    cPristine = alloc(dBytes);
  }
  const CUdeviceptr ref = alloc(a.M * a.N * 4);
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Per tensor: the case's scalars; blockwise: every block its own N(0,1)
  // scale (the case's scaleA/scaleB are NaN there).
  if (c.scaleOffset) {
    ASSERT_TRUE(ki.blockwiseScales);
    const auto [nA, nB] = blockwiseScaleCounts(a);
    const std::pair<CUdeviceptr *, long long> arrays[] = {{&a.scaleA, nA}, {&a.scaleB, nB}};
    for (int i = 0; i < 2; ++i) {
      Expected<CUdeviceptr> p = rt.alloc((size_t)(arrays[i].second * 4 + c.scaleOffset));
      ASSERT_TRUE(p.ok()) << p.status().message();
      bufs.push_back(*p);
      *arrays[i].first = *p + c.scaleOffset;
      ASSERT_TRUE(gpu.ver->fillNormal(*arrays[i].first, (size_t)arrays[i].second, DType::F32,
                                      seed * 2 + 8 + i, gpu.stream).ok());
    }
  }
  GemmVerifier::KernelInputValues values;
  values.scaleD = c.scaleD;
  values.scaleA = ki.blockwiseScales ? NAN : c.scaleA;
  values.scaleB = ki.blockwiseScales ? NAN : c.scaleB;
  Expected<std::vector<CUdeviceptr>> inputs =
      gpu.ver->attachKernelInputs(ki, a, values, seed, gpu.stream);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  bufs.insert(bufs.end(), inputs->begin(), inputs->end());
  ASSERT_NE(a.scaleA, 0u);
  ASSERT_NE(a.scaleB, 0u);
  ASSERT_TRUE(
      gpu.ver->fillNormal2D(a.A, linesA, lengthA, a.lda, ki.dtype, seed * 2 + 1, gpu.stream).ok());
  ASSERT_TRUE(
      gpu.ver->fillNormal2D(a.B, linesB, lengthB, a.ldb, ki.dtypeB, seed * 2 + 2, gpu.stream).ok());
  ASSERT_TRUE(gpu.ver->poison(a.D, (size_t)(a.M * a.ldd), out, gpu.stream).ok());
  if (c.beta != 0.f) {
    for (CUdeviceptr p : {a.C, cPristine})
      ASSERT_TRUE(gpu.ver->fillNormal2D(p, a.M, a.N, a.ldc, out, seed * 2 + 3, gpu.stream).ok());
  }
  GemmArgs r = a;
  r.C = cPristine;
  ASSERT_TRUE(gpu.ver->reference(r, ki, ref, gpu.stream).ok());

  Expected<PreparedLaunch> prepared = k->prepare([&] {
    GemmArgs probe = a; // the path it takes, for the log (prepare only encodes addresses)
    probe.workspaceBytes = k->workspaceBytes(probe);
    probe.workspace = probe.workspaceBytes ? 0x100000 : 0;
    return probe;
  }());
  const std::string path = prepared ? prepared->path : prepared.status().message();
  Status s = k->launch(a, gpu.stream);
  ASSERT_TRUE(s.ok()) << s.message();
  waitOrExit(watchdogSeconds(a.M, a.N, a.K));
  ASSERT_FALSE(HasFatalFailure());

  Expected<GemmVerifier::Comparison> cmp = gpu.ver->compare(a, ki.dtype, ref, false, gpu.stream, out);
  ASSERT_TRUE(cmp.ok()) << cmp.status().message();
  EXPECT_EQ(cmp->nonFinite, 0) << "elements left unwritten (poison) or NaN";
  EXPECT_LE(cmp->relFrobenius, GemmVerifier::kTolerance);
  // An fp8 D's amax: max |v| before the output scale, over all of D (the
  // sums differ from the reference's by the fp8 accumulation, ~1e-3).
  float amax = NAN;
  if (ki.fp8Output) {
    ASSERT_NE(a.amaxD, 0u);
    ASSERT_TRUE(rt.copyToHost(&amax, a.amaxD, sizeof amax).ok());
    EXPECT_NEAR(amax, cmp->refAbsMax, GemmVerifier::kTolerance * cmp->refAbsMax);
  }
  // D's line padding (columns N .. ldd-1) still poison, byte for byte
  // (GemmVerifier::poison: 0x7fff per 16-bit half, 0x7f per fp8 byte).
  std::vector<uint8_t> host((size_t)dBytes);
  ASSERT_TRUE(rt.copyToHost(host.data(), a.D, host.size()).ok());
  long long touched = 0;
  for (long long m = 0; m < a.M; ++m)
    for (long long n = a.N; n < a.ldd; ++n)
      for (long long b = 0; b < outEs; ++b) {
        const long long at = (m * a.ldd + n) * outEs + b;
        touched += host[size_t(at)] != GemmVerifier::poisonByte(out, size_t(at));
      }
  EXPECT_EQ(touched, 0) << "D's padding written";
  printf("[ result ] fp8 %s x %s > %s %lldx%lldx%lld (%s, alpha %g, beta %g, %s): rel "
         "err %.3e, max |err| %.3e, unwritten %lld%s\n",
         toString(ki.dtype), toString(ki.dtypeB), toString(out), a.M, a.N, a.K,
         ki.blockwiseScales ? "blockwise scales"
                            : ("sA " + std::to_string(c.scaleA) + ", sB " + std::to_string(c.scaleB))
                                  .c_str(),
         c.alpha, c.beta, path.c_str(), cmp->relFrobenius, cmp->maxAbsError, cmp->nonFinite,
         ki.fp8Output ? (", scale_d " + std::to_string(c.scaleD) + ", amax " +
                         std::to_string(amax) + " (ref " + std::to_string(cmp->refAbsMax) + ")")
                            .c_str()
                      : "");
}

const char *kMixed = "{ a: e5m2, b: e4m3, d: f32, accumulate: f32 }";
const char *kF32 = "{ a: e4m3, b: e4m3, d: f32, accumulate: f32 }";
const char *kF32B = "{ a: e4m3, b: e4m3, d: f32, accumulate: f32, scaling: blockwise }";
// 8-bit outputs: D = fp8(scale_d * v) and the amax of v.
const char *kE4m3Out = "{ a: e4m3, b: e4m3, d: e4m3, accumulate: f32 }";
const char *kE5m2Out = "{ a: e4m3, b: e5m2, d: e5m2, accumulate: f32 }";
const char *kE4m3OutB = "{ a: e4m3, b: e4m3, d: e4m3, accumulate: f32, scaling: blockwise }";
const Fp8Case kCases[] = {
    {"", 129, 257, 160, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {"", 1000, 1001, 528, 0.25f, 6.0f, 1.0f, 0.0f, 0, 0},
    {"", 4096, 4096, 4096, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {"", 1000, 1001, 528, 2.0f, 0.75f, 0.5f, 1.5f, 0, 0}, // D = 0.75·A·B + 1.5·C
    {"", 1000, 1001, 520, 0.5f, 3.0f, 1.0f, 0.0f, 3, 1},  // unaligned: A, B, D staged
    {"", 129, 257, 100, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},    // K rows of 100 bytes: staged
    {kMixed, 129, 257, 160, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {kMixed, 4096, 4096, 4096, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    // f32 output: the error of the tensor cores' fp8 accumulation over all of K (per-tensor,
    // unpromoted) against the same inputs promoted every 128 (blockwise, below).
    {kF32, 4096, 4096, 4096, 1.0f, 1.0f, 1.0f, 0.0f, 0, 0},
    // spec 15: k-blocks in pairs (two partial sums)
    {"", 129, 257, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},   // K tail: 128 + 32, one pair
    {"", 129, 257, 100, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},   // one k-block: a pair's first alone
    {"", 1000, 1001, 528, 0, 0, 0.5f, 1.5f, 0, 0, kSpec15}, // beta, partial blocks, 5 k-blocks
    {"", 1000, 1001, 520, 0, 0, 1.0f, 0.0f, 3, 1, kSpec15}, // unaligned: staged
    {"", 128, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15}, // DeepSeek-V3 shapes
    {"", 4096, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},
    {kF32B, 4096, 4096, 4096, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},
    // one partial sum, each k-block promoted after its own wgmmas
    {"", 129, 257, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15One},
    {"", 1000, 1001, 648, 0, 0, 0.5f, 1.5f, 0, 0, kSpec15One}, // 6 k-blocks
    {"", 1000, 1001, 520, 0, 0, 1.0f, 0.0f, 3, 1, kSpec15One}, // staged
    {"", 4096, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15One},
    {"", 129, 257, 100, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15One}, // one k-block only
    {kF32B, 4096, 4096, 4096, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15One},
    // spec 19, tile.n 192: odd tiles start 64 columns into a scale block; N = 1001 ends
    // inside a tile and a block; 7168 = 37 1/3 tiles
    {"", 1000, 1001, 528, 0, 0, 0.5f, 1.5f, 0, 0, kSpec19},
    {"", 129, 449, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec19},
    {"", 1000, 1001, 520, 0, 0, 1.0f, 0.0f, 3, 1, kSpec19}, // staged
    {"", 4096, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kSpec19},
    {"", 128, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kSpec19},
    {"", 1000, 1001, 528, 0, 0, 0.5f, 1.5f, 0, 0, kSpec15N64},
    {"", 128, 4096, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15N64},
    {kE4m3Out, 129, 257, 160, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {kE4m3Out, 4096, 4096, 4096, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {kE4m3Out, 1000, 1001, 528, 2.0f, 0.75f, 0.5f, 1.5f, 0, 0}, // C in e4m3 too
    {kE4m3Out, 1000, 1001, 520, 0.5f, 3.0f, 1.0f, 0.0f, 3, 1},  // staged: D at odd bytes
    {kE4m3Out, 129, 257, 160, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13, 64.0f}, // saturates at 448
    {kE5m2Out, 1000, 1001, 528, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0},
    {kE4m3OutB, 4096, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},
    {kE4m3OutB, 129, 257, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15},
    // Split-K: K = 7168 in 4 slices of 14 k-blocks (decode-like M), 1024 in 4 of 2 with beta,
    // an unaligned problem (one slice: K is not whole k-blocks) and f32 partials summed to f32.
    {"", 128, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13Split},
    {"", 129, 257, 1024, 2.0f, 0.75f, 0.5f, 1.5f, 0, 0, kSpec13Split},
    {"", 1000, 1001, 520, 0.5f, 3.0f, 1.0f, 0.0f, 3, 1, kSpec13Split},
    {kF32, 128, 4096, 7168, 1.0f, 1.0f, 1.0f, 0.0f, 0, 0, kSpec13Split},
    {"", 128, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kSpec17},
    {"", 129, 257, 1024, 0, 0, 0.5f, 1.5f, 0, 0, kSpec17},  // partial 128-blocks of M and N
    {"", 128, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kSpec17}, // 16 k-blocks: 4 of 4
    // scale arrays that start 4-12 bytes into allocations of exactly their size: their first
    // and last 16-byte chunks partial (M = 129: 258 A scales), copied by hand, nothing read
    // outside them (compute-sanitizer's memcheck: bench/h200-memcheck.sh)
    {"", 129, 257, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15, 0.125f, 4},
    {"", 1000, 1001, 528, 0, 0, 0.5f, 1.5f, 0, 0, kSpec15, 0.125f, 12},
    {"", 129, 257, 100, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15One, 0.125f, 8},
    {"", 129, 449, 160, 0, 0, 1.0f, 0.0f, 0, 0, kSpec19, 0.125f, 4},
    {"", 3, 257, 384, 0, 0, 1.0f, 0.0f, 0, 0, kSpec15, 0.125f, 4}, // arrays of 9 and 9 floats
    {"", 129, 257, 1024, 0, 0, 0.5f, 1.5f, 0, 0, kSpec17, 0.125f, 8},
    {"", 1000, 1001, 520, 0, 0, 1.0f, 0.0f, 3, 1, kSpec17}, // one slice, staged
    {kF32B, 128, 4096, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kSpec17},
    // chooseFp8Kernel's kernels (`run auto --dtype e4m3`, gemmgen.scaled_matmul) on the shapes
    // where it leaves the defaults: split-K at M = 128, the 128x192 and 128x128 tiles, with
    // beta and staged operands where the family is the same.
    {"", 128, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    {"", 128, 7168, 18432, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    {"", 4096, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    {"", 1000, 1001, 528, 2.0f, 0.75f, 0.5f, 1.5f, 0, 0, kAutoTensor},
    {kF32, 512, 4096, 7168, 1.0f, 1.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    {"", 128, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 128, 4096, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 4096, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 1000, 1001, 520, 0, 0, 0.5f, 1.5f, 3, 1, kAutoBlock},
    {kF32B, 256, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 64, 7168, 18432, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    // With the 5% margin: 128x7168x2048 the 64-row family, 2048x7168x2048 spec 19's 128x192.
    {"", 128, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 2048, 7168, 2048, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    // decode: the 64-row tiles, with and without a split
    {"", 1, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    {"", 16, 4096, 7168, 0.5f, 3.0f, 0.5f, 1.5f, 0, 0, kAutoTensor},
    {"", 1, 4096, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 4, 14336, 4096, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {"", 7, 1001, 520, 0, 0, 1.0f, 0.0f, 3, 1, kAutoBlock}, // staged
    // an 8-bit D: whole 128-column tiles, no split (bf16 would take 128x192 / a split here)
    {kE4m3OutB, 4096, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock},
    {kE4m3Out, 128, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor},
    // A column-major and/or B row-major: copied K-major (transposed) before the kernel, with
    // beta, odd leading dimensions and offsets, blockwise, split-K, an fp8 D and `auto`.
    {"", 129, 257, 160, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13, 0.125f, 0, true, false},
    {"", 1000, 1001, 528, 2.0f, 0.75f, 0.5f, 1.5f, 0, 0, kSpec13, 0.125f, 0, true, true},
    {"", 4096, 4096, 4096, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13, 0.125f, 0, false, true},
    {"", 1000, 1001, 520, 0.5f, 3.0f, 1.0f, 0.0f, 3, 1, kSpec13, 0.125f, 0, true, true},
    {"", 1000, 1001, 528, 0, 0, 0.5f, 1.5f, 0, 0, kSpec15, 0.125f, 0, true, true},
    {"", 128, 2112, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13Split, 0.125f, 0, true, true},
    {kE4m3Out, 1000, 1001, 528, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kSpec13, 0.125f, 0, false, true},
    {"", 16, 4096, 7168, 0.5f, 3.0f, 1.0f, 0.0f, 0, 0, kAutoTensor, 0.125f, 0, false, true},
    {"", 4096, 2112, 7168, 0, 0, 1.0f, 0.0f, 0, 0, kAutoBlock, 0.125f, 0, true, false},
    // pitches of 1004 and 1032 (multiples of 4: the copy moves words), lines of 1001 and 1029
    // bytes and K = 530: a partial word at the end of every line it reads and writes
    {"", 1001, 1029, 530, 0.5f, 3.0f, 1.0f, 0.0f, 3, 0, kSpec13, 0.125f, 0, true, true},
};

INSTANTIATE_TEST_SUITE_P(Sm90, Fp8Gemm, ::testing::ValuesIn(kCases), caseName);

} // namespace

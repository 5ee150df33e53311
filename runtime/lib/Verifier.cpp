//===- Verifier.cpp - Random inputs, reference GEMM, error reduction -------===//
//
// GemmVerifier: three small NVRTC-compiled helper kernels shared by
// `gemmgen run`, `gemmgen bench`, the GPU tests and the example.
//   gg_fill_normal     N(0,1) via Box-Muller over splitmix64(seed, index)
//   gg_reference_gemm  64×64-tiled SIMT GEMM, f32 accumulate, f32 output
//   gg_compare         ‖D−ref‖², ‖ref‖², max |D−ref|, count of non-finite D
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>
#include <cmath>

using namespace gemmgen;

static const char *kVerifierSource = R"CUDA(
#include "gemmgen/device/epilogue_ops.cuh"
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u64 mix64(u64 z) {  // splitmix64 finaliser
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__device__ __forceinline__ u16 f32_to_16(float f, int bf16) {
  u16 h;
  if (bf16) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ float f16_to_f32(u16 h, int bf16) {
  if (bf16) return __uint_as_float(((u32)h) << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

// fp8 bytes -> f32, exactly (e4m3: no infinities, S.1111.111 is NaN; e5m2: IEEE-like).
__device__ __forceinline__ float fp8_to_f32(u32 b, int e5m2) {
  const float sign = (b & 0x80u) ? -1.f : 1.f;
  if (e5m2) {
    const int e = (b >> 2) & 31, m = b & 3;
    if (e == 31) return m ? __int_as_float(0x7fc00000) : sign * __int_as_float(0x7f800000);
    return sign * (e ? ldexpf((float)(4 + m), e - 17) : ldexpf((float)m, -16));
  }
  const int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return __int_as_float(0x7fc00000);
  return sign * (e ? ldexpf((float)(8 + m), e - 10) : ldexpf((float)m, -9));
}
// f32 -> fp8 byte, round to nearest even, saturating to the largest finite value.
__device__ __forceinline__ unsigned char f32_to_fp8(float f, int e5m2) {
  u16 h;
  if (e5m2) asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %1;" : "=h"(h) : "f"(f));
  else asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %1;" : "=h"(h) : "f"(f));
  return (unsigned char)(h & 0xffu);
}
// The spacing of fp8 values at magnitude a (e4m3: 3 mantissa bits, normals from 2^-6; e5m2: 2
// bits, from 2^-14): the size of one rounding step there.
__device__ __forceinline__ float fp8_step(float a, int e5m2) {
  const int mant = e5m2 ? 2 : 3, minE = e5m2 ? -14 : -6;
  int e = minE + 1;
  if (a > 0.f) frexpf(a, &e); // a = f * 2^e, f in [0.5, 1): binade 2^(e-1)
  return ldexpf(1.f, max(e - 1, minE) - mant);
}
// An operand element of kind 0 f16, 1 bf16, 3 e4m3, 4 e5m2 (kind 2, f32, is not an operand).
__device__ __forceinline__ float load_elem(const void *p, long long i, int kind) {
  if (kind >= 3) return fp8_to_f32(((const unsigned char *)p)[i], kind == 4);
  return f16_to_f32(((const u16 *)p)[i], kind);
}
// kind: 0 f16, 1 bf16, 2 f32, 3 e4m3, 4 e5m2.
extern "C" __global__ void gg_fill_normal(void *p, long long rows, long long cols, long long ld,
                                          int kind, u64 seed) {
  const long long total = rows * cols;
  const u64 s = mix64(seed);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / cols, c = i - r * cols;
    const u64 h = mix64(s ^ (u64)i);
    const float u1 = (float)((h >> 40) + 1) * (1.0f / 16777216.0f);     // (0, 1]
    const float u2 = (float)(h & 0xffffffull) * (1.0f / 16777216.0f);   // [0, 1)
    const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    if (kind == 2) ((float *)p)[r * ld + c] = z;
    else if (kind >= 3) ((unsigned char *)p)[r * ld + c] = f32_to_fp8(z, kind == 4);
    else ((u16 *)p)[r * ld + c] = f32_to_16(z, kind);
  }
}

// R[M,N] (f32, ld N) = chain(alpha·sA·sB · A[M,K] · B[K,N], beta · C[M,N]) of batch entry
// `entry` (the kernel's epilogue chain; none: their sum), A[m,k] at A[m*sam + k*sak],
// B[k,n] at B[n*sbn + k*sbk] (kinds as gg_fill_normal's), C[m,n] at Cin[m*scm + n*scn] (any
// stored layout, any kind; read only when beta != 0), the scales sA, sB device f32 (null = 1);
// 256 threads, 64×64 tile, 4×4 per thread.
extern "C" __global__ void __launch_bounds__(256)
gg_reference_gemm(const void *A, const void *B, float *C, int M, int N, int K, long long sam,
                  long long sak, long long sbn, long long sbk, int kindA, int kindB, float alpha,
                  float beta, const void *Cin, long long scm, long long scn, int kindC,
                  const float *sA, const float *sB, gemmgen::epilogue::Chain chain,
                  long long entry, int blockwise) {
  // Per-tensor scales fold into alpha; blockwise ones (sA[kb][m], sB[n/128][kb] of this entry)
  // scale every element as it is loaded.
  if (!blockwise && sA) alpha *= *sA;
  if (!blockwise && sB) alpha *= *sB;
  const long long kblocks = (K + 127) / 128;
  __shared__ float As[16][64 + 1];
  __shared__ float Bs[16][64 + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const long long m0 = (long long)blockIdx.y * 64, n0 = (long long)blockIdx.x * 64;
  float acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int i = threadIdx.x; i < 1024; i += 256) {
      const int r = i / 16, kk = i % 16;
      const long long k = k0 + kk;
      const long long m = m0 + r, n = n0 + r;
      As[kk][r] = (m < M && k < K) ? load_elem(A, m * sam + k * sak, kindA) : 0.f;
      Bs[kk][r] = (n < N && k < K) ? load_elem(B, n * sbn + k * sbk, kindB) : 0.f;
      if (blockwise && m < M && k < K) As[kk][r] *= sA[(k / 128) * M + m];
      if (blockwise && n < N && k < K) Bs[kk][r] *= sB[(n / 128) * kblocks + k / 128];
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
      for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const long long m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) {
        const float cb = beta != 0.f
            ? beta * (kindC == 2 ? ((const float *)Cin)[m * scm + n * scn]
                                 : load_elem(Cin, m * scm + n * scn, kindC))
            : 0.f;
        C[m * N + n] = gemmgen::epilogue::apply_chain(chain, alpha * acc[i][j], cb, m, n, entry);
      }
    }
}

// out[0] += Σ(D−ref)², out[1] += Σref², out[2] = max |D−ref|, out[3] = max |ref| (both as
// ordered bits), cnt += #non-finite D. D is 16-bit, f32 when dF32 (then a refIs16 reference is
// f32 too: another f32 D), or fp8 when dFp8 (1 e4m3, 2 e5m2). An fp8 D is held against x =
// scale · ref saturated to the type's range (scale: device f32, null = 1), and its error is
// what lies beyond fp8's own rounding: |D − x| less half an fp8 step at max(|D|, |x|), never
// below 0 — so a value an accumulation difference moved across a rounding boundary costs only
// that difference, and a wrong element all of it. out[3] is then max |ref| before the scale
// (what the kernel's amax holds). A refIs16 reference is then another fp8 D (packed), each
// rounded on its own: one whole step is allowed.
extern "C" __global__ void gg_compare(const void *D, long long ldd, int dColMajor, const void *ref,
                                      int refIs16, int M, int N, int bf16, double *out,
                                      unsigned long long *nonFinite, int dF32, int dFp8,
                                      const float *scale) {
  double err2 = 0, ref2 = 0, maxAbs = 0, refMax = 0;
  unsigned long long bad = 0;
  const long long total = (long long)M * N;
  const float s = dFp8 && scale ? *scale : 1.f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / N, c = i - r * N;
    const long long at = dColMajor ? c * ldd + r : r * ldd + c;
    float d, x;
    if (dFp8) {
      d = fp8_to_f32(((const unsigned char *)D)[at], dFp8 == 2);
      if (!isfinite(d)) { ++bad; continue; }
      float slack; // of the rounding: half a step against the reference, a step against a D
      if (refIs16) { // another fp8 D (packed), converted already
        x = fp8_to_f32(((const unsigned char *)ref)[i], dFp8 == 2);
        refMax = fmax(refMax, fabs((double)x));
        slack = fp8_step(fmaxf(fabsf(d), fabsf(x)), dFp8 == 2);
      } else {
        const float v = ((const float *)ref)[i], top = dFp8 == 2 ? 57344.f : 448.f;
        refMax = fmax(refMax, fabs((double)v));
        x = fminf(fmaxf(s * v, -top), top);
        slack = 0.5f * fp8_step(fmaxf(fabsf(d), fabsf(x)), dFp8 == 2);
      }
      const double e = fmax(0.0, fabs((double)d - (double)x) - (double)slack);
      err2 += e * e;
      ref2 += (double)x * x;
      maxAbs = fmax(maxAbs, e);
      continue;
    } else {
      d = dF32 ? ((const float *)D)[at] : f16_to_f32(((const u16 *)D)[at], bf16);
      x = refIs16 && !dF32 ? f16_to_f32(((const u16 *)ref)[i], bf16) : ((const float *)ref)[i];
      refMax = fmax(refMax, fabs((double)x));
    }
    if (!isfinite(d)) { ++bad; continue; }
    const double e = (double)d - (double)x;
    err2 += e * e;
    ref2 += (double)x * x;
    maxAbs = fmax(maxAbs, fabs(e));
  }
  for (int o = 16; o > 0; o /= 2) {
    err2 += __shfl_down_sync(0xffffffffu, err2, o);
    ref2 += __shfl_down_sync(0xffffffffu, ref2, o);
    maxAbs = fmax(maxAbs, __shfl_down_sync(0xffffffffu, maxAbs, o));
    refMax = fmax(refMax, __shfl_down_sync(0xffffffffu, refMax, o));
    bad += __shfl_down_sync(0xffffffffu, bad, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&out[0], err2);
    atomicAdd(&out[1], ref2);
    atomicMax((unsigned long long *)&out[2], (unsigned long long)__double_as_longlong(maxAbs));
    atomicMax((unsigned long long *)&out[3], (unsigned long long)__double_as_longlong(refMax));
    atomicAdd(nonFinite, bad);
  }
}
)CUDA";

namespace {
/// The helper kernels' element kinds.
int verifierKind(DType t) {
  switch (t) {
  case DType::BF16: return 1;
  case DType::F32: return 2;
  case DType::E4M3: return 3;
  case DType::E5M2: return 4;
  default: return 0;
  }
}
} // namespace

struct GemmVerifier::Impl {
  Runtime rt;
  std::optional<Module> module;
  CUfunction fill = nullptr, ref = nullptr, cmp = nullptr;
  CUdeviceptr scratch = 0; // 4 doubles + 1 u64
  explicit Impl(Runtime r) : rt(std::move(r)) {}
  ~Impl() { (void)rt.free(scratch); }
};

Expected<GemmVerifier> GemmVerifier::create(const Runtime &rt) {
  auto impl = std::make_shared<Impl>(rt);
  Expected<Module> m = rt.loadModule(kVerifierSource, "gemmgen_verifier.cu");
  if (!m)
    return m.status();
  impl->module = *m;
  for (auto [name, fn] : {std::make_pair("gg_fill_normal", &impl->fill),
                          std::make_pair("gg_reference_gemm", &impl->ref),
                          std::make_pair("gg_compare", &impl->cmp)}) {
    Expected<CUfunction> f = m->function(name);
    if (!f)
      return f.status();
    *fn = *f;
  }
  Expected<CUdeviceptr> s = rt.alloc(40);
  if (!s)
    return s.status();
  impl->scratch = *s;
  return GemmVerifier(impl);
}

Status GemmVerifier::fillNormal2D(CUdeviceptr p, long long rows, long long cols, long long ld,
                                  DType t, std::uint64_t seed, CUstream s) const {
  int kind = verifierKind(t);
  unsigned long long sd = seed;
  void *params[] = {&p, &rows, &cols, &ld, &kind, &sd};
  long long total = rows * cols;
  unsigned blocks = (unsigned)std::min<long long>((total + 255) / 256, 4096);
  if (blocks == 0)
    return Status::success();
  return impl_->rt.launchRaw(impl_->fill, blocks, 1, 256, 0, s, params);
}

Status GemmVerifier::poison(CUdeviceptr p, std::size_t elements, DType t, CUstream s) const {
  const std::size_t bytes = elements * sizeOf(t);
  if (bytes == 0)
    return Status::success();
  if (isFp8(t))
    return impl_->rt.fill8Async(p, kPoisonFp8, bytes, s);
  return impl_->rt.fill16Async(p, kPoison, bytes / 2, s);
}

Status GemmVerifier::fillNormal(CUdeviceptr p, std::size_t count, DType t, std::uint64_t seed,
                                CUstream s) const {
  return fillNormal2D(p, 1, (long long)count, (long long)count, t, seed, s);
}

Status GemmVerifier::reference(const GemmArgs &a, DType t, DType tB, CUdeviceptr refF32,
                               CUstream s, DType outType, const EpilogueInfo &epilogue) const {
  return referenceImpl(a, t, tB, refF32, s, outType, epilogue, false);
}

Status GemmVerifier::reference(const GemmArgs &a, const KernelInfo &k, CUdeviceptr refF32,
                               CUstream s) const {
  return referenceImpl(a, k.dtype, k.dtypeB, refF32, s, k.outType, k.epilogue, k.blockwiseScales);
}

Status GemmVerifier::referenceImpl(const GemmArgs &a, DType t, DType tB, CUdeviceptr refF32,
                                   CUstream s, DType outType, const EpilogueInfo &epilogue,
                                   bool blockwise) const {
  int M = (int)a.M, N = (int)a.N, K = (int)a.K;
  int kindA = verifierKind(t), kindB = verifierKind(tB), kindC = verifierKind(outType);
  const long long lda = storedShape(a, 'A').ld, ldb = storedShape(a, 'B').ld;
  OperandStrides st = operandStrides(a.layoutA, lda, a.layoutB, ldb);
  long long sam = st.am, sak = st.ak, sbn = st.bn, sbk = st.bk;
  // C is stored like D: row-major C[m,n] at m·ldc + n, column-major at n·ldc + m.
  const long long ldc = storedShape(a, 'C').ld;
  long long scm = a.layoutD == Layout::Row ? ldc : 1, scn = a.layoutD == Layout::Row ? 1 : ldc;
  float alpha = a.alpha, beta = a.beta;
  CUdeviceptr sA = a.scaleA, sB = a.scaleB;
  epilogue::Chain chain = chainData(epilogue, a);
  // One launch per batch entry, each into its own M×N block of ref.
  for (long long l = 0; l < std::max(1LL, a.batch); ++l) {
    const GemmArgs e = batchEntry(a, l, t, outType);
    CUdeviceptr A = e.A, B = e.B, R = refF32 + (CUdeviceptr)(l * a.M * a.N * 4), C = e.C;
    long long entry = l;
    int bw = blockwise;
    // Blockwise: this entry's scale arrays (blockwiseScaleCounts per entry).
    CUdeviceptr eA = sA, eB = sB;
    if (blockwise) {
      const long long kb = (a.K + 127) / 128, nb = (a.N + 127) / 128;
      eA = sA + CUdeviceptr(l * kb * a.M * 4);
      eB = sB + CUdeviceptr(l * nb * kb * 4);
    }
    void *params[] = {&A,     &B,    &R,     &M,    &N,  &K,   &sam,   &sak, &sbn, &sbk,
                      &kindA, &kindB, &alpha, &beta, &C, &scm, &scn, &kindC, &eA,  &eB,
                      &chain, &entry, &bw};
    if (Status r = impl_->rt.launchRaw(impl_->ref, (unsigned)((N + 63) / 64),
                                       (unsigned)((M + 63) / 64), 256, 0, s, params);
        !r)
      return r;
  }
  return Status::success();
}

Expected<GemmVerifier::Comparison> GemmVerifier::compare(const GemmArgs &a, DType t,
                                                         CUdeviceptr ref, bool refIs16Bit,
                                                         CUstream s, DType outType) const {
  const DriverApi &drv = *impl_->rt.impl()->drv;
  GG_CONTEXT_SCOPE(*impl_->rt.impl());
  CUresult r = drv.cuMemsetD32Async(impl_->scratch, 0, 10, s);
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuMemsetD32Async");
  CUdeviceptr out = impl_->scratch, cnt = impl_->scratch + 32;
  long long ldd = storedShape(a, 'D').ld;
  // D's (and a 16-bit reference's) kind: the output type, or the operands' for an f32 D.
  const DType d16 = outType == DType::F32 ? t : outType;
  int M = (int)a.M, N = (int)a.N, bf16 = d16 == DType::BF16, is16 = refIs16Bit;
  int dColMajor = a.layoutD == Layout::Col, dF32 = outType == DType::F32;
  // An 8-bit D: against fp8(scaleD · ref), the conversion its kernel makes.
  int dFp8 = outType == DType::E4M3 ? 1 : outType == DType::E5M2 ? 2 : 0;
  CUdeviceptr scale = a.scaleD;
  long long total = a.M * a.N;
  unsigned blocks = (unsigned)std::max<long long>(1, std::min<long long>((total + 255) / 256, 2048));
  // Batch entries accumulate into the same sums: one error over all of D.
  const long long entries = std::max(1LL, a.batch);
  for (long long l = 0; l < entries; ++l) {
    const long long refBytes = is16 && !dF32 ? (dFp8 ? 1 : 2) : 4; // a D's type, or f32
    CUdeviceptr D = batchEntry(a, l, t, outType).D, R = ref + (CUdeviceptr)(l * total * refBytes);
    void *params[] = {&D,  &ldd, &dColMajor, &R,    &is16, &M,     &N,
                      &bf16, &out, &cnt,      &dF32, &dFp8, &scale};
    if (Status st = impl_->rt.launchRaw(impl_->cmp, blocks, 1, 256, 0, s, params); !st)
      return st;
  }
  total *= entries;
  if (Status st = impl_->rt.wait(s, 600); !st)
    return st;
  double host[4];
  unsigned long long bad = 0;
  if (Status st = impl_->rt.copyToHost(host, impl_->scratch, sizeof host); !st)
    return st;
  if (Status st = impl_->rt.copyToHost(&bad, cnt, sizeof bad); !st)
    return st;
  Comparison c;
  c.count = total;
  c.nonFinite = (long long)bad;
  c.relFrobenius = host[1] > 0 ? std::sqrt(host[0] / host[1]) : (host[0] > 0 ? INFINITY : 0.0);
  c.maxAbsError = host[2];
  c.refAbsMax = host[3];
  return c;
}

// The epilogue chain's bias and scale, the fp8 scales and an 8-bit D's
// output scale and amax, allocated and filled the one way `gemmgen run`, bench's workloads and the GPU tests need.
Expected<std::vector<CUdeviceptr>>
GemmVerifier::attachKernelInputs(const KernelInfo &k, GemmArgs &a, const KernelInputValues &v,
                                 std::uint64_t seed, CUstream s) const {
  const Runtime &rt = impl_->rt;
  std::vector<CUdeviceptr> owned;
  auto fail = [&](Status st) -> Expected<std::vector<CUdeviceptr>> {
    for (CUdeviceptr p : owned)
      (void)rt.free(p);
    return st;
  };
  auto alloc = [&](std::size_t bytes, CUdeviceptr &p) {
    Expected<CUdeviceptr> e = rt.alloc(std::max<std::size_t>(bytes, 4));
    if (e) {
      owned.push_back(*e);
      p = *e;
    }
    return e.ok() ? Status::success() : e.status();
  };
  auto fillValue = [&](CUdeviceptr p, long long count, float value) {
    const std::vector<float> values((std::size_t)count, value);
    return rt.copyToDevice(p, values.data(), values.size() * sizeof(float));
  };
  const EpilogueInfo &epi = k.epilogue;
  const long long entries = std::max<long long>(a.batch, 1);
  if (epi.bias && !a.bias) {
    const long long length = std::max<long long>(1, epi.biasPerRow ? a.M : a.N);
    a.strideBias = entries > 1 ? length + v.biasGap : 0;
    const long long elems = (entries - 1) * a.strideBias + length;
    if (Status st = alloc((std::size_t)elems * sizeOf(epi.biasType), a.bias); !st)
      return fail(st);
    if (Status st = fillNormal(a.bias, (std::size_t)elems, epi.biasType, seed * 2 + 7, s); !st)
      return fail(st);
  }
  if (k.fp8Output && !a.amaxD) {
    if (Status st = alloc(sizeof(float), a.amaxD); !st)
      return fail(st);
  }
  if ((epi.scale || k.fp8Output) && !a.scaleD) {
    if (Status st = alloc(sizeof(float), a.scaleD); !st)
      return fail(st);
    if (Status st = fillValue(a.scaleD, 1, v.scaleD); !st)
      return fail(st);
  }
  const auto [nA, nB] = blockwiseScaleCounts(a);
  const struct {
    float value;
    CUdeviceptr *at;
    long long count;
  } scales[] = {{v.scaleA, &a.scaleA, nA}, {v.scaleB, &a.scaleB, nB}};
  for (int i = 0; i < 2; ++i) {
    const auto &sc = scales[i];
    if (*sc.at || (!k.blockwiseScales && (!k.perTensorScales || std::isnan(sc.value))))
      continue;
    const long long n = k.blockwiseScales ? std::max(1LL, sc.count) : 1;
    if (Status st = alloc((std::size_t)n * sizeof(float), *sc.at); !st)
      return fail(st);
    Status st = std::isnan(sc.value)
                    ? fillNormal(*sc.at, (std::size_t)n, DType::F32, seed * 2 + 8 + i, s)
                    : fillValue(*sc.at, n, sc.value);
    if (!st)
      return fail(st);
  }
  return owned;
}

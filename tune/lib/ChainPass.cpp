//===- ChainPass.cpp - A kernel's epilogue chain as a pass over D ---------===//
#include "gemmgen/tune/ChainPass.h"

#include "gemmgen/EpilogueData.h"

#include <algorithm>

using namespace gemmgen;
using namespace gemmgen::tune;

// One thread per VEC elements of a row (16 bytes when VEC > 1); KIND 0 f16,
// 1 bf16, 2 f32. beta·C is already in D (the GEMM added it), so 0 here.
static const char *kChainPassSource = R"CUDA(
#include "gemmgen/device/epilogue_ops.cuh"
typedef unsigned short u16;
typedef unsigned int u32;

__device__ __forceinline__ float from16(u32 bits, int bf16) {
  if (bf16) return __uint_as_float(bits << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((u16)bits));
  return f;
}
__device__ __forceinline__ u32 to16(float f, int bf16) {
  u16 h;
  if (bf16) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

template <int KIND, int VEC>
__device__ __forceinline__ void chain_pass(char *D, long long ldd, long long M, long long N,
                                           long long batch, long long stride_d,
                                           const gemmgen::epilogue::Chain &c) {
  const long long chunks = N / VEC;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= batch * M * chunks) return;
  const long long col = (t % chunks) * VEC, row = (t / chunks) % M, entry = t / (chunks * M);
  constexpr int esz = KIND == 2 ? 4 : 2;
  char *p = D + (entry * stride_d + row * ldd + col) * esz;
  u32 w[4] = {0u, 0u, 0u, 0u};
  if constexpr (VEC > 1) {
    const uint4 u = *reinterpret_cast<const uint4 *>(p);
    w[0] = u.x, w[1] = u.y, w[2] = u.z, w[3] = u.w;
  } else if constexpr (KIND == 2) {
    w[0] = *reinterpret_cast<const u32 *>(p);
  } else {
    w[0] = *reinterpret_cast<const u16 *>(p);
  }
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    constexpr int per = KIND == 2 ? 1 : 2; // elements per 32-bit word
    const int at = j / per, shift = 16 * (j % per);
    const float v = gemmgen::epilogue::apply_chain(
        c, KIND == 2 ? __uint_as_float(w[at]) : from16((w[at] >> shift) & 0xffffu, KIND), 0.f,
        row, col + j, entry);
    if constexpr (KIND == 2) w[at] = __float_as_uint(v);
    else w[at] = (w[at] & ~(0xffffu << shift)) | (to16(v, KIND) << shift);
  }
  if constexpr (VEC > 1) *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  else if constexpr (KIND == 2) *reinterpret_cast<u32 *>(p) = w[0];
  else *reinterpret_cast<u16 *>(p) = (u16)w[0];
}

#define GG_CHAIN_PASS(name, KIND, VEC)                                                        \
  extern "C" __global__ void __launch_bounds__(256)                                           \
  name(char *D, long long ldd, long long M, long long N, long long batch, long long stride_d, \
       gemmgen::epilogue::Chain c) {                                                          \
    chain_pass<KIND, VEC>(D, ldd, M, N, batch, stride_d, c);                                  \
  }
GG_CHAIN_PASS(gg_chain_pass_f16_v8, 0, 8)
GG_CHAIN_PASS(gg_chain_pass_f16_v1, 0, 1)
GG_CHAIN_PASS(gg_chain_pass_bf16_v8, 1, 8)
GG_CHAIN_PASS(gg_chain_pass_bf16_v1, 1, 1)
GG_CHAIN_PASS(gg_chain_pass_f32_v4, 2, 4)
GG_CHAIN_PASS(gg_chain_pass_f32_v1, 2, 1)
)CUDA";

const char *ChainPass::source() { return kChainPassSource; }

Expected<ChainPass> ChainPass::create(const Runtime &rt) {
  Expected<Module> m = rt.loadModule(kChainPassSource, "gemmgen_chain_pass");
  if (!m)
    return m.status();
  return ChainPass(rt, m.take());
}

Status ChainPass::supports(const EpilogueInfo &epi) {
  if (epi.residual)
    return Status::error(ErrorCode::Unsupported,
                         "a pass after the GEMM cannot apply chain '" + epi.chain +
                             "': its residual step needs C, which the in-place GEMM overwrote");
  return Status::success();
}

Status ChainPass::apply(const GemmArgs &a, DType out, const EpilogueInfo &epi,
                        CUstream s) const {
  if (Status st = supports(epi); !st)
    return st;
  if (a.layoutD != Layout::Row)
    return Status::error(ErrorCode::InvalidArgument, "the chain pass takes a row-major D");
  const bool f32 = out == DType::F32;
  const long long vec = f32 ? 4 : 8, ldd = storedShape(a, 'D').ld;
  const long long batch = std::max(1LL, a.batch), strideD = batch > 1 ? a.strideD : 0;
  // 16-byte accesses only where every row and entry starts 16-byte aligned.
  const bool wide = a.N % vec == 0 && ldd % vec == 0 && strideD % vec == 0 && a.D % 16 == 0;
  const std::string name = std::string("gg_chain_pass_") +
                           (f32 ? "f32" : out == DType::BF16 ? "bf16" : "f16") +
                           (wide ? (f32 ? "_v4" : "_v8") : "_v1");
  Expected<CUfunction> f = module.function(name);
  if (!f)
    return f.status();
  const long long threads = batch * a.M * (a.N / (wide ? vec : 1));
  if (threads == 0)
    return Status::success();
  const long long blocks = (threads + 255) / 256;
  if (blocks > 0x7fffffffLL)
    return Status::error(ErrorCode::InvalidArgument, "the chain pass's D is too large");
  epilogue::Chain chain = chainData(epi, a);
  CUdeviceptr D = a.D;
  long long M = a.M, N = a.N;
  void *params[] = {&D, const_cast<long long *>(&ldd), &M, &N,
                    const_cast<long long *>(&batch), const_cast<long long *>(&strideD), &chain};
  return rt->launchRaw(*f, (unsigned)blocks, 1, 256, 0, s, params);
}

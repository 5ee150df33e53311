// bench/experiments/decode_gemv.cu — experiment: can a decode GEMM (M <= 16) that streams the
// weights with plain 16-byte loads and mma.sync beat cuBLAS on the H200, where gemmgen's TMA +
// wgmma kernels stream them at 2.2-2.8 TB/s against cuBLAS's ~3-3.7 (docs/PERF.md, "Decode")?
//
// D[M,N] = A[M,K] * B[N,K]^T, f16 in and out, f32 accumulation, M <= 16, K % 256 == 0.
// A warp owns 8 columns of D (8 rows of B) and a K range; per 32-deep chunk each lane loads 16
// bytes of one B row (lane/4) at k = 8 * (lane % 4), which are its B fragments for two
// m16n8k16 steps under a permutation of k inside the chunk; A's fragments are loaded with the
// same permutation (16 bytes of rows lane/4 and lane/4 + 8), so the sum over k is unchanged.
// The warps of a CTA split K (CTA_WARPS of them on the same 8 columns); their partial tiles
// are summed through shared memory. No split across CTAs: one launch.
//
// Build (CPU machine): nvcc -O3 -std=c++17 -arch=sm_90a -o decode_gemv decode_gemv.cu -lcublas
// Run (H200): ./decode_gemv [simt|staged]  — prints, per shape and variant, µs, TB/s of B and the ratio
// cuBLAS time / this kernel's time, after checking every element against cuBLAS.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CB(x)                                                                                      \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__device__ __forceinline__ uint4 ldg_stream(const void *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 ldg_keep(const void *p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ void mma16816(float (&c)[4], unsigned a0, unsigned a1, unsigned a2,
                                         unsigned a3, unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// UNROLL chunks of 32 k per warp step (UNROLL x NB B loads in flight per lane before the
// mmas); a warp owns NB blocks of 8 columns, so A's fragments serve NB mmas each.
template <int CTA_WARPS, int UNROLL, int NB>
__global__ void __launch_bounds__(CTA_WARPS * 32)
decode_gemv(const __half *A, const __half *B, __half *D, int M, int N, int K) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, c = lane % 4;
  const int n0 = blockIdx.x * 8 * NB;
  const __half *bRow[NB];
  bool nOk[NB];
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    const int n = n0 + 8 * j + g;
    nOk[j] = n < N;
    bRow[j] = B + (long long)(nOk[j] ? n : 0) * K + 8 * c;
  }
  const bool r0 = g < M, r1 = g + 8 < M;
  const __half *aRow0 = A + (long long)(r0 ? g : 0) * K + 8 * c;
  const __half *aRow1 = A + (long long)(r1 ? g + 8 : 0) * K + 8 * c;
  float acc[NB][4] = {};
  const int step = 32 * UNROLL;
  for (int k = warp * step; k < K; k += CTA_WARPS * step) {
    uint4 b[UNROLL][NB];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int j = 0; j < NB; ++j)
        b[u][j] = nOk[j] ? ldg_stream(bRow[j] + k + 32 * u) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const uint4 x0 = r0 ? ldg_keep(aRow0 + k + 32 * u) : make_uint4(0, 0, 0, 0);
      const uint4 x1 = r1 ? ldg_keep(aRow1 + k + 32 * u) : make_uint4(0, 0, 0, 0);
      // step 0: k slots (2c, 2c+1) <- 8c+0,1 and (2c+8, 2c+9) <- 8c+2,3; step 1: +4..7.
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        mma16816(acc[j], x0.x, x1.x, x0.y, x1.y, b[u][j].x, b[u][j].y);
        mma16816(acc[j], x0.z, x1.z, x0.w, x1.w, b[u][j].z, b[u][j].w);
      }
    }
  }
  // acc[j]: (row g, cols 8j + 2c, +1), (row g+8, same cols). Sum the warps' tiles.
  __shared__ float part[CTA_WARPS][NB * 4][32];
#pragma unroll
  for (int j = 0; j < NB; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) part[warp][4 * j + i][lane] = acc[j][i];
  __syncthreads();
  for (int t = threadIdx.x; t < NB * 128; t += CTA_WARPS * 32) {
    const int ji = t / 32, l = t % 32, j = ji / 4, i = ji % 4;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < CTA_WARPS; ++w) s += part[w][ji][l];
    const int row = l / 4 + (i >= 2 ? 8 : 0), col = n0 + 8 * j + 2 * (l % 4) + (i & 1);
    if (row < M && col < N) D[(long long)row * N + col] = __float2half_rn(s);
  }
}

struct Shape {
  int M, N, K;
};
// The SIMT form (second experiment, 2026-12-05): a warp streams whole rows of B, its lanes along
// K, so each load instruction reads 512 contiguous bytes of one row (the mma.sync form above reads
// 64 bytes of each of 8 rows per instruction). UNROLL words per lane and ROWS rows per warp in
// flight before the FMAs; A's tokens (MT >= M of them) read through L1, converted per word; f32
// accumulation, a butterfly sum over the warp at the end; 8 warps a CTA, any number of CTAs per SM.
__device__ __forceinline__ void to_f32x8(const uint4 &v, float (&f)[8]) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = __half22float2(*reinterpret_cast<const __half2 *>(&w[i]));
    f[2 * i] = p.x, f[2 * i + 1] = p.y;
  }
}

template <int MT, int UNROLL, int ROWS>
__global__ void __launch_bounds__(256)
simt_gemv(const __half *A, const __half *B, __half *D, int M, int N, int K) {
  const int lane = threadIdx.x % 32;
  const long long n0 = ((long long)blockIdx.x * 8 + threadIdx.x / 32) * ROWS;
  if (n0 >= N) return;
  const __half *bRow[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) bRow[r] = B + (n0 + r < N ? n0 + r : n0) * K;
  float acc[ROWS][MT] = {};
  const int words = K / 8;
  for (int w0 = lane; w0 < words; w0 += 32 * UNROLL) {
    uint4 b[ROWS][UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        b[r][u] = w0 + 32 * u < words ? ldg_stream(bRow[r] + 8 * (w0 + 32 * u))
                                      : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (w0 + 32 * u >= words) break;
      float bf[ROWS][8];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) to_f32x8(b[r][u], bf[r]);
#pragma unroll
      for (int t = 0; t < MT; ++t) {
        if (t >= M) break;
        float af[8];
        to_f32x8(ldg_keep(A + (long long)t * K + 8 * (w0 + 32 * u)), af);
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
          for (int e = 0; e < 8; ++e) acc[r][t] = fmaf(af[e], bf[r][e], acc[r][t]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int o = 16; o > 0; o /= 2) acc[r][t] += __shfl_xor_sync(0xffffffffu, acc[r][t], o);
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int t = 0; t < MT; ++t)
      if (lane == t && t < M && n0 + r < N) D[(long long)t * N + n0 + r] = __float2half_rn(acc[r][t]);
}


// The staged form (third experiment, 2026-12-05): for 3-8 tokens the SIMT form converts and
// multiplies every weight once per token on the CUDA cores (0.57-0.92 of cuBLAS at M = 4-8 on the
// H100). Here each warp copies whole rows of B with cp.async (CW 16-byte words of 16 * MT rows a
// chunk: 256 or 512 contiguous bytes of a row per instruction, as the SIMT form reads them) into
// a swizzled stage of shared memory, then ldmatrix gives m16n8k16 A fragments of the weight rows
// and the tokens (M <= 8) are the B fragments, read through L1: one mma per 16x16 weights, no
// conversion; MT m16 tiles a warp share each token fragment. A CTA's KW warps take interleaved
// chunks of K of the same rows, S stages each; their tiles are summed through shared memory.
// Result (H100, bench/results/2026-12-05_gemv_staged_h100): level with gemmgen's TMA + wgmma
// decode tiles at M = 3-8 (within +-2%), so not built into gemmgen.
__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

template <int KW, int S, int CW, int MT>
__global__ void __launch_bounds__(KW * 32)
staged_gemv(const __half *A, const __half *B, __half *D, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int kRows = 16 * MT, kStage = kRows * CW * 16; // bytes: kRows rows of CW words
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long n0 = (long long)blockIdx.x * kRows;
  const unsigned buf = smem_addr(smem) + warp * S * kStage;
  const int chunks = K / (CW * 8), mine = (chunks - warp + KW - 1) / KW;
  // Word w of row r sits at 16-byte slot r * CW + (w ^ (r & 7)): the 8 rows one ldmatrix
  // address phase reads fall in 8 different bank groups.
  auto issue = [&](int i) {
    const int c = warp + i * KW;
    const unsigned st = buf + (i % S) * kStage;
#pragma unroll
    for (int j = 0; j < MT * CW / 2; ++j) {
      const int idx = j * 32 + lane, r = idx / CW, w = idx % CW;
      const long long row = n0 + r < N ? n0 + r : N - 1;
      cp_async16(st + (r * CW + (w ^ (r & 7))) * 16, B + row * K + (long long)c * CW * 8 + w * 8);
    }
  };
#pragma unroll
  for (int i = 0; i < S - 1; ++i) {
    if (i < mine) issue(i);
    cp_async_commit();
  }
  const int g = lane / 4, t = lane % 4;
  const __half *tok = A + (long long)(g < M ? g : 0) * K + 2 * t;
  float acc[MT][4] = {};
  for (int i = 0; i < mine; ++i) {
    if (i + S - 1 < mine) issue(i + S - 1);
    cp_async_commit();
    const long long k0 = (long long)(warp + i * KW) * CW * 8;
    unsigned b[CW / 2][2];
#pragma unroll
    for (int j = 0; j < CW / 2; ++j) {
      b[j][0] = g < M ? __ldg(reinterpret_cast<const unsigned *>(tok + k0 + 16 * j)) : 0u;
      b[j][1] = g < M ? __ldg(reinterpret_cast<const unsigned *>(tok + k0 + 16 * j + 8)) : 0u;
    }
    cp_async_wait<S - 1>();
    __syncwarp();
    const unsigned st = buf + (i % S) * kStage;
    const int r = lane % 16;
#pragma unroll
    for (int j = 0; j < CW / 2; ++j) {
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const int rm = r + 16 * m;
        unsigned a[4];
        ldmatrix_x4(a, st + (rm * CW + ((2 * j + lane / 16) ^ (rm & 7))) * 16);
        mma16816(acc[m], a[0], a[1], a[2], a[3], b[j][0], b[j][1]);
      }
    }
    __syncwarp();
  }
  // acc: (weight row g, tokens 2t, 2t+1), (row g+8, same tokens). Sum the warps' tiles.
  cp_async_wait<0>();
  __syncthreads();
  float *part = reinterpret_cast<float *>(smem); // the stages are free now
#pragma unroll
  for (int i = 0; i < 4 * MT; ++i) part[(warp * 4 * MT + i) * 32 + lane] = acc[i / 4][i % 4];
  __syncthreads();
  for (int x = threadIdx.x; x < 128 * MT; x += KW * 32) {
    const int i = x / 32, l = x % 32;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < KW; ++w) s += part[(w * 4 * MT + i) * 32 + l];
    const long long n = n0 + 16 * (i / 4) + l / 4 + (i % 4 >= 2 ? 8 : 0);
    const int token = 2 * (l % 4) + (i & 1);
    if (token < M && n < N) D[(long long)token * N + n] = __float2half_rn(s);
  }
}

template <int W, int U, int NB>
void launch(const __half *A, const __half *B, __half *D, const Shape &s, cudaStream_t st) {
  decode_gemv<W, U, NB><<<(s.N + 8 * NB - 1) / (8 * NB), W * 32, 0, st>>>(A, B, D, s.M, s.N, s.K);
}

template <int U, int R>
void launchSimt(const __half *A, const __half *B, __half *D, const Shape &s, cudaStream_t st) {
  const int blocks = (s.N + 8 * R - 1) / (8 * R);
  if (s.M <= 1) simt_gemv<1, U, R><<<blocks, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
  else if (s.M <= 2) simt_gemv<2, U, R><<<blocks, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
  else if (s.M <= 4) simt_gemv<4, U, R><<<blocks, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
  else if (s.M <= 8) simt_gemv<8, U, R><<<blocks, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
  else simt_gemv<16, U, R><<<blocks, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
}

template <int KW, int S, int CW, int MT = 1>
void launchStaged(const __half *A, const __half *B, __half *D, const Shape &s, cudaStream_t st) {
  const int bytes = KW * S * 16 * MT * CW * 16;
  static bool once = [&] {
    CK(cudaFuncSetAttribute(staged_gemv<KW, S, CW, MT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            bytes));
    return true;
  }();
  (void)once;
  staged_gemv<KW, S, CW, MT><<<(s.N + 16 * MT - 1) / (16 * MT), KW * 32, bytes, st>>>(A, B, D, s.M, s.N, s.K);
}

// The fourth form (2026-12-06): the SIMT form's loads (each instruction 512 contiguous bytes of
// one weight row) feeding mma.sync, which the first form's fragments could not (64 bytes of 8 rows
// an instruction). A warp owns 8 weight rows: per turn of 256 k, lane l loads word l of each row r
// (w[r]: k = 8l..8l+7), then an 8x8 transpose across the lanes that share l % 4 (three butterfly
// stages of shfl_xor on lane bits 2-4) leaves lane (g, t) = (l / 4, l % 4) holding row g's words
// 4i + t, i = 0..7: its B fragments (n = g) for two m16n8k16 steps each, under the first form's
// permutation of k inside each word. The tokens (M <= 16) are the MMA's M side, read through L1.
// KS warps of the CTA split each row group's K (interleaved turns), summed through shared memory;
// U turns of loads in flight before the MMAs.
__device__ __forceinline__ uint4 shfl_xor4(const uint4 &v, int mask) {
  return make_uint4(__shfl_xor_sync(0xffffffffu, v.x, mask), __shfl_xor_sync(0xffffffffu, v.y, mask),
                    __shfl_xor_sync(0xffffffffu, v.z, mask), __shfl_xor_sync(0xffffffffu, v.w, mask));
}
__device__ __forceinline__ uint4 sel4(bool p, const uint4 &a, const uint4 &b) {
  return make_uint4(p ? a.x : b.x, p ? a.y : b.y, p ? a.z : b.z, p ? a.w : b.w);
}
// Lane (g, t)'s w[r] <- lane (r, t)'s w[g]: stage b swaps register bit b with lane bit 2 + b.
__device__ __forceinline__ void transpose8(uint4 (&w)[8], int lane) {
#pragma unroll
  for (int b = 0; b < 3; ++b) {
    const int m = 1 << b;
    const bool hi = (lane >> (2 + b)) & 1;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      if (r & m) continue;
      const uint4 recv = shfl_xor4(sel4(hi, w[r], w[r | m]), 4 << b);
      w[r] = sel4(hi, recv, w[r]);
      w[r | m] = sel4(hi, w[r | m], recv);
    }
  }
}

template <int KS, int U>
__global__ void __launch_bounds__(256)
shfl_gemv(const __half *A, const __half *B, __half *D, int M, int N, int K) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int part = warp % KS;
  const int n0 = (blockIdx.x * (8 / KS) + warp / KS) * 8;
  const __half *row[8];
#pragma unroll
  for (int r = 0; r < 8; ++r) row[r] = B + (long long)min(n0 + r, N - 1) * K + 8 * lane;
  const bool x0ok = g < M, x1ok = g + 8 < M;
  const __half *x0p = A + (long long)(x0ok ? g : 0) * K + 8 * t;
  const __half *x1p = A + (long long)(x1ok ? g + 8 : 0) * K + 8 * t;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = part * 256; k0 < K; k0 += KS * 256 * U) {
    uint4 w[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int r = 0; r < 8; ++r)
        w[u][r] = k0 + KS * 256 * u < K ? ldg_stream(row[r] + k0 + KS * 256 * u) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + KS * 256 * u;
      if (k >= K) break;
      transpose8(w[u], lane);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        // Lane (g, t)'s word i is row g's k + 8 (4i + t) .. +7, the tokens' the same.
        const uint4 x0 = x0ok ? ldg_keep(x0p + k + 32 * i) : make_uint4(0, 0, 0, 0);
        const uint4 x1 = x1ok ? ldg_keep(x1p + k + 32 * i) : make_uint4(0, 0, 0, 0);
        mma16816(acc, x0.x, x1.x, x0.y, x1.y, w[u][i].x, w[u][i].y);
        mma16816(acc, x0.z, x1.z, x0.w, x1.w, w[u][i].z, w[u][i].w);
      }
    }
  }
  // acc: (token g, rows n0 + 2t, +1), (token g + 8, the same). Sum the KS warps' parts.
  __shared__ float sums[8][4][32];
#pragma unroll
  for (int i = 0; i < 4; ++i) sums[warp][i][lane] = acc[i];
  __syncthreads();
  if (part != 0) return;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float v = 0.f;
#pragma unroll
    for (int p = 0; p < KS; ++p) v += sums[warp + p][i][lane];
    const int token = g + (i >= 2 ? 8 : 0), n = n0 + 2 * t + (i & 1);
    if (token < M && n < N) D[(long long)token * N + n] = __float2half_rn(v);
  }
}

template <int KS, int U>
void launchShfl(const __half *A, const __half *B, __half *D, const Shape &s, cudaStream_t st) {
  const int groups = (s.N + 7) / 8, perBlock = 8 / KS;
  shfl_gemv<KS, U><<<(groups + perBlock - 1) / perBlock, 256, 0, st>>>(A, B, D, s.M, s.N, s.K);
}

__global__ void fill(__half *p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed * 2246822519u;
    x ^= x >> 13, x *= 3266489917u, x ^= x >> 16;
    p[i] = __float2half((float)(x & 0xffff) / 32768.f - 1.f);
  }
}

int main(int argc, char **argv) {
  // "simt": only the SIMT variants (the second experiment); "staged": the staged ones (third,
  // M <= 8 shapes only) and s-u4r1 beside them; "shfl": the fourth form (M <= 16), s-u4r1 and the
  // best staged variant beside it; default: the mma.sync ones.
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool simt = mode == "simt", staged = mode == "staged", shfl = mode == "shfl";
  const Shape shapes[] = {{1, 6144, 4096},  {16, 4096, 4096},  {1, 4096, 14336}, {1, 2112, 7168},
                          {16, 7168, 16384}, {16, 8192, 28672}, {4, 28672, 4096}, {1, 57344, 8192},
                          {8, 14336, 4096},  {1, 11008, 4096}, {16, 10240, 8192}, {16, 2112, 7168},
                          {2, 57344, 8192},  {4, 14336, 4096},  {8, 28672, 4096}, {4, 4096, 4096},
                          {3, 6144, 4096},   {8, 4096, 14336}};
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetStream(h, st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("%-16s %-10s %9s %8s %9s %9s %7s %10s\n", "shape", "variant", "us", "TB/s", "cuBLAS us",
              "cuBLAS TB/s", "ratio", "max|err|");
  for (const Shape &s : shapes) {
    if (staged && s.M > 8) continue;
    if (shfl && s.M < 3) continue; // one and two tokens: the SIMT form's
    const long long bElems = (long long)s.N * s.K;
    // Enough copies of B that the rotation does not fit the 60 MB L2.
    const int sets = (int)std::max<long long>(2, (256ll << 20) / (bElems * 2) + 1);
    std::vector<__half *> Bs(sets);
    __half *A, *D, *Dref;
    CK(cudaMalloc(&A, (size_t)s.M * s.K * 2));
    CK(cudaMalloc(&D, (size_t)s.M * s.N * 2));
    CK(cudaMalloc(&Dref, (size_t)s.M * s.N * 2));
    fill<<<1024, 256, 0, st>>>(A, (long long)s.M * s.K, 7);
    for (int i = 0; i < sets; ++i) {
      CK(cudaMalloc(&Bs[i], (size_t)bElems * 2));
      fill<<<4096, 256, 0, st>>>(Bs[i], bElems, 100 + i);
    }
    CK(cudaGetLastError());
    const float one = 1.f, zero = 0.f;
    auto cublas = [&](const __half *B, __half *out) {
      CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s.N, s.M, s.K, &one, B, CUDA_R_16F, s.K, A,
                      CUDA_R_16F, s.K, &zero, out, CUDA_R_16F, s.N, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT));
    };
    auto timeIt = [&](auto &&run) {
      for (int i = 0; i < 3 * sets; ++i) run(Bs[i % sets]);
      std::vector<float> rounds;
      for (int r = 0; r < 15; ++r) {
        const int n = 20 * sets;
        CK(cudaEventRecord(e0, st));
        for (int i = 0; i < n; ++i) run(Bs[i % sets]);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        rounds.push_back(ms * 1000.f / n);
      }
      std::sort(rounds.begin(), rounds.end());
      return rounds[rounds.size() / 2];
    };
    const float tc = timeIt([&](const __half *B) { cublas(B, Dref); });
    cublas(Bs[0], Dref);
    std::vector<__half> ref((size_t)s.M * s.N), got((size_t)s.M * s.N);
    CK(cudaMemcpyAsync(ref.data(), Dref, ref.size() * 2, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    struct Variant {
      const char *name;
      void (*fn)(const __half *, const __half *, __half *, const Shape &, cudaStream_t);
    } mmaVariants[] = {{"w8u4n1", launch<8, 4, 1>},   {"w8u8n1", launch<8, 8, 1>},
                       {"w16u4n1", launch<16, 4, 1>}, {"w4u8n1", launch<4, 8, 1>},
                       {"w8u4n2", launch<8, 4, 2>},   {"w8u2n4", launch<8, 2, 4>},
                       {"w16u2n2", launch<16, 2, 2>}, {"w4u4n4", launch<4, 4, 4>}},
      simtVariants[] = {{"s-u4r1", launchSimt<4, 1>}, {"s-u8r1", launchSimt<8, 1>},
                        {"s-u2r2", launchSimt<2, 2>}, {"s-u4r2", launchSimt<4, 2>},
                        {"s-u16r1", launchSimt<16, 1>}};
    const Variant stagedVariants[] = {
        {"s-u4r1", launchSimt<4, 1>},          {"st-k4s4c16", launchStaged<4, 4, 16>},
        {"st-k4s3c32", launchStaged<4, 3, 32>}, {"st-k8s2c32", launchStaged<8, 2, 32>},
        {"st-k2s6c16", launchStaged<2, 6, 16>}, {"st-k4s6c16", launchStaged<4, 6, 16>},
        {"st-k8s3c16", launchStaged<8, 3, 16>}, {"m2-k4s3c16", launchStaged<4, 3, 16, 2>},
        {"m2-k8s2c16", launchStaged<8, 2, 16, 2>}, {"m2-k4s2c32", launchStaged<4, 2, 32, 2>},
        {"m2-k8s3c16", launchStaged<8, 3, 16, 2>}, {"m2-k4s4c16", launchStaged<4, 4, 16, 2>}};
    const Variant shflVariants[] = {
        {"s-u4r1", launchSimt<4, 1>},          {"sh-ks1u1", launchShfl<1, 1>},
        {"sh-ks1u2", launchShfl<1, 2>},        {"sh-ks2u1", launchShfl<2, 1>},
        {"sh-ks2u2", launchShfl<2, 2>},        {"sh-ks4u1", launchShfl<4, 1>},
        {"sh-ks8u1", launchShfl<8, 1>},        {"m2-k8s2c16", launchStaged<8, 2, 16, 2>}};
    std::vector<Variant> variants(std::begin(mmaVariants), std::end(mmaVariants));
    if (shfl) // the staged form takes at most 8 tokens
      variants.assign(std::begin(shflVariants), std::end(shflVariants) - (s.M > 8 ? 1 : 0));
    if (simt) variants.assign(std::begin(simtVariants), std::end(simtVariants));
    if (staged) variants.assign(std::begin(stagedVariants), std::end(stagedVariants));
    for (const Variant &v : variants) {
      // Poison D, run once, compare every element with cuBLAS.
      CK(cudaMemsetAsync(D, 0xff, (size_t)s.M * s.N * 2, st));
      v.fn(A, Bs[0], D, s, st);
      CK(cudaGetLastError());
      CK(cudaMemcpyAsync(got.data(), D, got.size() * 2, cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
      double maxErr = 0, maxRef = 0;
      bool nan = false;
      for (size_t i = 0; i < got.size(); ++i) {
        const double a = __half2float(got[i]), b = __half2float(ref[i]);
        nan |= std::isnan(a);
        maxErr = std::max(maxErr, std::fabs(a - b));
        maxRef = std::max(maxRef, std::fabs(b));
      }
      const float tv = timeIt([&](const __half *B) { v.fn(A, B, D, s, st); });
      CK(cudaGetLastError());
      const double bytes = (double)bElems * 2;
      char shape[32];
      std::snprintf(shape, sizeof shape, "%dx%dx%d", s.M, s.N, s.K);
      std::printf("%-16s %-10s %9.2f %8.2f %9.2f %9.2f %7.3f %10.3g%s\n", shape, v.name, tv,
                  bytes / tv / 1e6, tc, bytes / tc / 1e6, tc / tv, maxErr,
                  nan || maxErr > 0.02 * maxRef + 0.05 ? "  FAIL" : "");
    }
    for (__half *b : Bs) CK(cudaFree(b));
    CK(cudaFree(A));
    CK(cudaFree(D));
    CK(cudaFree(Dref));
  }
  return 0;
}

// tools/proto/harness.cu — correctness + benchmark harness for the hand-written sm_90a reference
// GEMM (tools/proto/ws_gemm_sm90.cu), side by side with cuBLAS.
//
//   harness list                         variants compiled in
//   harness check [filter]               correctness shape list, every variant matching filter
//   harness shape M N K [filter]         correctness for one shape
//   harness bench M N K [filter]         timing vs cuBLAS (per dtype of the matching variants)
//
// Build (see tools/proto/README.md):
//   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iruntime/include \
//        -o build-proto/harness tools/proto/harness.cu -L/usr/local/cuda/lib64/stubs -lcublas -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gemmgen/device/sm90_ptx.cuh"

// ---- kernel variants: the one kernel file included under different constants ----------------
// 128x256x64, 2 consumers, 4 stages, no cluster
namespace v_f16_256_c2_s4 {
#define GG_KERNEL_NAME gg_f16_128x256_c2_s4
#define GG_BF16 0
#define GG_CLUSTER_M 1
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s4 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s4
#define GG_BF16 1
#define GG_CLUSTER_M 1
#include "ws_gemm_sm90.cu"
}
// 128x256x64, 2 consumers, 4 stages, 2x1 cluster with B multicast
namespace v_f16_256_c2_s4_cl2 {
#define GG_KERNEL_NAME gg_f16_128x256_c2_s4_cl2
#define GG_BF16 0
#define GG_CLUSTER_M 2
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s4_cl2 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s4_cl2
#define GG_BF16 1
#define GG_CLUSTER_M 2
#include "ws_gemm_sm90.cu"
}
// 128x256x64, 2 consumers, 3 stages, cluster 2, full-width epilogue buffer (store overlaps next tile)
namespace v_f16_256_c2_s3_cl2_epi256 {
#define GG_KERNEL_NAME gg_f16_128x256_c2_s3_cl2_epi256
#define GG_BF16 0
#define GG_CLUSTER_M 2
#define GG_STAGES 3
#define GG_EPI_COLS 256
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s3_cl2_epi256 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s3_cl2_epi256
#define GG_BF16 1
#define GG_CLUSTER_M 2
#define GG_STAGES 3
#define GG_EPI_COLS 256
#include "ws_gemm_sm90.cu"
}
// 128x256x64, 2 consumers, 3 stages, no cluster, full-width epilogue buffer
namespace v_f16_256_c2_s3_epi256 {
#define GG_KERNEL_NAME gg_f16_128x256_c2_s3_epi256
#define GG_BF16 0
#define GG_CLUSTER_M 1
#define GG_STAGES 3
#define GG_EPI_COLS 256
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s3_epi256 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s3_epi256
#define GG_BF16 1
#define GG_CLUSTER_M 1
#define GG_STAGES 3
#define GG_EPI_COLS 256
#include "ws_gemm_sm90.cu"
}
// 128x256x64, 2 consumers, 4 stages, no cluster, grouped raster with 16 tile-rows per group
namespace v_f16_256_c2_s4_g16 {
#define GG_KERNEL_NAME gg_f16_128x256_c2_s4_g16
#define GG_BF16 0
#define GG_CLUSTER_M 1
#define GG_GROUP_M 16
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s4_g16 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s4_g16
#define GG_BF16 1
#define GG_CLUSTER_M 1
#define GG_GROUP_M 16
#include "ws_gemm_sm90.cu"
}
// cluster experiments (bf16): clustered launch without multicast
namespace v_bf16_256_c2_s4_cl2m1 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s4_cl2_mode1
#define GG_BF16 1
#define GG_CLUSTER_M 2
#define GG_CLUSTER_MODE 1
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_256_c2_s4_cl2m0 {
#define GG_KERNEL_NAME gg_bf16_128x256_c2_s4_cl2_mode0
#define GG_BF16 1
#define GG_CLUSTER_M 2
#define GG_CLUSTER_MODE 0
#include "ws_gemm_sm90.cu"
}
// 128x128x64, 1 consumer (two m64 atoms), 5 stages, no cluster — the tutorial's default spec
namespace v_f16_128_c1_s5 {
#define GG_KERNEL_NAME gg_f16_128x128_c1_s5
#define GG_BF16 0
#define GG_BN 128
#define GG_CONSUMERS 1
#define GG_CLUSTER_M 1
#define GG_STAGES 5
#define GG_CONSUMER_REGS 240
#include "ws_gemm_sm90.cu"
}
namespace v_bf16_128_c1_s5 {
#define GG_KERNEL_NAME gg_bf16_128x128_c1_s5
#define GG_BF16 1
#define GG_BN 128
#define GG_CONSUMERS 1
#define GG_CLUSTER_M 1
#define GG_STAGES 5
#define GG_CONSUMER_REGS 240
#include "ws_gemm_sm90.cu"
}

typedef void (*KernelFn)(gemmgen::sm90::TensorMap, gemmgen::sm90::TensorMap, gemmgen::sm90::TensorMap, int, int,
                         int);

struct Variant {
  const char* name;
  bool bf16;
  int bm, bn, consumers, cluster_m, wg_rows, stages, threads, smem, b_box_rows;
  const void* fn;
};

#define GG_VARIANT_ROW(NS, NAME)                                                                    \
  Variant {                                                                                         \
    #NAME, NS::ELEM == gemmgen::sm90::ELEM_BF16, NS::BM, NS::BN, NS::CONSUMERS, NS::CLUSTER_M,       \
        NS::WG_ROWS, NS::STAGES, NS::THREADS, NS::SMEM_BYTES, NS::B_BOX_ROWS, (const void*)&NS::NAME                 \
  }

static std::vector<Variant> all_variants() {
  return {
      GG_VARIANT_ROW(v_f16_256_c2_s4, gg_f16_128x256_c2_s4),
      GG_VARIANT_ROW(v_bf16_256_c2_s4, gg_bf16_128x256_c2_s4),
      GG_VARIANT_ROW(v_f16_256_c2_s4_cl2, gg_f16_128x256_c2_s4_cl2),
      GG_VARIANT_ROW(v_bf16_256_c2_s4_cl2, gg_bf16_128x256_c2_s4_cl2),
      GG_VARIANT_ROW(v_f16_256_c2_s3_cl2_epi256, gg_f16_128x256_c2_s3_cl2_epi256),
      GG_VARIANT_ROW(v_bf16_256_c2_s3_cl2_epi256, gg_bf16_128x256_c2_s3_cl2_epi256),
      GG_VARIANT_ROW(v_f16_256_c2_s3_epi256, gg_f16_128x256_c2_s3_epi256),
      GG_VARIANT_ROW(v_bf16_256_c2_s3_epi256, gg_bf16_128x256_c2_s3_epi256),
      GG_VARIANT_ROW(v_f16_256_c2_s4_g16, gg_f16_128x256_c2_s4_g16),
      GG_VARIANT_ROW(v_bf16_256_c2_s4_g16, gg_bf16_128x256_c2_s4_g16),
      GG_VARIANT_ROW(v_bf16_256_c2_s4_cl2m1, gg_bf16_128x256_c2_s4_cl2_mode1),
      GG_VARIANT_ROW(v_bf16_256_c2_s4_cl2m0, gg_bf16_128x256_c2_s4_cl2_mode0),
      GG_VARIANT_ROW(v_f16_128_c1_s5, gg_f16_128x128_c1_s5),
      GG_VARIANT_ROW(v_bf16_128_c1_s5, gg_bf16_128x128_c1_s5),
  };
}

// ---- error checking ---------------------------------------------------------------------------
#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)
#define CKB(x)                                                                          \
  do {                                                                                  \
    cublasStatus_t s_ = (x);                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)
#define CKD(x)                                                                         \
  do {                                                                                 \
    CUresult r_ = (x);                                                                 \
    if (r_ != CUDA_SUCCESS) {                                                          \
      const char* s_ = nullptr;                                                        \
      cuGetErrorString(r_, &s_);                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");      \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

// ---- device helpers: RNG fill, poison, error reduction ----------------------------------------
__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

__device__ __forceinline__ unsigned short f32_to_16(float v, bool bf16) {
  if (bf16) {
    unsigned u = __float_as_uint(v);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
  }
  return __half_as_ushort(__float2half_rn(v));
}

__device__ __forceinline__ float f16_to_32(unsigned short v, bool bf16) {
  if (bf16) return __uint_as_float(((unsigned)v) << 16);
  return __half2float(__ushort_as_half(v));
}

// Standard normal values (Box-Muller over a counter hash), rounded to the 16-bit type.
__global__ void fill_normal(unsigned short* p, size_t n, unsigned long long seed, bool bf16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long h = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f);  // (0, 1]
    float u2 = ((h & 0xffffffull)) * (1.0f / 16777216.0f);
    float v = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    p[i] = f32_to_16(v, bf16);
  }
}

// Sum of squared differences over the valid M x N region (row stride ld), sum of squares of the
// reference, count of non-finite outputs (poison is NaN), count of bit differences vs `other`.
__global__ void compare(const unsigned short* d, const unsigned short* ref, const unsigned short* other, int M, int N,
                        int ld, bool bf16, double* acc, unsigned long long* cnt) {
  double s_diff = 0, s_ref = 0;
  unsigned long long bad = 0, mism = 0;
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    size_t r = i / N, c = i % N, off = r * ld + c;
    float x = f16_to_32(d[off], bf16), y = f16_to_32(ref[off], bf16);
    if (!isfinite(x)) {
      ++bad;
    } else {
      double df = (double)x - (double)y;
      s_diff += df * df;
    }
    s_ref += (double)y * (double)y;
    if (other && other[off] != d[off]) ++mism;
  }
  for (int o = 16; o > 0; o >>= 1) {
    s_diff += __shfl_down_sync(0xffffffffu, s_diff, o);
    s_ref += __shfl_down_sync(0xffffffffu, s_ref, o);
    bad += __shfl_down_sync(0xffffffffu, bad, o);
    mism += __shfl_down_sync(0xffffffffu, mism, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&acc[0], s_diff);
    atomicAdd(&acc[1], s_ref);
    atomicAdd(&cnt[0], bad);
    atomicAdd(&cnt[1], mism);
  }
}

// ---- host side ----------------------------------------------------------------------------------
static int g_num_sms = 0;

static void make_map(CUtensorMap* tm, void* ptr, bool bf16, int inner, int outer, int ld_elems, int box_inner,
                     int box_outer) {
  cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
  cuuint64_t strides[1] = {(cuuint64_t)ld_elems * 2};
  cuuint32_t box[2] = {(cuuint32_t)box_inner, (cuuint32_t)box_outer};
  cuuint32_t estr[2] = {1, 1};
  CKD(cuTensorMapEncodeTiled(tm, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, ptr,
                             dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

struct Launch {
  const Variant* v;
  CUtensorMap ta, tb, td;
  int M, N, K;
  dim3 grid;
};

static Launch prepare(const Variant& v, void* A, void* B, void* D, int M, int N, int K, int ldd) {
  Launch L;
  L.v = &v;
  L.M = M, L.N = N, L.K = K;
  make_map(&L.ta, A, v.bf16, K, M, K, 64, v.bm);
  make_map(&L.tb, B, v.bf16, K, N, K, 64, v.b_box_rows);
  make_map(&L.td, D, v.bf16, N, M, ldd, 64, v.wg_rows);
  long tiles_m = (M + v.bm - 1) / v.bm, tiles_n = (N + v.bn - 1) / v.bn;
  long ctiles = ((tiles_m + v.cluster_m - 1) / v.cluster_m) * tiles_n;
  long max_clusters = g_num_sms / v.cluster_m;
  if (v.cluster_m > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(g_num_sms / v.cluster_m * v.cluster_m);
    cfg.blockDim = dim3(v.threads);
    cfg.dynamicSmemBytes = v.smem;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = v.cluster_m, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
    cfg.attrs = at, cfg.numAttrs = 1;
    int n = 0;
    CK(cudaOccupancyMaxActiveClusters(&n, v.fn, &cfg));
    if (n <= 0) {
      fprintf(stderr, "%s: cudaOccupancyMaxActiveClusters = %d\n", v.name, n);
      exit(2);
    }
    static const char* said = nullptr;
    if (said != v.name) printf("cudaOccupancyMaxActiveClusters(%s) = %d\n", v.name, n), said = v.name;
    if (!getenv("GG_IGNORE_CLUSTER_OCC")) max_clusters = std::min<long>(max_clusters, n);
  }
  if (const char* g = getenv("GG_MAX_CTAS")) max_clusters = std::min<long>(max_clusters, atoi(g) / v.cluster_m);
  long clusters = std::max<long>(1, std::min<long>(max_clusters, ctiles));
  L.grid = dim3((unsigned)(clusters * v.cluster_m));
  return L;
}

static void launch(const Launch& L, cudaStream_t s) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = L.grid;
  cfg.blockDim = dim3(L.v->threads);
  cfg.dynamicSmemBytes = L.v->smem;
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = L.v->cluster_m, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
  cfg.attrs = at, cfg.numAttrs = L.v->cluster_m > 1 ? 1 : 0;
  void* args[6] = {(void*)&L.ta, (void*)&L.tb, (void*)&L.td, (void*)&L.M, (void*)&L.N, (void*)&L.K};
  CK(cudaLaunchKernelExC(&cfg, L.v->fn, args));
}

static cublasHandle_t g_blas;

static void cublas_gemm(bool bf16, const void* A, const void* B, void* D, int M, int N, int K, int ldd,
                        cudaStream_t s) {
  // Row-major D[M,N] = A[M,K] B[N,K]^T  <=>  column-major D^T[N,M] = B^T(op T on K x N) * A^T
  const float one = 1.0f, zero = 0.0f;
  cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  CKB(cublasSetStream(g_blas, s));
  CKB(cublasGemmEx(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, t, K, A, t, K, &zero, D, t, ldd,
                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static void fill(void* p, size_t n, unsigned long long seed, bool bf16) {
  fill_normal<<<1024, 256>>>((unsigned short*)p, n, seed, bf16);
  CK(cudaGetLastError());
}

static unsigned long long g_seed = 12345;

struct CheckResult {
  double rel;
  unsigned long long nonfinite, nondet;
};

// One correctness check: fresh random A, B; D poisoned (0xFFFF = NaN) before each of two runs;
// relative Frobenius error vs cuBLAS, non-finite count, bitwise differences between the two runs.
static CheckResult check_one(const Variant& v, int M, int N, int K) {
  int ldd = (N + 7) / 8 * 8;  // TMA needs 16-byte row strides: pad D's row when N % 8 != 0
  size_t na = (size_t)M * K, nb = (size_t)N * K, nd = (size_t)M * ldd;
  void *A, *B, *D, *D2, *R;
  CK(cudaMalloc(&A, na * 2));
  CK(cudaMalloc(&B, nb * 2));
  CK(cudaMalloc(&D, nd * 2));
  CK(cudaMalloc(&D2, nd * 2));
  CK(cudaMalloc(&R, nd * 2));
  fill(A, na, ++g_seed, v.bf16);
  fill(B, nb, ++g_seed, v.bf16);
  CK(cudaMemset(R, 0xFF, nd * 2));
  cublas_gemm(v.bf16, A, B, R, M, N, K, ldd, 0);
  Launch L = prepare(v, A, B, D, M, N, K, ldd);
  Launch L2 = prepare(v, A, B, D2, M, N, K, ldd);
  CK(cudaMemset(D, 0xFF, nd * 2));
  CK(cudaMemset(D2, 0xFF, nd * 2));
  launch(L, 0);
  CK(cudaGetLastError());
  launch(L2, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  double* acc;
  unsigned long long* cnt;
  CK(cudaMalloc(&acc, 2 * sizeof(double)));
  CK(cudaMalloc(&cnt, 2 * sizeof(unsigned long long)));
  CK(cudaMemset(acc, 0, 2 * sizeof(double)));
  CK(cudaMemset(cnt, 0, 2 * sizeof(unsigned long long)));
  compare<<<1024, 256>>>((const unsigned short*)D, (const unsigned short*)R, (const unsigned short*)D2, M, N, ldd,
                         v.bf16, acc, cnt);
  CK(cudaGetLastError());
  double h[2];
  unsigned long long c[2];
  CK(cudaMemcpy(h, acc, sizeof(h), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c, cnt, sizeof(c), cudaMemcpyDeviceToHost));
  for (void* p : {A, B, D, D2, R}) CK(cudaFree(p));
  CK(cudaFree(acc));
  CK(cudaFree(cnt));
  CheckResult r;
  r.rel = h[1] > 0 ? std::sqrt(h[0] / h[1]) : std::sqrt(h[0]);
  r.nonfinite = c[0];
  r.nondet = c[1];
  return r;
}

static bool matches(const Variant& v, const char* filter) {
  if (!filter || !*filter || !strcmp(filter, "all")) return true;
  // comma-separated substrings, any match
  std::string f(filter);
  size_t pos = 0;
  while (pos <= f.size()) {
    size_t e = f.find(',', pos);
    if (e == std::string::npos) e = f.size();
    std::string part = f.substr(pos, e - pos);
    if (!part.empty() && strstr(v.name, part.c_str())) return true;
    pos = e + 1;
  }
  return false;
}

// Tolerance: both sides accumulate in f32 and round once to the 16-bit output; the difference is
// dominated by that final rounding (half an ulp: 2^-11 f16, 2^-8 bf16, relative) plus f32
// summation-order noise (~1e-6). A wrong or missing k-block or tile moves the error to >= ~1e-1.
static double tolerance(bool bf16) { return bf16 ? 1e-2 : 5e-3; }

static int run_checks(const std::vector<Variant>& vs, const char* filter, const std::vector<int>& shapes) {
  int fails = 0;
  printf("%-32s %6s %6s %6s  %10s %9s %7s  %s\n", "variant", "M", "N", "K", "rel_err", "nonfinite", "nondet",
         "result");
  for (const Variant& v : vs) {
    if (!matches(v, filter)) continue;
    for (size_t i = 0; i + 2 < shapes.size(); i += 3) {
      int M = shapes[i], N = shapes[i + 1], K = shapes[i + 2];
      CheckResult r = check_one(v, M, N, K);
      bool ok = r.rel <= tolerance(v.bf16) && r.nonfinite == 0 && r.nondet == 0;
      fails += !ok;
      printf("%-32s %6d %6d %6d  %10.3e %9llu %7llu  %s\n", v.name, M, N, K, r.rel, r.nonfinite, r.nondet,
             ok ? "PASS" : "FAIL");
      fflush(stdout);
    }
  }
  return fails;
}

// Benchmark: several input sets rotated so L2 cannot hold them, warm-up, interleaved rounds,
// CUDA events, median per implementation.
static void bench(const std::vector<Variant>& vs, const char* filter, int M, int N, int K, int rounds) {
  for (int dt = 0; dt < 2; ++dt) {
    bool bf16 = dt == 1;
    std::vector<const Variant*> sel;
    for (const Variant& v : vs)
      if (v.bf16 == bf16 && matches(v, filter)) sel.push_back(&v);
    if (sel.empty()) continue;
    int ldd = (N + 7) / 8 * 8;
    size_t na = (size_t)M * K, nb = (size_t)N * K, nd = (size_t)M * ldd;
    size_t set_bytes = (na + nb + nd) * 2;
    int nsets = (int)std::min<size_t>(16, std::max<size_t>(2, (size_t)(400ull << 20) / set_bytes + 1));
    std::vector<void*> A(nsets), B(nsets), D(nsets);
    for (int s = 0; s < nsets; ++s) {
      CK(cudaMalloc(&A[s], na * 2));
      CK(cudaMalloc(&B[s], nb * 2));
      CK(cudaMalloc(&D[s], nd * 2));
      fill(A[s], na, ++g_seed, bf16);
      fill(B[s], nb, ++g_seed, bf16);
      CK(cudaMemset(D[s], 0xFF, nd * 2));
    }
    std::vector<std::vector<Launch>> L(sel.size());
    for (size_t i = 0; i < sel.size(); ++i)
      for (int s = 0; s < nsets; ++s) L[i].push_back(prepare(*sel[i], A[s], B[s], D[s], M, N, K, ldd));
    double flop = 2.0 * M * N * (double)K;
    // iterations per timed batch: about 2 ms of work at ~700 TFLOP/s, at least nsets
    int iters = (int)std::max<double>(nsets, std::min<double>(200, 2e-3 * 700e12 / flop));
    iters = (iters + nsets - 1) / nsets * nsets;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int nimpl = (int)sel.size() + 1;  // impl 0 = cuBLAS
    auto run_impl = [&](int impl, int n) {
      for (int it = 0; it < n; ++it) {
        int s = it % nsets;
        if (impl == 0)
          cublas_gemm(bf16, A[s], B[s], D[s], M, N, K, ldd, 0);
        else
          launch(L[impl - 1][s], 0);
      }
    };
    for (int impl = 0; impl < nimpl; ++impl) run_impl(impl, iters);  // warm-up
    CK(cudaDeviceSynchronize());
    std::vector<std::vector<float>> ms(nimpl);
    for (int r = 0; r < rounds; ++r) {
      for (int k = 0; k < nimpl; ++k) {
        int impl = (k + r) % nimpl;  // rotate the order each round
        CK(cudaEventRecord(e0));
        run_impl(impl, iters);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms[impl].push_back(t / iters);
      }
    }
    auto med = [](std::vector<float> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    auto spread = [](std::vector<float> v) {
      std::sort(v.begin(), v.end());
      return (v.back() - v.front()) / v[v.size() / 2];
    };
    double t_blas = med(ms[0]);
    printf("BENCH %-5s %5d %5d %5d  %-32s %8.4f ms %7.1f TFLOP/s  spread %4.1f%%\n", bf16 ? "bf16" : "f16", M, N, K,
           "cublas", t_blas, flop / t_blas * 1e-9, 100 * spread(ms[0]));
    for (int i = 1; i < nimpl; ++i) {
      double t = med(ms[i]);
      printf("BENCH %-5s %5d %5d %5d  %-32s %8.4f ms %7.1f TFLOP/s  spread %4.1f%%  ratio(cublas/ours) %.3f  grid %u\n",
             bf16 ? "bf16" : "f16", M, N, K, sel[i - 1]->name, t, flop / t * 1e-9, 100 * spread(ms[i]), t_blas / t,
             L[i - 1][0].grid.x);
    }
    fflush(stdout);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    for (int s = 0; s < nsets; ++s) {
      CK(cudaFree(A[s]));
      CK(cudaFree(B[s]));
      CK(cudaFree(D[s]));
    }
  }
}

int main(int argc, char** argv) {
  std::vector<Variant> vs = all_variants();
  if (argc < 2 || !strcmp(argv[1], "list")) {
    for (const Variant& v : vs)
      printf("%-32s %s BM=%d BN=%d consumers=%d cluster_m=%d stages=%d threads=%d smem=%d\n", v.name,
             v.bf16 ? "bf16" : "f16", v.bm, v.bn, v.consumers, v.cluster_m, v.stages, v.threads, v.smem);
    if (argc < 2) printf("usage: harness list | check [filter] | shape M N K [filter] | bench M N K [filter] [rounds]\n");
    return 0;
  }
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_num_sms = prop.multiProcessorCount;
  printf("device: %s, %d SMs, L2 %d MB, smem/block optin %zu\n", prop.name, g_num_sms, prop.l2CacheSize >> 20,
         prop.sharedMemPerBlockOptin);
  CKB(cublasCreate(&g_blas));
  for (const Variant& v : vs) CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
  std::string mode = argv[1];
  if (mode == "check") {
    std::vector<int> shapes = {4096, 4096, 4096, 8192, 8192, 8192, 4000, 4000, 4000, 129, 257,  72,
                               1,    4096, 4096, 8192, 136,  8192, 4096, 4096, 8,    256, 256,  64};
    int f = run_checks(vs, argc > 2 ? argv[2] : nullptr, shapes);
    printf("CHECK %s (%d failures)\n", f ? "FAILED" : "PASSED", f);
    return f ? 1 : 0;
  }
  if (mode == "shape" && argc >= 5) {
    std::vector<int> shapes = {atoi(argv[2]), atoi(argv[3]), atoi(argv[4])};
    int f = run_checks(vs, argc > 5 ? argv[5] : nullptr, shapes);
    return f ? 1 : 0;
  }
  if (mode == "bench" && argc >= 5) {
    int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
    if (M <= 0 || N <= 0 || K <= 0 || K % 8) {
      fprintf(stderr, "bench: need M, N, K > 0 and K %% 8 == 0\n");
      return 2;
    }
    bench(vs, argc > 5 ? argv[5] : nullptr, M, N, K, argc > 6 ? atoi(argv[6]) : 15);
    return 0;
  }
  fprintf(stderr, "unknown mode\n");
  return 2;
}

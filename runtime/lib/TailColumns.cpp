//===- TailColumns.cpp - D's last columns when N is not a multiple of 8 ---===//
//
// A TMA store writes whole 16-byte chunks of a row. When a 16-bit D has
// N % 8 != 0, the chunk holding column N-1 also covers up to 7 columns past
// N, and the store writes them: on the H200, 129×257×72 with ldd = 264
// overwrote columns 257..263 of all 129 rows (903 elements). So D's tensor
// map ends at the last whole chunk, N8 = N rounded down to a multiple of 8,
// and this small SIMT kernel computes columns [N8, N) on the same stream:
// one warp per row of D, 16-byte loads along K, f32 accumulation, alpha and
// beta·C, the same round-to-nearest conversion as the GEMM kernel's epilogue
// (f32 D: none), every batch entry. The same helper module holds gg_copy2d,
// the staging path's copy (Staging.cpp); ensureHelperModule builds both.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>

using namespace gemmgen;

static const char *kTailSource = R"CUDA(
#include "gemmgen/device/epilogue_ops.cuh"
typedef unsigned short u16;
typedef unsigned int u32;

__device__ __forceinline__ float to_f32(u32 bits16, int bf16) {
  if (bf16) return __uint_as_float(bits16 << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((u16)bits16));
  return f;
}
__device__ __forceinline__ u16 to_16(float f, int bf16) {
  u16 h;
  if (bf16) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// 16 bytes read once: not kept in L1 (the narrow kernels stream whole
// weight matrices through it).
__device__ __forceinline__ uint4 ld_stream(const void *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
// Words of A's row each lane loads before its FMAs (here and in the narrow
// kernels): four led eight and sixteen at every M = 1 shape of
// bench/h200-gemv-simt.sh on the H200 (1x6144x4096 15.2 us against 18.3 and 19.7).
constexpr int kRowWordsInFlight = 4;
// A lane's kRowWordsInFlight 16-byte words of a K-major row from element k0
// (a warp's lanes 8 elements apart, its words 256 apart), zeros past K.
__device__ __forceinline__ void load_row_words(const u16 *a, long long k0, int K,
                                               uint4 (&av)[kRowWordsInFlight]) {
#pragma unroll
  for (int u = 0; u < kRowWordsInFlight; ++u)
    av[u] = k0 + 256 * u < K ? ld_stream(a + k0 + 256 * u) : make_uint4(0, 0, 0, 0);
}

__device__ __forceinline__ float dot8(uint4 a, uint4 b, int bf16) {
  const u32 av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    s = fmaf(to_f32(av[i] & 0xffffu, bf16), to_f32(bv[i] & 0xffffu, bf16), s);
    s = fmaf(to_f32(av[i] >> 16, bf16), to_f32(bv[i] >> 16, bf16), s);
  }
  return s;
}

// D[m, n0 + j] = sum_k A[m, k] * B[k, n0 + j] for j < cols (cols <= 8), with
// A[m, k] at A[m * sam + k * sak] and B[k, n] at B[n * sbn + k * sbk], D's
// (and C's) element (m, n) at m * ldd + n * d_cs (m * ldc + n * c_cs): d_cs 1
// for D's last columns, ldd for the narrow path's D^T. When both are K-major
// (sak = sbk = 1) K, lda, ldb are multiples of 8 and A, B 16-byte aligned
// (the pre-launch checks): 16-byte loads along K, kRowWordsInFlight of A's
// per lane before the FMAs, A streamed past L1 (each row is read once).
// Otherwise one element per lane and step.
__device__ void tail_row(const u16 *A, const u16 *B, void *D, long long m, int lane, int K,
                         long long sam, long long sak, long long sbn, long long sbk,
                         long long ldd, long long d_cs, int n0, int cols, int bf16, float alpha,
                         float beta, const void *C, long long ldc, long long c_cs, int out_f32,
                         const gemmgen::epilogue::Chain &chain, long long entry);

// Batched: entry l's operands start l * stride_x elements further; blockIdx.y
// walks the entries (grid y is capped, so it strides by gridDim.y).
extern "C" __global__ void __launch_bounds__(256)
gg_tail_columns(const u16 *A, const u16 *B, void *D, int M, int K, long long sam, long long sak,
                long long sbn, long long sbk, long long ldd, long long d_cs, int n0, int cols,
                int bf16, int batch, long long stride_a, long long stride_b, long long stride_d,
                float alpha, float beta, const void *C, long long ldc, long long c_cs,
                long long stride_c, int out_f32, gemmgen::epilogue::Chain chain) {
  const long long m = (long long)blockIdx.x * 8 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (m >= M) return;
  const long long out_bytes = out_f32 ? 4 : 2;  // D and C elements
  for (long long l = blockIdx.y; l < batch; l += gridDim.y)
    tail_row(A + l * stride_a, B + l * stride_b, (char *)D + l * stride_d * out_bytes, m, lane, K,
             sam, sak, sbn, sbk, ldd, d_cs, n0, cols, bf16, alpha, beta,
             (const char *)C + l * stride_c * out_bytes, ldc, c_cs, out_f32, chain, l);
}

// D = chain(alpha * acc, beta * C) (C row-major with ldc, read only when beta != 0; the
// kernel's epilogue chain, none: alpha * acc + beta * C); D and C 16-bit, or f32 when out_f32.
__device__ void tail_row(const u16 *A, const u16 *B, void *D, long long m, int lane, int K,
                         long long sam, long long sak, long long sbn, long long sbk,
                         long long ldd, long long d_cs, int n0, int cols, int bf16, float alpha,
                         float beta, const void *C, long long ldc, long long c_cs, int out_f32,
                         const gemmgen::epilogue::Chain &chain, long long entry) {
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  if (sak == 1 && sbk == 1 && K % 8 == 0) {
    const u16 *a = A + m * sam;
    for (long long k0 = lane * 8; k0 < K; k0 += 256 * kRowWordsInFlight) {
      uint4 av[kRowWordsInFlight];
      load_row_words(a, k0, K, av);
#pragma unroll
      for (int u = 0; u < kRowWordsInFlight; ++u) {
        const long long k = k0 + 256 * u;
        if (k >= K)
          break;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          if (j < cols)
            acc[j] += dot8(av[u], *reinterpret_cast<const uint4 *>(B + (n0 + j) * sbn + k), bf16);
      }
    }
  } else {
    for (long long k = lane; k < K; k += 32) {
      const float av = to_f32(A[m * sam + k * sak], bf16);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (j < cols)
          acc[j] = fmaf(av, to_f32(B[(n0 + j) * sbn + k * sbk], bf16), acc[j]);
    }
  }
#pragma unroll
  for (int j = 0; j < 8; ++j)
    for (int o = 16; o > 0; o /= 2) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], o);
  if (lane < cols) {
    float v = acc[0];
#pragma unroll
    for (int j = 1; j < 8; ++j)
      if (lane == j) v = acc[j];
    const long long c_at = m * ldc + (n0 + lane) * c_cs, d_at = m * ldd + (n0 + lane) * d_cs;
    const float cb = beta != 0.f
        ? beta * (out_f32 ? ((const float *)C)[c_at] : to_f32(((const u16 *)C)[c_at], bf16))
        : 0.f;
    v = gemmgen::epilogue::apply_chain(chain, alpha * v, cb, m, n0 + lane, entry);
    if (out_f32) ((float *)D)[d_at] = v;
    else ((u16 *)D)[d_at] = to_16(v, bf16);
  }
}
// Split-K: D = alpha * (sum of the f32 slices) + beta * C in D's type (out_kind 0 f16, 1 bf16,
// 2 f32), slices summed in order (deterministic); any alignment of D and C. W is row-major;
// D and C are row-major or column-major (d_col_major), the threads walking along D's lines.
extern "C" __global__ void __launch_bounds__(256)
gg_splitk_reduce(const float *w, long long slices, long long m, long long n, long long ldw,
                 long long stride_w, void *d, long long ldd, int d_col_major, int out_kind,
                 float alpha, float beta, const void *c, long long ldc) {
  // Launched as a programmatic dependent of the split kernel (which lets it be
  // scheduled early): nothing of W is read before that grid has finished and
  // its writes are visible. Without such a launch the wait returns at once.
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const long long total = m * n;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = d_col_major ? i % m : i / n, col = d_col_major ? i / m : i % n;
    const long long d_at = d_col_major ? col * ldd + r : r * ldd + col;
    const long long c_at = d_col_major ? col * ldc + r : r * ldc + col;
    float s = 0.f;
    for (long long k = 0; k < slices; ++k) s += w[k * stride_w + r * ldw + col];
    float v = alpha * s;
    if (beta != 0.f) {
      const float cv = out_kind == 2 ? ((const float *)c)[c_at]
                                     : to_f32(((const u16 *)c)[c_at], out_kind);
      v = fmaf(beta, cv, v);
    }
    if (out_kind == 2)
      ((float *)d)[d_at] = v;
    else
      ((u16 *)d)[d_at] = to_16(v, out_kind);
  }
}

// The staging path's copy of lines in words of T: `batch` entries (`ss` /
// `ds` words apart) of `lines` runs of `run` words, `sl` / `dl` words apart.
// The host (copyLaunchOf in Staging.cpp) picks the word, the form and the
// grid; every count arrives in words, so no thread divides by a width.
// A block per line (long runs): its threads along it, each thread's
// kWordsInFlight loads issued before its stores (one word per trip left a
// 1001-element line four round trips long). Otherwise one word per thread.
// Why no division per thread: a 64-bit division is ~70 instructions, and
// with the width found per thread and ~3900 blocks launched for 1000 lines
// the copy was issue-bound (1000x1000x1001: 12.5 us a copy, SM throughput
// 56%, DRAM 3.4%; bench/h200-decode-occ3.sh's ncu, 2026-12-05).
constexpr int kWordsInFlight = 4;

template <typename T>
__device__ __forceinline__ void copy_lines(const void *src, long long sl, void *dst, long long dl,
                                           long long lines, long long run, long long batch,
                                           long long ss, long long ds, int line_per_block) {
  const T *s = (const T *)src;
  T *d = (T *)dst;
  const long long rows = batch * lines;
  if (line_per_block) {
    const long long step = (long long)blockDim.x * kWordsInFlight;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
      const long long b = batch == 1 ? 0 : r / lines, l = r - b * lines;
      const T *from = s + b * ss + l * sl;
      T *to = d + b * ds + l * dl;
      for (long long w0 = threadIdx.x; w0 < run; w0 += step) {
        T word[kWordsInFlight];
#pragma unroll
        for (int u = 0; u < kWordsInFlight; ++u)
          if (w0 + u * (long long)blockDim.x < run)
            word[u] = from[w0 + u * (long long)blockDim.x];
#pragma unroll
        for (int u = 0; u < kWordsInFlight; ++u)
          if (w0 + u * (long long)blockDim.x < run)
            to[w0 + u * (long long)blockDim.x] = word[u];
      }
    }
    return;
  }
  const long long all = rows * run;
  const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  if (all + stride <= 0xffffffffLL) { // 32-bit divisions where every index fits
    const unsigned run32 = (unsigned)run, lines32 = (unsigned)lines;
    for (unsigned i = (unsigned)first; i < (unsigned)all; i += (unsigned)stride) {
      const unsigned r = i / run32, w = i - r * run32, b = r / lines32, l = r - b * lines32;
      d[b * ds + l * dl + w] = s[b * ss + l * sl + w];
    }
    return;
  }
  for (long long i = first; i < all; i += stride) {
    const long long r = i / run, w = i - r * run, b = r / lines, l = r - b * lines;
    d[b * ds + l * dl + w] = s[b * ss + l * sl + w];
  }
}

// The staging path's copy (any alignment): the host's word size (16, 8, 4,
// 2 or 1 bytes: the widest every address, pitch and run is a whole number
// of), counts in words. Element by element with two 64-bit divisions per
// element the copy ran at ~1.1 TB/s with 16-byte lines (bench/h200-straddle.sh);
// 4096x1x4100's A in words, a block per line, 0.05 ms (bench/h200-copy-words.sh),
// 0.045 with four words in flight (bench/h200-decode-deep.sh); cutting lines
// into segments for every block was slower (bench/h200-copy-segments.sh).
extern "C" __global__ void __launch_bounds__(256)
gg_copy2d(const void *src, long long sl, void *dst, long long dl, long long lines,
          long long run, long long batch, long long ss, long long ds, int word_bytes,
          int line_per_block) {
  if (word_bytes == 16)
    copy_lines<uint4>(src, sl, dst, dl, lines, run, batch, ss, ds, line_per_block);
  else if (word_bytes == 8)
    copy_lines<uint2>(src, sl, dst, dl, lines, run, batch, ss, ds, line_per_block);
  else if (word_bytes == 4)
    copy_lines<u32>(src, sl, dst, dl, lines, run, batch, ss, ds, line_per_block);
  else if (word_bytes == 2)
    copy_lines<u16>(src, sl, dst, dl, lines, run, batch, ss, ds, line_per_block);
  else
    copy_lines<unsigned char>(src, sl, dst, dl, lines, run, batch, ss, ds, line_per_block);
}

// The staging path's transposing copy: an 8-bit operand stored M- or N-major
// copied K-major (wgmma reads 8-bit types K-major only). `lines` x `length`
// as stored becomes `length` lines of `lines` elements. 64 x 64 tiles pass
// through shared memory so that both the reads (along the stored lines) and
// the writes (along the copy's) are consecutive; blocks of 64 x 4 threads
// walk the batch's tiles. Each thread issues its 16 loads before it stores
// any: one load in flight per thread held the first version to ~0.6 TB/s.
constexpr int kTransposeRowsPerPass = 4; // blockDim.y
template <typename T>
__device__ __forceinline__ void transpose_tiles(const T *s, long long sl, T *d, long long dl,
                                                long long lines, long long length,
                                                long long batch, long long ss, long long ds) {
  // Rows 4 bytes longer than 64 elements: an odd number of 4-byte words, so
  // the reads down a column (one element of each row) fall in 32 banks.
  constexpr int kRow = 64 + 4 / (int)sizeof(T), kPer = 64 / kTransposeRowsPerPass;
  __shared__ T tile[64][kRow];
  const long long across = (length + 63) / 64, tiles = (lines + 63) / 64 * across;
  const int x = threadIdx.x, y = threadIdx.y;
  for (long long t = blockIdx.x; t < batch * tiles; t += gridDim.x) {
    const long long b = t / tiles, l0 = (t % tiles) / across * 64, c0 = (t % across) * 64;
    T v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const long long l = l0 + y + i * kTransposeRowsPerPass;
      v[i] = l < lines && c0 + x < length ? s[b * ss + l * sl + c0 + x] : T(0);
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i)
      tile[y + i * kTransposeRowsPerPass][x] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const long long c = c0 + y + i * kTransposeRowsPerPass;
      if (c < length && l0 + x < lines)
        d[b * ds + c * dl + l0 + x] = tile[x][y + i * kTransposeRowsPerPass];
    }
    __syncthreads();
  }
}
// Bytes whose addresses and pitches are all multiples of 4: the same 64 x 64
// tiles moved in 4-byte words (a warp request carries 128 bytes, not 32),
// bytes one at a time only where a word crosses the end of a line.
__device__ __forceinline__ void transpose_byte_words(const unsigned char *s, long long sl,
                                                     unsigned char *d, long long dl,
                                                     long long lines, long long length,
                                                     long long batch, long long ss,
                                                     long long ds) {
  __shared__ __align__(4) unsigned char tile[64][68]; // 17 words a row: see transpose_tiles
  const long long across = (length + 63) / 64, tiles = (lines + 63) / 64 * across;
  const int id = threadIdx.y * 64 + threadIdx.x, w = id % 16, r0 = id / 16; // 16 words a row
  for (long long t = blockIdx.x; t < batch * tiles; t += gridDim.x) {
    const long long b = t / tiles, l0 = (t % tiles) / across * 64, c0 = (t % across) * 64;
    u32 v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) { // stored line l0 + r, bytes c0 + 4w .. + 3
      const long long l = l0 + r0 + 16 * i, c = c0 + 4 * w;
      const unsigned char *p = s + b * ss + l * sl + c;
      v[i] = 0;
      if (l < lines && c + 3 < length)
        v[i] = *(const u32 *)p;
      else if (l < lines)
        for (int j = 0; j < 4 && c + j < length; ++j)
          v[i] |= (u32)p[j] << (8 * j);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
      *(u32 *)&tile[r0 + 16 * i][4 * w] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; ++i) { // copy line c0 + cc, bytes l0 + 4w .. + 3
      const int cc = r0 + 16 * i;
      const long long c = c0 + cc, l = l0 + 4 * w;
      if (c >= length || l >= lines)
        continue;
      const u32 word = tile[4 * w][cc] | (u32)tile[4 * w + 1][cc] << 8 |
                       (u32)tile[4 * w + 2][cc] << 16 | (u32)tile[4 * w + 3][cc] << 24;
      unsigned char *q = d + b * ds + c * dl + l;
      if (l + 3 < lines)
        *(u32 *)q = word;
      else
        for (int j = 0; j < 4 && l + j < lines; ++j)
          q[j] = (unsigned char)(word >> (8 * j));
    }
    __syncthreads();
  }
}
extern "C" __global__ void __launch_bounds__(256)
gg_transpose2d(const void *src, long long sl, void *dst, long long dl, long long lines,
               long long length, long long batch, long long ss, long long ds, int elem_bytes) {
  const unsigned long long all = (unsigned long long)src | (unsigned long long)dst |
                                 (unsigned long long)sl | (unsigned long long)dl |
                                 (unsigned long long)ss | (unsigned long long)ds;
  if (elem_bytes == 2)
    transpose_tiles((const u16 *)src, sl, (u16 *)dst, dl, lines, length, batch, ss, ds);
  else if (all % 4 == 0)
    transpose_byte_words((const unsigned char *)src, sl, (unsigned char *)dst, dl, lines, length,
                         batch, ss, ds);
  else
    transpose_tiles((const unsigned char *)src, sl, (unsigned char *)dst, dl, lines, length,
                    batch, ss, ds);
}
)CUDA";

const std::string &gemmgen::helperModuleSource(bool chain) {
  static const std::string sources[2] = {std::string(kTailSource) + narrowKernelSource(false),
                                         std::string(kTailSource) + narrowKernelSource(true)};
  return sources[chain];
}

Status gemmgen::ensureHelperModule(const Kernel::Impl &k) {
  std::lock_guard<std::mutex> lock(k.tailMutex);
  if (k.tailFunction)
    return Status::success();
  Expected<std::shared_ptr<Module::Impl>> m =
      compileAndLoadModule(k.rt, helperModuleSource(k.abi.hasChain()), "gemmgen_tail_columns.cu",
                           k.options);
  if (!m)
    return Status::error(m.status().code(),
                         "the helper kernels (tail columns, staging copies, narrow path): " +
                             m.status().message());
  Expected<CUfunction> tail = Module(*m).function("gg_tail_columns");
  if (!tail)
    return tail.status();
  Expected<CUfunction> copy = Module(*m).function("gg_copy2d");
  if (!copy)
    return copy.status();
  Expected<CUfunction> reduce = Module(*m).function("gg_splitk_reduce");
  if (!reduce)
    return reduce.status();
  Expected<CUfunction> transpose = Module(*m).function("gg_transpose2d");
  if (!transpose)
    return transpose.status();
  if (Status s = loadNarrowFunctions(k, Module(*m)); !s)
    return s;
  k.tailModule = *m;
  k.copyFunction = *copy;
  k.reduceFunction = *reduce;
  k.transposeFunction = *transpose;
  k.tailFunction = *tail;
  return Status::success();
}

long long gemmgen::tmaStoreColumns(long long N, DType t) {
  const long long perChunk = 16 / (long long)sizeOf(t);
  return N / perChunk * perChunk;
}

Status gemmgen::prepareTailColumns(const Kernel::Impl &k, const GemmArgs &a, PreparedLaunch &p) {
  const long long stored = tmaStoreColumns(a.N, kernelOutType(k));
  p.tailColumns = (unsigned)(a.N - stored);
  p.tailFunction = nullptr;
  if (p.tailColumns == 0)
    return Status::success();
  if (Status s = ensureHelperModule(k); !s)
    return Status::error(s.code(), "the kernel for D's last " + std::to_string(p.tailColumns) +
                                       " columns: " + s.message());
  p.tailFunction = k.tailFunction;
  p.tailOut = kernelOutType(k);
  p.A = a.A, p.B = a.B, p.D = a.D;
  p.lda = storedShape(a, 'A').ld;
  p.ldb = storedShape(a, 'B').ld;
  p.layoutA = a.layoutA;
  p.layoutB = a.layoutB;
  p.ldd = a.ldd ? a.ldd : a.N;
  if (a.batch > 1)
    p.strideA = a.strideA, p.strideB = a.strideB, p.strideD = a.strideD, p.strideC = a.strideC;
  if (a.beta != 0.0f)
    p.C = a.C, p.ldc = storedShape(a, 'C').ld;
  p.tailM = (int)a.M;
  p.tailK = (int)a.K;
  p.tailN0 = (int)stored;
  return Status::success();
}

Status gemmgen::launchTailColumns(const Kernel::Impl &k, const PreparedLaunch &p,
                                  CUstream stream) {
  if (!p.tailFunction)
    return Status::error(ErrorCode::InvalidArgument,
                         "prepared launch has tail columns but no tail kernel (build it with "
                         "Kernel::prepare)");
  CUdeviceptr A = p.A, B = p.B, D = p.D;
  int M = p.tailM, K = p.tailK, n0 = p.tailN0, cols = (int)p.tailColumns;
  int bf16 = k.info.dtype == DType::BF16;
  OperandStrides st = operandStrides(p.layoutA, p.lda, p.layoutB, p.ldb);
  long long sam = st.am, sak = st.ak, sbn = st.bn, sbk = st.bk;
  long long ldd = p.ldd, dColStride = p.tailDColStride;
  int batch = p.batch;
  long long strideA = p.strideA, strideB = p.strideB, strideD = p.strideD;
  float alpha = p.alpha, beta = p.beta;
  CUdeviceptr C = p.C;
  long long ldc = p.ldc, cColStride = p.tailCColStride, strideC = p.strideC;
  int outF32 = p.tailOut == DType::F32;
  GemmArgs chainArgs;
  chainArgs.bias = p.bias, chainArgs.strideBias = p.strideBias, chainArgs.scaleD = p.scaleD;
  epilogue::Chain chain = chainData(k.info.epilogue, chainArgs);
  if (p.tailWritesDTransposed)
    transposeChain(chain);
  void *params[] = {&A,       &B,       &D,          &M,       &K,      &sam,
                    &sak,     &sbn,     &sbk,        &ldd,     &dColStride, &n0,
                    &cols,    &bf16,    &batch,      &strideA, &strideB, &strideD,
                    &alpha,   &beta,    &C,          &ldc,     &cColStride, &strideC,
                    &outF32,  &chain};
  const DriverApi &drv = *k.rt->drv;
  GG_CONTEXT_SCOPE(*k.rt);
  const long long rowsPerBlock = std::max(1u, p.tailRowsPerBlock);
  unsigned blocks = (unsigned)((M + rowsPerBlock - 1) / rowsPerBlock);
  unsigned entries = (unsigned)std::min(batch, 65535); // grid y's limit; the kernel strides
  CUresult r = drv.cuLaunchKernel(p.tailFunction, blocks, entries, 1, 256, 1, 1, 0, stream,
                                  params, nullptr);
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuLaunchKernel(gg_tail_columns, " + std::to_string(blocks) + " blocks)");
  return Status::success();
}

Status gemmgen::launchSplitReduce(const Kernel::Impl &k, const PreparedLaunch &p,
                                  CUstream stream) {
  const PreparedLaunch::SplitReduce &r = p.splitReduce;
  if (r.slices == 0 || r.m == 0 || r.n == 0)
    return Status::success();
  if (Status s = ensureHelperModule(k); !s)
    return Status::error(s.code(), "split-K's reduction: " + s.message());
  CUdeviceptr w = r.w, d = r.d, c = r.c;
  long long slices = r.slices, m = r.m, n = r.n, ldw = r.ldw, strideW = r.strideW, ldd = r.ldd,
            ldc = r.ldc;
  int outKind = k.info.outType == DType::F32 ? 2 : k.info.outType == DType::BF16 ? 1 : 0;
  int dColMajor = r.dColMajor ? 1 : 0;
  float alpha = r.alpha, beta = r.beta;
  void *params[] = {&w, &slices, &m, &n, &ldw, &strideW, &d, &ldd, &dColMajor, &outKind, &alpha,
                    &beta, &c, &ldc};
  const DriverApi &drv = *k.rt->drv;
  GG_CONTEXT_SCOPE(*k.rt);
  const unsigned blocks =
      (unsigned)std::max<long long>(1, std::min<long long>((m * n + 255) / 256, 4096));
  // A programmatic dependent launch: the reduction is scheduled while the
  // split kernel still runs (that kernel triggers it after its prologue) and
  // waits on the device for it, so the gap between the two launches leaves
  // the critical path (on the H200: 0.4-1.9 us per split launch at decode
  // shapes, docs/PERF.md). A tail-columns launch between the two keeps the
  // order: it is an ordinary launch, and this one waits for it.
  CUlaunchConfig cfg = {};
  cfg.gridDimX = blocks, cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 256, cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = stream;
  CUlaunchAttribute pdl = {};
  pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  pdl.value.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &pdl, cfg.numAttrs = 1;
  CUresult res = drv.cuLaunchKernelEx(&cfg, k.reduceFunction, params, nullptr);
  if (res != CUDA_SUCCESS)
    return drv.fail(res, "cuLaunchKernelEx(gg_splitk_reduce, " + std::to_string(blocks) +
                             " blocks, programmatic dependent)");
  return Status::success();
}

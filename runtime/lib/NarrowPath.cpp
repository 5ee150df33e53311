//===- NarrowPath.cpp - D of 1-4 rows or columns on the SIMT kernel -------===//
//
// A decode GEMM with one or two tokens pads an MMA tile of 64 rows to them;
// every MMA kernel then streams the weights no faster than its TMA pipeline
// lets it, and rows not 16-byte aligned go through a staging copy first.
// Where a spec says scheduler.simt_narrow: R, a launch whose D has at most R
// rows (or columns) runs on a SIMT kernel instead (gg_narrow_*, below,
// launched as the tail kernel is): each warp streams one row (or two) of the
// long operand, 64 bytes per lane in flight in the widest loads its rows
// allow, and keeps the short operand's R rows in L1. On the H100 this
// streamed 1x57344x8192's weights at 3.0 TB/s against cuBLAS's 2.9 and
// gemmgen's decode tile's 2.8 (bench/h200-simt-narrow.sh); the experiment's
// form on the H200 at 4.4 TB/s against 4.25 and 4.1 (bench/h200-gemv-simt.sh,
// 2026-12-05).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>

using namespace gemmgen;

// The narrow kernels, compiled into the helper module after TailColumns.cpp's
// source (whose to_f32, to_16 and ld_stream they use). gg_tail_columns'
// parameters, so launchTailColumns launches either; the runtime takes this
// path only for a K-major long operand and a short one K-major or packed
// MN-major (narrowRoute), which these assume; the spec's epilogue chain is
// applied as the tail kernel applies it. The column
// count, the type and the load width are compile-time: the tail kernel's
// loop (a runtime type and up to 8 columns, B's words converted per column)
// ran the H200 at 0.70-0.95 of cuBLAS where this form runs 1.03-1.16
// (bench/h200-simt-narrow.sh against bench/h200-gemv-simt.sh's s-u4r1).
static const char *kNarrowSource = R"CUDA(
// The short operand's 16-byte words, read through L1 (every warp reads them).
__device__ __forceinline__ uint4 ld_word_l1(const u16 *p) {
  return __ldg(reinterpret_cast<const uint4 *>(p));
}
// The 8 elements at p, t elements past a 16-byte boundary (the same t for
// every lane: the warp's row and the column fix it), from the one or two
// aligned words that cover them: word t / 2 on in two selects, then a
// funnel shift by half a word where t is odd. The caller keeps both words
// inside the operand's row (narrow_rows' body).
__device__ __forceinline__ uint4 ld_word_l1_realigned(const u16 *p, int t) {
  const uint4 *q = reinterpret_cast<const uint4 *>(p - t);
  const uint4 lo = __ldg(q), hi = t ? __ldg(q + 1) : lo;
  const u32 x[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  u32 y[7], z[5];
#pragma unroll
  for (int i = 0; i < 7; ++i) y[i] = t & 2 ? x[i + 1] : x[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) z[i] = t & 4 ? y[i + 2] : y[i];
  const int half = (t & 1) * 16;
  return make_uint4(__funnelshift_r(z[0], z[1], half), __funnelshift_r(z[1], z[2], half),
                    __funnelshift_r(z[2], z[3], half), __funnelshift_r(z[3], z[4], half));
}
template <int BF16> __device__ __forceinline__ void word_to_f32(const uint4 &x, float (&f)[8]) {
  const u32 w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int e = 0; e < 8; ++e) f[e] = to_f32(e % 2 ? w[e / 2] >> 16 : w[e / 2] & 0xffffu, BF16);
}

// 16-bit element i of the COLS 16-byte words v (i compile-time after unrolling).
template <int COLS>
__device__ __forceinline__ u32 half_of(const uint4 (&v)[COLS], int i) {
  const uint4 &q = v[i / 8];
  const u32 w = (i / 2) % 4 == 0 ? q.x : (i / 2) % 4 == 1 ? q.y : (i / 2) % 4 == 2 ? q.z : q.w;
  return i % 2 ? w >> 16 : w & 0xffffu;
}

// ROWS rows of A (the long operand, K-major) from row m0 against COLS rows
// of B: K-major (row j at j * sbn), or with SHORT_MN its elements packed
// MN-major (element (j, k) at k * COLS + j: a column-major activation of COLS
// tokens), whose 8 x COLS elements at k are COLS whole 16-byte words (rows
// 16-byte aligned only). 64 bytes of A per lane in flight before the FMAs,
// split over the ROWS rows; A's words converted once, B's read through L1
// and shared by the ROWS rows. With SPLIT > 1, that many warps of the block
// share each row, their lanes interleaved along K, and the first adds the
// others' sums through shared memory. CHAIN: the spec's epilogue chain
// applied before the store (else alpha and beta only).
// REALIGN (rows of any alignment): the row's whole 16-byte words but its
// first and last are its body, read as an aligned row is read, and B's
// elements against them realigned from the aligned words that cover them (at
// a shift that the row and the column fix); the at most 30 elements around
// the body (its edges) one a lane after it. The body's B words stay inside
// B's rows, and no load leaves A's row: 2-byte loads of every element ran the
// H100 at 0.58 of cuBLAS at 1x4096x4099 (8x the load instructions), 8-byte
// loads at 1.10 at 4096x1x4100 where these run 1.38-1.39.
template <int COLS, int BF16, int SHORT_MN, int ROWS, int REALIGN, int SPLIT, int CHAIN>
__device__ __forceinline__ void narrow_rows(const u16 *A, const u16 *B, void *D, int M, int K,
                                            long long sam, long long sbn, long long ldd,
                                            long long d_cs, int batch, long long stride_a,
                                            long long stride_b, long long stride_d, float alpha,
                                            float beta, const void *C, long long ldc,
                                            long long c_cs, long long stride_c, int out_f32,
                                            const gemmgen::epilogue::Chain &chain) {
  static_assert(!SHORT_MN || !REALIGN, "a packed MN-major operand is read in 16-byte words");
  static_assert(ROWS == 1 || SPLIT == 1, "a row's warps or a warp's rows, not both");
  static_assert(!REALIGN || ROWS == 1, "a realigned row's shift is its warp's");
  constexpr int WORDS = kRowWordsInFlight / ROWS;
  constexpr int STEP = 32 * SPLIT * 8; // elements the row's warps' word u covers
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, part = warp % SPLIT;
  const long long m0 = ((long long)blockIdx.x * (8 / SPLIT) + warp / SPLIT) * ROWS;
  if (SPLIT == 1 && m0 >= M) return; // split warps reach the block's barrier
  __shared__ float part_sums[SPLIT > 1 ? 8 : 1][COLS];
  for (long long l = blockIdx.y; l < batch; l += gridDim.y) {
    const u16 *b = B + l * stride_b;
    const u16 *a[ROWS]; // a row past M repeats the last (read, never stored)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) a[r] = A + l * stride_a + (m0 + r < M ? m0 + r : M - 1) * sam;
    int body = 0, len = K; // the elements the k-loop reads: [body, body + len)
    int shift[COLS] = {};  // REALIGN: B's elements' offsets in their 16-byte words
    if constexpr (REALIGN) {
      const int head = (8 - (int)(((unsigned long long)a[0] >> 1) & 7)) & 7;
      const int whole = K >= head ? (K - head) / 8 : 0; // the row's aligned words
      body = K < head + 8 ? K : head + 8;
      len = whole > 2 ? 8 * (whole - 2) : 0;
      a[0] += body;
#pragma unroll
      for (int j = 0; j < COLS; ++j)
        shift[j] = (int)(((unsigned long long)(b + j * sbn + body) >> 1) & 7);
    }
    float acc[ROWS][COLS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
#pragma unroll
      for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;
    for (long long k0 = (part * 32 + lane) * 8; k0 < len; k0 += STEP * WORDS) {
      uint4 av[ROWS][WORDS];
#pragma unroll
      for (int u = 0; u < WORDS; ++u)
#pragma unroll
        for (int r = 0; r < ROWS; ++r) // words past the body are never read
          av[r][u] = k0 + STEP * u < len ? ld_stream(a[r] + k0 + STEP * u) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < WORDS; ++u) {
        const long long k = k0 + STEP * u;
        if (k >= len) break;
        float af[ROWS][8];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) word_to_f32<BF16>(av[r][u], af[r]);
        if constexpr (SHORT_MN) {
          uint4 bw[COLS];
#pragma unroll
          for (int w = 0; w < COLS; ++w)
            bw[w] = __ldg(reinterpret_cast<const uint4 *>(b + k * COLS) + w);
#pragma unroll
          for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int j = 0; j < COLS; ++j)
#pragma unroll
              for (int e = 0; e < 8; ++e)
                acc[r][j] =
                    fmaf(af[r][e], to_f32(half_of<COLS>(bw, e * COLS + j), BF16), acc[r][j]);
        } else {
#pragma unroll
          for (int j = 0; j < COLS; ++j) {
            float bf[8];
            const u16 *bp = b + j * sbn + body + k;
            word_to_f32<BF16>(REALIGN ? ld_word_l1_realigned(bp, shift[j]) : ld_word_l1(bp), bf);
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
#pragma unroll
              for (int e = 0; e < 8; ++e) acc[r][j] = fmaf(af[r][e], bf[e], acc[r][j]);
          }
        }
      }
    }
    if constexpr (REALIGN) {
      // The edges, [0, body) and [body + len, K): at most 15 + 15 elements.
      const int k = lane < body ? lane : lane + len;
      if (part == 0 && k < K) {
        const float x = to_f32(a[0][k - body], BF16);
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
          const u16 bk = __ldg(reinterpret_cast<const unsigned short *>(b + j * sbn + k));
          acc[0][j] = fmaf(x, to_f32(bk, BF16), acc[0][j]);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
#pragma unroll
      for (int j = 0; j < COLS; ++j)
        for (int o = 16; o > 0; o /= 2) acc[r][j] += __shfl_xor_sync(0xffffffffu, acc[r][j], o);
    if constexpr (SPLIT > 1) {
      if (lane == 0)
#pragma unroll
        for (int j = 0; j < COLS; ++j) part_sums[warp][j] = acc[0][j];
      __syncthreads();
      if (part == 0)
#pragma unroll
        for (int p = 1; p < SPLIT; ++p)
#pragma unroll
          for (int j = 0; j < COLS; ++j) acc[0][j] += part_sums[warp + p][j];
      __syncthreads(); // the next batch entry's sums overwrite these
    }
    // Every lane holds every sum (the butterfly above): lane t < ROWS * COLS
    // stores row t / COLS, column t % COLS, so that a warp's outputs take one
    // pass of the store (and of the chain) rather than one pass per output
    // with one lane active: with the chain, four such passes at two rows and
    // two columns left the warps 26 active threads on average (ncu, H100).
    const int r = lane / COLS, j = lane % COLS;
    const long long m = m0 + r;
    if (lane < ROWS * COLS && m < M && part == 0) {
      float sum = 0.f;
#pragma unroll
      for (int rr = 0; rr < ROWS; ++rr)
#pragma unroll
        for (int jj = 0; jj < COLS; ++jj)
          if (rr == r && jj == j) sum = acc[rr][jj];
      const long long c_at = l * stride_c + m * ldc + j * c_cs;
      const long long d_at = l * stride_d + m * ldd + j * d_cs;
      const float cv = beta != 0.f
          ? (out_f32 ? ((const float *)C)[c_at] : to_f32(((const u16 *)C)[c_at], BF16))
          : 0.f;
      float v;
      // (m, j): the kernel's row and column; where it writes D^T the host
      // swapped the chain's row and column bias (launchTailColumns).
      if constexpr (CHAIN)
        v = gemmgen::epilogue::apply_chain(chain, alpha * sum, beta * cv, m, j, l);
      else
        v = fmaf(beta, cv, alpha * sum);
      if (out_f32) ((float *)D)[d_at] = v;
      else ((u16 *)D)[d_at] = to_16(v, BF16);
    }
  }
}

// One kernel per forEachNarrowKernel entry (narrowKernelSource writes the
// lines after this source). CTAS: blocks resident per SM the registers must allow.
#define GG_NARROW(NAME, COLS, BF16, SHORT_MN, ROWS, REALIGN, SPLIT, CHAIN, CTAS)               \
  extern "C" __global__ void __launch_bounds__(256, CTAS)                                      \
  NAME(const u16 *A, const u16 *B, void *D, int M, int K, long long sam, long long sak,        \
       long long sbn, long long sbk, long long ldd, long long d_cs, int n0, int cols, int bf16, \
       int batch, long long stride_a, long long stride_b, long long stride_d, float alpha,     \
       float beta, const void *C, long long ldc, long long c_cs, long long stride_c,           \
       int out_f32, gemmgen::epilogue::Chain chain) {                                          \
    narrow_rows<COLS, BF16, SHORT_MN, ROWS, REALIGN, SPLIT, CHAIN>(                            \
        A, B, D, M, K, sam, sbn, ldd, d_cs, batch, stride_a, stride_b, stride_d, alpha, beta, C, \
        ldc, c_cs, stride_c, out_f32, chain);                                                  \
  }
)CUDA";

namespace {
// Every narrow kernel but its type, and the blocks of 256 threads resident
// per SM its registers must allow (its launch bound). One row a warp: at 48
// registers (no bound) five fit, and 1x6144x4096's 768 blocks took 1.16
// waves, 14% slower on the H100 than the experiment's kernel with 32 (eight
// per SM). Two rows a warp hold two rows' words and conversions: at 32 and 40
// registers they spilled, at 40 and 48 not (the experiment's form: 39 and
// 48). A row shared by 2 or 4 warps for one and two columns, by 2 for three
// and four (their one-row bound: 3x2048x4096 14% faster than one row a warp
// on the H100, 2026-12-06_narrow_tail_h100). Realigned rows
// (not 16-byte aligned) one a warp or shared, for one and two columns: B's
// two words and their selects fit 40 and 64 registers without spills, not
// 32 and 48. A packed MN-major short operand (`packedMNToo`: a second
// kernel) with aligned rows only, and one packed column is K-major (no
// kernel of its own). `chain`: the kernel applies the spec's epilogue chain
// (a spec with one has only those).
struct NarrowKind {
  unsigned cols;
  NarrowGrid grid;
  bool realigned;
  unsigned ctasPerSm;
  bool packedMNToo, chain = false;
};
constexpr NarrowGrid kOneRow{1, 1}, kTwoRows{2, 1}, kSplit2{1, 2}, kSplit4{1, 4};
constexpr bool kAligned = false, kRealigned = true;
constexpr NarrowKind kNarrowKinds[] = {
    {1, kOneRow, kAligned, 8, false},   {2, kOneRow, kAligned, 6, true},
    {3, kOneRow, kAligned, 4, true},    {4, kOneRow, kAligned, 4, true},
    {1, kTwoRows, kAligned, 6, false},  {2, kTwoRows, kAligned, 5, true},
    {1, kSplit2, kAligned, 8, false},   {2, kSplit2, kAligned, 6, false},
    {1, kSplit4, kAligned, 8, false},   {2, kSplit4, kAligned, 6, false},
    {3, kSplit2, kAligned, 4, false},   {4, kSplit2, kAligned, 4, false},
    {1, kOneRow, kRealigned, 6, false}, {2, kOneRow, kRealigned, 4, false},
    {1, kSplit2, kRealigned, 6, false}, {2, kSplit2, kRealigned, 4, false},
    {1, kSplit4, kRealigned, 6, false}, {2, kSplit4, kRealigned, 4, false},
    // With the spec's epilogue chain: one column one row a warp at six
    // blocks an SM (at eight, 32 registers, its k-loop spills one), a row
    // shared by 2 or 4 warps at eight as without the chain; realigned rows
    // at the bounds of those without it.
    {1, kOneRow, kAligned, 6, false, true},   {2, kOneRow, kAligned, 6, true, true},
    {3, kOneRow, kAligned, 4, true, true},    {4, kOneRow, kAligned, 4, true, true},
    {1, kTwoRows, kAligned, 6, false, true},  {2, kTwoRows, kAligned, 5, true, true},
    {1, kSplit2, kAligned, 8, false, true},   {2, kSplit2, kAligned, 6, false, true},
    {1, kSplit4, kAligned, 8, false, true},   {2, kSplit4, kAligned, 6, false, true},
    {1, kOneRow, kRealigned, 6, false, true}, {2, kOneRow, kRealigned, 4, false, true},
    {1, kSplit2, kRealigned, 6, false, true}, {2, kSplit2, kRealigned, 4, false, true},
    {1, kSplit4, kRealigned, 6, false, true}, {2, kSplit4, kRealigned, 4, false, true},
};
static_assert(sizeof(kNarrowKinds) / sizeof(kNarrowKinds[0]) == kNarrowKindCount);

int narrowKindIndex(const NarrowForm &f, NarrowGrid g) {
  for (unsigned i = 0; i < kNarrowKindCount; ++i) {
    const NarrowKind &n = kNarrowKinds[i];
    if (n.cols == f.cols && n.grid.rowsPerWarp == g.rowsPerWarp &&
        n.grid.warpsPerRow == g.warpsPerRow && n.realigned == f.realigned && n.chain == f.chain)
      return (int)i;
  }
  return -1;
}

// Each narrow kernel with the chain or without it (a helper module holds
// one set: a spec with a chain needs no other): its type, whether its short
// operand is packed MN-major, and its kind's index in kNarrowKinds.
template <class F> void forEachNarrowKernel(bool chain, F &&f) {
  for (DType t : {DType::F16, DType::BF16})
    for (unsigned i = 0; i < kNarrowKindCount; ++i)
      for (bool mn : {false, true})
        if ((!mn || kNarrowKinds[i].packedMNToo) && kNarrowKinds[i].chain == chain)
          f(t, mn, i);
}

std::string kindName(DType t, bool mn, unsigned i) {
  const NarrowKind &n = kNarrowKinds[i];
  return narrowKernelName(t, NarrowForm{n.cols, n.realigned, mn, n.chain}, n.grid);
}

std::string narrowSourceOf(bool chain) {
  std::string s = kNarrowSource;
  forEachNarrowKernel(chain, [&](DType t, bool mn, unsigned i) {
    const NarrowKind &n = kNarrowKinds[i];
    s += "GG_NARROW(" + kindName(t, mn, i) + ", " + std::to_string(n.cols) + ", " +
         (t == DType::BF16 ? "1" : "0") + ", " + (mn ? "1" : "0") + ", " +
         std::to_string(n.grid.rowsPerWarp) + ", " + (n.realigned ? "1" : "0") + ", " +
         std::to_string(n.grid.warpsPerRow) + ", " + (n.chain ? "1" : "0") + ", " +
         std::to_string(n.ctasPerSm) + ")\n";
  });
  return s;
}
} // namespace

unsigned gemmgen::narrowCtasPerSm(const NarrowForm &f, NarrowGrid g) {
  const int i = narrowKindIndex(f, g);
  return i < 0 || (f.shortMN && !kNarrowKinds[i].packedMNToo) ? 0 : kNarrowKinds[i].ctasPerSm;
}

const std::string &gemmgen::narrowKernelSource(bool chain) {
  static const std::string sources[2] = {narrowSourceOf(false), narrowSourceOf(true)};
  return sources[chain];
}

std::string gemmgen::narrowKernelName(DType t, const NarrowForm &f, NarrowGrid g) {
  return std::string("gg_narrow_") + (t == DType::BF16 ? "bf16_" : "f16_") +
         std::to_string(f.cols) + (f.shortMN ? "_mn" : "") +
         (g.rowsPerWarp > 1 ? "_r" + std::to_string(g.rowsPerWarp) : "") +
         (g.warpsPerRow > 1 ? "_k" + std::to_string(g.warpsPerRow) : "") +
         (f.realigned ? "_u" : "") + (f.chain ? "_c" : "");
}

Status gemmgen::loadNarrowFunctions(const Kernel::Impl &k, const Module &m) {
  Status status = Status::success();
  forEachNarrowKernel(k.abi.hasChain(), [&](DType t, bool mn, unsigned i) {
    Expected<CUfunction> f = m.function(kindName(t, mn, i));
    if (!f)
      status = f.status();
    else
      k.narrowFunctions[t == DType::BF16][mn][i] = *f;
  });
  return status;
}

NarrowGrid gemmgen::narrowGrid(long long rows, const NarrowForm &f, int smCount) {
  // Warps resident on the GPU for a kernel kind (8 a block; 0 where none is
  // built), and the warps a grid of it asks for.
  auto wave = [&](NarrowGrid g) {
    return (long long)narrowCtasPerSm(f, g) * smCount * 8;
  };
  auto warps = [&](NarrowGrid g) {
    return (rows + g.rowsPerWarp - 1) / g.rowsPerWarp * g.warpsPerRow;
  };
  if (smCount <= 0)
    return kOneRow;
  // More than one wave of one row a warp: its last wave's SMs part idle
  // while the rows drain. Two rows a warp where that fits one wave (fewer
  // blocks per SM: the registers). On the H200 the experiment's form ran
  // 1x11008x4096 (1.30 waves) 15% faster so (bench/h200-gemv-simt.sh, s-u2r2
  // against s-u4r1); gemmgen's kernels on the H100 2-14% at five shapes of
  // 1.07-1.55 waves (bench/h200-narrow-pair.sh).
  // Where two rows do not fit one wave either: a row shared by 2 warps where
  // that fills the last wave better (half a row the unit of work: 3.39 waves
  // of one row a warp take 4, 6.79 of half rows 7). On the H100 2x14336x4096
  // ran 5.6% faster so, 4x14336x4096 2%; 1x28672x4096, which streamed at
  // 3.0 TB/s already, level (bench/h200-narrow-tail.sh).
  auto lastWaveFill = [&](NarrowGrid g) {
    const long long w = warps(g), slots = wave(g);
    return (double)w / (double)(((w + slots - 1) / slots) * slots);
  };
  if (warps(kOneRow) > wave(kOneRow)) {
    if (wave(kTwoRows) > 0 && warps(kTwoRows) <= wave(kTwoRows))
      return kTwoRows;
    return wave(kSplit2) > 0 && lastWaveFill(kSplit2) > lastWaveFill(kOneRow) + 0.05 ? kSplit2
                                                                                    : kOneRow;
  }
  // Less than half a wave: each row shared by as many warps (4 or 2) as
  // still fit one, so that every SM has its warps' loads in flight.
  for (NarrowGrid g : {kSplit4, kSplit2})
    if (wave(g) > 0 && warps(g) <= wave(g))
      return g;
  return kOneRow;
}

namespace {
// Whether every row of a K-major operand starts on a 16-byte boundary and K
// is whole 16-byte words (else the narrow kernels realign the rows).
bool alignedRows(CUdeviceptr p, long long ld, long long stride, long long batch, long long K) {
  const unsigned long long bits = (unsigned long long)p | (unsigned long long)(ld * 2) |
                                  (unsigned long long)(K * 2) |
                                  (batch > 1 ? (unsigned long long)(stride * 2) : 0);
  return widestWordBytes(bits) >= 16;
}
// The short operand stored MN-major with its `cols` elements of each k
// adjacent (ld == cols): 8 k of it are `cols` whole 16-byte words.
bool packedMN(CUdeviceptr p, long long ld, long long cols, long long stride, long long batch) {
  return p % 16 == 0 && ld == cols && (batch <= 1 || stride % 8 == 0);
}
// Whether the narrow kernels stream A's rows (D has few columns) or B's (few
// rows): the fewer, and A's rows where both are few and equal.
bool shortIsA(long long M, long long N, long long limit) { return M <= limit && M <= N; }
} // namespace

bool gemmgen::narrowShape(long long M, long long N, Layout a, Layout b, long long limit) {
  // The long operand K-major; the short one either way (MN-major must be
  // packed, and the rows' alignment picks the kernel: narrowRoute).
  if (std::min(M, N) > limit)
    return false;
  return shortIsA(M, N, limit) ? b == Layout::Col : a == Layout::Row;
}

NarrowRoute gemmgen::narrowRoute(const Kernel::Impl &k, const GemmArgs &args) {
  NarrowRoute r;
  const KernelABI &abi = k.abi;
  const DType t = k.info.dtype, out = k.info.outType; // a split kernel's reduction's
  if (abi.simtNarrow == 0 || !args.problems.empty() || abi.grouped ||
      (t != DType::F16 && t != DType::BF16) || k.info.dtypeB != t ||
      (out != t && out != DType::F32))
    return r;
  const GemmArgs rm = rowMajorProblem(args);
  const long long lim = abi.simtNarrow;
  if (!narrowShape(rm.M, rm.N, rm.layoutA, rm.layoutB, lim) || rm.M <= 0 || rm.N <= 0)
    return r;
  const bool b = shortIsA(rm.M, rm.N, lim); // the warps stream B's rows
  const char longOp = b ? 'B' : 'A', shortOp = b ? 'A' : 'B';
  const long long cols = b ? rm.M : rm.N;
  bool aligned = alignedRows(b ? rm.B : rm.A, storedShape(rm, longOp).ld,
                             b ? rm.strideB : rm.strideA, rm.batch, rm.K);
  const CUdeviceptr sp = b ? rm.A : rm.B;
  const long long sld = storedShape(rm, shortOp).ld, sstride = b ? rm.strideA : rm.strideB;
  const bool shortKMajor = b ? rm.layoutA == Layout::Row : rm.layoutB == Layout::Col;
  if (shortKMajor)
    aligned = aligned && alignedRows(sp, sld, sstride, rm.batch, rm.K);
  else if (!aligned || !packedMN(sp, sld, cols, sstride, rm.batch))
    return r;
  const bool packed = !shortKMajor && cols > 1; // one packed column is K-major
  const NarrowForm form{(unsigned)cols, !aligned, packed, abi.hasChain()};
  if (narrowCtasPerSm(form, kOneRow) == 0) // none of these columns (3-4 realigned)
    return r;
  r.taken = true, r.rowsOfB = b;
  r.form = form;
  r.problem = rm;
  return r;
}

Expected<PreparedLaunch> gemmgen::prepareNarrow(const Kernel::Impl &k, const NarrowRoute &r) {
  if (Status s = ensureHelperModule(k); !s)
    return Status::error(s.code(), "the SIMT path's kernel: " + s.message());
  const GemmArgs &rm = r.problem;
  PreparedLaunch p;
  const unsigned cols = r.form.cols;
  const long long rows = r.rowsOfB ? rm.N : rm.M;
  // Every batch entry's rows share the GPU (grid y): the waves are of them all.
  const NarrowGrid grid =
      narrowGrid(rows * std::max(1LL, rm.batch), r.form, k.rt->info.smCount);
  const int kind = narrowKindIndex(r.form, grid);
  if (narrowCtasPerSm(r.form, grid) == 0 || kind < 0)
    return Status::error(ErrorCode::Unsupported, "no narrow kernel of " + std::to_string(cols) +
                                                     " columns for this launch");
  p.tailRowsPerBlock = grid.rowsPerBlock();
  p.tailFunction = k.narrowFunctions[k.info.dtype == DType::BF16][r.form.shortMN][kind];
  p.tailOut = k.info.outType; // D itself, also for a split kernel (whose own output is f32)
  p.gridX = 0; // no MMA kernel: the narrow kernel computes every column
  p.batch = (int)rm.batch;
  p.alpha = rm.alpha, p.beta = rm.beta;
  p.bias = rm.bias, p.strideBias = rm.strideBias, p.scaleD = rm.scaleD; // the chain's
  p.tailK = (int)rm.K;
  p.tailN0 = 0;
  // The narrow kernel's rows are the long operand's, its columns the short
  // one's: with B's rows it writes D^T, so D's rows are its columns.
  const long long ldd = storedShape(rm, 'D').ld, ldc = storedShape(rm, 'C').ld;
  const bool b = r.rowsOfB;
  p.A = b ? rm.B : rm.A, p.B = b ? rm.A : rm.B, p.D = rm.D;
  // The narrow kernel's B: K-major (N×K, Layout::Col), or packed MN-major
  // (K×cols, Layout::Row: its column stride 1, k stride cols).
  p.layoutA = Layout::Row, p.layoutB = r.form.shortMN ? Layout::Row : Layout::Col;
  p.lda = storedShape(rm, b ? 'B' : 'A').ld;
  p.ldb = r.form.shortMN ? (long long)cols : storedShape(rm, b ? 'A' : 'B').ld;
  p.strideA = b ? rm.strideB : rm.strideA, p.strideB = b ? rm.strideA : rm.strideB;
  p.strideD = rm.strideD, p.strideC = rm.strideC;
  p.tailM = (int)(b ? rm.N : rm.M);
  p.tailColumns = (unsigned)(b ? rm.M : rm.N);
  p.ldd = b ? 1 : ldd, p.tailDColStride = b ? ldd : 1;
  p.tailWritesDTransposed = b;
  if (rm.beta != 0.0f)
    p.C = rm.C, p.ldc = b ? 1 : ldc, p.tailCColStride = b ? ldc : 1;
  p.path = std::string("simt_narrow(rows of ") + (b ? "B" : "A") +
           (grid.rowsPerWarp > 1 ? ", two a warp" : "") +
           (grid.warpsPerRow > 1 ? ", " + std::to_string(grid.warpsPerRow) + " warps a row" : "") +
           (r.form.realigned ? ", rows realigned" : "") + ")";
  return p;
}

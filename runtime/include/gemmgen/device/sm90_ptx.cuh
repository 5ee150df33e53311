// gemmgen/device/sm90_ptx.cuh — device-side PTX wrappers for sm_90a kernels emitted by gemmgen.
//
// Each PTX instruction lives in one small named __device__ __forceinline__ wrapper with a one-line
// comment. Generated kernels (and tools/proto/ws_gemm_sm90.cu, the hand-written reference) use
// only these wrappers and those of common_ptx.cuh (what both targets share). The header compiles
// under NVRTC: it includes only common_ptx.cuh (no <cuda.h>, no CUDA runtime headers, no std
// headers). Shared-memory operands are passed as 32-bit shared-window addresses (u32), as PTX's
// .shared::cta / .shared::cluster state spaces expect.
//
// Debug: define GEMMGEN_DEBUG_HANGS to bound every mbarrier wait (GEMMGEN_HANG_TIMEOUT_NS of
// %globaltimer, default 2 s); on timeout the waiting thread prints block, role, barrier, slot
// and phase, then traps.
#ifndef GEMMGEN_DEVICE_SM90_PTX_CUH
#define GEMMGEN_DEVICE_SM90_PTX_CUH

#if defined(GEMMGEN_DEBUG_HANGS) && !defined(__CUDACC_RTC__)
#include <cstdio>  // device printf for the hang report (NVRTC declares it itself)
#endif
#if defined(GEMMGEN_DEBUG_HANGS) && !defined(GEMMGEN_HANG_TIMEOUT_NS)
#define GEMMGEN_HANG_TIMEOUT_NS 2000000000ull
#endif

// The shared wrappers (mbarrier, TMA 2D, cluster barriers, packing). Guarded so that
// `emit --standalone`, which inlines common_ptx.cuh first, needs no include path.
#ifndef GEMMGEN_DEVICE_COMMON_PTX_CUH
#include "gemmgen/device/common_ptx.cuh"
#endif

namespace gemmgen {
namespace sm90 {

using namespace gemmgen::ptx;  // common_ptx.cuh's wrappers, types and ElemKind

// Small integer ids that name who waits on what (used by the GEMMGEN_DEBUG_HANGS report).
enum Role : int { ROLE_PRODUCER = 0, ROLE_CONSUMER0 = 1 };  // consumer c reports ROLE_CONSUMER0 + c
enum BarrierId : int { BAR_FULL = 0, BAR_EMPTY = 1, BAR_CLOAD = 2 };

// ---------------------------------------------------------------------------------------------
// mbarrier
// ---------------------------------------------------------------------------------------------

// Block until the phase with parity `parity` of `bar` has completed (try_wait loop). role,
// bar_id and slot only name the wait for the GEMMGEN_DEBUG_HANGS report.
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity, int role, int bar_id, int slot) {
#ifdef GEMMGEN_DEBUG_HANGS
  const u64 t0 = globaltimer();
  while (!mbar_try_wait(bar, parity)) {
    if (globaltimer() - t0 > (u64)(GEMMGEN_HANG_TIMEOUT_NS)) {
      // One line per stuck warp (its lowest waiting lane), with names.
      const unsigned waiting = __activemask();
      if ((threadIdx.x & 31u) == (unsigned)(__ffs(waiting) - 1)) {
        const char* who = role == ROLE_PRODUCER ? "producer" : "consumer";
        const char* what = bar_id == BAR_FULL    ? "full (producer -> consumers)"
                           : bar_id == BAR_EMPTY ? "empty (consumers -> producer)"
                                                 : "cload (C's chunk -> its consumer)";
        printf("gemmgen hang: block %d warp %d: %s %d waits on barrier %s slot %d for phase "
               "parity %u for over %llu ns; trapping\n",
               (int)blockIdx.x, (int)(threadIdx.x / 32), who,
               role == ROLE_PRODUCER ? 0 : role - ROLE_CONSUMER0, what, slot, parity,
               (u64)(GEMMGEN_HANG_TIMEOUT_NS));
      }
      trap();
    }
  }
#else
  (void)role; (void)bar_id; (void)slot;
  while (!mbar_try_wait(bar, parity)) {
  }
#endif
}

// ---------------------------------------------------------------------------------------------
// Fences, CTA and cluster barriers, register reallocation
// ---------------------------------------------------------------------------------------------

// Count this warp's threads toward named barrier `id` of `count` threads
// without waiting for it (bar.arrive: the producer side of a hand-over).
__device__ __forceinline__ void named_barrier_arrive(u32 id, u32 count) {
  asm volatile("bar.arrive %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

// Let the grid launched after this one as a programmatic dependent (split-K's
// reduction) be scheduled now, before this grid ends: it waits for this grid's
// completion and memory with griddepcontrol.wait before it reads anything.
__device__ __forceinline__ void grid_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// Raise this warpgroup's per-thread register limit to N (setmaxnreg.inc).
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg: multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" :: "n"(N));
}

// Lower this warpgroup's per-thread register limit to N (setmaxnreg.dec).
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg: multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" :: "n"(N));
}

// ---------------------------------------------------------------------------------------------
// TMA (cp.async.bulk.tensor)
// ---------------------------------------------------------------------------------------------

// A tensor map the host copied into global memory (the grouped GEMM's table) is read by the
// TMA unit through the tensormap proxy: acquire it there before the first use.
__device__ __forceinline__ void fence_tensormap_acquire(const TensorMap* tm) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n" :: "l"(tm) : "memory");
}

// Bulk copy of `bytes` contiguous global bytes at `src` into local smem `dst`, completing tx
// bytes on the mbarrier at `bar` (cp.async.bulk, no tensor map): src, dst and bytes multiples of 16.
__device__ __forceinline__ void bulk_load_g2s(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
      :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// One f32 to shared memory.
__device__ __forceinline__ void st_shared_f32(u32 addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" :: "r"(addr), "f"(v) : "memory");
}

// Blockwise scales into a stage's slot without reading outside the caller's array: floats
// [first, first + count) of `array` (total floats, 4-byte aligned; indices below 2^31) belong
// at `slot` + 4 x (their index - the index of the 16-byte boundary at or below `first`). A bulk
// copy moves whole aligned 16-byte chunks, so it takes only the chunks inside the array: its
// float range comes back in *bulk_from / *bulk_to (empty: equal). The floats of a chunk the
// array only partly covers (its first or last 16 bytes; at most 3 at each end of the range)
// are copied here with plain loads and shared stores, before the caller's arrive.expect_tx,
// whose release makes them visible to the consumers' wait. Index arithmetic in 32 bits: the
// producer runs on few registers, and its k-block loop is short (on the H200 ~20 more
// instructions per k-block cost blockwise kernels 3%): whole_chunks (scales_in_whole_chunks,
// loop-invariant) skips every test.
// The index of the 16-byte boundary at or below float `index` of `array` (may be negative: the
// chunk starts before the array); a stage slot's first float.
__device__ __forceinline__ int scale_chunk_base(const float* array, int index) {
  return index - (((int)((u32)reinterpret_cast<u64>(array) & 15u) / 4 + index) & 3);
}

__device__ __forceinline__ void stage_scales(u32 slot, const float* array, int first, int count,
                                             int total, bool whole_chunks, int* bulk_from,
                                             int* bulk_to) {
  const int end = first + count;
  if (whole_chunks) {  // a 16-byte-aligned array of whole chunks (the common case): no test
    *bulk_from = first & ~3;
    *bulk_to = (end + 3) & ~3;
    return;
  }
  const int lead = (int)((u32)reinterpret_cast<u64>(array) & 15u) / 4;  // floats before a boundary
  const int base = scale_chunk_base(array, first);  // the slot's first float
  int to = end + ((4 - ((lead + end) & 3)) & 3);  // the boundary at or above end
  int from = base;
  if (base < 0 || to > total) {  // a partial chunk at the array's start or end
    const int inside_from = (4 - lead) & 3, inside_to = total - ((lead + total) & 3);
    from = from > inside_from ? from : inside_from;
    to = to < inside_to ? to : inside_to;
    if (to <= from) from = to = end;  // no whole chunk: every float by hand
#pragma unroll 1
    for (int i = first; i < end; ++i)
      if (i < from || i >= to) st_shared_f32(slot + 4u * (u32)(i - base), array[i]);
  }
  *bulk_from = from;
  *bulk_to = to;
}

// One float of `array` (stage_scales' terms) at `slot` + its offset in its 16-byte chunk: true
// when the chunk lies inside the array (the caller bulk-copies it), else stored here by hand.
__device__ __forceinline__ bool stage_scale(u32 slot, const float* array, int index, int total,
                                            bool whole_chunks) {
  if (whole_chunks) return true;
  const int base = scale_chunk_base(array, index);
  if (base >= 0 && base + 4 <= total) return true;
  st_shared_f32(slot + 4u * (u32)(index - base), array[index]);
  return false;
}

// Both scale arrays 16-byte aligned and whole 16-byte chunks long: every copy a bulk copy.
__device__ __forceinline__ bool scales_in_whole_chunks(const float* a, int total_a, const float* b,
                                                       int total_b) {
  return (((u32)reinterpret_cast<u64>(a) | (u32)reinterpret_cast<u64>(b)) & 15u) == 0 &&
         ((total_a | total_b) & 3) == 0;
}

// TMA 2D tile load multicast: the box lands at offset `dst` in every CTA of `cta_mask` and
// completes tx bytes on the mbarrier at offset `bar` in each of them.
__device__ __forceinline__ void tma_load_2d_multicast(u32 dst, const TensorMap* tm, u32 bar, int c0, int c1,
                                                      u16 cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n"
      :: "r"(dst), "l"(tm), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask) : "memory");
}

// The 3-D forms: c2 is the batch entry (the tensor map's outermost dimension, strided by the
// batch stride). Strided batched kernels address every operand this way; batch 1 is entry 0.
__device__ __forceinline__ void tma_load_3d(u32 dst, const TensorMap* tm, u32 bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n"
      :: "r"(dst), "l"(tm), "r"(bar), "r"(c0), "r"(c1), "r"(c2) : "memory");
}

__device__ __forceinline__ void tma_load_3d_multicast(u32 dst, const TensorMap* tm, u32 bar, int c0, int c1,
                                                      int c2, u16 cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;\n"
      :: "r"(dst), "l"(tm), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask) : "memory");
}

__device__ __forceinline__ void tma_store_3d(const TensorMap* tm, u32 src, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n"
      :: "l"(tm), "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory");
}

// Wait until at most N bulk groups still READ their smem source (cp.async.bulk.wait_group.read).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" :: "n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------------
// wgmma
// ---------------------------------------------------------------------------------------------

// Shared-memory matrix descriptor for a K-major operand in the 128-byte-swizzle canonical layout
// (TMA SWIZZLE_128B, 64 16-bit elements per 128-byte row, tile 1024-byte aligned):
// bits 0-13 start >> 4, 16-29 leading byte offset >> 4 (unused here: 1), 32-45 stride byte
// offset >> 4 (1024 B = 8 rows x 128 B), 49-51 base offset 0, 62-63 swizzle mode 1 = 128B.
// Advance along K by adding 32 bytes (16 elements) to `addr`.
__device__ __forceinline__ u64 make_smem_desc_kmajor_sw128(u32 addr) {
  u64 d = 0;
  d |= (u64)((addr & 0x3FFFFu) >> 4);
  d |= (u64)1u << 16;
  d |= (u64)(1024u >> 4) << 32;
  d |= (u64)1u << 62;
  return d;
}

// Shared-memory matrix descriptor for an M- or N-major operand in a swizzled canonical layout
// ((T elements, atoms), (8 K rows, K groups)) : ((1, LBO), (ROW B, SBO)), ROW the swizzle's row
// bytes (128, 64 or 32; T = ROW / 2 16-bit elements): a TMA box of T MN elements by BK K rows,
// row k at k x ROW B; boxes for the next T MN elements `atom_bytes` apart (leading byte offset);
// 8-row groups 8 x ROW B apart (stride byte offset); swizzle mode 1 = 128B, 2 = 64B, 3 = 32B.
// Advance along K by adding 16 rows x ROW B per k16 step to `addr`.
template <u32 ROW>
__device__ __forceinline__ u64 make_smem_desc_mnmajor(u32 addr, u32 atom_bytes) {
  static_assert(ROW == 128 || ROW == 64 || ROW == 32, "a swizzle row is 128, 64 or 32 bytes");
  constexpr u64 mode = ROW == 128 ? 1 : ROW == 64 ? 2 : 3;
  u64 d = 0;
  d |= (u64)((addr & 0x3FFFFu) >> 4);
  d |= (u64)((atom_bytes & 0x3FFFFu) >> 4) << 16;
  d |= (u64)((8u * ROW) >> 4) << 32;
  d |= mode << 62;
  return d;
}
// 64 MN elements per box (whole 128-byte rows); 32 or 16: one box of a narrow part (the tall
// twins' B).
__device__ __forceinline__ u64 make_smem_desc_mnmajor_sw128(u32 addr, u32 atom_bytes) {
  return make_smem_desc_mnmajor<128>(addr, atom_bytes);
}
__device__ __forceinline__ u64 make_smem_desc_mnmajor_sw64(u32 addr, u32 atom_bytes) {
  return make_smem_desc_mnmajor<64>(addr, atom_bytes);
}
__device__ __forceinline__ u64 make_smem_desc_mnmajor_sw32(u32 addr, u32 atom_bytes) {
  return make_smem_desc_mnmajor<32>(addr, atom_bytes);
}

// The descriptor of the operand `offset_bytes` further on in shared memory, from `desc`, the
// descriptor of its start (a multiple of 16 bytes, the result still inside shared memory, so the
// start field, bits 0-13, does not carry): one add on the low word where rebuilding the
// descriptor per wgmma costs a chain of five uniform-datapath instructions.
__device__ __forceinline__ u64 smem_desc_advance(u64 desc, u32 offset_bytes) {
  const u32 lo = (u32)desc + (offset_bytes >> 4);
  return ((u64)(u32)(desc >> 32) << 32) | lo;
}

// Order register/smem accesses before the following wgmma (wgmma.fence).
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

// Close the current group of wgmma ops (wgmma.commit_group).
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Wait until at most N wgmma groups are pending (wgmma.wait_group N).
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}

// Compiler-only fence on an accumulator register: keeps reads/writes of it from moving across
// the async wgmma issue/wait points (no instruction emitted).
__device__ __forceinline__ void fence_operand(float& r) {
  asm volatile("" : "+f"(r) :: "memory");
}

// An accumulator register set to 0 under a branch that rarely runs (a tile without k-blocks):
// volatile, so the compiler keeps the branch. A plain `acc = 0.f` under `if (k_blocks == 0)`
// becomes a select per register that every tile executes (128 FSEL per thread at 128x128).
__device__ __forceinline__ void zero_acc_reg(float& r) {
  asm volatile("mov.f32 %0, 0f00000000;" : "=f"(r));
}

// wgmma m64nNk16 with f32 accumulators in registers, A and B from shared memory (descriptors):
// D (+)= A * B; scale_d = 0 overwrites D (the first k16 step of a tile). TA / TB are the
// instruction's imm-trans-a / imm-trans-b: 0 reads the operand K-major, 1 M-major (A) or
// N-major (B), which 16-bit types allow. One wrapper per N and element type; the f16 and bf16
// forms share the accumulator operand lists. IA, IB, IS, ITA, ITB number the input operands.
#define GEMMGEN_SM90_WGMMA(N, TY, REGS, ACC, IA, IB, IS, ITA, ITB)                                \
  template <int TA, int TB>                                                                      \
  __device__ __forceinline__ void wgmma_m64n##N##k16_f32_##TY(float (&d)[N / 2], u64 desc_a,     \
                                                             u64 desc_b, int scale_d) {          \
    asm volatile("{\n.reg .pred p;\n"                                                            \
                 "setp.ne.b32 p, %" #IS ", 0;\n"                                                  \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TY "." #TY " " REGS ", "      \
                 "%" #IA ", %" #IB ", p, 1, 1, %" #ITA ", %" #ITB ";\n}\n"                        \
                 : ACC                                                                           \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TA), "n"(TB));                    \
  }

// wgmma m64nNk32 for 8-bit float operands (e4m3 / e5m2, any pair), f32 accumulators: the same
// descriptors and fragment as k16, 32 K elements (32 bytes) per instruction. 8-bit operands
// have no imm-trans operands: both are read K-major. One wrapper per N and type pair.
#define GEMMGEN_SM90_WGMMA_F8(N, TA_, TB_, REGS, ACC, IA, IB, IS)                                 \
  __device__ __forceinline__ void wgmma_m64n##N##k32_f32_##TA_##_##TB_(                          \
      float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d) {                                  \
    asm volatile("{\n.reg .pred p;\n"                                                            \
                 "setp.ne.b32 p, %" #IS ", 0;\n"                                                  \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." #TA_ "." #TB_ " " REGS ", "    \
                 "%" #IA ", %" #IB ", p, 1, 1;\n}\n"                                               \
                 : ACC                                                                           \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                      \
  }

// Tiles of any width that is a multiple of 16 (a wave of 128x144 tiles on 132 SMs, a few
// tokens' columns) take the wgmma of their width: one wrapper per multiple of 16 up to 256.
// Accumulator registers of one m64n16 fragment (8 per thread).
#define GEMMGEN_SM90_REGS_8 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7" \
  "}"
#define GEMMGEN_SM90_ACC_8 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
GEMMGEN_SM90_WGMMA(16, f16, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10, 11, 12)
GEMMGEN_SM90_WGMMA(16, bf16, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10, 11, 12)
GEMMGEN_SM90_WGMMA_F8(16, e4m3, e4m3, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10)
GEMMGEN_SM90_WGMMA_F8(16, e4m3, e5m2, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10)
GEMMGEN_SM90_WGMMA_F8(16, e5m2, e4m3, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10)
GEMMGEN_SM90_WGMMA_F8(16, e5m2, e5m2, GEMMGEN_SM90_REGS_8, GEMMGEN_SM90_ACC_8, 8, 9, 10)
#undef GEMMGEN_SM90_REGS_8
#undef GEMMGEN_SM90_ACC_8

// Accumulator registers of one m64n32 fragment (16 per thread).
#define GEMMGEN_SM90_REGS_16 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15" \
  "}"
#define GEMMGEN_SM90_ACC_16 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
GEMMGEN_SM90_WGMMA(32, f16, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18, 19, 20)
GEMMGEN_SM90_WGMMA(32, bf16, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18, 19, 20)
GEMMGEN_SM90_WGMMA_F8(32, e4m3, e4m3, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18)
GEMMGEN_SM90_WGMMA_F8(32, e4m3, e5m2, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18)
GEMMGEN_SM90_WGMMA_F8(32, e5m2, e4m3, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18)
GEMMGEN_SM90_WGMMA_F8(32, e5m2, e5m2, GEMMGEN_SM90_REGS_16, GEMMGEN_SM90_ACC_16, 16, 17, 18)
#undef GEMMGEN_SM90_REGS_16
#undef GEMMGEN_SM90_ACC_16

// Accumulator registers of one m64n48 fragment (24 per thread).
#define GEMMGEN_SM90_REGS_24 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23" \
  "}"
#define GEMMGEN_SM90_ACC_24 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
GEMMGEN_SM90_WGMMA(48, f16, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26, 27, 28)
GEMMGEN_SM90_WGMMA(48, bf16, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26, 27, 28)
GEMMGEN_SM90_WGMMA_F8(48, e4m3, e4m3, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26)
GEMMGEN_SM90_WGMMA_F8(48, e4m3, e5m2, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26)
GEMMGEN_SM90_WGMMA_F8(48, e5m2, e4m3, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26)
GEMMGEN_SM90_WGMMA_F8(48, e5m2, e5m2, GEMMGEN_SM90_REGS_24, GEMMGEN_SM90_ACC_24, 24, 25, 26)
#undef GEMMGEN_SM90_REGS_24
#undef GEMMGEN_SM90_ACC_24

// Accumulator registers of one m64n64 fragment (32 per thread).
#define GEMMGEN_SM90_REGS_32 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31" \
  "}"
#define GEMMGEN_SM90_ACC_32 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
GEMMGEN_SM90_WGMMA(64, f16, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34, 35, 36)
GEMMGEN_SM90_WGMMA(64, bf16, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34, 35, 36)
GEMMGEN_SM90_WGMMA_F8(64, e4m3, e4m3, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34)
GEMMGEN_SM90_WGMMA_F8(64, e4m3, e5m2, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34)
GEMMGEN_SM90_WGMMA_F8(64, e5m2, e4m3, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34)
GEMMGEN_SM90_WGMMA_F8(64, e5m2, e5m2, GEMMGEN_SM90_REGS_32, GEMMGEN_SM90_ACC_32, 32, 33, 34)
#undef GEMMGEN_SM90_REGS_32
#undef GEMMGEN_SM90_ACC_32

// Accumulator registers of one m64n128 fragment (64 per thread).
#define GEMMGEN_SM90_REGS_64 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63" \
  "}"
#define GEMMGEN_SM90_ACC_64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
GEMMGEN_SM90_WGMMA(128, f16, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66, 67, 68)
GEMMGEN_SM90_WGMMA(128, bf16, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66, 67, 68)
GEMMGEN_SM90_WGMMA_F8(128, e4m3, e4m3, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66)
GEMMGEN_SM90_WGMMA_F8(128, e4m3, e5m2, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66)
GEMMGEN_SM90_WGMMA_F8(128, e5m2, e4m3, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66)
GEMMGEN_SM90_WGMMA_F8(128, e5m2, e5m2, GEMMGEN_SM90_REGS_64, GEMMGEN_SM90_ACC_64, 64, 65, 66)
#undef GEMMGEN_SM90_REGS_64
#undef GEMMGEN_SM90_ACC_64

// Accumulator registers of one m64n80 fragment (40 per thread).
#define GEMMGEN_SM90_REGS_40 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39" \
  "}"
#define GEMMGEN_SM90_ACC_40 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
GEMMGEN_SM90_WGMMA(80, f16, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42, 43, 44)
GEMMGEN_SM90_WGMMA(80, bf16, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42, 43, 44)
GEMMGEN_SM90_WGMMA_F8(80, e4m3, e4m3, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42)
GEMMGEN_SM90_WGMMA_F8(80, e4m3, e5m2, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42)
GEMMGEN_SM90_WGMMA_F8(80, e5m2, e4m3, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42)
GEMMGEN_SM90_WGMMA_F8(80, e5m2, e5m2, GEMMGEN_SM90_REGS_40, GEMMGEN_SM90_ACC_40, 40, 41, 42)
#undef GEMMGEN_SM90_REGS_40
#undef GEMMGEN_SM90_ACC_40

// Accumulator registers of one m64n96 fragment (48 per thread).
#define GEMMGEN_SM90_REGS_48 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47" \
  "}"
#define GEMMGEN_SM90_ACC_48 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
GEMMGEN_SM90_WGMMA(96, f16, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50, 51, 52)
GEMMGEN_SM90_WGMMA(96, bf16, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50, 51, 52)
GEMMGEN_SM90_WGMMA_F8(96, e4m3, e4m3, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50)
GEMMGEN_SM90_WGMMA_F8(96, e4m3, e5m2, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50)
GEMMGEN_SM90_WGMMA_F8(96, e5m2, e4m3, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50)
GEMMGEN_SM90_WGMMA_F8(96, e5m2, e5m2, GEMMGEN_SM90_REGS_48, GEMMGEN_SM90_ACC_48, 48, 49, 50)
#undef GEMMGEN_SM90_REGS_48
#undef GEMMGEN_SM90_ACC_48

// Accumulator registers of one m64n112 fragment (56 per thread).
#define GEMMGEN_SM90_REGS_56 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55" \
  "}"
#define GEMMGEN_SM90_ACC_56 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
GEMMGEN_SM90_WGMMA(112, f16, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58, 59, 60)
GEMMGEN_SM90_WGMMA(112, bf16, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58, 59, 60)
GEMMGEN_SM90_WGMMA_F8(112, e4m3, e4m3, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58)
GEMMGEN_SM90_WGMMA_F8(112, e4m3, e5m2, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58)
GEMMGEN_SM90_WGMMA_F8(112, e5m2, e4m3, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58)
GEMMGEN_SM90_WGMMA_F8(112, e5m2, e5m2, GEMMGEN_SM90_REGS_56, GEMMGEN_SM90_ACC_56, 56, 57, 58)
#undef GEMMGEN_SM90_REGS_56
#undef GEMMGEN_SM90_ACC_56

// Accumulator registers of one m64n144 fragment (72 per thread).
#define GEMMGEN_SM90_REGS_72 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71" \
  "}"
#define GEMMGEN_SM90_ACC_72 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
GEMMGEN_SM90_WGMMA(144, f16, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74, 75, 76)
GEMMGEN_SM90_WGMMA(144, bf16, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74, 75, 76)
GEMMGEN_SM90_WGMMA_F8(144, e4m3, e4m3, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74)
GEMMGEN_SM90_WGMMA_F8(144, e4m3, e5m2, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74)
GEMMGEN_SM90_WGMMA_F8(144, e5m2, e4m3, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74)
GEMMGEN_SM90_WGMMA_F8(144, e5m2, e5m2, GEMMGEN_SM90_REGS_72, GEMMGEN_SM90_ACC_72, 72, 73, 74)
#undef GEMMGEN_SM90_REGS_72
#undef GEMMGEN_SM90_ACC_72

// Accumulator registers of one m64n160 fragment (80 per thread).
#define GEMMGEN_SM90_REGS_80 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79" \
  "}"
#define GEMMGEN_SM90_ACC_80 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
GEMMGEN_SM90_WGMMA(160, f16, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82, 83, 84)
GEMMGEN_SM90_WGMMA(160, bf16, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82, 83, 84)
GEMMGEN_SM90_WGMMA_F8(160, e4m3, e4m3, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82)
GEMMGEN_SM90_WGMMA_F8(160, e4m3, e5m2, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82)
GEMMGEN_SM90_WGMMA_F8(160, e5m2, e4m3, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82)
GEMMGEN_SM90_WGMMA_F8(160, e5m2, e5m2, GEMMGEN_SM90_REGS_80, GEMMGEN_SM90_ACC_80, 80, 81, 82)
#undef GEMMGEN_SM90_REGS_80
#undef GEMMGEN_SM90_ACC_80

// Accumulator registers of one m64n176 fragment (88 per thread).
#define GEMMGEN_SM90_REGS_88 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87" \
  "}"
#define GEMMGEN_SM90_ACC_88 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
GEMMGEN_SM90_WGMMA(176, f16, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90, 91, 92)
GEMMGEN_SM90_WGMMA(176, bf16, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90, 91, 92)
GEMMGEN_SM90_WGMMA_F8(176, e4m3, e4m3, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90)
GEMMGEN_SM90_WGMMA_F8(176, e4m3, e5m2, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90)
GEMMGEN_SM90_WGMMA_F8(176, e5m2, e4m3, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90)
GEMMGEN_SM90_WGMMA_F8(176, e5m2, e5m2, GEMMGEN_SM90_REGS_88, GEMMGEN_SM90_ACC_88, 88, 89, 90)
#undef GEMMGEN_SM90_REGS_88
#undef GEMMGEN_SM90_ACC_88

// Accumulator registers of one m64n192 fragment (96 per thread).
#define GEMMGEN_SM90_REGS_96 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95" \
  "}"
#define GEMMGEN_SM90_ACC_96 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
GEMMGEN_SM90_WGMMA(192, f16, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98, 99, 100)
GEMMGEN_SM90_WGMMA(192, bf16, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98, 99, 100)
GEMMGEN_SM90_WGMMA_F8(192, e4m3, e4m3, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98)
GEMMGEN_SM90_WGMMA_F8(192, e4m3, e5m2, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98)
GEMMGEN_SM90_WGMMA_F8(192, e5m2, e4m3, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98)
GEMMGEN_SM90_WGMMA_F8(192, e5m2, e5m2, GEMMGEN_SM90_REGS_96, GEMMGEN_SM90_ACC_96, 96, 97, 98)
#undef GEMMGEN_SM90_REGS_96
#undef GEMMGEN_SM90_ACC_96

// Accumulator registers of one m64n208 fragment (104 per thread).
#define GEMMGEN_SM90_REGS_104 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
  "%96,%97,%98,%99,%100,%101,%102,%103" \
  "}"
#define GEMMGEN_SM90_ACC_104 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])
GEMMGEN_SM90_WGMMA(208, f16, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106, 107, 108)
GEMMGEN_SM90_WGMMA(208, bf16, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106, 107, 108)
GEMMGEN_SM90_WGMMA_F8(208, e4m3, e4m3, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106)
GEMMGEN_SM90_WGMMA_F8(208, e4m3, e5m2, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106)
GEMMGEN_SM90_WGMMA_F8(208, e5m2, e4m3, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106)
GEMMGEN_SM90_WGMMA_F8(208, e5m2, e5m2, GEMMGEN_SM90_REGS_104, GEMMGEN_SM90_ACC_104, 104, 105, 106)
#undef GEMMGEN_SM90_REGS_104
#undef GEMMGEN_SM90_ACC_104

// Accumulator registers of one m64n224 fragment (112 per thread).
#define GEMMGEN_SM90_REGS_112 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
  "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111" \
  "}"
#define GEMMGEN_SM90_ACC_112 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
GEMMGEN_SM90_WGMMA(224, f16, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114, 115, 116)
GEMMGEN_SM90_WGMMA(224, bf16, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114, 115, 116)
GEMMGEN_SM90_WGMMA_F8(224, e4m3, e4m3, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114)
GEMMGEN_SM90_WGMMA_F8(224, e4m3, e5m2, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114)
GEMMGEN_SM90_WGMMA_F8(224, e5m2, e4m3, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114)
GEMMGEN_SM90_WGMMA_F8(224, e5m2, e5m2, GEMMGEN_SM90_REGS_112, GEMMGEN_SM90_ACC_112, 112, 113, 114)
#undef GEMMGEN_SM90_REGS_112
#undef GEMMGEN_SM90_ACC_112

// Accumulator registers of one m64n240 fragment (120 per thread).
#define GEMMGEN_SM90_REGS_120 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
  "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
  "%112,%113,%114,%115,%116,%117,%118,%119" \
  "}"
#define GEMMGEN_SM90_ACC_120 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
GEMMGEN_SM90_WGMMA(240, f16, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122, 123, 124)
GEMMGEN_SM90_WGMMA(240, bf16, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122, 123, 124)
GEMMGEN_SM90_WGMMA_F8(240, e4m3, e4m3, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122)
GEMMGEN_SM90_WGMMA_F8(240, e4m3, e5m2, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122)
GEMMGEN_SM90_WGMMA_F8(240, e5m2, e4m3, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122)
GEMMGEN_SM90_WGMMA_F8(240, e5m2, e5m2, GEMMGEN_SM90_REGS_120, GEMMGEN_SM90_ACC_120, 120, 121, 122)
#undef GEMMGEN_SM90_REGS_120
#undef GEMMGEN_SM90_ACC_120

// Accumulator registers of one m64n256 fragment (128 per thread).
#define GEMMGEN_SM90_REGS_128 \
  "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
  "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
  "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127" \
  "}"
#define GEMMGEN_SM90_ACC_128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
GEMMGEN_SM90_WGMMA(256, f16, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130, 131, 132)
GEMMGEN_SM90_WGMMA(256, bf16, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130, 131, 132)
GEMMGEN_SM90_WGMMA_F8(256, e4m3, e4m3, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130)
GEMMGEN_SM90_WGMMA_F8(256, e4m3, e5m2, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130)
GEMMGEN_SM90_WGMMA_F8(256, e5m2, e4m3, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130)
GEMMGEN_SM90_WGMMA_F8(256, e5m2, e5m2, GEMMGEN_SM90_REGS_128, GEMMGEN_SM90_ACC_128, 128, 129, 130)
#undef GEMMGEN_SM90_REGS_128
#undef GEMMGEN_SM90_ACC_128

#undef GEMMGEN_SM90_WGMMA
#undef GEMMGEN_SM90_WGMMA_F8


// wgmma m64nNk16 dispatcher over N and element kind (f32 accumulate); TA / TB: 1 reads A
// M-major / B N-major (see the wrappers above).
template <int N, int E, int TA = 0, int TB = 0>
struct Wgmma;
#define GEMMGEN_SM90_WGMMA_SPEC(N_)                                                              \
  template <int TA, int TB>                                                                      \
  struct Wgmma<N_, ELEM_F16, TA, TB> {                                                           \
    static __device__ __forceinline__ void mma(float (&d)[N_ / 2], u64 a, u64 b, int scale_d) {  \
      wgmma_m64n##N_##k16_f32_f16<TA, TB>(d, a, b, scale_d);                                     \
    }                                                                                            \
  };                                                                                             \
  template <int TA, int TB>                                                                      \
  struct Wgmma<N_, ELEM_BF16, TA, TB> {                                                          \
    static __device__ __forceinline__ void mma(float (&d)[N_ / 2], u64 a, u64 b, int scale_d) {  \
      wgmma_m64n##N_##k16_f32_bf16<TA, TB>(d, a, b, scale_d);                                    \
    }                                                                                            \
  };
GEMMGEN_SM90_WGMMA_SPEC(16)
GEMMGEN_SM90_WGMMA_SPEC(32)
GEMMGEN_SM90_WGMMA_SPEC(48)
GEMMGEN_SM90_WGMMA_SPEC(64)
GEMMGEN_SM90_WGMMA_SPEC(80)
GEMMGEN_SM90_WGMMA_SPEC(96)
GEMMGEN_SM90_WGMMA_SPEC(112)
GEMMGEN_SM90_WGMMA_SPEC(128)
GEMMGEN_SM90_WGMMA_SPEC(144)
GEMMGEN_SM90_WGMMA_SPEC(160)
GEMMGEN_SM90_WGMMA_SPEC(176)
GEMMGEN_SM90_WGMMA_SPEC(192)
GEMMGEN_SM90_WGMMA_SPEC(208)
GEMMGEN_SM90_WGMMA_SPEC(224)
GEMMGEN_SM90_WGMMA_SPEC(240)
GEMMGEN_SM90_WGMMA_SPEC(256)
#undef GEMMGEN_SM90_WGMMA_SPEC

// wgmma m64nNk32 dispatcher over N and the 8-bit kinds of A (EA) and B (EB), f32 accumulate.
template <int N, int EA, int EB>
struct WgmmaF8;
#define GEMMGEN_SM90_WGMMA_F8_SPEC(N_, EA_, EB_, TA_, TB_)                                        \
  template <>                                                                                    \
  struct WgmmaF8<N_, EA_, EB_> {                                                                 \
    static __device__ __forceinline__ void mma(float (&d)[N_ / 2], u64 a, u64 b, int scale_d) {  \
      wgmma_m64n##N_##k32_f32_##TA_##_##TB_(d, a, b, scale_d);                                   \
    }                                                                                            \
  };
#define GEMMGEN_SM90_WGMMA_F8_SPECS(N_)                                                           \
  GEMMGEN_SM90_WGMMA_F8_SPEC(N_, ELEM_E4M3, ELEM_E4M3, e4m3, e4m3)                               \
  GEMMGEN_SM90_WGMMA_F8_SPEC(N_, ELEM_E4M3, ELEM_E5M2, e4m3, e5m2)                               \
  GEMMGEN_SM90_WGMMA_F8_SPEC(N_, ELEM_E5M2, ELEM_E4M3, e5m2, e4m3)                               \
  GEMMGEN_SM90_WGMMA_F8_SPEC(N_, ELEM_E5M2, ELEM_E5M2, e5m2, e5m2)
GEMMGEN_SM90_WGMMA_F8_SPECS(16)
GEMMGEN_SM90_WGMMA_F8_SPECS(32)
GEMMGEN_SM90_WGMMA_F8_SPECS(48)
GEMMGEN_SM90_WGMMA_F8_SPECS(64)
GEMMGEN_SM90_WGMMA_F8_SPECS(80)
GEMMGEN_SM90_WGMMA_F8_SPECS(96)
GEMMGEN_SM90_WGMMA_F8_SPECS(112)
GEMMGEN_SM90_WGMMA_F8_SPECS(128)
GEMMGEN_SM90_WGMMA_F8_SPECS(144)
GEMMGEN_SM90_WGMMA_F8_SPECS(160)
GEMMGEN_SM90_WGMMA_F8_SPECS(176)
GEMMGEN_SM90_WGMMA_F8_SPECS(192)
GEMMGEN_SM90_WGMMA_F8_SPECS(208)
GEMMGEN_SM90_WGMMA_F8_SPECS(224)
GEMMGEN_SM90_WGMMA_F8_SPECS(240)
GEMMGEN_SM90_WGMMA_F8_SPECS(256)
#undef GEMMGEN_SM90_WGMMA_F8_SPECS
#undef GEMMGEN_SM90_WGMMA_F8_SPEC

// The per-tensor fp8 scales folded into alpha once per CTA: alpha * *scale_a * *scale_b, a
// null pointer standing for 1.
__device__ __forceinline__ float scaled_alpha(float alpha, const float* scale_a,
                                              const float* scale_b) {
  if (scale_a) alpha *= *scale_a;
  if (scale_b) alpha *= *scale_b;
  return alpha;
}

// ---------------------------------------------------------------------------------------------
// Epilogue helpers
// ---------------------------------------------------------------------------------------------

// Store four 8x8 b16 matrices to smem; lane i supplies the row address for row i%8 of matrix
// i/8, and register j holds this lane's pair of matrix j (stmatrix.m8n8.x4).
__device__ __forceinline__ void stmatrix_x4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}

// Two 8x8 b16 matrices (stmatrix.m8n8.x2): lanes 0-15 supply the row addresses (lane i row
// i%8 of matrix i/8); a chunk's odd n8 block (tile widths of 8 mod 16 columns).
__device__ __forceinline__ void stmatrix_x2(u32 addr, u32 r0, u32 r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n"
               :: "r"(addr), "r"(r0), "r"(r1) : "memory");
}

// stmatrix_x4 transposed (.trans): matrix j is stored with rows and columns swapped, so
// lane i's row address is for row i%8 of matrix i/8 as stored, i.e. column i%8 of the
// fragment: a column-major D's staging (a 16-byte row piece per output column).
__device__ __forceinline__ void stmatrix_x4_trans(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
               :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}

// Two consecutive f32 to / from shared memory (8-byte aligned): the f32 epilogue's staging.
__device__ __forceinline__ void st_shared_f32x2(u32 addr, float v0, float v1) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" :: "r"(addr), "f"(v0), "f"(v1) : "memory");
}
__device__ __forceinline__ float ld_shared_f32(u32 addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}

__device__ __forceinline__ void ld_shared_f32x2(u32 addr, float& v0, float& v1) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v0), "=f"(v1) : "r"(addr) : "memory");
}

// Load four 8x8 b16 matrices from smem, the inverse of stmatrix_x4 at the same addresses:
// register j gets this lane's pair of matrix j (ldmatrix.m8n8.x4).
__device__ __forceinline__ void ldmatrix_x4(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
}

// The inverse of stmatrix_x2 at the same addresses (ldmatrix.m8n8.x2).
__device__ __forceinline__ void ldmatrix_x2(u32 addr, u32& r0, u32& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
}

// ldmatrix_x4 transposed, the inverse of stmatrix_x4_trans at the same addresses.
__device__ __forceinline__ void ldmatrix_x4_trans(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
}

// The epilogue's D = alpha * acc + beta * C for one packed pair: C's pair `c` (16-bit, as
// ldmatrix_x4 read it from the staging tile) in, D's pair out, in f32 before one rounding.
template <int E>
__device__ __forceinline__ u32 axpby2(float alpha, float lo, float hi, float beta, u32 c) {
  return pack2<E>(fmaf(beta, unpack_lo<E>(c), alpha * lo), fmaf(beta, unpack_hi<E>(c), alpha * hi));
}

// Two f32 -> an fp8 pair of kind E (ELEM_E4M3 or ELEM_E5M2) in 16 bits, `lo` in bits 0-7:
// round to nearest even, saturated to the type's largest finite value (448 or 57344; NaN
// stays NaN), cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (sm_89+).
template <int E>
__device__ __forceinline__ u16 pack_fp8x2(float lo, float hi) {
  u16 r;
  if (E == ELEM_E5M2)
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}

// An fp8 pair of kind E -> two f32 (exact: every e4m3 and e5m2 value is an f16), through
// cvt.rn.f16x2.{e4m3x2,e5m2x2}: C's pair in an 8-bit D's staging tile.
template <int E>
__device__ __forceinline__ void unpack_fp8x2(u16 v, float& lo, float& hi) {
  u32 h;
  if (E == ELEM_E5M2)
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;\n" : "=r"(h) : "h"(v));
  else
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(h) : "h"(v));
  lo = unpack_lo<ELEM_F16>(h);
  hi = unpack_hi<ELEM_F16>(h);
}

// 16 or 32 bits to / from shared memory (2- or 4-byte aligned): an 8-bit D's pairs and quads.
__device__ __forceinline__ void st_shared_u16(u32 addr, u16 v) {
  asm volatile("st.shared.b16 [%0], %1;\n" :: "r"(addr), "h"(v) : "memory");
}
__device__ __forceinline__ void st_shared_u32(u32 addr, u32 v) {
  asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ u16 ld_shared_u16(u32 addr) {
  u16 v;
  asm volatile("ld.shared.b16 %0, [%1];\n" : "=h"(v) : "r"(addr) : "memory");
  return v;
}

// The amax of an 8-bit D: the warp's largest |v| (v >= 0 here), then one red.global.max on
// its bits — non-negative floats order as their bit patterns, so an integer maximum is the
// float maximum. The whole warp calls it (the shuffles are full-warp).
__device__ __forceinline__ void publish_amax(float* amax, float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (threadIdx.x % 32 == 0)
    asm volatile("red.global.max.u32 [%0], %1;\n" :: "l"(amax), "r"(__float_as_uint(v)) : "memory");
}

// Stream-K's hand-over flags (gpu scope): the writer's warpgroup stored its partial sum and
// synchronised on a named barrier; one thread then releases the flag, whose release orders
// those stores before it (cumulativity). The reader's one thread acquires it, then its
// warpgroup synchronises before reading. Each flag is released at most once a launch and taken
// by one reader, which sets it back to 0: a launch leaves its flags as it found them, so only a
// prepared launch's first run zeroes them (Launch.cpp, PreparedLaunch::skFlagsZero).
__device__ __forceinline__ void flag_release(int* flag) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" :: "l"(flag), "r"(1) : "memory");
}
__device__ __forceinline__ void flag_take(int* flag) {
  int v = 0;
  do {
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
  // Nobody writes this flag again in this launch; the next launch's writer comes after it.
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;\n" :: "l"(flag), "r"(0) : "memory");
}

}  // namespace sm90
}  // namespace gemmgen

#endif  // GEMMGEN_DEVICE_SM90_PTX_CUH

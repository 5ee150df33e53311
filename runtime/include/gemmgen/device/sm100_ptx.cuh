// gemmgen/device/sm100_ptx.cuh — device-side PTX wrappers for sm_100a kernels emitted by gemmgen.
//
// Each PTX instruction lives in one small named __device__ __forceinline__ wrapper with a one-line
// comment; generated sm_100a kernels use only these wrappers and those of common_ptx.cuh (what
// both targets share). The header compiles under NVRTC: it includes only common_ptx.cuh.
// Shared-memory operands are 32-bit shared-window addresses (u32); TMEM addresses are the 32-bit
// values tcgen05.alloc writes (lane in bits 16-31, column in 0-15).
//
// Status: compile-verified (NVRTC and nvcc, sm_100a); NOT run — no Blackwell GPU was available
// when this was written. Spellings follow the PTX ISA 8.6+ tcgen05 chapter.
//
// Debug: define GEMMGEN_DEBUG_HANGS to bound every mbarrier wait (GEMMGEN_HANG_TIMEOUT_NS of
// %globaltimer, default 2 s); on timeout the waiting thread prints block, thread, barrier id,
// slot and phase, then traps.
#ifndef GEMMGEN_DEVICE_SM100_PTX_CUH
#define GEMMGEN_DEVICE_SM100_PTX_CUH

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
namespace sm100 {

using namespace gemmgen::ptx;  // common_ptx.cuh's wrappers, types and ElemKind

// ---------------------------------------------------------------------------------------------
// Shared-memory words
// ---------------------------------------------------------------------------------------------

// Load a 32-bit word from shared memory (ld.shared.b32), e.g. the TMEM address tcgen05.alloc wrote.
__device__ __forceinline__ u32 ld_shared_u32(u32 addr) {
  u32 v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

// Load 16 bytes from shared memory (ld.shared.v4.b32): C's values where the writeback stores D's.
__device__ __forceinline__ void ld_shared_v4(u32 addr, u32& a, u32& b, u32& c, u32& d) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(addr) : "memory");
}

// Store 16 bytes to shared memory (st.shared.v4.b32).
__device__ __forceinline__ void st_shared_v4(u32 addr, u32 a, u32 b, u32 c, u32 d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "r"(addr), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}

// ---------------------------------------------------------------------------------------------
// mbarrier
// ---------------------------------------------------------------------------------------------

// Block until the phase with parity `parity` of `bar` has completed (try_wait loop). bar_id and
// slot only name the wait for the GEMMGEN_DEBUG_HANGS report.
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity, int bar_id, int slot) {
#ifdef GEMMGEN_DEBUG_HANGS
  const u64 t0 = globaltimer();
  while (!mbar_try_wait(bar, parity)) {
    if (globaltimer() - t0 > (u64)(GEMMGEN_HANG_TIMEOUT_NS)) {
      printf("gemmgen hang: block %d thread %d barrier %d slot %d phase %u\n", (int)blockIdx.x,
             (int)threadIdx.x, bar_id, slot, parity);
      trap();
    }
  }
#else
  (void)bar_id; (void)slot;
  while (!mbar_try_wait(bar, parity)) {
  }
#endif
}

// ---------------------------------------------------------------------------------------------
// TMA (cp.async.bulk.tensor)
// ---------------------------------------------------------------------------------------------

// TMA 2D tile load into this CTA's smem `dst` whose tx bytes complete on an mbarrier of either
// CTA of the pair (`cluster_bar`, a shared::cluster address, e.g. the leader's) (.cta_group::2).
__device__ __forceinline__ void tma_load_2d_pair(u32 dst, const TensorMap* tm, u32 cluster_bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
      " [%0], [%1, {%3, %4}], [%2];\n"
      :: "r"(dst), "l"(tm), "r"(cluster_bar), "r"(c0), "r"(c1) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Tensor memory (TMEM): allocation, fences, loads
// ---------------------------------------------------------------------------------------------

// Allocate `ncols` TMEM columns (power of two, 32..512) and write the address to smem `dst`
// (tcgen05.alloc; warp-collective; with CTA_GROUP 2 one warp of each CTA of the pair issues it).
template <int CTA_GROUP>
__device__ __forceinline__ void tmem_alloc(u32 dst, u32 ncols) {
  if (CTA_GROUP == 2)
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\n" :: "r"(dst), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" :: "r"(dst), "r"(ncols) : "memory");
}

// Give up the right to allocate TMEM again in this CTA (tcgen05.relinquish_alloc_permit).
template <int CTA_GROUP>
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  if (CTA_GROUP == 2)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
}

// Free `ncols` TMEM columns at `taddr` (tcgen05.dealloc; warp-collective, by the allocating warp).
template <int CTA_GROUP>
__device__ __forceinline__ void tmem_dealloc(u32 taddr, u32 ncols) {
  if (CTA_GROUP == 2)
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n" :: "r"(taddr), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" :: "r"(taddr), "r"(ncols) : "memory");
}

// Order this thread's prior tcgen05 ops before its next barrier/sync (tcgen05.fence::before_thread_sync).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}

// Order this thread's later tcgen05 ops after its last barrier/sync (tcgen05.fence::after_thread_sync).
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

// Warp loads 32 TMEM lanes x 32 consecutive 32-bit columns at `taddr`: lane i of the warp gets
// lane (taddr.lane + i), columns taddr.col .. +31, in r[0..31] (tcgen05.ld 32x32b.x32).
__device__ __forceinline__ void tmem_ld_32x32b_x32(u32 taddr, float* r) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, [%32];\n"
      : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]), "=f"(r[4]), "=f"(r[5]), "=f"(r[6]), "=f"(r[7]),
        "=f"(r[8]), "=f"(r[9]), "=f"(r[10]), "=f"(r[11]), "=f"(r[12]), "=f"(r[13]), "=f"(r[14]), "=f"(r[15]),
        "=f"(r[16]), "=f"(r[17]), "=f"(r[18]), "=f"(r[19]), "=f"(r[20]), "=f"(r[21]), "=f"(r[22]), "=f"(r[23]),
        "=f"(r[24]), "=f"(r[25]), "=f"(r[26]), "=f"(r[27]), "=f"(r[28]), "=f"(r[29]), "=f"(r[30]), "=f"(r[31])
      : "r"(taddr) : "memory");
}

// Wait until every tcgen05.ld this thread issued has written its registers (tcgen05.wait::ld).
__device__ __forceinline__ void tmem_wait_ld() {
  asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}

// ---------------------------------------------------------------------------------------------
// tcgen05.mma and its completion
// ---------------------------------------------------------------------------------------------

// Instruction descriptor for tcgen05.mma kind::f16 with f32 accumulate, A and B K-major, dense:
// bits 4-5 D type (1 = f32), 7-9 A type and 10-12 B type (0 = f16, 1 = bf16), 15/16 transpose
// A/B (0 = K-major), 17-22 N >> 3, 24-28 M >> 4.
__host__ __device__ constexpr u32 make_idesc_f16_f32(int m, int n, int elem) {
  return (1u << 4) | ((u32)elem << 7) | ((u32)elem << 10) | ((u32)(n >> 3) << 17) | ((u32)(m >> 4) << 24);
}

// Instruction descriptor for tcgen05.mma kind::f8f6f4 with f32 accumulate, A and B K-major,
// dense: the kind::f16 layout with A's format in bits 7-9 and B's in 10-12 (E4M3 = 0, E5M2 = 1).
__host__ __device__ constexpr u32 make_idesc_f8f6f4_f32(int m, int n, int a_fmt, int b_fmt) {
  return (1u << 4) | ((u32)a_fmt << 7) | ((u32)b_fmt << 10) | ((u32)(n >> 3) << 17) | ((u32)(m >> 4) << 24);
}

// Shared-memory matrix descriptor (tcgen05 form) for a K-major operand in the 128-byte-swizzle
// canonical layout (TMA SWIZZLE_128B, 64 16-bit elements per 128-byte row, tile 1024-byte
// aligned): bits 0-13 start >> 4, 16-29 leading byte offset >> 4 (unused for swizzled K-major:
// 1), 32-45 stride byte offset >> 4 (1024 B = 8 rows x 128 B), 46-48 fixed 0b001, 49-51 base
// offset 0, 61-63 swizzle mode 2 = 128B. Advance along K by adding 32 bytes (16 elements).
__device__ __forceinline__ u64 make_smem_desc_sw128(u32 addr) {
  u64 d = 0;
  d |= (u64)((addr & 0x3FFFFu) >> 4);
  d |= (u64)1u << 16;
  d |= (u64)(1024u >> 4) << 32;
  d |= (u64)1u << 46;
  d |= (u64)2u << 61;
  return d;
}

// D(tmem) (+)= A(smem desc) * B(smem desc)^T, kind::f16 (tcgen05.mma); issued by one thread.
// With CTA_GROUP 2 the pair computes one MMA: A and B halves at the same offsets in both CTAs,
// D rows split between the CTAs' TMEM. accumulate = 0 overwrites D.
template <int CTA_GROUP>
__device__ __forceinline__ void tcgen05_mma_f16(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, int accumulate) {
  if (CTA_GROUP == 2)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}\n"
        :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
  else
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
        :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
}

// D(tmem) (+)= A(smem desc) * B(smem desc)^T, kind::f8f6f4 (8-bit operands, 32 K elements per
// instruction: the same 32 bytes of each 128-byte row as kind::f16's 16 elements).
template <int CTA_GROUP>
__device__ __forceinline__ void tcgen05_mma_f8f6f4(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, int accumulate) {
  if (CTA_GROUP == 2)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::2.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n"
        :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
  else
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n"
        :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
}

// One arrival on mbarrier `bar` of this CTA once every prior tcgen05 op of this thread has
// completed (tcgen05.commit ... mbarrier::arrive::one).
template <int CTA_GROUP>
__device__ __forceinline__ void tcgen05_commit(u32 bar) {
  if (CTA_GROUP == 2)
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" :: "r"(bar) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" :: "r"(bar) : "memory");
}

// As tcgen05_commit, but the arrival reaches the mbarrier at offset `bar` in every CTA of
// `cta_mask` (tcgen05.commit ... multicast::cluster).
template <int CTA_GROUP>
__device__ __forceinline__ void tcgen05_commit_multicast(u32 bar, u16 cta_mask) {
  if (CTA_GROUP == 2)
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n"
                 :: "r"(bar), "h"(cta_mask) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n"
                 :: "r"(bar), "h"(cta_mask) : "memory");
}

}  // namespace sm100
}  // namespace gemmgen

#endif  // GEMMGEN_DEVICE_SM100_PTX_CUH

// gemmgen/device/common_ptx.cuh — the PTX wrappers sm_90a and sm_100a kernels share.
//
// One small named __device__ __forceinline__ wrapper per PTX instruction, with a one-line
// comment, as in the target headers (sm90_ptx.cuh, sm100_ptx.cuh), which include this one and
// bring its names into their namespaces: generated kernels call these unqualified. Only what
// both targets issue with the same spelling lives here; an instruction the targets spell or
// order differently stays in its target's header. Compiles under NVRTC (includes nothing).
#ifndef GEMMGEN_DEVICE_COMMON_PTX_CUH
#define GEMMGEN_DEVICE_COMMON_PTX_CUH

namespace gemmgen {
namespace ptx {

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// Opaque 128-byte TMA descriptor. The host builds a CUtensorMap with cuTensorMapEncodeTiled and
// passes its 128 bytes by value as a `const __grid_constant__ TensorMap` kernel parameter.
struct __align__(64) TensorMap {
  u64 opaque[16];
};

// Element kinds of the operands and of D (pack2's E, the wgmma and tcgen05 instruction kinds).
enum ElemKind : int { ELEM_F16 = 0, ELEM_BF16 = 1, ELEM_E4M3 = 2, ELEM_E5M2 = 3 };

// ---------------------------------------------------------------------------------------------
// Addresses, ids, timers
// ---------------------------------------------------------------------------------------------

// Generic pointer into shared memory -> 32-bit shared-window address (cvta.to.shared).
__device__ __forceinline__ u32 smem_addr(const void* p) {
  u32 a;
  asm volatile("{\n.reg .u64 t;\ncvta.to.shared.u64 t, %1;\ncvt.u32.u64 %0, t;\n}\n" : "=r"(a) : "l"(p));
  return a;
}

// This CTA's rank inside its cluster (%cluster_ctarank).
__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

// Global nanosecond timer (%globaltimer).
__device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}

// Elect one lane of the (fully active) warp: true in exactly one lane (elect.sync).
__device__ __forceinline__ bool elect_one_sync() {
  u32 pred;
  asm volatile(
      "{\n.reg .pred p;\n.reg .b32 l;\n"
      "elect.sync l|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}

// Abort the kernel (trap).
__device__ __forceinline__ void trap() { asm volatile("trap;\n"); }

// Map a local shared address to the same offset in cluster CTA `rank` (mapa.shared::cluster).
__device__ __forceinline__ u32 mapa_shared(u32 addr, u32 rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}

// ---------------------------------------------------------------------------------------------
// mbarrier
// ---------------------------------------------------------------------------------------------

// Initialise an mbarrier with an expected arrival count (mbarrier.init).
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}

// Make mbarrier inits visible to the async proxy and to the cluster (fence.mbarrier_init).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Arrive once on a local mbarrier (mbarrier.arrive, release.cta).
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

// Arrive once on a local mbarrier and add `bytes` to its expected transaction count.
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(bytes) : "memory");
}

// Arrive once on an mbarrier given by a shared::cluster address (default .release.cta semantics).
// Used to release a smem stage whose readers (wgmma, already waited for) are done. A
// .release.cluster arrive in this place made the whole 2-CTA-cluster GEMM ~40% slower on the
// H200 (2026-11-29, tools/proto/NOTES.md); the cause is presumed, not proven, to be the
// cluster-scope release waiting for the still-pending wgmma group.
__device__ __forceinline__ void mbar_arrive_cluster(u32 cluster_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" :: "r"(cluster_bar) : "memory");
}

// Arrive once with release semantics at cluster scope on a shared::cluster mbarrier address.
__device__ __forceinline__ void mbar_arrive_cluster_release(u32 cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" :: "r"(cluster_bar) : "memory");
}

// Arrive once on the mbarrier at local offset `bar` in cluster CTA `rank` (mapa + remote arrive).
__device__ __forceinline__ void mbar_arrive_remote(u32 bar, u32 rank) {
  mbar_arrive_cluster(mapa_shared(bar, rank));
}

// Arrive once, release at cluster scope, on the mbarrier at local offset `bar` in cluster CTA
// `rank`: the arrive that publishes this CTA's writes to a waiter in another CTA.
__device__ __forceinline__ void mbar_arrive_remote_release(u32 bar, u32 rank) {
  mbar_arrive_cluster_release(mapa_shared(bar, rank));
}

// Test once whether the phase with parity `parity` has completed (mbarrier.try_wait.parity).
__device__ __forceinline__ bool mbar_try_wait(u32 bar, u32 parity) {
  u32 done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// ---------------------------------------------------------------------------------------------
// Fences, CTA and cluster barriers
// ---------------------------------------------------------------------------------------------

// Order this thread's generic-proxy shared-memory writes before later async-proxy reads (TMA,
// wgmma, tcgen05.mma).
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Cluster barrier arrive with release semantics (barrier.cluster.arrive.release).
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}

// Cluster barrier wait with acquire semantics (barrier.cluster.wait.acquire).
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Full cluster-wide barrier: every thread of every CTA of the cluster (arrive + wait).
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// Named barrier: wait until `count` threads (multiple of 32) reached barrier `id` (bar.sync).
__device__ __forceinline__ void named_barrier_sync(u32 id, u32 count) {
  asm volatile("bar.sync %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

// ---------------------------------------------------------------------------------------------
// TMA (cp.async.bulk.tensor) and bulk groups
// ---------------------------------------------------------------------------------------------

// Prefetch a tensor map (kernel parameter) into the descriptor cache (prefetch.tensormap).
__device__ __forceinline__ void prefetch_tensormap(const TensorMap* tm) {
  asm volatile("prefetch.tensormap [%0];\n" :: "l"(tm) : "memory");
}

// TMA 2D tile load global -> local smem `dst`, completing tx bytes on local mbarrier `bar`.
// Coordinates are innermost first: c0 = column (contiguous dim), c1 = row.
__device__ __forceinline__ void tma_load_2d(u32 dst, const TensorMap* tm, u32 bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n"
      :: "r"(dst), "l"(tm), "r"(bar), "r"(c0), "r"(c1) : "memory");
}

// TMA 2D tile store local smem `src` -> global box at (c0, c1); out-of-bounds parts are clipped.
__device__ __forceinline__ void tma_store_2d(const TensorMap* tm, u32 src, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n"
      :: "l"(tm), "r"(src), "r"(c0), "r"(c1) : "memory");
}

// Close the current group of bulk async stores (cp.async.bulk.commit_group).
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Wait until at most N bulk groups are still pending, writes included (cp.async.bulk.wait_group).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" :: "n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Packing
// ---------------------------------------------------------------------------------------------

// Two f32 -> packed f16x2 (round to nearest even); `lo` goes to bits 0-15 (cvt.rn.f16x2.f32).
__device__ __forceinline__ u32 pack_f16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Two f32 -> packed bf16x2 (round to nearest even); `lo` goes to bits 0-15 (cvt.rn.bf16x2.f32).
__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Two f32 -> packed 16-bit pair of element kind E.
template <int E>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  return E == ELEM_BF16 ? pack_bf16x2(lo, hi) : pack_f16x2(lo, hi);
}

// Packed 16-bit pair of element kind E -> the f32 value of its low (bits 0-15) or high half.
template <int E>
__device__ __forceinline__ float unpack_lo(u32 v) {
  if (E == ELEM_BF16) return __uint_as_float(v << 16);
  float f;
  asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, lo; }\n" : "=f"(f) : "r"(v));
  return f;
}
template <int E>
__device__ __forceinline__ float unpack_hi(u32 v) {
  if (E == ELEM_BF16) return __uint_as_float(v & 0xffff0000u);
  float f;
  asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, hi; }\n" : "=f"(f) : "r"(v));
  return f;
}

}  // namespace ptx
}  // namespace gemmgen

#endif  // GEMMGEN_DEVICE_COMMON_PTX_CUH

//===- KernelABI.h - What the host must do to launch a kernel ---*- C++ -*-===//
//
// The contract between an emitted kernel and whoever launches it (the runtime
// library, the GPU tests, a standalone harness). It is derived from the IR by
// `deriveKernelABI` and printed as a comment block in every emitted .cu.
//
// Every emitted kernel has the signature
//
//   extern "C" __global__ void NAME(const __grid_constant__ TensorMap tmA,
//                                   const __grid_constant__ TensorMap tmB,
//                                   const __grid_constant__ TensorMap tmD,
//                                   int M, int N, int K[, int batch]);
//
// `batch` (kernels whose ABI says `batched`, every sm_90a kernel): the
// number of strided batch entries; the tensor maps are then 3-D, the batch
// entry their outermost dimension (its stride the operand's batch stride).
// Kernels without it compute one problem with 2-D maps. After `batch` (or
// K), kernels whose ABI says `alphaBeta` (every kernel with a TMA store, on
// both targets) take `const __grid_constant__ TensorMap tmC, float alpha,
// float beta`.
//
// A grouped kernel (`grouped`: scheduler.grouped) instead takes
//
//   NAME(const GroupedProblem *problems, int problem_count, int total_slots,
//        float alpha, float beta);
//
// a device table of problems (gemmgen/device/tile_schedule.cuh: each entry
// its M, N, K, its slots of the walk and the 3-D tensor maps of its A, B, D
// and C, batch extent 1), walked in one persistent launch.
//
// computing D[M,N] = A[M,K] · B[K,N] (D row-major; A and B as `layoutA`,
// `layoutB` say; 16-bit operands, f32 accumulation). The tensor maps of A
// and B describe them as stored (see KernelPlan's OperandLoadPlan).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_KERNELABI_H
#define GEMMGEN_KERNELABI_H

#include "gemmgen/Spec.h"

#include <string>

namespace gemmgen {

/// Shape of one TMA box (elements), innermost dimension first.
struct TmaBox {
  unsigned inner = 0;        ///< elements along the contiguous dimension
  unsigned outer = 0;        ///< rows
  unsigned swizzleBytes = 0; ///< 0 (none), 32, 64 or 128
  /// Bytes the L2 fetches per request of this map (64, 128, 256; 0: the
  /// runtime's rule by the rows' alignment). A's and B's: pipeline.l2_promotion.
  unsigned l2PromotionBytes = 0;
};

struct KernelABI {
  std::string kernelName;
  Target target = Target::SM90a;
  ScalarType aType = ScalarType::F16, bType = ScalarType::F16,
             dType = ScalarType::F16;
  unsigned threadsPerBlock = 0;
  unsigned sharedMemBytes = 0;   ///< dynamic shared memory per block
  unsigned clusterM = 1, clusterN = 1;
  unsigned tileM = 0, tileN = 0, tileK = 0; ///< output tile per CTA
  unsigned consumers = 1;        ///< MMA consumer warpgroups (each owns tileM / consumers rows)
  bool persistent = true;        ///< grid = min(tiles, SMs) rounded to clusters
  /// The tile schedule's unit (KernelPlan::schedule): the output block one
  /// cluster computes per step, and the CTAs of that cluster. The grid is a
  /// number of units (gemmgen/device/tile_schedule.cuh) times ctasPerUnit.
  unsigned unitRows = 0, unitCols = 0, ctasPerUnit = 1;
  /// Raster order and group of the schedule (scheduler.raster / .group).
  RasterOrder raster = RasterOrder::AlongM;
  unsigned group = 8;
  /// Operand layouts (the spec's `layout`): A row-major (M×K, K-major) or
  /// column-major; B column-major (stored N×K, K-major) or row-major (K×N).
  MatrixLayout layoutA = MatrixLayout::Row, layoutB = MatrixLayout::Col;
  /// D (and C) row-major (M lines of N) or column-major (N lines of M:
  /// layout.d col, boxD then 64 rows along M by the epilogue chunk).
  MatrixLayout layoutD = MatrixLayout::Row;
  TmaBox boxA, boxB, boxD;       ///< tensor-map boxes the kernel expects
  /// A packed K-major operand's rows are 16-byte multiples apart when K is a
  /// multiple of this (K itself is free: TMA zero-fills past it; other rows
  /// take the runtime's staging path).
  unsigned kAlignment = 8;
  /// M and N need no alignment (TMA zero-fills loads and clips stores), but
  /// leading dimensions must be multiples of this many elements.
  unsigned ldAlignment = 8;
  /// The kernel takes `int batch` after K and 3-D tensor maps (strided
  /// batched GEMM, one launch); otherwise 2-D maps and one problem.
  bool batched = false;
  /// The kernel takes `tmC, float alpha, float beta` after `batch` (or K) and
  /// computes D = alpha·A·B + beta·C (C read only when beta ≠ 0, through a
  /// tensor map with D's box); otherwise D = A·B.
  bool alphaBeta = false;
  /// 8-bit operands: the kernel takes `const float* scale_a, const float*
  /// scale_b` after beta (device f32 scalars, null = 1) and computes
  /// D = (alpha·scale_a·scale_b)·A·B + beta·C.
  bool perTensorScales = false;
  /// types.scaling: blockwise: scale_a and scale_b are arrays instead —
  /// A's [entry][kb][row] (M × ceil(K/128) per entry, rows contiguous), B's
  /// [entry][n / 128][kb] (ceil(N/128) × ceil(K/128) per entry), f32, never
  /// null — applied to each k-block's partial sum (alpha is not scaled).
  bool blockwiseScales = false;
  /// An 8-bit D (types.d e4m3/e5m2; its kernels have 8-bit operands): the
  /// kernel takes `const float* d_scale, float* d_amax` after scale_a and
  /// scale_b, stores D = fp8(d_scale · v) (round to nearest even, saturated
  /// to the largest finite value; d_scale null = 1) where v is the value
  /// after the chain, and raises *d_amax to max |v| over D (null: not
  /// kept). The launcher sets *d_amax to 0 before the kernel.
  bool fp8Output = false;
  /// The kernel takes a table of problems (grouped GEMM, see above) instead
  /// of tensor maps and M, N, K, batch.
  bool grouped = false;
  /// scheduler.split_k: the kernel computes K slices as batch entries into
  /// an f32 workspace (dType f32), and the runtime sums them into a D of
  /// `splitOut` (1: no split).
  unsigned splitK = 1;
  ScalarType splitOut = ScalarType::F16;
  /// epilogue.chain, applied per element before D's store. A kernel with a
  /// chain takes `const void *bias, long long bias_stride, const float
  /// *scale_d` after its other parameters (sm_90a: after beta, fp8's
  /// scales and an 8-bit D's d_scale/d_amax; sm_100a: after K) (bias: the
  /// vector of the chain's bias step, bias_stride elements between batch
  /// entries; scale_d: the scale step's device scalar, null = 1).
  std::vector<EpilogueStep> epilogueChain;
  bool hasChain() const { return !epilogueChain.empty(); }
  /// scheduler.kind: stream_k: the kernel takes `float *sk_partials, int
  /// *sk_flags` last: per CTA of the grid and consumer, a partial-sum slot
  /// of tileM / consumers × tileN f32 and a flag, which the launcher zeroes
  /// before the kernel. The grid must be co-resident (at most one CTA per
  /// SM): a CTA waits for flags of later CTAs.
  bool streamK = false;
  /// scheduler.simt_narrow: a launch with at most this many rows or columns
  /// of D runs on the runtime's SIMT kernel (NarrowPath.cpp), not this one.
  unsigned simtNarrow = 0;
};

} // namespace gemmgen

#endif // GEMMGEN_KERNELABI_H

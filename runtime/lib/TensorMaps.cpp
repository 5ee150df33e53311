//===- TensorMaps.cpp - cuTensorMapEncodeTiled for the kernel ABI ----------===//
//
// One tensor map per operand: `lines` rows of `length` 16-bit elements with
// leading dimension `ld` (elements), dims given innermost first, and for a
// batched kernel a third dimension, the batch entry, `batchStride` elements
// apart; the box and swizzle the kernel's ABI asks for (128-byte swizzle
// for gemmgen's kernels), out-of-bounds loads filled with zeros, stores
// clipped.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <cstdlib>
#include <string>

using namespace gemmgen;

/// L2 sector promotion of a map whose rows are `strideBytes` apart: the
/// kernel's own (`bytes`: pipeline.l2_promotion) where it has one, else by
/// the rows. Rows on 128-byte lines take 256 B; rows that are not (a packed
/// K = 4104: 16 B past a line) take 128 B: on the H200 4096x4096x4104 ran at
/// 497 TFLOP/s with 256 B and 576 with 128 B, while 4096^3 ran the same with
/// both (bench/results/2026-12-01_layouts_h200, docs/PERF.md).
/// GEMMGEN_TMA_L2_PROMOTION = none, 64, 128 or 256 overrides both (a
/// measurement knob, not an API).
static CUtensorMapL2promotion promotionOf(unsigned bytes) {
  switch (bytes) {
  case 0: return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case 64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case 128: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  default: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
}

static CUtensorMapL2promotion l2Promotion(unsigned long long strideBytes, unsigned bytes) {
  // Read once: prepare() runs on every launch by arguments. -1: not forced.
  static const int forced = [] {
    const char *env = getenv("GEMMGEN_TMA_L2_PROMOTION");
    const std::string v = env ? env : "";
    return v == "none" ? 0 : v == "64" ? 64 : v == "128" ? 128 : v == "256" ? 256 : -1;
  }();
  if (forced >= 0)
    return promotionOf(unsigned(forced));
  if (bytes)
    return promotionOf(bytes);
  return promotionOf(strideBytes % 128 == 0 ? 256 : 128);
}

Status gemmgen::encodeTensorMap(const DriverApi &drv, void *out, CUdeviceptr base, DType t,
                                int rank, const MapGeometry &g, const TmaBox &box,
                                const char *operand) {
  std::string who = std::string("operand ") + operand + ": ";
  CUtensorMapSwizzle swizzle;
  switch (box.swizzleBytes) {
  case 0: swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; break;
  case 32: swizzle = CU_TENSOR_MAP_SWIZZLE_32B; break;
  case 64: swizzle = CU_TENSOR_MAP_SWIZZLE_64B; break;
  case 128: swizzle = CU_TENSOR_MAP_SWIZZLE_128B; break;
  default:
    return Status::error(ErrorCode::InvalidArgument,
                         who + "TMA swizzle of " + std::to_string(box.swizzleBytes) +
                             " bytes is not one of 0, 32, 64, 128");
  }
  const unsigned elemBytes = (unsigned)sizeOf(t);
  if (box.inner == 0 || box.outer == 0 || box.inner > 256 || box.outer > 256)
    return Status::error(ErrorCode::InvalidArgument,
                         who + "TMA box " + std::to_string(box.inner) + "x" +
                             std::to_string(box.outer) + " is out of range (1..256 per dimension)");
  if (box.swizzleBytes && box.inner * elemBytes > box.swizzleBytes)
    return Status::error(ErrorCode::InvalidArgument,
                         who + "TMA box inner extent " + std::to_string(box.inner * elemBytes) +
                             " bytes exceeds the " + std::to_string(box.swizzleBytes) +
                             "-byte swizzle span");
  if (rank != 2 && rank != 3)
    return Status::error(ErrorCode::InvalidArgument,
                         who + "tensor map rank " + std::to_string(rank) + " is not 2 or 3");
  cuuint64_t dims[3] = {(cuuint64_t)g.length, (cuuint64_t)g.lines, (cuuint64_t)g.batch};
  cuuint64_t strides[2] = {(cuuint64_t)g.ld * elemBytes, (cuuint64_t)g.batchStride * elemBytes};
  cuuint32_t boxDim[3] = {box.inner, box.outer, 1};
  cuuint32_t elemStrides[3] = {1, 1, 1};
  CUresult r = drv.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap *>(out),
      t == DType::BF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
      : t == DType::F32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
      : isFp8(t)        ? CU_TENSOR_MAP_DATA_TYPE_UINT8 // TMA moves fp8 as bytes
                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      (cuuint32_t)rank, reinterpret_cast<void *>(base), dims, strides, boxDim, elemStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2Promotion(strides[0], box.l2PromotionBytes),
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::error(ErrorCode::InvalidArgument,
                         who + "cuTensorMapEncodeTiled failed (" + std::to_string(g.lines) +
                             "x" + std::to_string(g.length) + ", ld " + std::to_string(g.ld) +
                             (rank == 3 ? ", batch " + std::to_string(g.batch) + " stride " +
                                              std::to_string(g.batchStride)
                                        : std::string()) +
                             ", box " +
                             std::to_string(box.inner) + "x" + std::to_string(box.outer) +
                             "): " + drv.errorString(r));
  return Status::success();
}

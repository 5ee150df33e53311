//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// The reference `gemmgen bench` times chain (fused epilogue) and fp8
// kernels against: one cublasLtMatmul per problem, configured by an
// LtMatmulDesc that describeLtMatmul derives from gemmgen's arguments (a
// pure function, unit-tested without a GPU). libcublasLt is dlopen'ed,
// never linked; cublasLt.h is included for its types and enums only.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_CUBLASLT_H
#define GEMMGEN_TUNE_CUBLASLT_H

#include "gemmgen/gemmgen.h"

#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// One cublasLtMatmul in cuBLASLt's column-major terms. gemmgen's row-major
/// D[M,N] = A·B^T is cuBLASLt's column-major D' = D^T (N×M) = op(A')·op(B')
/// with A' = our B and B' = our A (Cublas.cpp's mapping).
struct LtMatmulDesc {
  /// A matrix as cuBLASLt's layout reads it: rows×cols stored column-major.
  struct Matrix {
    cudaDataType type = CUDA_R_16F;
    std::uint64_t rows = 0, cols = 0;
    std::int64_t ld = 0, batchStride = 0;
  };
  cublasOperation_t transA = CUBLAS_OP_T, transB = CUBLAS_OP_N;
  std::uint64_t m = 0, n = 0, k = 0; ///< cuBLASLt's: our N, M, K
  Matrix a, b, d;                    ///< C is laid out like D...
  /// ...but in bf16 when D is fp8 (cuBLASLt's fp8 outputs take a 16-bit C;
  /// only with beta = 0 here, C then unread). Its type: d's, or this.
  cudaDataType cType = CUDA_R_16F;
  int batch = 1;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType scaleType = CUDA_R_32F;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  bool hasBias = false;
  cudaDataType biasType = CUDA_R_32F;  ///< set explicitly when hasBias
  std::int64_t biasBatchStride = 0;
  /// fp8: accumulate in the MMA's f32 without periodic promotion, as
  /// gemmgen's kernels do (cuBLASLt's default promotes: slower, not ours).
  bool fastAccum = false;
  float alpha = 1.0f, beta = 0.0f;
  /// cuBLASLt's operands: A' = our B, B' = our A; C = D (in place).
  CUdeviceptr A = 0, B = 0, C = 0, D = 0, bias = 0;
  /// A_SCALE scales A' (our B: scaleB), B_SCALE B' (our A: scaleA); 0 = unset (1).
  CUdeviceptr scaleA = 0, scaleB = 0;
  /// An fp8 D: D_SCALE_POINTER (our scaleD, 0 = unset: 1) and
  /// AMAX_D_POINTER (our amaxD: max |v| before the scale, 0 = unset).
  CUdeviceptr scaleD = 0, amaxD = 0;
  /// How cuBLASLt reads them (A_SCALE_MODE, B_SCALE_MODE): SCALAR_32F (per
  /// tensor, left unset), or for blockwise kernels BLK128x128_32F for A' (our
  /// B's 128x128 blocks) and VEC128_32F for B' (our A's 1x128 blocks).
  cublasLtMatmulMatrixScale_t scaleModeA = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
                              scaleModeB = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  /// Everything but pointers, alpha and beta: the algorithm cache's key.
  std::string key() const;
};

/// The cuBLASLt epilogue that computes `epi` (a chain without a bias step
/// uses no bias): none -> DEFAULT, bias (per column) -> BIAS, relu -> RELU,
/// gelu_tanh -> GELU, bias then relu / gelu_tanh -> RELU_BIAS / GELU_BIAS.
/// Unsupported, naming the step, for what cuBLASLt has no epilogue for.
Expected<cublasLtEpilogue_t> ltEpilogueFor(const EpilogueInfo &epi);

/// The cuBLASLt call that computes what a kernel with operand types tA, tB,
/// output `out` and epilogue `epi` computes for `args` (one problem or a
/// strided batch, row-major D; C = D when beta ≠ 0). fp8 (both E4M3 or E5M2,
/// not E5M2 x E5M2): TN only, our row-major A and column-major B;
/// args.scaleA/scaleB become the B/A scale pointers, fast accumulation on.
/// An fp8 `out`: args.scaleD and amaxD become D's scale and amax pointers,
/// C is bf16, and beta must be 0 (our C has D's fp8 type).
/// `blockwise` (KernelInfo::blockwiseScales): the scales are block arrays
/// instead, cuBLASLt's 128-element block scaling (see LtBlockScales below);
/// args.scaleA is our A's [kb][m] array, args.scaleB must hold B's scales in
/// cuBLASLt's BLK128x128 layout (LtBlockScales::toCublasLt).
Expected<LtMatmulDesc> describeLtMatmul(const GemmArgs &args, DType tA, DType tB, DType out,
                                        const EpilogueInfo &epi, bool blockwise = false);
/// The same for what kernel `ki` computes (its types, chain and scaling).
Expected<LtMatmulDesc> describeLtMatmul(const GemmArgs &args, const KernelInfo &ki);

/// Blockwise fp8 scales, ours against cuBLASLt's (cuBLAS docs §3.1.4.5,
/// "128-element 1D and 128x128 2D Block Scaling For FP8 Data Types", and
/// §3.1.4.5.1 "Scaling factors layouts"), for one M×N×K entry, L = ceil(K/128):
///
///   our A (M×K, 1x128 blocks): [kb][m], M values per kb, rows contiguous.
///   cuBLASLt's B' = our A, VEC128_32F: "N-major with shape N×L" in its terms
///     (its n = our M): element (m, kb) at kb·M + m. The same layout: the
///     bench hands cuBLASLt our array.
///   our B (N×K, 128x128 blocks): [nb][kb], L values per nb.
///   cuBLASLt's A' = our B, BLK128x128_32F: "K-major, the stride between
///     consecutive columns a multiple of 4", shape L4 × ceil(N/128) with
///     L4 = L rounded up to 4: element (kb, nb) at nb·L4 + kb. It differs
///     from ours when L % 4 != 0 (K = 4096, 7168, 2048, 18432 give L = 32, 56,
///     16, 144: the same bytes); then bench gives cuBLASLt a padded copy.
///
/// The docs also require M and N multiples of 4 and 16-byte aligned scale
/// arrays, and on Hopper allow VEC128×VEC128, VEC128×BLK128x128 and
/// BLK128x128×VEC128 (A_SCALE_MODE × B_SCALE_MODE), not BLK×BLK.
struct LtBlockScales {
  long long N = 0, K = 0;
  long long kBlocks() const { return (K + 127) / 128; }                   ///< L
  long long nBlocks() const { return (N + 127) / 128; }
  long long ltColumnStride() const { return (kBlocks() + 3) / 4 * 4; }    ///< L4
  long long ltCount() const { return ltColumnStride() * nBlocks(); }     ///< cuBLASLt's B array
  /// Whether cuBLASLt's BLK128x128 array is our B array byte for byte.
  bool sameAsOurs() const { return ltColumnStride() == kBlocks(); }
  /// Our B scales ([nb][kb], nBlocks()·kBlocks() values) in cuBLASLt's
  /// layout (ltCount() values, the padding 0).
  std::vector<float> toCublasLt(const std::vector<float> &ours) const;
};

/// cublasLtEpilogue_t's name: "GELU_BIAS", "DEFAULT", ...
const char *ltEpilogueName(cublasLtEpilogue_t e);
/// cublasLtMatmulMatrixScale_t's name: "VEC128_32F", "BLK128x128_32F", ...
const char *ltScaleModeName(cublasLtMatmulMatrixScale_t m);

class CublasLt {
public:
  /// $GEMMGEN_CUBLASLT (that library only), else libcublasLt.so.13/.12/.so
  /// next to the NVRTC gemmgen was linked with, on the loader path, or in
  /// /usr/local/cuda/lib64. Unsupported (never a crash) when none loads.
  static Expected<std::unique_ptr<CublasLt>> load();
  ~CublasLt();
  CublasLt(const CublasLt &) = delete;
  CublasLt &operator=(const CublasLt &) = delete;

  /// Enqueues `desc` on `stream` with the heuristic's first algorithm for
  /// its key (queried once, then cached) and `workspace` (bytes).
  Status matmul(const LtMatmulDesc &desc, CUdeviceptr workspace, std::size_t workspaceBytes,
                CUstream stream) const;
  std::size_t version() const { return version_; } ///< cublasLtGetVersion, e.g. 130100
  const std::string &path() const { return path_; }
  /// The workspace cuBLASLt is offered (32 MiB, the customary size).
  static constexpr std::size_t kWorkspaceBytes = 32u << 20;

private:
  struct Plan; // descriptors and algorithm of one key
  CublasLt() = default;
  Expected<const Plan *> plan(const LtMatmulDesc &desc, std::size_t workspaceBytes) const;
  Status check(cublasStatus_t st, const char *call) const;
  cublasLtHandle_t handle = nullptr;
  std::size_t version_ = 0;
  std::string path_;
  mutable std::map<std::string, std::unique_ptr<Plan>> plans;
#define GG_LT_FN(name) decltype(&::name) name = nullptr
  GG_LT_FN(cublasLtCreate);
  GG_LT_FN(cublasLtDestroy);
  GG_LT_FN(cublasLtGetVersion);
  GG_LT_FN(cublasLtGetStatusString);
  GG_LT_FN(cublasLtMatmulDescCreate);
  GG_LT_FN(cublasLtMatmulDescDestroy);
  GG_LT_FN(cublasLtMatmulDescSetAttribute);
  GG_LT_FN(cublasLtMatrixLayoutCreate);
  GG_LT_FN(cublasLtMatrixLayoutDestroy);
  GG_LT_FN(cublasLtMatrixLayoutSetAttribute);
  GG_LT_FN(cublasLtMatmulPreferenceCreate);
  GG_LT_FN(cublasLtMatmulPreferenceDestroy);
  GG_LT_FN(cublasLtMatmulPreferenceSetAttribute);
  GG_LT_FN(cublasLtMatmulAlgoGetHeuristic);
  GG_LT_FN(cublasLtMatmul);
#undef GG_LT_FN
};

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_CUBLASLT_H

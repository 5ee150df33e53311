//===- Cublas.h - cuBLAS, loaded at run time --------------------*- C++ -*-===//
//
// The reference `gemmgen bench` times gemmgen against: cublasGemmEx with
// CUBLAS_COMPUTE_32F and the default algorithm. libcublas is dlopen'ed,
// never linked (the binaries run where there is no cuBLAS).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_CUBLAS_H
#define GEMMGEN_TUNE_CUBLAS_H

#include "gemmgen/gemmgen.h"

#include <memory>
#include <string>
#include <vector>

namespace gemmgen::tune {

class Cublas {
public:
  /// $GEMMGEN_CUBLAS, else libcublas.so.13/.12 next to the NVRTC gemmgen
  /// was linked with, on the loader path, or in /usr/local/cuda/lib64.
  static Expected<std::unique_ptr<Cublas>> load();
  ~Cublas();
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;

  /// D[M,N] = A[M,K]·B[N,K]^T (row-major, gemmgen's layout) on `stream`;
  /// args.batch > 1: cublasGemmStridedBatchedEx with args' strides;
  /// alpha and beta from args (beta ≠ 0: C must be D, in place).
  Status gemm(const GemmArgs &args, DType t, CUstream stream) const {
    return gemm(args, t, stream, t);
  }
  /// The same with D (and C) of type `out` (F32: CUDA_R_32F).
  Status gemm(const GemmArgs &args, DType t, CUstream stream, DType out) const;
  /// The problems of a grouped `args` (alpha, beta = 0) with
  /// cublasGemmGroupedBatchedEx, one group per problem; `pointers` is a
  /// device array of the problems' A, B and D pointers (groupedPointers(),
  /// uploaded by the caller, as a cuBLAS user keeps them on the device).
  Status gemmGrouped(const GemmArgs &args, DType t, CUstream stream, DType out,
                     CUdeviceptr pointers) const;
  /// What gemmGrouped's `pointers` holds: every non-empty problem's A, then
  /// their B, then their D (empty problems compute nothing and are left out).
  static std::vector<CUdeviceptr> groupedPointers(const GemmArgs &args);
  int version() const { return version_; } ///< cublasGetVersion, e.g. 130100
  const std::string &path() const { return path_; }

private:
  Cublas() = default;
  void *handle = nullptr;
  int version_ = 0;
  std::string path_;
  int (*create)(void **) = nullptr;
  int (*destroy)(void *) = nullptr;
  int (*setStream)(void *, CUstream) = nullptr;
  int (*getVersion)(void *, int *) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int) = nullptr;
  int (*gemmStridedBatchedEx)(void *, int, int, int, int, int, const void *, const void *, int,
                              int, long long, const void *, int, int, long long, const void *,
                              void *, int, int, long long, int, int, int) = nullptr;
  int (*gemmGroupedBatchedEx)(void *, const int *, const int *, const int *, const int *,
                              const int *, const void *, const void *const *, int, const int *,
                              const void *const *, int, const int *, const void *,
                              void *const *, int, const int *, int, const int *, int) = nullptr;
};

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_CUBLAS_H

//===- Cublas.cpp - cuBLAS, loaded at run time ----------------------------===//
//
// D[M,N] = A[M,K]·B[K,N] row-major is, in cuBLAS's column-major terms,
// D^T (N×M, ld ldd) = op(B')·op(A') with B' and A' the buffers read
// column-major: a B stored N×K (layout col) is K×N there, so op = T; a
// row-major B (K×N) is N×K there, op = N. An A stored M×K row-major is K×M
// there, op = N; a column-major A, op = T. Default: cublasGemmEx(T, N, N, M, K).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/Cublas.h"

#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <library_types.h>
#include <nvrtc.h>

#include <cstdlib>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::tune;

// cublas_api.h values (stable ABI): cublasOperation_t, cublasComputeType_t,
// cublasGemmAlgo_t.
static constexpr int kCublasOpN = 0, kCublasOpT = 1;
static constexpr int kCublasCompute32F = 68;
static constexpr int kCublasGemmDefault = -1;

Expected<std::unique_ptr<Cublas>> Cublas::load() {
  std::vector<std::string> candidates;
  if (const char *e = getenv("GEMMGEN_CUBLAS"); e && *e)
    candidates.push_back(e);
  // Next to the NVRTC we were linked with (the toolkit's lib64).
  Dl_info info;
  std::string nvrtcDir;
  if (dladdr(reinterpret_cast<void *>(&nvrtcVersion), &info) && info.dli_fname)
    nvrtcDir = std::string(llvm::sys::path::parent_path(info.dli_fname));
  for (const char *name : {"libcublas.so.13", "libcublas.so.12"}) {
    if (!nvrtcDir.empty())
      candidates.push_back(nvrtcDir + "/" + name);
    candidates.push_back(name);
    candidates.push_back(std::string("/usr/local/cuda/lib64/") + name);
  }
  std::string tried;
  for (const std::string &c : candidates) {
    // libcublas needs libcublasLt of the same version: load it first from
    // the same directory so that the dependency resolves.
    std::string lt = c;
    size_t pos = lt.rfind("libcublas.so");
    if (pos != std::string::npos)
      lt.replace(pos, 12, "libcublasLt.so");
    dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL);
    void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      tried += (tried.empty() ? "" : ", ") + c;
      continue;
    }
    std::unique_ptr<Cublas> cb(new Cublas());
    cb->path_ = c;
    cb->create = reinterpret_cast<decltype(cb->create)>(dlsym(lib, "cublasCreate_v2"));
    cb->destroy = reinterpret_cast<decltype(cb->destroy)>(dlsym(lib, "cublasDestroy_v2"));
    cb->setStream = reinterpret_cast<decltype(cb->setStream)>(dlsym(lib, "cublasSetStream_v2"));
    cb->getVersion =
        reinterpret_cast<decltype(cb->getVersion)>(dlsym(lib, "cublasGetVersion_v2"));
    cb->gemmEx = reinterpret_cast<decltype(cb->gemmEx)>(dlsym(lib, "cublasGemmEx"));
    cb->gemmStridedBatchedEx = reinterpret_cast<decltype(cb->gemmStridedBatchedEx)>(
        dlsym(lib, "cublasGemmStridedBatchedEx"));
    cb->gemmGroupedBatchedEx = reinterpret_cast<decltype(cb->gemmGroupedBatchedEx)>(
        dlsym(lib, "cublasGemmGroupedBatchedEx"));
    if (!cb->create || !cb->destroy || !cb->setStream || !cb->gemmEx)
      return Status::error(ErrorCode::Unsupported, c + " lacks cublasCreate_v2/cublasGemmEx");
    if (int st = cb->create(&cb->handle))
      return Status::error(ErrorCode::CudaError,
                           "cublasCreate failed (status " + std::to_string(st) + ")");
    if (cb->getVersion)
      cb->getVersion(cb->handle, &cb->version_);
    return cb;
  }
  return Status::error(ErrorCode::Unsupported,
                       "cuBLAS not found (tried " + tried +
                           "); set GEMMGEN_CUBLAS to the path of libcublas.so.13");
}

Status Cublas::gemm(const GemmArgs &a, DType t, CUstream s, DType out) const {
  // cuBLAS's C is its output: D = alpha·A·B + beta·D in place.
  const float alpha = a.alpha, beta = a.beta;
  if (beta != 0.f && a.C != a.D)
    return Status::error(ErrorCode::InvalidArgument,
                         "cuBLAS computes beta·C in place: pass C = D (got C 0x" +
                             std::to_string(a.C) + ")");
  // cublasGemmEx has no fp8 form; fp8 needs cublasLtMatmul with scale pointers (not built).
  if (isFp8(t))
    return Status::error(ErrorCode::Unsupported,
                         std::string("cuBLAS comparison for ") + toString(t) +
                             " operands needs the cuBLASLt fp8 path (cublasLtMatmul with "
                             "A/B scale pointers), which is not built yet");
  const int type = t == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  const int dType = out == DType::F32 ? CUDA_R_32F : type;
  if (int st = setStream(handle, s))
    return Status::error(ErrorCode::CudaError,
                         "cublasSetStream failed (" + std::to_string(st) + ")");
  const int opB = a.layoutB == Layout::Col ? kCublasOpT : kCublasOpN;
  const int opA = a.layoutA == Layout::Row ? kCublasOpN : kCublasOpT;
  const void *B = reinterpret_cast<const void *>(a.B), *A = reinterpret_cast<const void *>(a.A);
  void *D = reinterpret_cast<void *>(a.D);
  const int ldb = (int)storedShape(a, 'B').ld, lda = (int)storedShape(a, 'A').ld;
  const int ldd = (int)(a.ldd ? a.ldd : a.N);
  if (a.batch > 1) {
    if (!gemmStridedBatchedEx)
      return Status::error(ErrorCode::Unsupported, path_ + " lacks cublasGemmStridedBatchedEx");
    int st = gemmStridedBatchedEx(handle, opB, opA, (int)a.N, (int)a.M, (int)a.K, &alpha, B, type,
                                  ldb, a.strideB, A, type, lda, a.strideA, &beta, D, dType, ldd,
                                  a.strideD, (int)a.batch, kCublasCompute32F, kCublasGemmDefault);
    if (st)
      return Status::error(ErrorCode::CudaError,
                           "cublasGemmStridedBatchedEx failed (status " + std::to_string(st) + ")");
    return Status::success();
  }
  int st = gemmEx(handle, opB, opA, (int)a.N, (int)a.M, (int)a.K, &alpha, B, type, ldb, A, type,
                  lda, &beta, D, dType, ldd, kCublasCompute32F, kCublasGemmDefault);
  if (st)
    return Status::error(ErrorCode::CudaError,
                         "cublasGemmEx failed (status " + std::to_string(st) + ")");
  return Status::success();
}

std::vector<CUdeviceptr> Cublas::groupedPointers(const GemmArgs &args) {
  std::vector<CUdeviceptr> a, b, d;
  for (const GemmProblem &p : args.problems)
    if (p.M > 0 && p.N > 0)
      a.push_back(p.A), b.push_back(p.B), d.push_back(p.D);
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), d.begin(), d.end());
  return a;
}

Status Cublas::gemmGrouped(const GemmArgs &args, DType t, CUstream s, DType out,
                           CUdeviceptr pointers) const {
  if (!gemmGroupedBatchedEx)
    return Status::error(ErrorCode::Unsupported, path_ + " lacks cublasGemmGroupedBatchedEx");
  if (args.beta != 0.0f || args.layoutD != Layout::Row)
    return Status::error(ErrorCode::InvalidArgument,
                         "the grouped comparison takes beta = 0 and a row-major D");
  const int type = t == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  const int dType = out == DType::F32 ? CUDA_R_32F : type;
  if (int st = setStream(handle, s))
    return Status::error(ErrorCode::CudaError,
                         "cublasSetStream failed (" + std::to_string(st) + ")");
  // Row-major D = A·B is column-major D^T = B^T·A^T: cuBLAS's A is our B.
  std::vector<int> opA, opB, m, n, k, lda, ldb, ldd, size;
  std::vector<float> alpha, beta;
  for (std::size_t i = 0; i < args.problems.size(); ++i) {
    const GemmArgs a = groupedProblem(args, i);
    if (a.M == 0 || a.N == 0)
      continue;
    opA.push_back(a.layoutB == Layout::Col ? kCublasOpT : kCublasOpN);
    opB.push_back(a.layoutA == Layout::Row ? kCublasOpN : kCublasOpT);
    m.push_back((int)a.N), n.push_back((int)a.M), k.push_back((int)a.K);
    lda.push_back((int)storedShape(a, 'B').ld), ldb.push_back((int)storedShape(a, 'A').ld);
    ldd.push_back((int)storedShape(a, 'D').ld);
    alpha.push_back(args.alpha), beta.push_back(0.0f), size.push_back(1);
  }
  const int groups = (int)m.size();
  if (groups == 0)
    return Status::success();
  auto array = [&](int which) {
    return reinterpret_cast<void *const *>(pointers + sizeof(CUdeviceptr) * groups * which);
  };
  // Our B is cuBLAS's A (pointers [groups, 2 groups)), our A its B.
  int st = gemmGroupedBatchedEx(handle, opA.data(), opB.data(), m.data(), n.data(), k.data(),
                                alpha.data(), array(1), type, lda.data(), array(0), type,
                                ldb.data(), beta.data(), array(2), dType, ldd.data(), groups,
                                size.data(), kCublasCompute32F);
  if (st)
    return Status::error(ErrorCode::CudaError,
                         "cublasGemmGroupedBatchedEx failed (status " + std::to_string(st) + ")");
  return Status::success();
}

Cublas::~Cublas() {
  if (handle && destroy)
    destroy(handle);
}

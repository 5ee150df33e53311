//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//
//
// describeLtMatmul: our row-major D[M,N] = A[M,K]·B^T is, read column-major,
// D^T (N×M, ld ldd) = op(A')·op(B') with A' our B buffer and B' our A buffer
// (as Cublas.cpp does for cublasGemmEx). A B stored N×K (layout col, K
// contiguous) reads as K×N column-major: op T; a row-major B (K×N) as N×K:
// op N. A row-major A (M×K) reads as K×M: op N; a column-major A: op T. The
// default layouts give TN, which is what cuBLASLt's fp8 path requires (A'
// transposed, B' not), so fp8 takes exactly our K-major A and B.
//
// A bias per column of our D (one per n < N) is one per row of D^T: what
// cuBLASLt's BIAS epilogues broadcast ("bias vector length must match matrix
// D rows count", m = N). A bias per row of our D would be per column of D^T,
// which cuBLASLt has no epilogue for.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/CublasLt.h"

#include "gemmgen/device/epilogue_ops.cuh"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::tune;
namespace op = gemmgen::epilogue;

const char *tune::ltEpilogueName(cublasLtEpilogue_t e) {
  switch (e) {
  case CUBLASLT_EPILOGUE_DEFAULT: return "DEFAULT";
  case CUBLASLT_EPILOGUE_BIAS: return "BIAS";
  case CUBLASLT_EPILOGUE_RELU: return "RELU";
  case CUBLASLT_EPILOGUE_RELU_BIAS: return "RELU_BIAS";
  case CUBLASLT_EPILOGUE_GELU: return "GELU";
  case CUBLASLT_EPILOGUE_GELU_BIAS: return "GELU_BIAS";
  default: return "?";
  }
}

const char *tune::ltScaleModeName(cublasLtMatmulMatrixScale_t m) {
  switch (m) {
  case CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F: return "SCALAR_32F";
  case CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F: return "VEC128_32F";
  case CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F: return "BLK128x128_32F";
  default: return "?";
  }
}

/// Step `s` as the chain's text spells it ("bias(column, bf16)", "silu").
static std::string stepText(const EpilogueInfo &epi, size_t s) {
  llvm::SmallVector<llvm::StringRef, 8> steps;
  llvm::StringRef(epi.chain).split(steps, "->");
  return s < steps.size() ? steps[s].trim().str() : "step " + std::to_string(s + 1);
}

Expected<cublasLtEpilogue_t> tune::ltEpilogueFor(const EpilogueInfo &epi) {
  auto cannot = [&](size_t s, const std::string &why) {
    return Status::error(ErrorCode::Unsupported,
                         "cuBLASLt has no epilogue for '" + stepText(epi, s) + "' of chain '" +
                             epi.chain + "' (" + why + ")");
  };
  bool bias = false;
  int activation = 0; // op::OP_RELU or op::OP_GELU_TANH
  for (size_t s = 0; s < epi.ops.size(); ++s) {
    const int o = epi.ops[s];
    if (o == op::OP_BIAS_COLUMN && !bias && !activation)
      bias = true;
    else if (o == op::OP_BIAS_ROW)
      return cannot(s, "its bias is one value per row of D^T, i.e. per column; use per: column");
    else if ((o == op::OP_RELU || o == op::OP_GELU_TANH) && !activation)
      activation = o;
    else if (o == op::OP_GELU_ERF)
      return cannot(s, "its GELU is the tanh approximation: gelu_tanh");
    else if (o == op::OP_BIAS_COLUMN || o == op::OP_RELU || o == op::OP_GELU_TANH)
      return cannot(s, "it applies one bias, then one activation, in that order");
    else
      return cannot(s, "it has bias, relu and gelu_tanh");
  }
  if (activation == op::OP_RELU)
    return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  if (activation == op::OP_GELU_TANH)
    return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

static cudaDataType ltType(DType t) {
  switch (t) {
  case DType::F16: return CUDA_R_16F;
  case DType::BF16: return CUDA_R_16BF;
  case DType::F32: return CUDA_R_32F;
  case DType::E4M3: return CUDA_R_8F_E4M3;
  case DType::E5M2: return CUDA_R_8F_E5M2;
  }
  return CUDA_R_16F;
}

Expected<LtMatmulDesc> tune::describeLtMatmul(const GemmArgs &a, const KernelInfo &ki) {
  return describeLtMatmul(a, ki.dtype, ki.dtypeB, ki.outType, ki.epilogue, ki.blockwiseScales);
}

std::vector<float> LtBlockScales::toCublasLt(const std::vector<float> &ours) const {
  const long long L = kBlocks(), L4 = ltColumnStride();
  std::vector<float> lt((size_t)ltCount(), 0.0f);
  for (long long nb = 0; nb < nBlocks(); ++nb)
    for (long long kb = 0; kb < L; ++kb)
      lt[(size_t)(nb * L4 + kb)] = ours[(size_t)(nb * L + kb)];
  return lt;
}

Expected<LtMatmulDesc> tune::describeLtMatmul(const GemmArgs &a, DType tA, DType tB, DType out,
                                              const EpilogueInfo &epi, bool blockwise) {
  auto invalid = [](const std::string &m) { return Status::error(ErrorCode::InvalidArgument, m); };
  if (a.layoutD != Layout::Row)
    return invalid("the cuBLASLt comparison takes a row-major D");
  if (a.beta != 0.0f && a.C != a.D)
    return invalid("cuBLASLt computes beta·C in place here: pass C = D");
  if (!a.problems.empty())
    return invalid("the cuBLASLt comparison takes one problem or a strided batch, not a grouped "
                   "GEMM (bench --groups compares with cublasGemmGroupedBatchedEx)");
  const bool fp8 = isFp8(tA) || isFp8(tB);
  if (fp8 && !(isFp8(tA) && isFp8(tB)))
    return invalid("cuBLASLt's fp8 matmul takes two fp8 operands");
  if (fp8 && tA == DType::E5M2 && tB == DType::E5M2)
    return Status::error(ErrorCode::Unsupported, "cuBLASLt has no e5m2 x e5m2 matmul (e4m3 "
                                                 "with e4m3 or e5m2 only)");
  if (!fp8 && (tA != tB || tA == DType::F32))
    return invalid("the cuBLASLt comparison takes f16 or bf16 operands of one type");
  if (fp8 && (a.layoutA != Layout::Row || a.layoutB != Layout::Col))
    return Status::error(ErrorCode::Unsupported,
                         "cuBLASLt's fp8 matmul is TN only (both operands K-major): A row-major "
                         "and B column-major (stored N×K), got layout " +
                             std::string(toString(a.layoutA)) + "," + toString(a.layoutB));
  if (blockwise) {
    const std::string why = "cuBLASLt's 128-element block scaling (VEC128_32F / BLK128x128_32F) ";
    if (!fp8)
      return invalid("blockwise scales are for fp8 operands");
    if (a.batch > 1)
      return Status::error(ErrorCode::Unsupported,
                           why + "has no batch stride for its scale tensors; bench one entry "
                                 "(--batch 1)");
    if (a.M % 4 || a.N % 4)
      return Status::error(ErrorCode::Unsupported,
                           why + "needs M and N multiples of 4 (cuBLAS docs, 'Scaling factors "
                                 "layouts'); got M=" + std::to_string(a.M) +
                               " N=" + std::to_string(a.N));
    if (!a.scaleA || !a.scaleB || a.scaleA % 16 || a.scaleB % 16)
      return invalid(why + "takes non-null, 16-byte aligned scale arrays");
  }
  Expected<cublasLtEpilogue_t> e = ltEpilogueFor(epi);
  if (!e)
    return e.status();

  LtMatmulDesc d;
  d.m = (std::uint64_t)a.N, d.n = (std::uint64_t)a.M, d.k = (std::uint64_t)a.K;
  d.transA = a.layoutB == Layout::Col ? CUBLAS_OP_T : CUBLAS_OP_N;
  d.transB = a.layoutA == Layout::Row ? CUBLAS_OP_N : CUBLAS_OP_T;
  const StoredShape sA = storedShape(a, 'A'), sB = storedShape(a, 'B'), sD = storedShape(a, 'D');
  // A' is our B: stored K×N (op T) or N×K (op N) column-major; B' our A likewise.
  d.a = {ltType(tB), d.transA == CUBLAS_OP_T ? d.k : d.m, d.transA == CUBLAS_OP_T ? d.m : d.k,
         sB.ld, a.strideB};
  d.b = {ltType(tA), d.transB == CUBLAS_OP_N ? d.k : d.n, d.transB == CUBLAS_OP_N ? d.n : d.k,
         sA.ld, a.strideA};
  d.d = {ltType(out), d.m, d.n, sD.ld, a.strideD};
  d.cType = d.d.type;
  if (isFp8(out)) {
    if (!fp8)
      return invalid("an fp8 D is computed from fp8 operands");
    if (a.beta != 0.0f)
      return Status::error(ErrorCode::Unsupported,
                           "cuBLASLt's fp8 outputs take C in bf16 or f16, and ours has D's type (" +
                               std::string(toString(out)) + "): compared with beta = 0 only");
    d.cType = CUDA_R_16BF;
    d.scaleD = a.scaleD, d.amaxD = a.amaxD;
  }
  d.batch = (int)a.batch;
  d.epilogue = *e;
  d.hasBias = epi.bias;
  if (epi.bias) {
    // cuBLASLt's bias is D's type (f32 bias only for an f32 D), bf16 for an fp8 D.
    const DType ltBias = isFp8(out) ? DType::BF16 : out;
    if (epi.biasType != ltBias)
      return Status::error(ErrorCode::Unsupported,
                           std::string("cuBLASLt's bias with a ") + toString(out) + " D is " +
                               toString(ltBias) + "; chain '" + epi.chain + "' has a " +
                               toString(epi.biasType) + " bias");
    d.biasType = ltType(epi.biasType);
    d.biasBatchStride = a.strideBias;
    d.bias = a.bias;
  }
  // Blockwise: no fast accumulation. cuBLASLt promotes each 128-wide K block
  // into f32 to apply its scales, as the blockwise kernel does (PyTorch's
  // scaled_gemm refuses fast accumulation with either block mode).
  d.fastAccum = fp8 && !blockwise;
  d.alpha = a.alpha, d.beta = a.beta;
  d.A = a.B, d.B = a.A, d.D = a.D, d.C = a.D;
  if (isFp8(out)) // its C is bf16 and unread (beta = 0): not D's bytes under another layout
    d.C = 0;
  d.scaleA = a.scaleB, d.scaleB = a.scaleA;
  if (blockwise) // A' = our B: 128x128 blocks; B' = our A: 1x128 blocks
    d.scaleModeA = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
    d.scaleModeB = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  return d;
}

std::string LtMatmulDesc::key() const {
  std::string s;
  auto add = [&](long long v) { s += std::to_string(v) + ","; };
  for (long long v : {(long long)transA, (long long)transB, (long long)m, (long long)n,
                      (long long)k, (long long)batch, (long long)compute, (long long)scaleType,
                      (long long)epilogue, (long long)hasBias, (long long)biasType,
                      (long long)biasBatchStride, (long long)fastAccum,
                      (long long)(scaleA != 0), (long long)(scaleB != 0), (long long)(scaleD != 0),
                      (long long)(amaxD != 0), (long long)cType, (long long)scaleModeA,
                      (long long)scaleModeB, (long long)(beta != 0)})
    add(v);
  for (const Matrix *x : {&a, &b, &d})
    for (long long v : {(long long)x->type, (long long)x->rows, (long long)x->cols,
                        (long long)x->ld, (long long)x->batchStride})
      add(v);
  return s;
}

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

struct CublasLt::Plan {
  const CublasLt *lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~Plan() {
    for (cublasLtMatrixLayout_t l : {a, b, c, d})
      if (l)
        lt->cublasLtMatrixLayoutDestroy(l);
    if (op)
      lt->cublasLtMatmulDescDestroy(op);
  }
};

Status CublasLt::check(cublasStatus_t st, const char *call) const {
  if (st == CUBLAS_STATUS_SUCCESS)
    return Status::success();
  std::string what = cublasLtGetStatusString ? cublasLtGetStatusString(st) : "";
  return Status::error(st == CUBLAS_STATUS_NOT_SUPPORTED ? ErrorCode::Unsupported
                                                         : ErrorCode::CudaError,
                       std::string(call) + " failed (status " + std::to_string((int)st) +
                           (what.empty() ? "" : " " + what) + ")");
}

Expected<std::unique_ptr<CublasLt>> CublasLt::load() {
  std::vector<std::string> candidates;
  const char *env = getenv("GEMMGEN_CUBLASLT");
  if (env && *env) {
    candidates.push_back(env); // the user's choice: that library or an error
  } else {
    Dl_info info;
    std::string nvrtcDir;
    if (dladdr(reinterpret_cast<void *>(&nvrtcVersion), &info) && info.dli_fname)
      nvrtcDir = std::string(llvm::sys::path::parent_path(info.dli_fname));
    for (const char *name : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}) {
      if (!nvrtcDir.empty())
        candidates.push_back(nvrtcDir + "/" + name);
      candidates.push_back(name);
      candidates.push_back(std::string("/usr/local/cuda/lib64/") + name);
    }
  }
  std::string tried;
  for (const std::string &c : candidates) {
    void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      tried += (tried.empty() ? "" : ", ") + c;
      continue;
    }
    std::unique_ptr<CublasLt> lt(new CublasLt());
    lt->path_ = c;
    std::string missing;
#define GG_LT_SYM(name)                                                                           \
  if (!(lt->name = reinterpret_cast<decltype(lt->name)>(dlsym(lib, #name))))                     \
    missing += (missing.empty() ? "" : ", ") + std::string(#name);
    GG_LT_SYM(cublasLtCreate)
    GG_LT_SYM(cublasLtDestroy)
    GG_LT_SYM(cublasLtGetVersion)
    GG_LT_SYM(cublasLtMatmulDescCreate)
    GG_LT_SYM(cublasLtMatmulDescDestroy)
    GG_LT_SYM(cublasLtMatmulDescSetAttribute)
    GG_LT_SYM(cublasLtMatrixLayoutCreate)
    GG_LT_SYM(cublasLtMatrixLayoutDestroy)
    GG_LT_SYM(cublasLtMatrixLayoutSetAttribute)
    GG_LT_SYM(cublasLtMatmulPreferenceCreate)
    GG_LT_SYM(cublasLtMatmulPreferenceDestroy)
    GG_LT_SYM(cublasLtMatmulPreferenceSetAttribute)
    GG_LT_SYM(cublasLtMatmulAlgoGetHeuristic)
    GG_LT_SYM(cublasLtMatmul)
#undef GG_LT_SYM
    lt->cublasLtGetStatusString = reinterpret_cast<decltype(lt->cublasLtGetStatusString)>(
        dlsym(lib, "cublasLtGetStatusString")); // optional: messages only
    if (!missing.empty())
      return Status::error(ErrorCode::Unsupported,
                           c + " is not a usable cuBLASLt: it lacks " + missing +
                               "; point GEMMGEN_CUBLASLT at libcublasLt.so.13");
    lt->version_ = lt->cublasLtGetVersion();
    if (Status s = lt->check(lt->cublasLtCreate(&lt->handle), "cublasLtCreate"); !s)
      return s;
    return lt;
  }
  return Status::error(ErrorCode::Unsupported,
                       "cuBLASLt not found (tried " + tried +
                           "); set GEMMGEN_CUBLASLT to the path of libcublasLt.so.13");
}

CublasLt::~CublasLt() {
  plans.clear(); // their descriptors before the handle
  if (handle && cublasLtDestroy)
    cublasLtDestroy(handle);
}

Expected<const CublasLt::Plan *> CublasLt::plan(const LtMatmulDesc &x,
                                                std::size_t workspaceBytes) const {
  const std::string key = x.key() + "ws" + std::to_string(workspaceBytes);
  if (auto it = plans.find(key); it != plans.end())
    return it->second.get();
  auto p = std::make_unique<Plan>();
  p->lt = this;
  if (Status s = check(cublasLtMatmulDescCreate(&p->op, x.compute, x.scaleType),
                       "cublasLtMatmulDescCreate");
      !s)
    return s;
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *v, size_t n) {
    return check(cublasLtMatmulDescSetAttribute(p->op, attr, v, n),
                 "cublasLtMatmulDescSetAttribute");
  };
  const std::int32_t epilogue = x.epilogue, biasType = x.biasType;
  const std::int8_t fast = x.fastAccum ? 1 : 0;
  const void *scaleA = reinterpret_cast<const void *>(x.scaleA),
             *scaleB = reinterpret_cast<const void *>(x.scaleB),
             *bias = reinterpret_cast<const void *>(x.bias);
  if (Status s = set(CUBLASLT_MATMUL_DESC_TRANSA, &x.transA, sizeof x.transA); !s)
    return s;
  if (Status s = set(CUBLASLT_MATMUL_DESC_TRANSB, &x.transB, sizeof x.transB); !s)
    return s;
  if (Status s = set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue); !s)
    return s;
  if (x.hasBias) {
    if (Status s = set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType, sizeof biasType); !s)
      return s;
    if (Status s = set(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &x.biasBatchStride,
                       sizeof x.biasBatchStride);
        !s)
      return s;
    // The heuristic reads the pointer's alignment; matmul() sets each call's.
    if (Status s = set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias); !s)
      return s;
  }
  if (x.fastAccum)
    if (Status s = set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast); !s)
      return s;
  // The modes only when not per tensor: cuBLASLt refuses any scale setting
  // on a non-fp8 matmul.
  // A library that does not know them (before cuBLAS 12.9) refuses the
  // setting: a comparison it cannot make, not a failure.
  const std::int32_t modeA = x.scaleModeA, modeB = x.scaleModeB;
  auto setMode = [&](cublasLtMatmulDescAttributes_t attr, const std::int32_t &mode) -> Status {
    if (mode == CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
      return Status::success();
    if (Status s = set(attr, &mode, sizeof mode); !s)
      return Status::error(ErrorCode::Unsupported,
                           "cuBLASLt " + std::to_string(version_) + " does not take scale mode " +
                               ltScaleModeName((cublasLtMatmulMatrixScale_t)mode) + " (" +
                               s.message() + "); block scaling needs cuBLAS 12.9 or later");
    return Status::success();
  };
  if (Status s = setMode(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, modeA); !s)
    return s;
  if (Status s = setMode(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, modeB); !s)
    return s;
  if (x.scaleA)
    if (Status s = set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scaleA, sizeof scaleA); !s)
      return s;
  if (x.scaleB)
    if (Status s = set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scaleB, sizeof scaleB); !s)
      return s;
  const void *scaleD = reinterpret_cast<const void *>(x.scaleD),
             *amaxD = reinterpret_cast<const void *>(x.amaxD);
  if (x.scaleD)
    if (Status s = set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &scaleD, sizeof scaleD); !s)
      return s;
  if (x.amaxD)
    if (Status s = set(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amaxD, sizeof amaxD); !s)
      return s;
  auto layout = [&](cublasLtMatrixLayout_t &l, const LtMatmulDesc::Matrix &m) -> Status {
    if (Status s = check(cublasLtMatrixLayoutCreate(&l, m.type, m.rows, m.cols, m.ld),
                         "cublasLtMatrixLayoutCreate");
        !s)
      return s;
    if (x.batch <= 1)
      return Status::success();
    const std::int32_t count = x.batch;
    if (Status s = check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                          &count, sizeof count),
                         "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
        !s)
      return s;
    return check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                  &m.batchStride, sizeof m.batchStride),
                 "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  };
  LtMatmulDesc::Matrix cMatrix = x.d; // C: D's shape, its own type
  cMatrix.type = x.cType;
  const LtMatmulDesc::Matrix &cm = cMatrix;
  for (auto [l, m] : {std::make_pair(&p->a, &x.a), std::make_pair(&p->b, &x.b),
                      std::make_pair(&p->c, &cm), std::make_pair(&p->d, &x.d)})
    if (Status s = layout(*l, *m); !s)
      return s;

  cublasLtMatmulPreference_t pref = nullptr;
  if (Status s = check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
      !s)
    return s;
  const std::uint64_t ws = workspaceBytes;
  Status s = check(cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                   "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (s)
    s = check(cublasLtMatmulAlgoGetHeuristic(handle, p->op, p->a, p->b, p->c, p->d, pref, 1,
                                             &result, &found),
              "cublasLtMatmulAlgoGetHeuristic");
  cublasLtMatmulPreferenceDestroy(pref);
  // The heuristic refuses what this library or GPU cannot do (a scale-mode
  // combination, say) with an error status rather than no algorithm: the same.
  if (!s)
    return Status::error(ErrorCode::Unsupported, s.message());
  if (found == 0)
    return Status::error(
        ErrorCode::Unsupported,
        std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm for epilogue ") +
            ltEpilogueName(x.epilogue) +
            (x.scaleModeA != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F
                 ? std::string(" with scale modes ") + ltScaleModeName(x.scaleModeA) + " x " +
                       ltScaleModeName(x.scaleModeB)
                 : std::string()) +
            " on this GPU and types");
  p->algo = result.algo;
  const Plan *raw = p.get();
  plans.emplace(key, std::move(p));
  return raw;
}

Status CublasLt::matmul(const LtMatmulDesc &x, CUdeviceptr workspace, std::size_t workspaceBytes,
                        CUstream stream) const {
  Expected<const Plan *> p = plan(x, workspaceBytes);
  if (!p)
    return p.status();
  // The pointers of this call (the plan's are those of its first).
  const void *bias = reinterpret_cast<const void *>(x.bias),
             *scaleA = reinterpret_cast<const void *>(x.scaleA),
             *scaleB = reinterpret_cast<const void *>(x.scaleB),
             *scaleD = reinterpret_cast<const void *>(x.scaleD),
             *amaxD = reinterpret_cast<const void *>(x.amaxD);
  for (auto [attr, v, on] : {std::make_tuple(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, x.hasBias),
                             std::make_tuple(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scaleA,
                                             x.scaleA != 0),
                             std::make_tuple(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scaleB,
                                             x.scaleB != 0),
                             std::make_tuple(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &scaleD,
                                             x.scaleD != 0),
                             std::make_tuple(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amaxD,
                                             x.amaxD != 0)})
    if (on)
      if (Status s = check(cublasLtMatmulDescSetAttribute((*p)->op, attr, v, sizeof(void *)),
                           "cublasLtMatmulDescSetAttribute");
          !s)
        return s;
  return check(cublasLtMatmul(handle, (*p)->op, &x.alpha, reinterpret_cast<const void *>(x.A),
                              (*p)->a, reinterpret_cast<const void *>(x.B), (*p)->b, &x.beta,
                              reinterpret_cast<const void *>(x.C), (*p)->c,
                              reinterpret_cast<void *>(x.D), (*p)->d, &(*p)->algo,
                              reinterpret_cast<void *>(workspace), workspaceBytes, stream),
               "cublasLtMatmul");
}

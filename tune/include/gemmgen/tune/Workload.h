//===- Workload.h - Inputs, verification and timing of one shape -*- C++ -*-===//
//
// What `gemmgen bench` and `gemmgen tune-measure` do on the GPU for one
// M×N×K problem, in one place: rotating input sets (random normal, seeded;
// their total several times the L2), outputs poisoned and each kernel
// verified against the fp32 reference before any time counts, then the
// timing protocol (Timing.h).
//
//   benchAgainstCublas: a gemmgen kernel and cuBLAS on the same inputs;
//   measureCandidate:   a tune candidate and (optionally) the base spec.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_WORKLOAD_H
#define GEMMGEN_TUNE_WORKLOAD_H

#include "gemmgen/tune/Cublas.h"
#include "gemmgen/tune/Timing.h"
#include "gemmgen/gemmgen.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// Input sets of one shape on the device: A and B per set, `outputs` D
/// buffers per set (one per contender that must not share D), and an fp32
/// reference of set 0. Frees everything on destruction.
class Workload {
public:
  static Expected<std::unique_ptr<Workload>> create(const Runtime &rt, const GemmVerifier &ver,
                                                    CUstream stream, long long M, long long N,
                                                    long long K, DType t, int outputs,
                                                    std::uint64_t seed,
                                                    Layout layoutA = Layout::Row,
                                                    Layout layoutB = Layout::Col,
                                                    long long batch = 1, float alpha = 1.0f,
                                                    float beta = 0.0f,
                                                    std::optional<DType> out = {});
  ~Workload();
  Workload(const Workload &) = delete;
  Workload &operator=(const Workload &) = delete;

  int sets() const { return (int)args_.size(); }
  /// The arguments of input set `set` writing output `output`.
  const GemmArgs &args(int set, int output = 0) const { return args_[set][output]; }
  /// Gives output `output` of every set a workspace of `bytes` (the staging
  /// path's: Kernel::workspaceBytes); nothing when 0.
  Status attachWorkspace(int output, std::size_t bytes);
  /// What kernel `k` reads besides A, B and C, on every set
  /// (GemmVerifier::attachKernelInputs), shared by the set's outputs: its
  /// chain's random bias (one vector per batch entry) and scaleD, its fp8
  /// scales — per tensor device scalars `scaleA`/`scaleB` (NaN: 1, so that
  /// cuBLASLt reads the same pointers), blockwise each set its own arrays,
  /// every block `scaleA`/`scaleB` or N(0,1) where NaN. The reference then
  /// applies the chain and the scales.
  Status attachKernelInputs(const KernelInfo &k, float scaleA, float scaleB, float scaleD,
                            std::uint64_t seed);
  /// Poisons D of (set 0, output) — with beta ≠ 0 fills it with C instead
  /// (D = alpha·A·B + beta·D in place, as cuBLAS computes) — runs `launch`
  /// once and waits (watchdog).
  Status runPoisoned(int output, const std::function<Status(const GemmArgs &)> &launch);
  /// D of (set 0, output) against the fp32 reference (computed once).
  Expected<GemmVerifier::Comparison> compareWithReference(int output);
  /// D of (set 0, a) against D of (set 0, b).
  Expected<GemmVerifier::Comparison> compareOutputs(int a, int b);
  /// An fp8 D: output `output`'s amax (GemmArgs::amaxD, after a run) against
  /// the reference's max |v|, as a relative error; NaN when it keeps none.
  Expected<double> amaxError(int output);
  double launchSeconds() const { return watchdogSeconds(M * batch, N, K); }

private:
  Workload(const Runtime &rt, const GemmVerifier &ver, CUstream s, DType t, DType out)
      : rt(rt), ver(ver), stream(s), t(t), out(out) {}
  const Runtime &rt;
  const GemmVerifier &ver;
  CUstream stream;
  DType t;
  DType out; ///< D's (and C's) type: t, or F32
  long long M = 0, N = 0, K = 0;
  long long batch = 1; ///< strided entries per operand, packed
  float beta = 0.0f;   ///< non-zero: D starts as C (in place); cBuf keeps a pristine C per set
  std::vector<CUdeviceptr> cBuf;
  std::vector<std::uint64_t> cSeed;
  std::vector<CUdeviceptr> owned;
  std::vector<std::vector<GemmArgs>> args_;
  CUdeviceptr ref = 0;
  bool refReady = false;
  EpilogueInfo epi; ///< attachKernelInputs' kernel's (none by default)
  bool blockwise = false; ///< attachKernelInputs' kernel scales blockwise
  /// Device memory of `bytes`, freed with the workload.
  Expected<CUdeviceptr> own(std::size_t bytes);
};

/// `gemmgen bench` for one shape.
struct BenchSettings {
  int warmup = 5, rounds = 30;
  std::uint64_t seed = 0;
  /// fp8 kernels' per-tensor scales (NaN, not given: 1) or every block's
  /// scale of a blockwise kernel (NaN: random N(0,1) blocks), and a chain's
  /// scale step (both sides).
  float scaleA = NAN, scaleB = NAN, scaleD = 1.0f;
};

struct BenchResult {
  long long M = 0, N = 0, K = 0;
  long long batch = 1; ///< strided batched: entries per launch (cuBLAS: GemmStridedBatchedEx)
  float alpha = 1.0f, beta = 0.0f; ///< D = alpha·A·B + beta·D (in place, both contenders)
  std::string error; ///< set when the shape could not be benchmarked
  Spread gemmgen, cublas;
  double ratio = 0; ///< cuBLAS median / gemmgen median (>= 1: gemmgen at least as fast)
  double errG = 0, errC = 0, errGC = 0; ///< rel. errors: vs ref, vs ref, each other
  long long unwrittenG = 0, unwrittenC = 0;
  bool pass = false;
  int sets = 0, reps = 0, rounds = 0;
  /// benchAgainstCublasLt (chain and fp8 kernels, LtBench.h): the cuBLAS
  /// side is cuBLASLt (`cublas`, ratio, errC, errGC) when `fused`, else
  /// fusedNote says why it did not run; `unfused` is cuBLAS's plain GEMM
  /// then ChainPass, when hasUnfused (else unfusedNote says why).
  bool lt = false;
  std::string epilogue;                    ///< the chain, "none" without one
  std::string cublasName = "cublasGemmEx"; ///< e.g. "cublasLtMatmul GELU_BIAS"
  bool fused = true;
  std::string fusedNote;
  bool hasUnfused = false;
  std::string unfusedName, unfusedNote;
  Spread unfused;
  double ratioUnfused = 0; ///< unfused median / gemmgen median
  double errU = 0, errGU = 0;
  long long unwrittenU = 0;
  /// An fp8 D: each contender's amax against the reference's max |v|
  /// (relative error; NaN where it did not run or keeps none).
  double amaxErrG = NAN, amaxErrC = NAN;
};

/// A kernel's pre-launch checks on the shape alone (placeholder pointers,
/// a bias when the chain has one), before anything is allocated.
Status checkShape(const Kernel &k, long long M, long long N, long long K, long long batch = 1,
                  float alpha = 1.0f, float beta = 0.0f);
/// One prepared launch of `k` per input set of `w`, writing output `output`.
Expected<std::vector<PreparedLaunch>> prepareAll(const Kernel &k, const Workload &w, int output);

/// Verifies both on set 0 (against the reference and each other), then
/// times them interleaved. A Timeout Status means the context is lost.
Status benchAgainstCublas(const Runtime &rt, const Kernel &kernel, const Cublas &cublas,
                          const GemmVerifier &ver, CUstream stream, const BenchSettings &settings,
                          BenchResult &result);

/// `gemmgen tune-measure` for one candidate.
struct MeasureSettings {
  long long M = 4096, N = 4096, K = 4096;
  DType dtype = DType::F16;
  int warmup = 3, rounds = 20;
  std::uint64_t seed = 1;
  double tolerance = GemmVerifier::kTolerance;
};

struct MeasureResult {
  double relErr = 0;
  long long nonFinite = 0;
  Spread candidate;
  double baselineMs = 0; ///< median of the base, 0 without one
  int registers = 0, sets = 0, reps = 0, rounds = 0;
};

/// Verifies the candidate (ErrorCode::VerificationFailed when wrong), then
/// times it interleaved with `baseline` when given.
Status measureCandidate(const Runtime &rt, const Kernel &candidate, const Kernel *baseline,
                        const MeasureSettings &settings, MeasureResult &result);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_WORKLOAD_H

//===- GroupedBench.h - A grouped GEMM side by side with cuBLAS -*- C++ -*-===//
//
// The mixture-of-experts layout: the tokens of every group stacked in one A
// (sum of M_i rows of K), one N×K weight per group (B, stored as the kernel
// takes it), one stacked D; problem i computes its M_i rows against its own
// B. gemmgen's grouped kernel (one launch, its table copied each launch)
// and cublasGemmGroupedBatchedEx (one group per non-empty problem, pointer
// arrays kept on the device) on the same rotating input sets, both verified
// per problem against the fp32 reference first, then timed interleaved
// (Timing.h).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_GROUPEDBENCH_H
#define GEMMGEN_TUNE_GROUPEDBENCH_H

#include "gemmgen/tune/Cublas.h"
#include "gemmgen/tune/Timing.h"
#include "gemmgen/tune/Workload.h"

#include <vector>

namespace gemmgen::tune {

struct GroupedBenchResult {
  std::vector<long long> rows; ///< M of each problem (0: an empty problem)
  long long N = 0, K = 0;
  Spread gemmgen, cublas;
  double ratio = 0; ///< cuBLAS median / gemmgen median
  double errG = 0, errC = 0, errGC = 0; ///< worst problem's rel. errors: vs ref, vs ref, each other
  long long unwrittenG = 0, unwrittenC = 0;
  bool pass = false;
  int sets = 0, reps = 0, rounds = 0;
  long long totalRows() const;
};

/// `kernel` must be grouped (KernelInfo::grouped) with a row-major D.
Status benchGroupedAgainstCublas(const Runtime &rt, const Kernel &kernel, const Cublas &cublas,
                                 const GemmVerifier &ver, CUstream stream,
                                 const BenchSettings &settings, GroupedBenchResult &result);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_GROUPEDBENCH_H

//===- RunOptions.h - The options of `gemmgen run` --------------*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_RUNOPTIONS_H
#define GEMMGEN_TOOLS_RUNOPTIONS_H

#include "gemmgen/gemmgen.h"

#include <cmath>
#include <optional>
#include <string>

namespace gemmgen::cli {

struct RunOptions {
  std::string spec;
  long long m = 4096, n = 4096, k = 4096;
  long long lda = 0, ldb = 0, ldd = 0;
  long long batch = 1;
  long long offset = 0; ///< elements every operand's pointer is moved by (misalignment)
  float alpha = 1.0f, beta = 0.0f;
  float scaleD = 1.0f; ///< GemmArgs::scaleD: the chain's scale step or an 8-bit D's output scale
  /// --scale-a / --scale-b: fp8 per-tensor scales written to device memory
  /// (NaN: not given, the kernel gets null = 1).
  float scaleA = NAN, scaleB = NAN;
  bool cInPlace = false;
  std::string dtype; ///< "": the spec's types
  std::string outDtype; ///< "": the spec's types.d
  std::string scaling;  ///< `auto`/`tuned` with fp8: per_tensor (""), blockwise
  std::string layout; ///< "": the spec's layouts
  bool verify = false;
  int iters = 20;
  int warmup = 3;
  std::optional<unsigned long long> seed;
  bool debugHangs = false;
  bool noProtocolChecks = false;
  bool json = false;
  bool noCache = false;
  double timeout = 0; // 0: watchdogSeconds(M, N, K)
  double tolerance = GemmVerifier::kTolerance;
  std::string sourceFile; ///< --source: a hand-edited emitted kernel in place of the spec's
  std::string groupsFile; ///< --groups: a grouped launch of these problems (RunGrouped.cpp)
};

/// `run --groups FILE`: the problems of one grouped launch, each in buffers
/// of its own (RunGrouped.cpp).
void runGrouped(const RunOptions &o);

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_RUNOPTIONS_H

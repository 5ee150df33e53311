//===- BenchOutput.h - What `gemmgen bench` writes, and reading it back -*- C++ -*-===//
//
// The bench JSON (--json) and CSV (--csv) formats (docs/RUNTIME.md), and
// the one reader of the JSON: the tuner takes cuBLAS's time for a shape
// from a `gemmgen bench` child's output.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_BENCHOUTPUT_H
#define GEMMGEN_TUNE_BENCHOUTPUT_H

#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/Workload.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace gemmgen::tune {

/// One `gemmgen bench` run: what was timed, where, and the results.
struct BenchRun {
  std::string spec, kernel, target, dtype;
  std::string layout = "row,col"; ///< A,B as `--layout` spells it
  std::string commit, date, nvrtc, cublasPath;
  int cublasVersion = 0;
  std::size_t cublasLtVersion = 0; ///< chain and fp8 kernels: cuBLASLt's (else 0)
  std::string cublasLtPath;
  std::string epilogue = "none";   ///< the kernel's chain
  DeviceInfo device;
  BenchSettings settings;
  std::vector<BenchResult> results;
};

llvm::json::Value benchJson(const BenchRun &run);
void writeBenchCsv(llvm::raw_ostream &os, const BenchRun &run);

/// The text table of a cuBLASLt comparison (chain and fp8 kernels): the
/// header line, and one shape's row (plus a line per contender that did not
/// run, saying why).
std::string ltBenchHeaderText();
std::string ltBenchRowText(const BenchResult &r, llvm::StringRef dtype);

/// The cuBLAS record of a shape from bench JSON text: the first result's
/// cuBLAS times, the bench's commit, date and cuBLAS version; baselineMs is
/// the gemmgen spec timed in the same run. nullopt when the text has no
/// cuBLAS time.
std::optional<Record> cublasRecordFromBench(llvm::StringRef json, const ShapeKey &shape,
                                            const std::string &basePath);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_BENCHOUTPUT_H

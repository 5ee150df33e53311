//===- Gpus.h - Which GPUs `gemmgen tune --gpus` times on -------*- C++ -*-===//
//
// `--gpus N|all` picks ordinals 0..N-1 of the GPUs the process sees (within
// CUDA_VISIBLE_DEVICES when a job scheduler set it). Parsing and checking
// are here, apart from the driver, so that tests need no GPU; the CLI asks
// the runtime what the host has.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_GPUS_H
#define GEMMGEN_TUNE_GPUS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gemmgen::tune {

/// `--gpus` as given: a count >= 1, or 0 for `all`. Anything else ("0",
/// "-1", "x", "1.5", "") is an error that says what to write.
llvm::Expected<int> parseGpusOption(llvm::StringRef value);

/// The ordinals to time on, given `want` (0: all) and the GPUs the host
/// has (their names, by ordinal). Errors: more than the host has, or GPUs
/// of different kinds (records are keyed by the GPU name, and a tune
/// compares candidates with each other: they must run on the same kind).
llvm::Expected<std::vector<int>> selectGpus(int want, const std::vector<std::string> &names);

/// "GPU 0" / "GPUs 0-3" / "GPUs 0,2" for messages.
std::string describeGpus(const std::vector<int> &ordinals);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_GPUS_H

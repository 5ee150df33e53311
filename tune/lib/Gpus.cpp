//===- Gpus.cpp - Which GPUs `gemmgen tune --gpus` times on ---------------===//
//
// Entry points: parseGpusOption, selectGpus (Gpus.h).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/Gpus.h"

using namespace gemmgen;
using namespace gemmgen::tune;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<int> tune::parseGpusOption(llvm::StringRef value) {
  llvm::StringRef v = value.trim();
  if (v.equals_insensitive("all"))
    return 0;
  long long n = 0;
  if (v.getAsInteger(10, n))
    return makeError("--gpus takes a number of GPUs (1, 2, ...) or `all`; got '" + value + "'");
  if (n < 1)
    return makeError("--gpus " + value + ": give at least 1 GPU (or `all`: every GPU the " +
                     "driver reports)");
  if (n > 1024)
    return makeError("--gpus " + value + ": a host has at most 1024 GPUs; use `all`");
  return (int)n;
}

std::string tune::describeGpus(const std::vector<int> &ordinals) {
  if (ordinals.size() == 1)
    return "GPU " + std::to_string(ordinals[0]);
  bool contiguous = true;
  for (size_t i = 1; i < ordinals.size(); ++i)
    contiguous &= ordinals[i] == ordinals[i - 1] + 1;
  if (contiguous && !ordinals.empty())
    return "GPUs " + std::to_string(ordinals.front()) + "-" + std::to_string(ordinals.back());
  std::string out = "GPUs ";
  for (size_t i = 0; i < ordinals.size(); ++i)
    out += (i ? "," : "") + std::to_string(ordinals[i]);
  return out;
}

llvm::Expected<std::vector<int>> tune::selectGpus(int want,
                                                  const std::vector<std::string> &names) {
  const int have = (int)names.size();
  if (have == 0)
    return makeError("no CUDA device");
  if (want > have)
    return makeError("--gpus " + std::to_string(want) + ": this host has " +
                     std::to_string(have) + " GPU" + (have == 1 ? " (ordinal 0" : "s (ordinals 0-" + std::to_string(have - 1)) +
                     ", within CUDA_VISIBLE_DEVICES if set); use --gpus " +
                     std::to_string(have) + " or --gpus all");
  std::vector<int> out;
  for (int i = 0; i < (want ? want : have); ++i) {
    if (names[i] != names[0])
      return makeError("GPU " + std::to_string(i) + " is a " + names[i] + " but GPU 0 is a " +
                       names[0] + "; a tune times on one kind of GPU: choose the GPUs with "
                       "CUDA_VISIBLE_DEVICES (e.g. one kind per run) and --gpus");
    out.push_back(i);
  }
  return out;
}

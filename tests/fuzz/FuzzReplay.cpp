//===- FuzzReplay.cpp - Replay fuzz inputs without libFuzzer ---------------===//
//
// `gemmgen_fuzz_replay DIR|FILE...` runs LLVMFuzzerTestOneInput (FuzzSpec.cpp)
// on each file: the regression inputs in tests/fuzz/regressions run in every
// build, the sanitizer build included, as the ctest fuzz_regressions.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto &e : fs::directory_iterator(argv[i], ec))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else {
      files.push_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "gemmgen_fuzz_replay: no inputs given\n");
    return 2;
  }
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu input(s) without a crash\n", files.size());
  return 0;
}

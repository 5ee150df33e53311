//===- FuzzSpec.cpp - Fuzz target: spec text through every compiler stage -===//
//
// parse -> check -> lower -> emit (both targets' printers), the IR printer
// and the kernel ABI, on arbitrary bytes. Any input may be refused with
// diagnostics; none may crash, hang or trip ASan/UBSan. Built with
// libFuzzer by scripts/fuzz.sh (GEMMGEN_FUZZ=ON, clang); the same function
// replays tests/fuzz/regressions in every build (FuzzReplay.cpp, ctest
// fuzz_regressions).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace gemmgen;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // The diagnostics are printed into a string, so the caret and source-line
  // code runs too.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  DiagnosticEngine diags(&os);
  EmitOptions options;
  // The input's length picks the printer options: the YAML text stays the
  // fuzzer's to mutate.
  options.standalone = size % 3 == 1;
  options.debugHangs = size % 3 == 2;
  std::optional<CompiledSpec> compiled = compileSpecText(text, "fuzz.yaml", options, diags);
  if (compiled) {
    std::string ir;
    llvm::raw_string_ostream irOs(ir);
    printIR(compiled->kernel, irOs);
  }
  return 0;
}

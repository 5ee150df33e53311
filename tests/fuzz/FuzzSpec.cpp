//===- FuzzSpec.cpp - Fuzz target: spec text through every compiler stage -===//
//
// parse -> check -> lower -> emit (both targets' printers), the IR printer
// and the kernel ABI, on arbitrary bytes; built with GEMMGEN_FUZZ_SIMULATE=1
// (gemmgen_fuzz_simulate, the replay) then one interleaving of the simulator
// on a small shape for every kernel that compiled. Any input may be refused
// with diagnostics; none may crash, hang or trip ASan/UBSan; a kernel that
// passed every check must simulate clean (anything else aborts: the checks
// or the lowering let a protocol mistake through). Built with
// libFuzzer by scripts/fuzz.sh (GEMMGEN_FUZZ=ON, clang); the same function
// replays tests/fuzz/regressions in every build (FuzzReplay.cpp, ctest
// fuzz_regressions).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#ifndef GEMMGEN_FUZZ_SIMULATE
#define GEMMGEN_FUZZ_SIMULATE 0
#endif

namespace {

constexpr unsigned long long kFuzzSimulationMacs = 1ULL << 24;

/// One interleaving of a small problem on one cluster: one or two units and
/// enough k-blocks that the pipeline ring wraps at least once (or K = 0),
/// with or without residues and C, as `pick` says, within the simulator's
/// limits. A kernel that passed the checks deadlocking, racing or computing a
/// wrong D is a finding: print the verdict and abort, so that the fuzzer keeps
/// the input.
void simulateSmall(const gemmgen::ir::Kernel &kernel, size_t pick) {
  using namespace gemmgen;
  SimulationOptions so;
  const unsigned units = 1 + pick % 2;
  const unsigned kBlocks = pick % 11 == 0 ? 0 : (kernel.depth + units) / units + pick / 2 % 3;
  // Residues too (a partial last tile, a short last k-block): the bounds the
  // kernels must keep to.
  so.m = kernel.clusterM * kernel.tileM * units - pick % 3 * 5;
  so.n = kernel.clusterN * kernel.tileN;
  so.n -= so.n > 8 ? pick / 3 % 2 * 8 : 0;
  so.k = kernel.tileK * kBlocks - (kBlocks && pick % 13 == 1 ? 8 : 0);
  // Stream-K takes the simulator's own grid (hand-overs); the rest one cluster.
  so.ctas = kernel.schedule.kind == SchedulerKind::StreamK ? 0 : kernel.clusterM * kernel.clusterN;
  // Every other input reads C (beta != 0), with alpha != 1.
  so.alpha = pick % 4 < 2 ? 1.0f : 1.5f;
  so.beta = pick % 4 % 2 ? 0.5f : 0.0f;
  so.seeds = 1;
  so.firstSeed = 1 + pick % 7;
  // At most 16 M multiply-adds: a second or two under ASan and coverage.
  if ((unsigned long long)so.m * so.n * so.k > kFuzzSimulationMacs ||
      !checkSimulationSize(kernel, so).empty())
    return;
  SimulationResult r = simulate(kernel, so);
  if (const SeedResult *f = r.firstFailure()) {
    std::fprintf(stderr, "fuzz: a checked kernel failed its simulation (%ux%ux%u, seed %llu): %s\n",
                 so.m, so.n, so.k, (unsigned long long)so.firstSeed, f->message.c_str());
    std::abort();
  }
}

} // namespace

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
  if (!compiled)
    return 0;
  std::string ir;
  llvm::raw_string_ostream irOs(ir);
  printIR(compiled->kernel, irOs);
  // A simulation costs about a thousand parses: its own target
  // (gemmgen_fuzz_simulate, FUZZ_TARGET=simulate) and the replay take it.
  if (GEMMGEN_FUZZ_SIMULATE)
    simulateSmall(compiled->kernel, size);
  return 0;
}

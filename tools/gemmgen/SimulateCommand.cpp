//===- SimulateCommand.cpp - `gemmgen simulate` ----------------------------===//
//
// parse -> check (protocol checks optional) -> lower -> simulate, on one or
// more shapes, and print the verdicts (text or --json) with a command line
// that reproduces the first failure.
//
//===----------------------------------------------------------------------===//
#include "SimulateCommand.h"
#include "OptionChecks.h"
#include "ProblemLists.h"
#include "CompilerCommands.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace gemmgen;

namespace {

struct SimulateCliOptions {
  std::string spec;
  // Unset: the default shape. An explicit 0 is simulated as given (K = 0:
  // no k-block, D = 0).
  std::optional<unsigned> m, n, k;
  std::string shapes;
  unsigned seeds = 16;
  std::optional<uint64_t> seed;
  unsigned ctas = 0;
  unsigned batch = 1;
  std::string groupsFile;
  float alpha = 1.0f, beta = 0.0f;
  bool noProtocolChecks = false;
  bool json = false;
  bool allSeeds = false;
};

struct Shape {
  unsigned m, n, k;
};

/// parse -> check -> lower. The protocol checks are skipped on request so
/// that a deliberately wrong declared protocol reaches the simulator.
/// `grouped` compiles the spec as a grouped kernel (scheduler.grouped), as
/// the GPU verbs' --groups do.
std::optional<ir::Kernel> loadKernel(const std::string &path, bool protocolChecks,
                                     DiagnosticEngine &diags, bool grouped) {
  std::optional<KernelSpec> spec = parseSpecFile(path, diags);
  if (!spec)
    return std::nullopt;
  EmitOptions options;
  if (grouped)
    options.grouped = true;
  prepareSpec(*spec, options); // what the compile checks and lowers
  CheckOptions checks;
  checks.protocol = protocolChecks;
  if (!checkSpec(*spec, diags, checks))
    return std::nullopt;
  return lowerToIR(*spec);
}

void runSimulate(const SimulateCliOptions &opts) {
  DiagnosticEngine diags;
  std::optional<ir::Kernel> kernel =
      loadKernel(opts.spec, !opts.noProtocolChecks, diags, !opts.groupsFile.empty());
  if (!kernel) {
    llvm::errs() << diags.errorCount() << " error(s) in " << opts.spec;
    if (!opts.noProtocolChecks)
      llvm::errs() << " (--no-protocol-checks simulates a declared protocol the checks reject)";
    llvm::errs() << "\n";
    cli::setExitCode(cli::ExitSpecError);
    return;
  }
  std::vector<Shape> shapes;
  if (!opts.shapes.empty()) {
    auto parsed = cli::parseShapeList(opts.shapes, UINT32_MAX);
    if (!parsed) {
      llvm::errs() << "gemmgen: error: --shapes takes MxNxK[,MxNxK...] with sizes from 0 to "
                   << UINT32_MAX << ", got '" << opts.shapes << "'\n";
      cli::setExitCode(cli::ExitSpecError);
      return;
    }
    for (const auto &s : *parsed)
      shapes.push_back({unsigned(s[0]), unsigned(s[1]), unsigned(s[2])});
  } else {
    // Default: 2x2 tiles (per CTA of the cluster along M) and 4 k-blocks.
    shapes.push_back({opts.m.value_or(2 * kernel->clusterM * kernel->tileM),
                      opts.n.value_or(2 * kernel->clusterN * kernel->tileN),
                      opts.k.value_or(4 * kernel->tileK)});
  }

  // Refuse what the simulator cannot hold or finish, before running any
  // shape (the limits and why: SimulationLimits.cpp).
  if (opts.batch < 1) {
    llvm::errs() << "gemmgen: error: --batch must be at least 1 (got " << opts.batch << ")\n";
    cli::setExitCode(cli::ExitSpecError);
    return;
  }
  std::vector<std::array<unsigned, 3>> groups;
  if (!opts.groupsFile.empty()) {
    if (!opts.shapes.empty() || opts.batch != 1) {
      llvm::errs() << "gemmgen: error: --groups gives the problems of one launch; not with "
                      "--shapes or --batch\n";
      cli::setExitCode(cli::ExitSpecError);
      return;
    }
    auto parsed = cli::readGroupsFile(opts.groupsFile, shapes[0].n, shapes[0].k);
    if (!parsed)
      return;
    for (const auto &g : *parsed)
      groups.push_back({{unsigned(g[0]), unsigned(g[1]), unsigned(g[2])}});
  }
  std::vector<SimulationOptions> runs;
  for (const Shape &s : shapes) {
    SimulationOptions so;
    so.m = s.m;
    so.n = s.n;
    so.k = s.k;
    so.ctas = opts.ctas;
    so.batch = opts.batch;
    so.groups = groups;
    so.alpha = opts.alpha;
    so.beta = opts.beta;
    so.seeds = opts.seed ? 1 : opts.seeds;
    so.firstSeed = opts.seed ? *opts.seed : 1;
    if (std::string why = checkSimulationSize(*kernel, so); !why.empty()) {
      llvm::errs() << "gemmgen: error: " << why << "\n";
      cli::setExitCode(cli::ExitSpecError);
      return;
    }
    runs.push_back(so);
  }

  llvm::json::Array jsonShapes;
  bool allOk = true;
  auto start = std::chrono::steady_clock::now();
  for (const SimulationOptions &so : runs) {
    SimulationResult r = simulate(*kernel, so);
    allOk &= r.ok();
    if (opts.json) {
      jsonShapes.push_back(toJSON(r));
      continue;
    }
    printSimulationResult(r, llvm::outs(), opts.allSeeds);
    if (const SeedResult *f = r.firstFailure())
      llvm::outs() << "reproduce: gemmgen simulate " << opts.spec
                   << (opts.noProtocolChecks ? " --no-protocol-checks" : "")
                   << (opts.groupsFile.empty() ? "" : " --groups " + opts.groupsFile)
                   << " --m " << r.m << " --n " << r.n << " --k " << r.k
                   << (r.batch > 1 ? " --batch " + std::to_string(r.batch) : std::string())
                   << (opts.alpha != 1.0f ? " --alpha " + std::to_string(opts.alpha) : std::string())
                   << (opts.beta != 0.0f ? " --beta " + std::to_string(opts.beta) : std::string())
                   << " --ctas " << r.ctas << " --seed "
                   << f->seed << "\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (opts.json) {
    llvm::json::Object out{{"spec", opts.spec},
                           {"ok", allOk},
                           {"seconds", seconds},
                           {"shapes", std::move(jsonShapes)}};
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out))) << "\n";
  }
  cli::setExitCode(allOk ? cli::ExitOk : cli::ExitSpecError);
}

} // namespace

void cli::registerSimulateCommand(CLI::App &app) {
  auto opts = std::make_shared<SimulateCliOptions>();
  CLI::App *cmd = app.add_subcommand(
      "simulate",
      "Execute the spec's kernel IR on the CPU with many random interleavings; exit 0 when "
      "every one completes with the right D, 1 on a deadlock, race or wrong result");
  cmd->add_option("spec", opts->spec, "Kernel spec (YAML)")->required();
  cmd->add_option("--m", opts->m, "Rows of A and D (default: 2 tiles per CTA of a cluster)");
  cmd->add_option("--n", opts->n, "Columns of D, rows of B (default: 2 tiles)");
  cmd->add_option("--k", opts->k, "Reduction size (default: 4 k-blocks; 0 is allowed)");
  cmd->add_option("--shapes", opts->shapes,
                  "Several shapes, MxNxK,MxNxK,... (instead of --m/--n/--k)");
  cmd->add_option("--seeds", opts->seeds, "Interleavings per shape (seeds 1..S)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Run only this seed (to reproduce a verdict)");
  cmd->add_option("--ctas", opts->ctas,
                  "CTAs in the persistent grid (multiple of the cluster size; default: half "
                  "the cluster tiles, so the pipeline ring wraps across tiles)");
  cmd->add_flag("--no-protocol-checks", opts->noProtocolChecks,
                "Skip the declared-barrier checks and simulate the declared protocol as is");
  cmd->add_option("--groups", opts->groupsFile,
                  "Grouped GEMM: FILE lists the problems of one launch, one per line (`M` or `M "
                  "N K`; N and K default to --n/--k), each with its own A, B and D; the spec is "
                  "compiled grouped");
  cmd->add_option("--batch", opts->batch,
                  "Strided batch entries per shape (each its own A, B, D), walked as the "
                  "kernels walk them")
      ->capture_default_str();
  cmd->add_option("--alpha", opts->alpha, "D = alpha·A·B + beta·C: alpha")
      ->check(cli::finiteNumber())
      ->capture_default_str();
  cmd->add_option("--beta", opts->beta,
                  "beta; non-zero runs the kernel's C path (C loaded into the staging tile)")
      ->check(cli::finiteNumber())
      ->capture_default_str();
  cmd->add_flag("--json", opts->json, "Machine-readable verdicts on stdout");
  cmd->add_flag("--all-seeds", opts->allSeeds, "Print a line for passing seeds too");
  cmd->callback([opts] { runSimulate(*opts); });
}

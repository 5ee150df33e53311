//===- CheckEmitCommands.cpp - `gemmgen check` and `gemmgen emit` ----------===//
#include "CompilerCommands.h"
#include "OutputFile.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

using namespace gemmgen;

namespace {
int gExitCode = cli::ExitOk;

struct CheckCliOptions {
  std::string spec;
  bool json = false;
  bool noSimulate = false;
  unsigned seeds = 4;
};

struct EmitCliOptions {
  std::string spec;
  std::string output;
  bool printIR = false;
  bool standalone = false;
  bool debugHangs = false;
};

const char *severityName(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

/// `check --json`: one object with the verdict, every diagnostic (file,
/// line, column, severity, message) and the simulation's outcome.
void printCheckJson(const std::string &specPath, const DiagnosticEngine &diags,
                    const SimulationResult *sim) {
  llvm::json::Array list;
  for (const Diagnostic &d : diags.diagnostics())
    list.push_back(llvm::json::Object{{"file", d.file},
                                      {"line", (int64_t)d.line},
                                      {"column", (int64_t)d.column},
                                      {"severity", severityName(d.severity)},
                                      {"message", d.message}});
  llvm::json::Object out{{"spec", specPath},
                         {"ok", !diags.hasErrors() && (!sim || sim->ok())},
                         {"errors", (int64_t)diags.errorCount()},
                         {"warnings", (int64_t)diags.warningCount()},
                         {"diagnostics", std::move(list)}};
  if (sim)
    out["simulation"] = toJSON(*sim);
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out))) << "\n";
}

void runCheck(const CheckCliOptions &opts) {
  // With --json the diagnostics are collected, not printed as text.
  DiagnosticEngine diags(opts.json ? nullptr : &llvm::errs());
  // Through emit: what check accepts is what emit and compile produce
  // (the kernel's name is checked against the generated code).
  std::optional<CompiledSpec> compiled = compileSpecFile(opts.spec, EmitOptions(), diags);
  std::optional<SimulationResult> sim;
  if (compiled && !diags.hasErrors() && !opts.noSimulate) {
    // A short run of the protocol on the CPU: a wrong barrier protocol that
    // the static checks cannot see is caught here, before it hangs a GPU.
    SimulationOptions simOpts;
    simOpts.seeds = opts.seeds;
    simOpts.stopAtFirstFailure = true;
    if (std::string why = checkSimulationSize(compiled->kernel, simOpts); !why.empty()) {
      llvm::errs() << "gemmgen: error: " << why << "\n";
      cli::setExitCode(cli::ExitSpecError);
      return;
    }
    sim = simulate(compiled->kernel, simOpts);
  }
  bool failed = diags.hasErrors() || (sim && !sim->ok());
  if (failed)
    cli::setExitCode(cli::ExitSpecError);
  if (opts.json)
    return printCheckJson(opts.spec, diags, sim ? &*sim : nullptr);
  if (diags.hasErrors()) {
    llvm::errs() << diags.errorCount() << " error(s) in " << opts.spec << "\n";
    return;
  }
  if (sim && !sim->ok()) {
    printSimulationResult(*sim, llvm::errs());
    llvm::errs() << opts.spec << ": the simulated protocol fails (see above); "
                 << "rerun with `gemmgen simulate` for more interleavings\n";
    return;
  }
  llvm::outs() << opts.spec << ": ok";
  if (sim)
    llvm::outs() << " (simulated " << opts.seeds << " interleavings)";
  if (diags.warningCount())
    llvm::outs() << " (" << diags.warningCount() << " warning(s))";
  llvm::outs() << "\n";
}

void runEmit(const EmitCliOptions &opts) {
  DiagnosticEngine diags;
  EmitOptions emitOpts;
  emitOpts.standalone = opts.standalone;
  emitOpts.debugHangs = opts.debugHangs;
  std::optional<CompiledSpec> compiled = compileSpecFile(opts.spec, emitOpts, diags);
  if (!compiled) {
    cli::setExitCode(cli::ExitSpecError);
    return;
  }
  std::string text;
  if (opts.printIR) {
    llvm::raw_string_ostream os(text);
    printIR(compiled->kernel, os);
  } else {
    text = compiled->source;
  }
  if (opts.output.empty() || opts.output == "-") {
    llvm::outs() << text;
    return;
  }
  cli::writeOutputFile(opts.output, text, /*binary=*/true);
}
} // namespace

int cli::exitCode() { return gExitCode; }
void cli::setExitCode(int code) { gExitCode = code; }

void cli::registerCheckCommand(CLI::App &app) {
  auto opts = std::make_shared<CheckCliOptions>();
  CLI::App *cmd = app.add_subcommand(
      "check", "Check a spec; exit 0 when clean, 1 with diagnostics on stderr");
  cmd->add_option("spec", opts->spec, "Kernel spec (YAML)")->required();
  cmd->add_flag("--json", opts->json,
                "Print the verdict and every diagnostic (file, line, column) as JSON on stdout");
  cmd->add_flag("--no-simulate", opts->noSimulate,
                "Skip the short CPU simulation of the barrier protocol");
  cmd->add_option("--seeds", opts->seeds, "Interleavings the short simulation runs")
      ->capture_default_str()
      ->check(CLI::Range(1u, kMaxSimulationSeeds));
  cmd->callback([opts] { runCheck(*opts); });
}

void cli::registerEmitCommand(CLI::App &app) {
  auto opts = std::make_shared<EmitCliOptions>();
  CLI::App *cmd = app.add_subcommand(
      "emit", "Emit the kernel's CUDA C++ (or its IR) to stdout or a file");
  cmd->add_option("spec", opts->spec, "Kernel spec (YAML)")->required();
  cmd->add_option("-o,--output", opts->output, "Output file (default: stdout)");
  cmd->add_flag("--print-ir", opts->printIR, "Print the Kernel IR instead of CUDA C++");
  cmd->add_flag("--standalone", opts->standalone,
                "Inline the PTX wrapper header: one .cu that nvcc compiles alone");
  cmd->add_flag("--debug-hangs", opts->debugHangs,
                "Bound every barrier wait; report role, barrier, slot and phase, then trap");
  cmd->callback([opts] { runEmit(*opts); });
}

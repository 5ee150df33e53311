//===- main.cpp - The gemmgen command-line driver --------------------------===//
//
// A thin driver: each verb lives in its own file and calls the libraries.
// `gemmgen SPEC` with no verb is `gemmgen emit SPEC` (the .cu goes to stdout).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "CompilerCommands.h"
#include "SimulateCommand.h"
#include "TuneCommand.h"
#include "gemmgen/gemmgen.h"
#include "gemmgen/tune/BuildInfo.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  CLI::App app{"gemmgen: a kernel compiler for warp-specialized GEMMs\n"
               "(YAML spec -> checks -> IR -> CUDA C++ -> NVRTC -> launch)",
               "gemmgen"};
  app.require_subcommand(1);
  // The build's commit: a measurement's log can name the binary that made it.
  app.set_version_flag("--version", std::string("gemmgen ") + gemmgen::versionString() +
                                        " (built from " + gemmgen::tune::buildCommit() + ")");
  gemmgen::cli::registerCheckCommand(app);
  gemmgen::cli::registerEmitCommand(app);
  gemmgen::cli::registerCompileCommand(app);
  gemmgen::cli::registerRunCommand(app);
  gemmgen::cli::registerBenchCommand(app);
  gemmgen::cli::registerChooseCommand(app);
  gemmgen::cli::registerSimulateCommand(app);
  gemmgen::cli::registerTuneCommand(app);

  // `gemmgen spec.yaml [...]`: no verb means emit.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0].size() && args[0][0] != '-') {
    bool isVerb = false;
    for (const CLI::App *sub : app.get_subcommands([](CLI::App *) { return true; }))
      isVerb |= sub->check_name(args[0]);
    if (!isVerb)
      args.insert(args.begin(), "emit");
  }
  std::reverse(args.begin(), args.end()); // CLI11 parses a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  return gemmgen::cli::exitCode();
}

//===- CompilerCommands.h - check, emit, compile verbs ----------*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_COMPILERCOMMANDS_H
#define GEMMGEN_TOOLS_COMPILERCOMMANDS_H

namespace CLI {
class App;
}

namespace gemmgen::cli {

/// Exit codes scripts can rely on.
enum ExitCode : int {
  ExitOk = 0,
  ExitSpecError = 1,   ///< the spec has errors (diagnostics on stderr)
  ExitNoGpu = 2,       ///< GPU work asked for, but no driver/GPU present
  ExitFailure = 3      ///< anything else (I/O, NVRTC, launch, verification)
};

void registerCheckCommand(CLI::App &app);
void registerEmitCommand(CLI::App &app);
void registerCompileCommand(CLI::App &app);

/// The exit code the chosen verb's callback set.
int exitCode();
void setExitCode(int code);

} // namespace gemmgen::cli

#endif

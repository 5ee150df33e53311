//===- Commands.h - GPU verbs: run, bench; choose ---------------*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_COMMANDS_H
#define GEMMGEN_TOOLS_COMMANDS_H

#include <string>

namespace CLI {
class App;
}

namespace gemmgen::cli {

/// Exit code of `run`/`bench` when the watchdog fired (the kernel did not
/// finish: likely a barrier deadlock). The other codes are in
/// CompilerCommands.h: 0 ok, 1 spec error, 2 no driver/GPU, 3 other failure
/// (NVRTC, pre-launch check, launch, verification).
constexpr int ExitTimeout = 4;

/// `gemmgen run SPEC --m M --n N --k K [--verify] [--iters I] [--seed S]
/// [--debug-hangs] [--json]`: JIT-compile, launch on random inputs, verify,
/// time.
void registerRunCommand(CLI::App &app);

/// `gemmgen bench SPEC [--m --n --k | --shapes MxNxK,...] [--dtype f16|bf16]
/// [--json FILE] [--csv FILE]`: side by side with cuBLAS (DESIGN.md §10).
void registerBenchCommand(CLI::App &app);

/// `gemmgen choose --m M --n N --k K | --shapes MxNxK,... [--dtype T]
/// [--spec | -o FILE]`: the kernel `auto` would compile for each shape, and
/// why; no GPU needed.
void registerChooseCommand(CLI::App &app);

/// --dtype and --scaling, as run and bench both take them (one help text).
void addTypeOptions(CLI::App *cmd, std::string &dtype, std::string &scaling);

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_COMMANDS_H

//===- SimulateCommand.h - `gemmgen simulate` -------------------*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_SIMULATECOMMAND_H
#define GEMMGEN_TOOLS_SIMULATECOMMAND_H

namespace CLI {
class App;
}

namespace gemmgen::cli {

/// `gemmgen simulate SPEC [--m M --n N --k K | --shapes MxNxK,...]
/// [--seeds S | --seed S] [--ctas C] [--no-protocol-checks] [--json]`:
/// executes the spec's IR on the CPU (docs/SIMULATOR.md). Exit 0 when every
/// interleaving of every shape completes with the right D, 1 otherwise (a
/// spec error, a deadlock, a race, a wrong result, ...).
void registerSimulateCommand(CLI::App &app);

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_SIMULATECOMMAND_H

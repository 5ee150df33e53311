//===- TuneCommand.h - `gemmgen tune` and `gemmgen tune-db` -----*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_TUNECOMMAND_H
#define GEMMGEN_TOOLS_TUNECOMMAND_H

namespace CLI {
class App;
}

namespace gemmgen::cli {

/// Registers three verbs (docs/TUNING.md):
///   tune SPEC --m M --n N --k K [--dtype f16|bf16] [--space FILE] [KEY=V1,V2 ...]
///        [--compile-only] [--jobs J] [--db FILE] [--out BEST.yaml] [--report DIR]
///        [--time-budget S] [--gpus N|all] ...   the autotuner
///   tune-db export|import|merge|best|defaults|report   the results database
///   tune-measure ...                    hidden: times one candidate in a
///                                       child process (so that a hung or
///                                       faulting kernel only loses that child)
void registerTuneCommand(CLI::App &app);

/// The results DB verbs (TuneDbCommand.cpp), registered by registerTuneCommand.
void registerTuneDbCommand(CLI::App &app);

/// The child verb's implementation (TuneMeasure.cpp).
void registerTuneMeasureCommand(CLI::App &app);

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_TUNECOMMAND_H

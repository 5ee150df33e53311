//===- CompileHook.h - The NVRTC compile hook of the tuner ------*- C++ -*-===//
//
// What `gemmgen tune` compiles each candidate with (TuneHooks::compile):
// compileCudaSource through the disk cache, with the name and the target
// arch that Runtime::loadKernel uses for the same kernel, so that the GPU
// run (tune-measure) finds every cubin in the cache. Thread-safe (one NVRTC
// program per call, atomic cache writes).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_COMPILEHOOK_H
#define GEMMGEN_TUNE_COMPILEHOOK_H

#include "gemmgen/tune/Tuner.h"
#include "gemmgen/gemmgen.h"

namespace gemmgen::tune {

/// Compiles a candidate that passed the checks (c.compiled is set).
CompileOutcome compileCandidate(const CandidateState &c,
                                const CompileOptions &options = CompileOptions());

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_COMPILEHOOK_H

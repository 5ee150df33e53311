//===- CompileHook.cpp - The NVRTC compile hook of the tuner --------------===//
#include "gemmgen/tune/CompileHook.h"

#include "gemmgen/KernelABI.h"

using namespace gemmgen;
using namespace gemmgen::tune;

CompileOutcome tune::compileCandidate(const CandidateState &c, const CompileOptions &options) {
  CompileOutcome out;
  if (!c.compiled) {
    out.error = "the candidate did not pass the checks: nothing to compile";
    return out;
  }
  const KernelABI &abi = c.compiled->abi;
  // Runtime::loadKernel's name and arch: the GPU run hits this cache entry.
  Expected<CubinResult> r = compileCudaSource(c.compiled->source, abi.kernelName + ".cu",
                                              toString(abi.target), abi.kernelName, options);
  if (!r) {
    out.error = r.status().message();
    return out;
  }
  out.ok = true;
  out.registers = r->usage.registers;
  out.spillBytes = r->usage.spillStoreBytes + r->usage.spillLoadBytes + r->usage.localBytes;
  out.fromCache = r->fromCache;
  out.seconds = r->compileSeconds;
  out.warnings = r->usage.warnings;
  return out;
}

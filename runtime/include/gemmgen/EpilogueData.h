//===- EpilogueData.h - A launch's epilogue chain as device data -*- C++ -*-===//
//
// KernelInfo::epilogue with a launch's bias and scale pointers as the
// gemmgen::epilogue::Chain that gemmgen/device/epilogue_ops.cuh's
// apply_chain interprets: what the tail kernel, the reference and helper
// kernels outside the runtime (bench's elementwise pass) are given.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_EPILOGUEDATA_H
#define GEMMGEN_EPILOGUEDATA_H

#include "gemmgen/device/epilogue_ops.cuh"
#include "gemmgen/gemmgen.h"

namespace gemmgen {

/// The chain's steps of `info`; bias, its batch stride and scaleD from `a`.
epilogue::Chain chainData(const EpilogueInfo &info, const GemmArgs &a);

} // namespace gemmgen

#endif // GEMMGEN_EPILOGUEDATA_H

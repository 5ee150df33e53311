//===- EmitOptions.h - Options every target printer takes -------*- C++ -*-===//
#ifndef GEMMGEN_EMITOPTIONS_H
#define GEMMGEN_EMITOPTIONS_H

#include "gemmgen/Spec.h"

#include <optional>

namespace gemmgen {

struct EmitOptions {
  /// Inline the device headers so that the .cu compiles alone with nvcc;
  /// otherwise the source #includes "gemmgen/device/..." (NVRTC receives
  /// them through its headers argument).
  bool standalone = false;
  /// Bound every barrier wait and report role/barrier/slot/phase on timeout.
  bool debugHangs = false;
  /// Replace the spec's operand layouts before it is checked (one spec
  /// serves every layout: `gemmgen run --layout`, SpecOverrides).
  std::optional<MatrixLayout> layoutA, layoutB;
};

} // namespace gemmgen

#endif // GEMMGEN_EMITOPTIONS_H

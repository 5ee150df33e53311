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
  /// serves every layout: `gemmgen run --layout`, SpecOverrides): the
  /// layouts of the problem with D row-major (for a spec with layout.d: col,
  /// prepareSpec turns them into those of its transpose).
  std::optional<MatrixLayout> layoutA, layoutB;
  /// Replace the spec's output type (types.d: its operand type or f32). An
  /// explicit epilogue.chunk_n keeps its bytes: at f32 it stages half the
  /// columns of a 16-bit chunk (the shared-memory budget the spec chose).
  std::optional<ScalarType> outType;
  /// Replace scheduler.grouped (`run --groups`, SpecOverrides::grouped).
  std::optional<bool> grouped;
};

} // namespace gemmgen

#endif // GEMMGEN_EMITOPTIONS_H

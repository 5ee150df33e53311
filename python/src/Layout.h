//===- Layout.h - Arrays' shapes and strides onto the kernel's ABI -*- C++ -*-===//
//
// Python computes out = a @ b with a (M×K), b (K×N), out (M×N) as the arrays'
// shapes and strides give them. Today's kernels compute D = A·Bᵀ with A (M×K)
// and B (N×K) both K-major and D row-major, so a must have unit stride along
// K, b unit stride along K too (b is the transpose of a row-major N×K matrix,
// e.g. w.t() for an nn.Linear weight w), and out unit stride along N.
// gemmArgsFor maps the strides onto leading dimensions or says which array
// has a layout the kernel cannot read and what to pass instead.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PYTHON_LAYOUT_H
#define GEMMGEN_PYTHON_LAYOUT_H

#include "gemmgen/gemmgen.h"

#include <cstdint>

namespace gemmgen::python {

/// A 2-D array: base address (bytes) and strides in elements.
struct MatrixView {
  std::uint64_t ptr = 0;
  long long rows = 0, cols = 0;
  long long rowStride = 0, colStride = 0;
};

/// The runtime's arguments for out = a @ b, or ErrorCode::InvalidArgument
/// with a message naming the array, its shape and strides, and the fix.
/// M, N or K may be 0 (the caller launches nothing, or zero-fills out); the
/// runtime's own pre-launch checks (alignment, K % 8, ...) come after this.
Expected<GemmArgs> gemmArgsFor(const MatrixView &a, const MatrixView &b, const MatrixView &out);

} // namespace gemmgen::python

#endif // GEMMGEN_PYTHON_LAYOUT_H

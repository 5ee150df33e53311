//===- Layout.h - Arrays' shapes and strides onto the kernel's ABI -*- C++ -*-===//
//
// Python computes out = a @ b with a (M×K), b (K×N), out (M×N) as the arrays'
// shapes and strides give them. Each array is read with unit stride along
// one of its two dimensions: along its columns (row-major, Layout::Row: a
// K-major A, an N-major B, a row-major D) or along its rows (column-major,
// Layout::Col: an M-major A, a K-major B such as w.t() for an nn.Linear
// weight w, a column-major D). gemmArgsFor maps each array onto that Layout
// and its leading dimension (the stride between its lines), or says which
// array the kernels cannot read and what to pass instead. Which kernel can
// run the result is the runtime's rule: rowMajorProblem(args) names the
// layouts of A and B a kernel must be compiled for (a column-major D swaps
// and flips them), and Kernel::check refuses any other.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PYTHON_LAYOUT_H
#define GEMMGEN_PYTHON_LAYOUT_H

#include "gemmgen/gemmgen.h"

#include <cstdint>
#include <string>
#include <utility>

namespace gemmgen::python {

/// A 2-D array: base address (bytes) and strides in elements.
struct MatrixView {
  std::uint64_t ptr = 0;
  long long rows = 0, cols = 0;
  long long rowStride = 0, colStride = 0;
};

/// The runtime's arguments for out = a @ b, or ErrorCode::InvalidArgument
/// with a message naming the array, its shape and strides, and the fix.
/// An array with unit stride along both dimensions (one row or one column)
/// takes the layout whose leading dimension is never used (one line; the
/// ld is then its length rounded up to 8), else the default (A row-major,
/// B column-major, D row-major). A stride of 0 or less between lines that
/// are read (a broadcast view) is refused. M, N or K may be 0 (the caller
/// launches nothing, or zero-fills out); the runtime's own pre-launch checks
/// (alignment, K % 8, the kernel's layouts, ...) come after this.
Expected<GemmArgs> gemmArgsFor(const MatrixView &a, const MatrixView &b, const MatrixView &out);

/// C for D = alpha·a @ b + beta·c: an M×N array stored like out (the
/// runtime reads C in D's layout, with its own leading dimension). Sets
/// args.C and args.ldc, or says what is wrong with `c` (its shape, no unit
/// stride, a layout other than out's).
Status attachC(GemmArgs &args, const MatrixView &c);

/// The (A, B) layouts a kernel must be compiled for to run `args`: those of
/// rowMajorProblem(args).
std::pair<Layout, Layout> kernelLayouts(const GemmArgs &args);

/// "row" -> Layout::Row, "col" -> Layout::Col; anything else an
/// InvalidArgument naming `what` and the accepted values.
Expected<Layout> parseLayout(const std::string &text, const std::string &what);

} // namespace gemmgen::python

#endif // GEMMGEN_PYTHON_LAYOUT_H

//===- Layout.cpp - Arrays' shapes and strides onto the kernel's ABI -------===//
#include "Layout.h"

#include <string>

using namespace gemmgen;
using namespace gemmgen::python;

namespace {

std::string shapeText(const MatrixView &v) {
  return std::to_string(v.rows) + "x" + std::to_string(v.cols);
}

std::string stridesText(const MatrixView &v) {
  return "(" + std::to_string(v.rowStride) + ", " + std::to_string(v.colStride) + ")";
}

Status invalid(const std::string &message) {
  return Status::error(ErrorCode::InvalidArgument, message);
}

/// Leading dimension of a row-major view (unit stride along columns). With
/// one row the row stride is never used: any 16-byte multiple >= cols does.
long long rowMajorLd(const MatrixView &v) {
  if (v.rows <= 1)
    return (v.cols + 7) / 8 * 8;
  return v.rowStride;
}

bool unitColStride(const MatrixView &v) { return v.colStride == 1 || v.cols <= 1; }
bool unitRowStride(const MatrixView &v) { return v.rowStride == 1 || v.rows <= 1; }

} // namespace

Expected<GemmArgs> python::gemmArgsFor(const MatrixView &a, const MatrixView &b,
                                       const MatrixView &out) {
  if (a.cols != b.rows)
    return invalid("a is " + shapeText(a) + " (MxK) and b is " + shapeText(b) +
                   " (KxN): the inner dimensions differ (" + std::to_string(a.cols) + " vs " +
                   std::to_string(b.rows) + ")");
  if (out.rows != a.rows || out.cols != b.cols)
    return invalid("out is " + shapeText(out) + "; a @ b is " + std::to_string(a.rows) + "x" +
                   std::to_string(b.cols));
  GemmArgs args;
  args.A = a.ptr;
  args.B = b.ptr;
  args.D = out.ptr;
  args.M = a.rows;
  args.N = b.cols;
  args.K = a.cols;

  if (!unitColStride(a)) {
    if (unitRowStride(a))
      return invalid("a (" + shapeText(a) + ", strides " + stridesText(a) +
                     ") is column-major; the kernel reads A with unit stride along K "
                     "(row-major): pass a.contiguous() (M-major A is not supported yet)");
    return invalid("a (" + shapeText(a) + ", strides " + stridesText(a) +
                   ") has no unit stride along K; the kernel reads A row-major: pass "
                   "a.contiguous()");
  }
  args.lda = rowMajorLd(a);

  // b is KxN with unit stride along K: its transpose (NxK) is row-major with
  // leading dimension b's column stride.
  if (!unitRowStride(b)) {
    if (unitColStride(b))
      return invalid("b (" + shapeText(b) + ", strides " + stridesText(b) +
                     ") is row-major (unit stride along N); the kernel reads B with unit "
                     "stride along K: pass the transpose of a row-major NxK matrix (w.t() for "
                     "w of shape (N, K), as nn.Linear stores weights), or b.t().contiguous().t() "
                     "(a copy); N-major B is not supported yet");
    return invalid("b (" + shapeText(b) + ", strides " + stridesText(b) +
                   ") has no unit stride along K; pass b.t().contiguous().t()");
  }
  MatrixView bt{b.ptr, b.cols, b.rows, b.colStride, b.rowStride};
  args.ldb = rowMajorLd(bt);

  if (!unitColStride(out))
    return invalid("out (" + shapeText(out) + ", strides " + stridesText(out) +
                   ") has no unit stride along N; the kernel writes D row-major: pass a "
                   "row-major out (or none, and one is allocated)");
  args.ldd = rowMajorLd(out);
  return args;
}

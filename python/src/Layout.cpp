//===- Layout.cpp - Arrays' shapes and strides onto the kernel's ABI -------===//
#include "Layout.h"

#include <optional>
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

/// One array as gemmArgsFor takes it: its name in messages, the names of its
/// dimensions, the layout a kernel takes by default, whether the kernel
/// writes it, and what to pass instead of an array it cannot take.
struct Operand {
  const char *name;      ///< "a", "b", "out"
  const char *matrix;    ///< "A", "B", "D"
  const char *rowsName;  ///< "M", "K", "M"
  const char *colsName;  ///< "K", "N", "N"
  Layout preferred;
  bool written;
  const char *fix;
};

const Operand kA{"a", "A", "M", "K", Layout::Row, false, "pass a.contiguous()"};
const Operand kB{"b", "B", "K", "N", Layout::Col, false,
                 "pass b.contiguous(), or w.t() for a row-major NxK w (as nn.Linear stores "
                 "weights)"};
const Operand kD{"out", "D", "M", "N", Layout::Row, true,
                 "pass a contiguous out (or none, and one is allocated)"};
const Operand kC{"c", "C", "M", "N", Layout::Row, false, "pass c.contiguous()"};

/// A layout and its leading dimension (elements).
struct Stored {
  Layout layout;
  long long ld;
  bool ldUsed; ///< more than one line: the ld is the stride between them
};

/// The ld of one line is never used: any 16-byte multiple >= its length does.
long long oneLineLd(long long length) { return (length + 7) / 8 * 8; }

/// Row-major (unit stride along the columns; lines are rows), if the view is.
std::optional<Stored> asRowMajor(const MatrixView &v) {
  if (v.colStride != 1 && v.cols > 1)
    return std::nullopt;
  if (v.rows <= 1)
    return Stored{Layout::Row, oneLineLd(v.cols), false};
  return Stored{Layout::Row, v.rowStride, true};
}

/// Column-major (unit stride along the rows; lines are columns), if the view is.
std::optional<Stored> asColMajor(const MatrixView &v) {
  if (v.rowStride != 1 && v.rows > 1)
    return std::nullopt;
  if (v.cols <= 1)
    return Stored{Layout::Col, oneLineLd(v.rows), false};
  return Stored{Layout::Col, v.colStride, true};
}

Expected<Stored> storedAs(const MatrixView &v, const Operand &op) {
  std::optional<Stored> row = asRowMajor(v), col = asColMajor(v);
  std::optional<Stored> pick;
  if (row && col) {
    // Unit stride both ways: one row or one column (or overlapping
    // elements). A layout with a single line has no stride between lines to
    // get wrong; otherwise the default (the runtime refuses overlap).
    if (row->ldUsed != col->ldUsed)
      pick = row->ldUsed ? col : row;
    else
      pick = op.preferred == Layout::Row ? row : col;
  } else {
    pick = row ? row : col;
  }
  std::string what = std::string(op.name) + " (" + shapeText(v) + ", strides " + stridesText(v) +
                     ")";
  if (!pick)
    return invalid(what + " has no unit stride along " + op.colsName + " or " + op.rowsName +
                   "; gemmgen " + (op.written ? "writes " : "reads ") + op.matrix +
                   " with unit stride along " + op.colsName + " (row-major) or " + op.rowsName +
                   " (column-major): " + op.fix);
  if (pick->ldUsed && pick->ld <= 0) {
    // ld 0 would mean "packed" to the runtime: it would read (or write) past
    // the array.
    bool rowMajor = pick->layout == Layout::Row;
    return invalid(what + " has stride " + std::to_string(pick->ld) + " along " +
                   (rowMajor ? op.rowsName : op.colsName) + ": its " +
                   (rowMajor ? "rows" : "columns") +
                   (pick->ld == 0 ? " overlap (a broadcast or expanded view); "
                                  : " run backwards (a flipped view); ") +
                   op.fix);
  }
  return *pick;
}

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
  Expected<Stored> sa = storedAs(a, kA);
  if (!sa)
    return sa.status();
  Expected<Stored> sb = storedAs(b, kB);
  if (!sb)
    return sb.status();
  Expected<Stored> sd = storedAs(out, kD);
  if (!sd)
    return sd.status();
  GemmArgs args;
  args.A = a.ptr;
  args.B = b.ptr;
  args.D = out.ptr;
  args.M = a.rows;
  args.N = b.cols;
  args.K = a.cols;
  args.layoutA = sa->layout;
  args.lda = sa->ld;
  args.layoutB = sb->layout;
  args.ldb = sb->ld;
  args.layoutD = sd->layout;
  args.ldd = sd->ld;
  return args;
}

Status python::attachC(GemmArgs &args, const MatrixView &c) {
  if (c.rows != args.M || c.cols != args.N)
    return invalid("c is " + shapeText(c) + "; it must have out's shape " +
                   std::to_string(args.M) + "x" + std::to_string(args.N));
  Expected<Stored> sc = storedAs(c, kC);
  if (!sc)
    return sc.status();
  if (sc->layout != args.layoutD)
    return invalid(std::string("c (") + shapeText(c) + ", strides " + stridesText(c) + ") is " +
                   toString(sc->layout) + "-major and out " + toString(args.layoutD) +
                   "-major; the kernel reads C in D's layout: pass c with out's layout "
                   "(c.contiguous() for a row-major out)");
  args.C = c.ptr;
  args.ldc = sc->ld;
  return Status::success();
}

std::pair<Layout, Layout> python::kernelLayouts(const GemmArgs &args) {
  GemmArgs rm = rowMajorProblem(args);
  return {rm.layoutA, rm.layoutB};
}

Expected<Layout> python::parseLayout(const std::string &text, const std::string &what) {
  if (text == toString(Layout::Row))
    return Layout::Row;
  if (text == toString(Layout::Col))
    return Layout::Col;
  return invalid(what + " is '" + text + "'; a layout is \"row\" or \"col\"");
}

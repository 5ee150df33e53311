//===- NarrowPath.cpp - D of 1-4 rows or columns on the SIMT kernel -------===//
//
// A decode GEMM with one or two tokens pads an MMA tile of 64 rows to them;
// every MMA kernel then streams the weights no faster than its TMA pipeline
// lets it. Where a spec says scheduler.simt_narrow: R, a launch whose D has
// at most R rows (or columns) runs on the tail kernel (TailColumns.cpp) with
// every column its own: each warp streams one row of the long operand with
// 16-byte loads, four in flight per lane, and keeps the short operand's R
// rows in L1. On the H100 this streamed 1x57344x8192's weights at 3.0 TB/s
// against cuBLAS's 2.9 and gemmgen's decode tile's 2.8
// (bench/h200-gemv-simt.sh, 2026-12-05).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

using namespace gemmgen;

namespace {
bool rowsOf16Bytes(CUdeviceptr p, long long ld, long long stride, long long batch) {
  return p % 16 == 0 && ld % 8 == 0 && (batch <= 1 || stride % 8 == 0);
}
} // namespace

NarrowRoute gemmgen::narrowRoute(const Kernel::Impl &k, const GemmArgs &args) {
  NarrowRoute r;
  const KernelABI &abi = k.abi;
  const DType t = k.info.dtype, out = k.info.outType; // a split kernel's reduction's
  if (abi.simtNarrow == 0 || !args.problems.empty() || abi.grouped || abi.hasChain() ||
      (t != DType::F16 && t != DType::BF16) || k.info.dtypeB != t ||
      (out != t && out != DType::F32))
    return r;
  // The row-major frame: A K-major (M lines of K), B K-major (N lines of K).
  const GemmArgs rm = rowMajorProblem(args);
  if (rm.layoutA != Layout::Row || rm.layoutB != Layout::Col || rm.K % 8 != 0 || rm.M <= 0 ||
      rm.N <= 0)
    return r;
  const long long lda = storedShape(rm, 'A').ld, ldb = storedShape(rm, 'B').ld;
  if (!rowsOf16Bytes(rm.A, lda, rm.strideA, rm.batch) ||
      !rowsOf16Bytes(rm.B, ldb, rm.strideB, rm.batch))
    return r;
  const long long lim = abi.simtNarrow;
  if (rm.M <= lim && rm.M <= rm.N)
    r.taken = true, r.rowsOfB = true;
  else if (rm.N <= lim)
    r.taken = true, r.rowsOfB = false;
  r.problem = rm;
  return r;
}

Expected<PreparedLaunch> gemmgen::prepareNarrow(const Kernel::Impl &k, const NarrowRoute &r) {
  if (Status s = ensureHelperModule(k); !s)
    return Status::error(s.code(), "the SIMT path's kernel: " + s.message());
  const GemmArgs &rm = r.problem;
  PreparedLaunch p;
  p.tailFunction = k.tailFunction;
  p.tailOut = k.info.outType; // D itself, also for a split kernel (whose own output is f32)
  p.gridX = 0; // no MMA kernel: the tail kernel computes every column
  p.batch = (int)rm.batch;
  p.alpha = rm.alpha, p.beta = rm.beta;
  p.tailK = (int)rm.K;
  p.tailN0 = 0;
  // The tail kernel's rows are the long operand's (W), its columns the short
  // one's (X): W = B writes D^T, so D's rows are its columns.
  const long long ldd = storedShape(rm, 'D').ld, ldc = storedShape(rm, 'C').ld;
  const bool b = r.rowsOfB;
  p.A = b ? rm.B : rm.A, p.B = b ? rm.A : rm.B, p.D = rm.D;
  p.layoutA = Layout::Row, p.layoutB = Layout::Col;
  p.lda = storedShape(rm, b ? 'B' : 'A').ld;
  p.ldb = storedShape(rm, b ? 'A' : 'B').ld;
  p.strideA = b ? rm.strideB : rm.strideA, p.strideB = b ? rm.strideA : rm.strideB;
  p.strideD = rm.strideD, p.strideC = rm.strideC;
  p.tailM = (int)(b ? rm.N : rm.M);
  p.tailColumns = (unsigned)(b ? rm.M : rm.N);
  p.ldd = b ? 1 : ldd, p.tailDColStride = b ? ldd : 1;
  if (rm.beta != 0.0f)
    p.C = rm.C, p.ldc = b ? 1 : ldc, p.tailCColStride = b ? ldc : 1;
  p.path = std::string("simt_narrow(rows of ") + (b ? "B" : "A") + ")";
  return p;
}

//===- Staging.cpp - Operands TMA cannot take, through aligned copies -------===//
//
// TMA needs 16-byte aligned base addresses and line strides. An operand that
// has neither (a packed K = 4100, an ldd of 8191, a pointer into the middle
// of a tensor) is not refused: it is copied into an aligned workspace buffer
// (lines padded to 16 bytes) before the GEMM, and D is copied out of one
// after it. A, B and C are read through their copies; D is written to its
// copy (which holds C first when C = D, in place) and then to the user's D.
// The copies cost one extra read and write of the staged operands; the GEMM
// itself runs unchanged. PreparedLaunch::path says which operands took it.
// A K-major A or B whose rows are not 128 bytes apart takes it too where the
// copy costs less than the L2 lines its TMA rows straddle (straddleCopyPays).
// An 8-bit A or B stored M- or N-major is copied transposed, K-major with
// rows 128 bytes apart: wgmma reads 8-bit operands K-major only, so the fp8
// kernels are compiled K-major and this copy is their transposing path
// (copiedTransposed, Internal.h).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>
#include <cstdlib>

using namespace gemmgen;

namespace {

long long roundUp(long long x, long long m) { return (x + m - 1) / m * m; }

/// Whether TMA can take an operand as it is: a 16-byte aligned address and
/// lines a multiple of 16 bytes apart.
bool tmaReady(CUdeviceptr p, long long ld, long long elemBytes) {
  return p % 16 == 0 && (ld * elemBytes) % 16 == 0;
}

struct Staged {
  char operand;
  bool needed = false;
  StoredShape from;       ///< as the user stores it
  long long stride = 0;    ///< the user's batch stride (elements; 0: one matrix for all entries)
  long long entries = 1;   ///< entries copied: the batch, or 1 for a broadcast operand
  long long alignedLd = 0; ///< the copy's line stride (elements)
  long long copyStride = 0; ///< the copy's batch stride (packed entries; 0 when one)
  long long elemBytes = 2;
  long long bytes = 0;     ///< the copy's size, rounded to 256
  bool transpose = false;  ///< copied K-major from an M- or N-major 8-bit operand
  long long copyLines = 0; ///< the copy's lines (from.length where transposed)
};

/// A K-major operand whose rows are not 128 bytes apart: every 128-byte TMA
/// box row straddles two L2 lines, which cost spec 05 18-26% at K = 4104 and
/// 8200 on the H200 (bench/h200-straddle.sh, docs/PERF.md "K residue"). A
/// copy with rows 128 bytes apart pays where its launch and its read and
/// write (~3 us + bytes at ~2.5 TB/s) cost under 0.2x the GEMM's tensor time
/// (2MNK at ~700 TFLOP/s): measured 0.82 -> 0.85 (4096x4096x4104) to 0.82 ->
/// 0.965 (16384x16384x16392) of cuBLAS. GEMMGEN_STAGE_STRADDLING=0 or 1
/// turns the rule off or on for every size (to measure it).
bool straddleCopyPays(const GemmArgs &a, char op, const StoredShape &s, long long elemBytes,
                      long long entries, bool copyStraddling) {
  const bool kMajor = op == 'A' ? a.layoutA == Layout::Row : a.layoutB == Layout::Col;
  if (!kMajor || a.K <= 0 || (s.ld * elemBytes) % 128 == 0)
    return false;
  if (const char *v = std::getenv("GEMMGEN_STAGE_STRADDLING"); v && *v)
    return v[0] == '1';
  if (!copyStraddling)
    return false;
  const double copySeconds =
      3e-6 + 2.0 * (double)entries * s.lines * s.length * elemBytes / 2.5e12;
  const double gemmSeconds = 2.0 * (double)a.M * a.N * a.K * std::max(1LL, a.batch) / 7e14;
  return copySeconds < 0.2 * gemmSeconds;
}

/// The operands of a row-major problem `a` that need a copy, with sizes.
std::vector<Staged> stagingOf(const GemmArgs &a, DType in, DType out, bool wholeChunks,
                              bool copyStraddling) {
  std::vector<Staged> v;
  auto add = [&](char op, CUdeviceptr p, long long stride, DType t, bool used) {
    Staged s;
    s.operand = op;
    s.from = storedShape(a, op);
    s.elemBytes = (long long)sizeOf(t);
    // A strided batch: the entries' stride must be a 16-byte multiple too.
    s.stride = a.batch > 1 ? stride : 0;
    s.entries = s.stride != 0 ? a.batch : 1;
    s.needed = used && (!tmaReady(p, s.from.ld, s.elemBytes) || (s.stride * s.elemBytes) % 16 != 0);
    if (op == 'D' && wholeChunks && (s.from.length * s.elemBytes) % 16 != 0)
      s.needed = true;
    const bool straddles =
        used && (op == 'A' || op == 'B') &&
        straddleCopyPays(a, op, s.from, s.elemBytes, s.entries, copyStraddling);
    s.transpose = used && copiedTransposed(op, op == 'A' ? a.layoutA : a.layoutB, t);
    s.needed = s.needed || straddles || s.transpose;
    // A transposed copy's lines are K long, 128 bytes apart (no straddling).
    s.copyLines = s.transpose ? s.from.length : s.from.lines;
    const long long length = s.transpose ? s.from.lines : s.from.length;
    s.alignedLd = roundUp(length, (straddles || s.transpose ? 128 : 16) / s.elemBytes);
    s.copyStride = s.entries > 1 ? s.copyLines * s.alignedLd : 0;
    s.bytes = roundUp(s.entries * s.copyLines * s.alignedLd * s.elemBytes, 256);
    v.push_back(s);
  };
  const bool readsAB = a.K > 0, readsC = a.beta != 0.0f;
  add('A', a.A, a.strideA, in, readsAB);
  add('B', a.B, a.strideB, in, readsAB);
  add('D', a.D, a.strideD, out, true);
  // A separate C is staged on its own; C = D in place rides with D's copy.
  add('C', a.C, a.strideC, out, readsC && a.C != a.D);
  return v;
}

} // namespace

long long gemmgen::stagingWorkspaceBytes(const GemmArgs &rowMajor, DType in, DType out,
                                         bool wholeChunks, bool copyStraddling) {
  long long total = 0;
  for (const Staged &s : stagingOf(rowMajor, in, out, wholeChunks, copyStraddling))
    if (s.needed)
      total += s.bytes;
  return total;
}

Status gemmgen::planStaging(const GemmArgs &rm, DType in, DType out, CUdeviceptr workspace,
                            std::size_t workspaceBytes, GemmArgs &kernelArgs, PreparedLaunch &p,
                            std::string &staged, bool wholeChunks, bool copyStraddling) {
  kernelArgs = rm;
  staged.clear();
  const long long need = stagingWorkspaceBytes(rm, in, out, wholeChunks, copyStraddling);
  if (need == 0)
    return Status::success();
  if (!workspace || (long long)workspaceBytes < need)
    return Status::error(
        ErrorCode::InvalidArgument,
        "operands TMA cannot address (16-byte aligned pointers and line "
        "strides) and 8-bit operands stored M- or N-major (copied K-major) "
        "are copied through a workspace of " +
            std::to_string(need) + " bytes; pass GemmArgs::workspace (" +
            (workspace ? "got " + std::to_string(workspaceBytes) + " bytes" : std::string("null")) +
            ", see Kernel::workspaceBytes), or use Kernel::launch(args, "
            "stream), which allocates it on the stream");
  if (workspace % 256 != 0)
    return Status::error(ErrorCode::InvalidArgument,
                         "the workspace must be 256-byte aligned (cuMemAlloc's are)");
  CUdeviceptr next = workspace;
  for (const Staged &s : stagingOf(rm, in, out, wholeChunks, copyStraddling)) {
    if (!s.needed)
      continue;
    const CUdeviceptr copy = next;
    next += (CUdeviceptr)s.bytes;
    staged += (staged.empty() ? "" : ",") + std::string(1, s.operand) + (s.transpose ? "^T" : "");
    PreparedLaunch::Copy in; // into the copy; `src` per operand below
    in.dst = copy, in.lines = s.from.lines, in.length = s.from.length;
    in.srcLd = s.from.ld, in.dstLd = s.alignedLd, in.elemBytes = (unsigned)s.elemBytes;
    in.batch = s.entries, in.srcStride = s.stride, in.dstStride = s.copyStride;
    in.transpose = s.transpose;
    switch (s.operand) {
    case 'A':
      in.src = rm.A, kernelArgs.A = copy, kernelArgs.lda = s.alignedLd;
      kernelArgs.strideA = s.copyStride;
      if (s.transpose)
        kernelArgs.layoutA = Layout::Row;
      p.before.push_back(in);
      break;
    case 'B':
      in.src = rm.B, kernelArgs.B = copy, kernelArgs.ldb = s.alignedLd;
      kernelArgs.strideB = s.copyStride;
      if (s.transpose)
        kernelArgs.layoutB = Layout::Col;
      p.before.push_back(in);
      break;
    case 'C':
      in.src = rm.C, kernelArgs.C = copy, kernelArgs.ldc = s.alignedLd;
      kernelArgs.strideC = s.copyStride;
      p.before.push_back(in);
      break;
    case 'D': {
      kernelArgs.D = copy, kernelArgs.ldd = s.alignedLd, kernelArgs.strideD = s.copyStride;
      if (rm.beta != 0.0f && rm.C == rm.D) { // in place: D's copy starts as C
        in.src = rm.D;
        p.before.push_back(in);
        kernelArgs.C = copy, kernelArgs.ldc = s.alignedLd, kernelArgs.strideC = s.copyStride;
      }
      p.after.push_back({copy, rm.D, s.from.lines, s.from.length, s.alignedLd, s.from.ld,
                         (unsigned)s.elemBytes, s.entries, s.copyStride, s.stride});
      break;
    }
    }
  }
  return Status::success();
}

unsigned gemmgen::widestWordBytes(unsigned long long byteBits) {
  unsigned w = 16;
  while (w > 1 && byteBits % w != 0)
    w /= 2;
  return w;
}

gemmgen::CopyLaunch gemmgen::copyLaunchOf(const PreparedLaunch::Copy &c) {
  const long long eb = c.elemBytes;
  const unsigned long long allBits =
      (unsigned long long)c.src | (unsigned long long)c.dst |
      (unsigned long long)(c.srcLd * eb) | (unsigned long long)(c.dstLd * eb) |
      (unsigned long long)(c.length * eb) | (unsigned long long)(c.srcStride * eb) |
      (unsigned long long)(c.dstStride * eb);
  CopyLaunch l;
  l.wordBytes = widestWordBytes(allBits);
  const long long w = l.wordBytes;
  l.srcLd = c.srcLd * eb / w, l.dstLd = c.dstLd * eb / w, l.run = c.length * eb / w;
  l.srcStride = c.srcStride * eb / w, l.dstStride = c.dstStride * eb / w;
  const long long rows = c.batch * c.lines;
  l.linePerBlock = l.run >= kCopyLinePerBlockWords;
  const long long wanted =
      l.linePerBlock ? rows : (rows * l.run + kCopyThreads - 1) / kCopyThreads;
  l.blocks = (unsigned)std::max<long long>(1, std::min<long long>(wanted, kCopyMaxBlocks));
  return l;
}

/// One transposing copy: a block of 64 x 4 threads (4: the device code's
/// kTransposeRowsPerPass) per 64 x 64 tile, at most kCopyMaxBlocks blocks,
/// which walk the rest.
static Status launchTranspose(const Kernel::Impl &k, const PreparedLaunch::Copy &c,
                              CUstream stream) {
  CUdeviceptr src = c.src, dst = c.dst;
  long long sl = c.srcLd, dl = c.dstLd, lines = c.lines, length = c.length, batch = c.batch;
  long long ss = c.srcStride, ds = c.dstStride;
  int elemBytes = (int)c.elemBytes;
  const long long tiles = batch * ((lines + 63) / 64) * ((length + 63) / 64);
  const unsigned blocks = (unsigned)std::max<long long>(1, std::min(tiles, kCopyMaxBlocks));
  void *params[] = {&src, &sl, &dst, &dl, &lines, &length, &batch, &ss, &ds, &elemBytes};
  CUresult r = k.rt->drv->cuLaunchKernel(k.transposeFunction, blocks, 1, 1, 64, 4, 1, 0, stream,
                                         params, nullptr);
  if (r != CUDA_SUCCESS)
    return k.rt->drv->fail(r,
                           "cuLaunchKernel(gg_transpose2d, " + std::to_string(blocks) + " blocks)");
  return Status::success();
}

Status gemmgen::runCopies(const Kernel::Impl &k, const std::vector<PreparedLaunch::Copy> &copies,
                          CUstream stream) {
  if (copies.empty())
    return Status::success();
  if (Status s = ensureHelperModule(k); !s)
    return s;
  const DriverApi &drv = *k.rt->drv;
  GG_CONTEXT_SCOPE(*k.rt);
  for (const PreparedLaunch::Copy &c : copies) {
    if (c.transpose) {
      if (Status s = launchTranspose(k, c, stream); !s)
        return s;
      continue;
    }
    CopyLaunch l = copyLaunchOf(c);
    CUdeviceptr src = c.src, dst = c.dst;
    long long lines = c.lines, batch = c.batch;
    int perBlock = l.linePerBlock ? 1 : 0;
    void *params[] = {&src,   &l.srcLd,     &dst,         &l.dstLd,     &lines,   &l.run,
                      &batch, &l.srcStride, &l.dstStride, &l.wordBytes, &perBlock};
    CUresult r = drv.cuLaunchKernel(k.copyFunction, l.blocks, 1, 1, kCopyThreads, 1, 1, 0,
                                    stream, params, nullptr);
    if (r != CUDA_SUCCESS)
      return drv.fail(r, "cuLaunchKernel(gg_copy2d, " + std::to_string(l.blocks) + " blocks)");
  }
  return Status::success();
}

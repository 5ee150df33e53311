//===- SplitK.cpp - Split-K: K slices into an f32 workspace, then a sum -----===//
//
// A split_k kernel (scheduler.split_k) is the f32-output kernel launched on
// K slices as the entries of a strided batch into a workspace; the reduction
// (TailColumns.cpp's module, gg_splitk_reduce) sums them into the user's D.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>

using namespace gemmgen;

// Split-K: how the kernel's problem is cut (kernelProblem: a column-major-D
// kernel's is the transpose of a row-major D's; its slices are row-major all
// the same, and the reduction writes D as the problem stores it). K in whole
// k-blocks splits into the most equal slices (a divisor of the k-blocks) not
// above split_k, each a batch entry of the f32 kernel into the workspace W
// (slices x M x ldw); any other K is one slice (the reduction still applies
// alpha, beta·C and the cast). fp8 kernels apply their scales to the partial
// sums: per tensor in alpha (the kernel's alpha is 1, the reduction's the
// user's); blockwise per k-block, reading A's [kb][m] scales of slice l at
// l·kSlice/128·M — where the kernel looks for entry l's — and B's [nb][kb]
// ones from a copy laid out per slice, [l][nb][kb'], made before the kernel.
namespace {
struct SplitPlan {
  long long slices = 1, kSlice = 0, ldw = 0, wBytes = 0;
  long long kBlocks = 0, nBlocks = 0, scaleBytes = 0; ///< blockwise: B's per-slice copy
};
SplitPlan splitPlan(const KernelABI &abi, const GemmArgs &kp) {
  SplitPlan s;
  s.slices = splitKSlices(kp.K, std::max(1u, abi.tileK), abi.splitK);
  s.kSlice = kp.K / s.slices;
  s.ldw = (kp.N + 3) / 4 * 4; // f32 rows of 16-byte multiples
  s.wBytes = (s.slices * kp.M * s.ldw * 4 + 255) / 256 * 256;
  if (abi.blockwiseScales && s.slices > 1) {
    s.kBlocks = (kp.K + 127) / 128, s.nBlocks = (kp.N + 127) / 128;
    s.scaleBytes = (s.nBlocks * s.kBlocks * 4 + 255) / 256 * 256;
  }
  return s;
}
/// The operands the split kernel reads as stored: A and B (its D is W; C
/// is the reduction's), for the staging path.
GemmArgs splitKernelOperands(const GemmArgs &kp, const SplitPlan &s) {
  GemmArgs ab = kp;
  ab.D = 256, ab.ldd = s.ldw, ab.layoutD = Layout::Row; // W: aligned, in the workspace
  ab.beta = 0.0f, ab.C = 0;
  return ab;
}
} // namespace

long long gemmgen::splitKSlices(long long K, long long tileK, long long splitK) {
  const long long kBlocks = (K + tileK - 1) / tileK;
  if (K % tileK == 0)
    for (long long n = std::min(splitK, kBlocks); n > 1; --n)
      if (kBlocks % n == 0)
        return n;
  return 1;
}

std::size_t gemmgen::splitKWorkspaceBytes(const KernelABI &abi, DType t, const GemmArgs &args) {
  const GemmArgs kp = kernelProblem(args, abi);
  const SplitPlan s = splitPlan(abi, kp);
  return (std::size_t)(s.wBytes + stagingWorkspaceBytes(splitKernelOperands(kp, s), t, DType::F32) +
                       s.scaleBytes);
}

// A split-K launch: A and B staged if TMA cannot take them, the kernel's
// slices as batch entries into W (A's and B's entries kSlice apart along
// K), then the reduction into the user's D.
Expected<PreparedLaunch> gemmgen::prepareSplitK(const Kernel &kernel, const Kernel::Impl &k,
                                               const GemmArgs &args) {
  const KernelABI &abi = k.abi;
  const DriverApi &drv = *k.rt->drv;
  const DType t = k.info.dtype;
  const GemmArgs kp = kernelProblem(args, abi); // one problem: checkGemmArgs refused a batch
  const SplitPlan s = splitPlan(abi, kp);
  const GemmArgs ab = splitKernelOperands(kp, s);
  const long long staging = stagingWorkspaceBytes(ab, t, DType::F32);
  const long long need = s.wBytes + staging + s.scaleBytes;
  if (!args.workspace || (long long)args.workspaceBytes < need)
    return invalidArgument("kernel '" + abi.kernelName + "' splits K into " +
                           std::to_string(s.slices) + " slice(s) summed in a workspace of " +
                           std::to_string(need) + " bytes (Kernel::workspaceBytes); got " +
                           std::to_string(args.workspace ? args.workspaceBytes : 0) +
                           " (Kernel::launch(args, stream) allocates one when none is given)");
  if (args.workspace % 256 != 0)
    return invalidArgument("the workspace must be 256-byte aligned (cuMemAlloc's are)");
  PreparedLaunch p;
  GemmArgs g;
  std::string staged;
  if (Status st = planStaging(ab, t, DType::F32, args.workspace + (CUdeviceptr)s.wBytes,
                              (std::size_t)staging, g, p, staged);
      !st)
    return st;
  // The kernel's problem: `slices` entries of M x N x kSlice into W. A
  // packed operand's rows keep the whole K's pitch: name it before K shrinks.
  g.lda = storedShape(g, 'A').ld;
  g.ldb = storedShape(g, 'B').ld;
  g.K = s.kSlice;
  g.batch = s.slices;
  g.strideA = s.slices > 1 ? (g.layoutA == Layout::Row ? s.kSlice : s.kSlice * g.lda) : 0;
  g.strideB = s.slices > 1 ? (g.layoutB == Layout::Col ? s.kSlice : s.kSlice * g.ldb) : 0;
  g.D = args.workspace, g.ldd = s.ldw, g.strideD = kp.M * s.ldw;
  g.alpha = 1.0f, g.beta = 0.0f, g.C = 0, g.ldc = 0, g.strideC = 0;
  // fp8 and column-major-D kernels store whole chunks (the tail kernel reads
  // 16-bit operands, and computes a row-major D): W's rows are padded to 16
  // bytes, so a chunk past N stays inside them.
  const bool wholeChunks = storesWholeChunks(abi, g.N, DType::F32);
  const long long stored = wholeChunks ? g.N : tmaStoreColumns(g.N, DType::F32);
  if (Status st = encodeProblemMaps(drv, abi, g, t, DType::F32, stored, p.tmA, p.tmB, p.tmD,
                                    p.tmC);
      !st)
    return st;
  p.alpha = 1.0f, p.beta = 0.0f;
  p.scaleA = kp.scaleA, p.scaleB = kp.scaleB;
  if (s.scaleBytes) {
    const CUdeviceptr perSlice = args.workspace + (CUdeviceptr)(s.wBytes + staging);
    const long long kbSlice = s.kBlocks / s.slices;
    PreparedLaunch::Copy c;
    c.src = kp.scaleB, c.dst = perSlice, c.elemBytes = 4;
    c.lines = s.nBlocks, c.length = kbSlice, c.srcLd = s.kBlocks, c.dstLd = kbSlice;
    c.batch = s.slices, c.srcStride = kbSlice, c.dstStride = s.nBlocks * kbSlice;
    p.before.push_back(c);
    p.scaleB = perSlice;
  }
  p.M = (int)g.M, p.N = (int)stored, p.K = (int)g.K, p.batch = (int)g.batch;
  p.gridX = kernel.gridSize(g.M, stored, g.batch);
  p.gridY = 1;
  if (!wholeChunks)
    if (Status st = prepareTailColumns(k, g, p); !st)
      return st;
  PreparedLaunch::SplitReduce &r = p.splitReduce;
  r.w = args.workspace, r.slices = s.slices, r.m = kp.M, r.n = kp.N, r.ldw = s.ldw;
  r.strideW = kp.M * s.ldw;
  r.d = kp.D, r.ldd = storedShape(kp, 'D').ld, r.dColMajor = kp.layoutD == Layout::Col;
  r.alpha = kp.alpha, r.beta = kp.beta;
  if (kp.beta != 0.0f)
    r.c = kp.C, r.ldc = storedShape(kp, 'C').ld;
  p.path = "tma+split_k(" + std::to_string(s.slices) + ")" +
           (staged.empty() ? "" : "+staged(" + staged + ")");
  return p;
}


//===- Launch.cpp - Pre-launch checks, grid, cluster launch ----------------===//
//
// Kernel::check runs every pre-launch check with a message that says what is
// wrong and what TMA needs; Kernel::prepare builds the tensor maps and the
// grid; Kernel::launch enqueues with cuLaunchKernelEx and the cluster
// dimension attribute. The persistent grid is the balanced number of the
// schedule's units over the co-resident clusters (cuOccupancyMaxActiveClusters,
// else SMs / cluster size), times the cluster size: gemmgen/device/
// tile_schedule.cuh, the header the kernels walk their tiles with. Grouped
// launches are Grouped.cpp's, split-K launches SplitK.cpp's, the staging
// path Staging.cpp's.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/device/tile_schedule.cuh"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>

using namespace gemmgen;

static Status emptyKernel() {
  return emptyHandle("Kernel", "Runtime::compileFile, compileString or loadKernel");
}

const KernelInfo &Kernel::info() const {
  static const KernelInfo none;
  return impl_ ? impl_->info : none;
}
const std::string &Kernel::source() const {
  static const std::string none;
  return impl_ ? impl_->source : none;
}
CUfunction Kernel::function() const { return impl_ ? impl_->fn : nullptr; }

// The grid for `units` of the schedule's units: one cluster per unit, or the
// balanced persistent grid.
unsigned gemmgen::gridForUnits(const Kernel::Impl &k, long long units) {
  const KernelABI &abi = k.abi;
  const long long perUnit = abi.ctasPerUnit;
  if (units <= 0)
    return 0;
  if (!abi.persistent)
    return (unsigned)std::min<long long>(units * perUnit, INT_MAX / perUnit * perUnit);
  long long resident = k.maxActiveClusters > 0 ? (long long)k.maxActiveClusters
                                               : (long long)(k.rt->info.smCount / perUnit);
  // Balanced persistent grid (tile_schedule.cuh); GEMMGEN_BALANCED_GRID=0
  // turns it off: then every resident cluster is launched.
  const char *balanced = std::getenv("GEMMGEN_BALANCED_GRID");
  if (balanced && std::string(balanced) == "0")
    return (unsigned)(std::min(units, std::max(resident, 1LL)) * perUnit);
  return (unsigned)(schedule::balanced_grid_clusters(units, resident) * perUnit);
}

long long gemmgen::streamKResidentCtas(const Kernel::Impl &k) {
  return std::max(1LL, k.maxActiveClusters > 0 ? (long long)k.maxActiveClusters
                                               : (long long)k.rt->info.smCount);
}

/// Stream-K's workspace: the partial-sum slots (bytes), then the flags.
static std::pair<long long, long long> streamKLayout(const Kernel::Impl &k) {
  const KernelABI &abi = k.abi;
  if (!abi.streamK)
    return {0, 0};
  const long long ctas = streamKResidentCtas(k);
  const long long partials = (ctas * abi.tileM * abi.tileN * 4 + 255) / 256 * 256;
  const long long flags = ctas * std::max(1u, abi.consumers);
  return {partials, (flags * 4 + 255) / 256 * 256};
}

long long gemmgen::streamKWorkspaceBytes(const Kernel::Impl &k) {
  const auto [partials, flags] = streamKLayout(k);
  return partials + flags;
}

/// The schedule's units of an M x N problem in every batch entry.
static long long unitCount(const KernelABI &abi, long long M, long long N, long long batch) {
  const long long unitRows = abi.unitRows, unitCols = abi.unitCols;
  return ((M + unitRows - 1) / unitRows) * ((N + unitCols - 1) / unitCols) *
         (abi.batched ? batch : 1);
}

unsigned Kernel::gridSize(long long M, long long N, long long batch) const {
  if (!impl_ || M <= 0 || N <= 0 || batch <= 0)
    return 0;
  // The schedule's units (loadKernel refused an ABI without them).
  return gridForUnits(*impl_, unitCount(impl_->abi, M, N, batch));
}

std::string gemmgen::hexPtr(CUdeviceptr p) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)p);
  return buf;
}

const char *gemmgen::toString(Layout l) { return l == Layout::Row ? "row" : "col"; }

StoredShape gemmgen::storedShape(const GemmArgs &a, char operand) {
  StoredShape s;
  long long ld = 0;
  switch (operand) {
  case 'A':
    s = a.layoutA == Layout::Row ? StoredShape{a.M, a.K, 0} : StoredShape{a.K, a.M, 0};
    ld = a.lda;
    break;
  case 'B':
    s = a.layoutB == Layout::Col ? StoredShape{a.N, a.K, 0} : StoredShape{a.K, a.N, 0};
    ld = a.ldb;
    break;
  case 'C': // stored like D
    s = a.layoutD == Layout::Row ? StoredShape{a.M, a.N, 0} : StoredShape{a.N, a.M, 0};
    ld = a.ldc;
    break;
  default:
    s = a.layoutD == Layout::Row ? StoredShape{a.M, a.N, 0} : StoredShape{a.N, a.M, 0};
    ld = a.ldd;
    break;
  }
  s.ld = ld ? ld : s.length;
  return s;
}

static Layout opposite(Layout l) { return l == Layout::Row ? Layout::Col : Layout::Row; }

GemmArgs gemmgen::rowMajorProblem(const GemmArgs &a) { return kernelProblem(a, Layout::Row); }

GemmArgs gemmgen::kernelProblem(const GemmArgs &a, Layout kernelD) {
  if (a.layoutD == kernelD)
    return a;
  // D^T = B^T · A^T: the new A is B^T (N×K), stored as B is, so its layout
  // is the opposite of B's (B stored N×K row-major is B^T row-major); the
  // new B is A^T (K×M), likewise.
  GemmArgs t = a;
  t.A = a.B, t.B = a.A;
  t.M = a.N, t.N = a.M;
  t.lda = a.ldb, t.ldb = a.lda;
  t.strideA = a.strideB, t.strideB = a.strideA;
  t.scaleA = a.scaleB, t.scaleB = a.scaleA;
  t.layoutA = opposite(a.layoutB);
  t.layoutB = opposite(a.layoutA);
  t.layoutD = kernelD;
  return t;
}

GemmArgs gemmgen::batchEntry(const GemmArgs &a, long long l, DType t, DType out) {
  GemmArgs e = a;
  const long long bytes = (long long)sizeOf(t), outBytes = (long long)sizeOf(out);
  e.A = a.A + (CUdeviceptr)(l * a.strideA * bytes);
  e.B = a.B + (CUdeviceptr)(l * a.strideB * bytes);
  e.D = a.D + (CUdeviceptr)(l * a.strideD * outBytes);
  if (a.C)
    e.C = a.C + (CUdeviceptr)(l * a.strideC * outBytes);
  e.batch = 1;
  e.strideA = e.strideB = e.strideD = e.strideC = 0;
  return e;
}

GemmArgs gemmgen::groupedProblem(const GemmArgs &a, std::size_t i) {
  GemmArgs e;
  const GemmProblem &g = a.problems.at(i);
  e.M = g.M, e.N = g.N, e.K = g.K;
  e.A = g.A, e.B = g.B, e.C = g.C, e.D = g.D;
  e.lda = g.lda, e.ldb = g.ldb, e.ldc = g.ldc, e.ldd = g.ldd;
  e.layoutA = a.layoutA, e.layoutB = a.layoutB, e.layoutD = a.layoutD;
  e.alpha = a.alpha, e.beta = a.beta;
  return e;
}

Status Kernel::check(const GemmArgs &a) const {
  if (!impl_)
    return emptyKernel();
  if (Status s = impl_->rt->checkUsable(); !s)
    return s;
  return checkGemmArgs(impl_->abi, impl_->info.epilogue, impl_->rt->info, a);
}

bool gemmgen::storesWholeChunks(const KernelABI &abi, long long kernelN, DType out) {
  // The tail kernel reads 16-bit operands only, and computes columns of a
  // row-major D: a column-major D's partial chunk (M % 8 != 0) is padded in
  // a staged copy instead. So is a D of fewer columns than one chunk holds:
  // the tail is a SIMT kernel for a few last columns, not for all of them.
  return abi.perTensorScales || abi.layoutD == MatrixLayout::Col ||
         tmaStoreColumns(kernelN, out) == 0;
}

GemmArgs gemmgen::kernelProblem(const GemmArgs &a, const KernelABI &abi) {
  return kernelProblem(a, toLayout(abi.layoutD));
}

bool gemmgen::stagingCopiesStraddling(const KernelABI &abi) { return abi.clusterM < 2; }

Status gemmgen::invalidArgument(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

Status gemmgen::checkGemmArgs(const KernelABI &abi, const DeviceInfo &dev, const GemmArgs &a) {
  return checkGemmArgs(abi, abi.hasChain() ? epilogueInfo(abi.epilogueChain) : EpilogueInfo(), dev,
                       a);
}

Status gemmgen::checkGemmArgs(const KernelABI &abi, const EpilogueInfo &epilogue,
                              const DeviceInfo &dev, const GemmArgs &a) {
  if (Status s = checkTargetRunsOn(abi.target, dev); !s)
    return s;
  auto invalid = invalidArgument;
  if (abi.grouped || !a.problems.empty()) {
    if (Status s = checkGrouped(abi, a); !s)
      return s;
    return checkSharedMemoryFits(abi, dev);
  }
  if (a.M <= 0 || a.N <= 0 || a.K < 0)
    return invalid("M and N must be positive and K non-negative (got M=" + std::to_string(a.M) +
                   ", N=" + std::to_string(a.N) + ", K=" + std::to_string(a.K) + ")");
  if (a.M > INT_MAX || a.N > INT_MAX || a.K > INT_MAX)
    return invalid("M, N and K must be at most " + std::to_string(INT_MAX) + " (got M=" +
                   std::to_string(a.M) + ", N=" + std::to_string(a.N) +
                   ", K=" + std::to_string(a.K) + ")");
  if (a.batch < 1 || a.batch > INT_MAX)
    return invalid("batch must be between 1 and " + std::to_string(INT_MAX) + " (got " +
                   std::to_string(a.batch) + ")");
  if (a.batch > 1 && !abi.batched)
    return invalid("kernel '" + abi.kernelName + "' (" + targetArch(abi.target) +
                   ") computes one problem per launch, and batch is " + std::to_string(a.batch) +
                   "; launch it once per batch entry (batchEntry()), or use an sm_90a kernel");
  if (a.batch > 1 && abi.splitK > 1) // its batch entries are the K slices
    return invalid("kernel '" + abi.kernelName + "' splits K (scheduler.split_k " +
                   std::to_string(abi.splitK) + ") of one problem per launch, and batch is " +
                   std::to_string(a.batch) +
                   "; launch each entry on its own (batchEntry()), or use a spec without split_k");
  if (a.batch > 1) {
    // The kernel walks batch × units slots in an int.
    const long long units = ((a.M + abi.unitRows - 1) / std::max(1u, abi.unitRows)) *
                            ((a.N + abi.unitCols - 1) / std::max(1u, abi.unitCols));
    if (units > INT_MAX / a.batch)
      return invalid("batch " + std::to_string(a.batch) + " of " + std::to_string(a.M) + "x" +
                     std::to_string(a.N) + " has " + std::to_string(units) +
                     " tiles per entry, more than 2^31 tiles in all; split the batch into "
                     "launches of at most " + std::to_string(INT_MAX / std::max(1LL, units)) +
                     " entries");
  }
  if (!abi.alphaBeta && (a.alpha != 1.0f || a.beta != 0.0f))
    return invalid("kernel '" + abi.kernelName + "' (" + targetArch(abi.target) +
                   ") computes D = A·B without alpha, beta and C (got alpha " +
                   std::to_string(a.alpha) + ", beta " + std::to_string(a.beta) +
                   "); use an sm_90a kernel with `epilogue: { store: tma }`");
  if (!abi.perTensorScales && (a.scaleA || a.scaleB))
    return invalid("kernel '" + abi.kernelName + "' has " + toString(abi.aType) +
                   " operands and takes no per-tensor scales (got scaleA/scaleB); scales are "
                   "for fp8 kernels (types.a/b e4m3 or e5m2): pass null, or fold them into "
                   "alpha");
  if (a.amaxD && !abi.fp8Output)
    return invalid("kernel '" + abi.kernelName + "' writes a " + toString(abi.dType) +
                   " D and keeps no amax (got GemmArgs::amaxD); the amax is kept by kernels "
                   "with an 8-bit D (types.d e4m3 or e5m2): pass null");
  if (abi.fp8Output && a.amaxD % 4)
    return invalid("kernel '" + abi.kernelName + "': GemmArgs::amaxD " + hexPtr(a.amaxD) +
                   " is not 4-byte aligned (one f32)");
  if (abi.fp8Output && a.scaleD % 4)
    return invalid("kernel '" + abi.kernelName + "': GemmArgs::scaleD " + hexPtr(a.scaleD) +
                   " is not 4-byte aligned (one f32)");
  // A D stored the other way from the kernel's is computed transposed.
  const Layout kernelD = toLayout(abi.layoutD);
  const bool swapped = a.layoutD != kernelD;
  if (abi.blockwiseScales) {
    const std::string who = "kernel '" + abi.kernelName + "' scales blockwise (types.scaling): ";
    if (!a.scaleA || !a.scaleB)
      return invalid(who + "GemmArgs::scaleA and scaleB must be its scale arrays (got " +
                     (a.scaleA ? "" : "scaleA null") + (!a.scaleA && !a.scaleB ? ", " : "") +
                     (a.scaleB ? "" : "scaleB null") + "); blockwiseScaleCounts() gives their "
                     "lengths");
    if (a.scaleA % 4 || a.scaleB % 4)
      return invalid(who + "scaleA and scaleB must be 4-byte aligned f32 arrays");
    // The producer indexes the arrays in 32 bits (stage_scales in sm90_ptx.cuh).
    const auto [countA, countB] = blockwiseScaleCounts(a);
    if (countA > INT_MAX || countB > INT_MAX)
      return invalid(who + "its scale arrays would hold " + std::to_string(countA) + " (A) and " +
                     std::to_string(countB) + " (B) floats, and the kernel indexes them in 32 "
                     "bits (at most 2147483647 each); split the batch or the problem");
    if (swapped)
      return invalid(who + "a " + toString(a.layoutD) + "-major D is computed as D^T = B^T·A^T "
                     "by this kernel (it stores D " + toString(kernelD) + "-major), which would "
                     "swap the scales' blocks (1x128 against 128x128); store D " +
                     toString(kernelD) + "-major");
  }
  if (abi.aType != abi.bType && swapped)
    return invalid("kernel '" + abi.kernelName + "' takes A " + toString(abi.aType) + " and B " +
                   toString(abi.bType) + ", and a " + toString(a.layoutD) + "-major D is "
                   "computed as D^T = B^T·A^T by it (it stores D " + toString(kernelD) +
                   "-major), which swaps them; use a " + toString(kernelD) +
                   "-major D, or a kernel with b: " + toString(abi.aType));
  const Layout kernelA = toLayout(abi.layoutA), kernelB = toLayout(abi.layoutB);
  const GemmArgs rm = kernelProblem(a, kernelD);
  // An 8-bit operand stored M- or N-major reaches a K-major kernel through
  // the staging path's transposing copy (copiedTransposed).
  const bool copiedA = copiedTransposed('A', rm.layoutA, toDType(abi.aType));
  const bool copiedB = copiedTransposed('B', rm.layoutB, toDType(abi.bType));
  if ((rm.layoutA != kernelA && !copiedA) || (rm.layoutB != kernelB && !copiedB)) {
    std::string stored = std::string("the arguments store A ") + toString(a.layoutA) +
                         "-major and B " + toString(a.layoutB) + "-major";
    if (swapped)
      stored += " with D " + std::string(toString(a.layoutD)) + "-major (computed as D^T = "
                "B^T·A^T: A " + toString(rm.layoutA) + "-major, B " + toString(rm.layoutB) +
                "-major)";
    return invalid(stored + ", but kernel '" + abi.kernelName + "' was compiled for A " +
                   toString(kernelA) + "-major and B " + toString(kernelB) +
                   "-major; compile the spec with layout: { a: " + toString(rm.layoutA) +
                   ", b: " + toString(rm.layoutB) + " } (SpecOverrides, `--layout`)");
  }
  if (Status s = checkOperands(abi, a); !s)
    return s;
  if (Status s = checkEpilogueArgs(abi, epilogue, a); !s)
    return s;
  return checkSharedMemoryFits(abi, dev);
}

// Per operand (A, B, D, and C when beta != 0): leading dimension, pointer,
// batch strides; then C and D. Alignment is not checked: what TMA cannot
// address takes the staging path (Staging.cpp).
Status gemmgen::checkOperands(const KernelABI &abi, const GemmArgs &a) {
  auto invalid = invalidArgument;
  struct Operand {
    const char *name;
    CUdeviceptr ptr;
    StoredShape shape;
    const char *lengthName;
    long long stride;
    const char *strideName;
  } ops[4] = {{"A", a.A, storedShape(a, 'A'), a.layoutA == Layout::Row ? "K" : "M",
               a.strideA, "strideA"},
              {"B", a.B, storedShape(a, 'B'), a.layoutB == Layout::Col ? "K" : "N",
               a.strideB, "strideB"},
              {"D", a.D, storedShape(a, 'D'), a.layoutD == Layout::Row ? "N" : "M",
               a.strideD, "strideD"},
              {"C", a.C, storedShape(a, 'C'), a.layoutD == Layout::Row ? "N" : "M",
               a.strideC, "strideC"}};
  for (const Operand &o : ops) {
    const char *name = o.name;
    const long long ld = o.shape.ld, length = o.shape.length;
    if (a.K == 0 && (name[0] == 'A' || name[0] == 'B'))
      continue; // K = 0: A and B are not read (D = beta·C), as in cuBLAS; null is fine
    if (name[0] == 'C' && a.beta == 0.0f)
      continue; // beta = 0: C is not read; null is fine
    std::string who = std::string("operand ") + name + ": ";
    if (ld < length)
      return invalid(who + "leading dimension " + std::to_string(ld) +
                     " is smaller than its row length " + o.lengthName + "=" +
                     std::to_string(length));
    if (a.batch > 1) {
      const long long size = o.shape.lines * ld; // one entry as stored
      if (o.stride < 0)
        return invalid(who + o.strideName + " " + std::to_string(o.stride) + " is negative");
      if (name[0] == 'D' && o.stride < size)
        return invalid(who + "batch stride " + std::to_string(o.stride) +
                       " is smaller than one entry (" + std::to_string(o.shape.lines) + " x ldd " +
                       std::to_string(ld) + " = " + std::to_string(size) +
                       " elements): the entries' outputs would overlap; pass strideD >= " +
                       std::to_string(size));
    }
    if (o.ptr == 0)
      return invalid(who + "null device pointer");
  }
  // C and D: the same matrix (in place) or apart; a partial overlap would
  // let one tile's store change C that another tile has yet to read.
  if (a.beta != 0.0f) {
    const StoredShape sC = storedShape(a, 'C'), sD = storedShape(a, 'D');
    const bool same = a.C == a.D && sC.ld == sD.ld && (a.batch == 1 || a.strideC == a.strideD);
    auto extent = [&](const StoredShape &s, long long stride) {
      // D's type as the caller stores it (a split-K kernel's own D is f32 in the workspace)
      const ScalarType userOut = abi.splitK > 1 ? abi.splitOut : abi.dType;
      return (CUdeviceptr)(((a.batch - 1) * stride + s.lines * s.ld) * sizeInBytes(userOut));
    };
    if (!same && a.C < a.D + extent(sD, a.strideD) && a.D < a.C + extent(sC, a.strideC))
      return invalid("C and D overlap but are not the same matrix (C " + hexPtr(a.C) + " ldc " +
                     std::to_string(sC.ld) + ", D " + hexPtr(a.D) + " ldd " +
                     std::to_string(sD.ld) + "); pass C = D with ldc = ldd" +
                     (a.batch > 1 ? " and strideC = strideD" : std::string()) +
                     " to compute in place, or separate memory");
  }
  return Status::success();
}

Status gemmgen::checkSharedMemoryFits(const KernelABI &abi, const DeviceInfo &dev) {
  if ((int)abi.sharedMemBytes <= dev.maxSmemOptinBytes)
    return Status::success();
  return Status::error(ErrorCode::InvalidArgument,
                       "kernel '" + abi.kernelName + "' needs " +
                           std::to_string(abi.sharedMemBytes) +
                           " bytes of dynamic shared memory per block; this GPU allows at "
                           "most " + std::to_string(dev.maxSmemOptinBytes) +
                           " (opt-in); use fewer pipeline stages or a smaller tile");
}

std::size_t Kernel::workspaceBytes(const GemmArgs &args) const {
  if (!impl_)
    return 0;
  if (!args.problems.empty())
    return groupedWorkspaceBytes(args, impl_->info.dtype, kernelOutType(*impl_));
  if (narrowRoute(*impl_, args).taken)
    return 0;
  if (impl_->abi.splitK > 1)
    return splitKWorkspaceBytes(impl_->abi, impl_->info.dtype, args);
  const GemmArgs problem = kernelProblem(args, impl_->abi);
  const DType out = kernelOutType(*impl_);
  return (std::size_t)(streamKWorkspaceBytes(*impl_) +
                       stagingWorkspaceBytes(problem, impl_->info.dtype, out,
                                             storesWholeChunks(impl_->abi, problem.N, out),
                                             stagingCopiesStraddling(impl_->abi)));
}

// The tensor maps of one problem as the kernel computes it (its batch entries
// included): A, B, D's first `stored` columns, and C when beta != 0 (else it
// stays zero: the kernel neither prefetches nor loads it).
Status gemmgen::encodeProblemMaps(const DriverApi &drv, const KernelABI &abi, const GemmArgs &a,
                                  DType t, DType out, long long stored, unsigned char *tmA,
                                  unsigned char *tmB, unsigned char *tmD, unsigned char *tmC) {
  for (unsigned char *m : {tmA, tmB, tmD, tmC})
    std::memset(m, 0, 128);
  // K = 0 loads no k-block, but a tensor map needs extents > 0: A's and B's
  // then stand in over one box at D's (aligned) address, never read.
  const bool noK = a.K == 0;
  const TmaBox &bA = abi.boxA, &bB = abi.boxB;
  const StoredShape sA = storedShape(a, 'A'), sB = storedShape(a, 'B'), sD = storedShape(a, 'D');
  // A batched kernel takes 3-D maps (the batch entry outermost); with one
  // entry its stride is never used.
  const int rank = abi.batched ? 3 : 2;
  auto map = [&](void *dst, CUdeviceptr base, StoredShape s, long long stride, const TmaBox &box,
                 const char *operand) {
    MapGeometry g{s.lines, s.length, s.ld, a.batch, a.batch > 1 ? stride : s.lines * s.ld};
    const bool output = operand[0] == 'D' || operand[0] == 'C';
    return encodeTensorMap(drv, dst, base, output ? out : t, rank, g, box, operand);
  };
  // K = 0: one box's extent, at D's address, in every entry.
  const StoredShape standInA{bA.outer, bA.inner, bA.inner}, standInB{bB.outer, bB.inner, bB.inner};
  if (Status s = noK ? map(tmA, a.D, standInA, 0, bA, "A") : map(tmA, a.A, sA, a.strideA, bA, "A");
      !s)
    return s;
  if (Status s = noK ? map(tmB, a.D, standInB, 0, bB, "B") : map(tmB, a.B, sB, a.strideB, bB, "B");
      !s)
    return s;
  // A row-major D's map ends at its first `stored` columns; a column-major
  // D (whole chunks: storesWholeChunks) is mapped as stored.
  const bool rowD = a.layoutD == Layout::Row;
  const StoredShape sC = storedShape(a, 'C');
  const StoredShape mapD = rowD ? StoredShape{a.M, stored, sD.ld} : sD;
  const StoredShape mapC = rowD ? StoredShape{a.M, stored, sC.ld} : sC;
  if (stored > 0)
    if (Status s = map(tmD, a.D, mapD, a.strideD, abi.boxD, "D"); !s)
      return s;
  // C's map has D's box (its chunks land in D's staging tile).
  if (abi.alphaBeta && stored > 0 && a.beta != 0.0f)
    if (Status s = map(tmC, a.C, mapC, a.strideC, abi.boxD, "C"); !s)
      return s;
  return Status::success();
}

Expected<PreparedLaunch> Kernel::prepare(const GemmArgs &args) const {
  if (Status s = check(args); !s)
    return s;
  const KernelABI &abi = impl_->abi;
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt); // cuTensorMapEncodeTiled needs a current context
  if (const NarrowRoute narrow = narrowRoute(*impl_, args); narrow.taken)
    return prepareNarrow(*impl_, narrow);
  if (abi.grouped)
    return prepareGrouped(*impl_, args);
  if (abi.splitK > 1)
    return prepareSplitK(*this, *impl_, args);
  const DType t = impl_->info.dtype, out = kernelOutType(*impl_);
  PreparedLaunch p;
  // What the kernel computes (D stored as the kernel stores it), with
  // unaligned operands replaced by their aligned copies in the workspace.
  GemmArgs a;
  std::string staged;
  const GemmArgs problem = kernelProblem(args, abi);
  const bool wholeChunks = storesWholeChunks(abi, problem.N, out);
  // Stream-K's partial sums and flags lead the workspace; the staging
  // path's copies follow.
  const long long sk = streamKWorkspaceBytes(*impl_);
  if (sk && (!args.workspace || (long long)args.workspaceBytes < sk))
    return invalidArgument("kernel '" + abi.kernelName + "' hands stream-K partial sums over "
                           "through a workspace of at least " + std::to_string(sk) +
                           " bytes (Kernel::workspaceBytes); got " +
                           std::to_string(args.workspace ? args.workspaceBytes : 0) +
                           " (Kernel::launch(args, stream) allocates one when none is given)");
  if (sk && args.workspace % 256 != 0)
    return invalidArgument("the workspace must be 256-byte aligned (cuMemAlloc's are)");
  if (Status s = planStaging(problem, t, out,
                             args.workspace ? args.workspace + (CUdeviceptr)sk : 0,
                             args.workspace ? args.workspaceBytes - (std::size_t)sk : 0, a, p,
                             staged, wholeChunks, stagingCopiesStraddling(abi));
      !s)
    return s;
  if (!staged.empty())
    p.path = "tma+staged(" + staged + ")";
  // The kernel stores whole 16-byte chunks only; the rest is the tail's
  // (or, wholeChunks, lands in the staged copy's padding).
  const long long stored = wholeChunks ? a.N : tmaStoreColumns(a.N, out);
  if (Status s = encodeProblemMaps(drv, abi, a, t, out, stored, p.tmA, p.tmB, p.tmD, p.tmC); !s)
    return s;
  p.alpha = a.alpha, p.beta = a.beta;
  p.scaleA = a.scaleA, p.scaleB = a.scaleB;
  p.bias = args.bias, p.strideBias = args.strideBias, p.scaleD = args.scaleD;
  p.amaxD = args.amaxD;
  p.M = (int)a.M;
  p.N = (int)stored;
  p.K = (int)a.K;
  p.batch = (int)a.batch;
  p.gridX = gridSize(a.M, stored, a.batch);
  p.gridY = 1;
  if (sk) {
    // Aligned shares where K allows (split-K in one launch), else every
    // resident CTA or one per iteration (tile_schedule.cuh, sk_grid_ctas).
    // GEMMGEN_STREAMK_GRID=full turns the alignment off, for comparison.
    const long long kBlocks = (a.K + abi.tileK - 1) / abi.tileK;
    const long long resident = streamKResidentCtas(*impl_);
    const long long slots = (long long)schedule::tile_slots(
                                (int)abi.raster, (int)((a.M + abi.unitRows - 1) / abi.unitRows),
                                (int)((stored + abi.unitCols - 1) / abi.unitCols)) *
                            (abi.batched ? a.batch : 1);
    const char *grid = std::getenv("GEMMGEN_STREAMK_GRID");
    const bool align = !grid || std::string(grid) != "full";
    const long long split = align ? schedule::sk_aligned_split(slots, kBlocks, resident) : 1;
    p.gridX = (unsigned)schedule::sk_grid_for_split(slots, kBlocks, resident, split);
    p.skPartials = args.workspace;
    p.skFlags = args.workspace + (CUdeviceptr)streamKLayout(*impl_).first;
    p.skFlagCount = p.gridX * std::max(1u, abi.consumers);
    p.path += "+stream_k(" + std::to_string(p.gridX) + " CTAs" +
              (split > 1 ? ", K in " + std::to_string(split) + " aligned shares a unit" : "") + ")";
  }
  if (!wholeChunks)
    if (Status s = prepareTailColumns(*impl_, a, p); !s)
      return s;
  return p;
}

Status Kernel::launch(const PreparedLaunch &p, CUstream stream) const {
  if (!impl_)
    return emptyKernel();
  if (Status s = runCopies(*impl_, p.before, stream); !s)
    return s;
  if (Status s = launchGemm(p, stream); !s)
    return s;
  if (Status s = launchSplitReduce(*impl_, p, stream); !s)
    return s;
  return runCopies(*impl_, p.after, stream);
}

Status Kernel::launchGemm(const PreparedLaunch &p, CUstream stream) const {
  const KernelABI &abi = impl_->abi;
  const DriverApi &drv = *impl_->rt->drv;
  if (Status s = impl_->rt->checkUsable(); !s)
    return s;
  if (abi.grouped)
    return launchGrouped(p, stream);
  if (p.gridX == 0 && p.tailColumns == 0)
    return Status::error(ErrorCode::InvalidArgument, "empty launch (grid of 0 CTAs)");
  if (p.gridX == 0) // N < 8: every column is the tail's
    return launchTailColumns(*impl_, p, stream);
  GG_CONTEXT_SCOPE(*impl_->rt);
  GemmLaunchConfig config(abi, p.gridX, p.gridY, stream);
  int M = p.M, N = p.N, K = p.K, batch = p.batch;
  // A batched kernel's ABI has `batch` after K, an alphaBeta one then tmC,
  // alpha and beta; the others end at K.
  // fp8 kernels then take the scales' pointers, an 8-bit D's kernels the
  // output scale and amax, kernels with an epilogue chain then bias,
  // bias_stride, scale_d (the driver reads as many parameters as the
  // kernel has).
  float alpha = p.alpha, beta = p.beta;
  CUdeviceptr scaleA = p.scaleA, scaleB = p.scaleB, bias = p.bias, scaleD = p.scaleD,
              amaxD = p.amaxD, skPartials = p.skPartials, skFlags = p.skFlags;
  long long strideBias = p.strideBias;
  // The parameters in the order KernelABI.h gives, each group only where the
  // kernel has it (sm_100a kernels: no batch, alpha or beta before a chain's).
  void *params[20] = {const_cast<unsigned char *>(p.tmA), const_cast<unsigned char *>(p.tmB),
                      const_cast<unsigned char *>(p.tmD), &M, &N, &K};
  unsigned next = 6;
  if (abi.batched)
    params[next++] = &batch;
  if (abi.alphaBeta)
    params[next++] = const_cast<unsigned char *>(p.tmC), params[next++] = &alpha,
    params[next++] = &beta;
  if (abi.perTensorScales)
    params[next++] = &scaleA, params[next++] = &scaleB;
  if (abi.fp8Output)
    params[next++] = &scaleD, params[next++] = &amaxD;
  if (abi.hasChain())
    params[next++] = &bias, params[next++] = &strideBias, params[next++] = &scaleD;
  if (abi.streamK)
    params[next++] = &skPartials, params[next++] = &skFlags;
  params[next] = nullptr;
  if (abi.alphaBeta && !abi.batched)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + abi.kernelName + "': an alpha/beta ABI without batch is not "
                         "one gemmgen emits");
  if (!abi.batched && batch != 1)
    return Status::error(ErrorCode::InvalidArgument,
                         "prepared launch has batch " + std::to_string(batch) + " but kernel '" +
                             abi.kernelName + "' computes one problem per launch");
  // Stream-K's flags start at 0 (a finishing CTA waits for each later
  // share's to become 1, then sets it back to 0): zeroed before a prepared
  // launch's first run, left zero by every run (PreparedLaunch::skFlagsZero).
  if (abi.streamK) {
    if (!skFlags)
      return Status::error(ErrorCode::InvalidArgument,
                           "kernel '" + abi.kernelName + "': a stream-K launch without its "
                           "workspace (prepare() with GemmArgs::workspace)");
    if (!p.skFlagsZero) {
      if (CUresult z = drv.cuMemsetD32Async(skFlags, 0, p.skFlagCount, stream); z != CUDA_SUCCESS)
        return drv.fail(z, "cuMemsetD32Async(stream-K flags)");
      p.skFlagsZero = true;
    }
  }
  // The kernel raises the amax with red.max from 0 (every |v| is >= 0).
  if (abi.fp8Output && amaxD)
    if (CUresult z = drv.cuMemsetD32Async(amaxD, 0, 1, stream); z != CUDA_SUCCESS)
      return drv.fail(z, "cuMemsetD32Async(amaxD)");
  CUresult r = drv.cuLaunchKernelEx(&config.cfg, impl_->fn, params, nullptr);
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuLaunchKernelEx(" + abi.kernelName + ", grid " +
                           std::to_string(p.gridX) + ", block " +
                           std::to_string(abi.threadsPerBlock) + ", cluster " +
                           std::to_string(abi.clusterM) + ", smem " +
                           std::to_string(abi.sharedMemBytes) + ")");
  if (p.tailColumns)
    return launchTailColumns(*impl_, p, stream);
  return Status::success();
}

Status Kernel::launch(const GemmArgs &args, CUstream stream) const {
  // Operands TMA cannot address go through a workspace: the caller's, or one
  // allocated and freed on the stream around this launch.
  const std::size_t need = args.workspace ? 0 : workspaceBytes(args);
  if (need == 0 || !impl_) {
    Expected<PreparedLaunch> p = prepare(args);
    if (!p)
      return p.status();
    return launch(*p, stream);
  }
  if (Status s = check(args); !s)
    return s;
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt);
  GemmArgs withWorkspace = args;
  CUresult r = drv.cuMemAllocAsync(&withWorkspace.workspace, need, stream);
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuMemAllocAsync(" + std::to_string(need) + " bytes of staging workspace)");
  withWorkspace.workspaceBytes = need;
  Expected<PreparedLaunch> p = prepare(withWorkspace);
  Status launched = p ? launch(*p, stream) : p.status();
  r = drv.cuMemFreeAsync(withWorkspace.workspace, stream);
  if (!launched)
    return launched;
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuMemFreeAsync(staging workspace)");
  return Status::success();
}

std::pair<long long, long long> gemmgen::blockwiseScaleCounts(const GemmArgs &a) {
  const long long kb = (a.K + 127) / 128, nb = (a.N + 127) / 128, L = std::max(1LL, a.batch);
  return {L * kb * a.M, L * nb * kb};
}


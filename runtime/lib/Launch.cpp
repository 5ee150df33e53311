//===- Launch.cpp - Pre-launch checks, grid, cluster launch ----------------===//
//
// Kernel::check runs every pre-launch check with a message that says what is
// wrong and what TMA needs; Kernel::prepare builds the tensor maps and the
// grid; Kernel::launch enqueues with cuLaunchKernelEx and the cluster
// dimension attribute. The persistent grid is the balanced number of the
// schedule's units over the co-resident clusters (cuOccupancyMaxActiveClusters,
// else SMs / cluster size), times the cluster size: gemmgen/device/
// tile_schedule.cuh, the header the kernels walk their tiles with.
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
static unsigned gridForUnits(const Kernel::Impl &k, long long units) {
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

unsigned Kernel::gridSize(long long M, long long N, long long batch) const {
  if (!impl_ || M <= 0 || N <= 0 || batch <= 0)
    return 0;
  const KernelABI &abi = impl_->abi;
  // The schedule's units (loadKernel refused an ABI without them), in every
  // batch entry.
  const long long unitRows = abi.unitRows, unitCols = abi.unitCols;
  return gridForUnits(*impl_, ((M + unitRows - 1) / unitRows) * ((N + unitCols - 1) / unitCols) *
                                  (abi.batched ? batch : 1));
}

static std::string hexPtr(CUdeviceptr p) {
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

GemmArgs gemmgen::rowMajorProblem(const GemmArgs &a) {
  if (a.layoutD == Layout::Row)
    return a;
  // D^T = B^T · A^T: the new A is B^T (N×K), stored as B is, so its layout
  // is the opposite of B's (B stored N×K row-major is B^T row-major); the
  // new B is A^T (K×M), likewise.
  GemmArgs t = a;
  t.A = a.B, t.B = a.A;
  t.M = a.N, t.N = a.M;
  t.lda = a.ldb, t.ldb = a.lda;
  t.strideA = a.strideB, t.strideB = a.strideA;
  t.layoutA = opposite(a.layoutB);
  t.layoutB = opposite(a.layoutA);
  t.layoutD = Layout::Row;
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
  return checkGemmArgs(impl_->abi, impl_->rt->info, a);
}

static Status invalidArgument(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

static Status checkOperands(const KernelABI &abi, const GemmArgs &a);
static Status checkGrouped(const KernelABI &abi, const GemmArgs &a);

Status gemmgen::checkGemmArgs(const KernelABI &abi, const DeviceInfo &dev, const GemmArgs &a) {
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
  const Layout kernelA = toLayout(abi.layoutA), kernelB = toLayout(abi.layoutB);
  const GemmArgs rm = rowMajorProblem(a);
  if (rm.layoutA != kernelA || rm.layoutB != kernelB) {
    std::string stored = std::string("the arguments store A ") + toString(a.layoutA) +
                         "-major and B " + toString(a.layoutB) + "-major";
    if (a.layoutD == Layout::Col)
      stored += " with D col-major (computed as D^T = B^T·A^T: A " +
                std::string(toString(rm.layoutA)) + "-major, B " + toString(rm.layoutB) + "-major)";
    return invalid(stored + ", but kernel '" + abi.kernelName + "' was compiled for A " +
                   toString(kernelA) + "-major and B " + toString(kernelB) +
                   "-major; compile the spec with layout: { a: " + toString(rm.layoutA) +
                   ", b: " + toString(rm.layoutB) + " } (SpecOverrides, `--layout`)");
  }
  if (Status s = checkOperands(abi, a); !s)
    return s;
  return checkSharedMemoryFits(abi, dev);
}

// Per operand (A, B, D, and C when beta != 0): leading dimension, pointer,
// batch strides; then C and D. Alignment is not checked: what TMA cannot
// address takes the staging path (Staging.cpp).
static Status checkOperands(const KernelABI &abi, const GemmArgs &a) {
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

// One problem's units (tiles of the schedule) and slots of the walk
// (tile_slots: Hilbert holes included); none for an empty problem.
struct ProblemWalk {
  long long units = 0;
  long long slots = 0;
};
static ProblemWalk problemWalk(const KernelABI &abi, const GemmArgs &rowMajor) {
  if (rowMajor.M <= 0 || rowMajor.N <= 0)
    return {};
  const int unitsM = (int)((rowMajor.M + abi.unitRows - 1) / abi.unitRows),
            unitsN = (int)((rowMajor.N + abi.unitCols - 1) / abi.unitCols);
  return {(long long)unitsM * unitsN, schedule::tile_slots(int(abi.raster), unitsM, unitsN)};
}

// A grouped launch: a grouped kernel, a table of problems, each checked as
// one aligned problem (the grouped path stages nothing), D's rows whole
// 16-byte chunks (no tail kernel runs per problem), the walk within an int.
static Status checkGrouped(const KernelABI &abi, const GemmArgs &a) {
  auto invalid = invalidArgument;
  const std::string kernel = "kernel '" + abi.kernelName + "'";
  if (!abi.grouped)
    return invalid(kernel + " computes one problem per launch, and GemmArgs::problems holds " +
                   std::to_string(a.problems.size()) +
                   "; compile the spec with scheduler.grouped: true (SpecOverrides::grouped, "
                   "`--groups`), or launch each problem on its own (groupedProblem())");
  if (a.problems.empty())
    return invalid(kernel + " is grouped: give it its problems in GemmArgs::problems (M, N, K "
                            "and operands of each)");
  if (a.problems.size() > (std::size_t)INT_MAX)
    return invalid("at most " + std::to_string(INT_MAX) + " problems per grouped launch");
  if (a.batch != 1)
    return invalid("a grouped launch takes its problems from GemmArgs::problems; batch must be "
                   "1 (got " + std::to_string(a.batch) + "); give a batch as problems of its own");
  if (!abi.alphaBeta && (a.alpha != 1.0f || a.beta != 0.0f))
    return invalid(kernel + " computes D = A·B without alpha, beta and C");
  long long slots = 0;
  for (std::size_t i = 0; i < a.problems.size(); ++i) {
    const GemmArgs p = groupedProblem(a, i);
    const std::string who = "problem " + std::to_string(i) + " (" + std::to_string(p.M) + "x" +
                            std::to_string(p.N) + "x" + std::to_string(p.K) + "): ";
    if (p.M < 0 || p.N < 0 || p.K < 0 || p.M > INT_MAX || p.N > INT_MAX || p.K > INT_MAX)
      return invalid(who + "M, N and K must be between 0 and " + std::to_string(INT_MAX));
    if (p.M == 0 || p.N == 0)
      continue; // empty: nothing read or written
    const GemmArgs rm = rowMajorProblem(p);
    // What TMA cannot address, and D rows that are not whole 16-byte
    // chunks, take the staging path problem by problem (prepareGrouped).
    if (Status s = checkOperands(abi, p); !s)
      return Status::error(s.code(), who + s.message());
    slots += problemWalk(abi, rm).slots;
    if (slots > INT_MAX)
      return invalid("the problems have more than 2^31 tiles in all; split them into several "
                     "grouped launches");
  }
  if (a.workspace && a.workspace % 256 != 0)
    return invalid("workspace " + hexPtr(a.workspace) + " is not 256-byte aligned; the problems' "
                   "tensor maps and staged copies need it (cuMemAlloc's pointers are)");
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

// A grouped launch's workspace: the problems' table, then each problem's
// staged copies (TMA cannot address an operand, or D's rows are not whole
// 16-byte chunks), each 256-byte aligned.
static long long groupedTableBytes(std::size_t problems) {
  return ((long long)(problems * sizeof(schedule::GroupedProblem)) + 255) / 256 * 256;
}
static std::size_t groupedWorkspaceBytes(const GemmArgs &args, DType t, DType out) {
  long long total = groupedTableBytes(args.problems.size());
  for (std::size_t i = 0; i < args.problems.size(); ++i) {
    const GemmArgs rm = rowMajorProblem(groupedProblem(args, i));
    if (rm.M > 0 && rm.N > 0)
      total += stagingWorkspaceBytes(rm, t, out, /*wholeChunks=*/true);
  }
  return (std::size_t)total;
}

// Split-K: how a row-major problem is cut. K in whole k-blocks splits into
// the most equal slices (a divisor of the k-blocks) not above split_k, each
// a batch entry of the f32 kernel into the workspace W (slices x M x ldw);
// any other K is one slice (the reduction still applies alpha, beta·C and
// the cast).
struct SplitPlan {
  long long slices = 1, kSlice = 0, ldw = 0, wBytes = 0;
};
static SplitPlan splitPlan(const KernelABI &abi, const GemmArgs &rm) {
  SplitPlan s;
  const long long tileK = std::max(1u, abi.tileK), kBlocks = (rm.K + tileK - 1) / tileK;
  if (rm.K % tileK == 0)
    for (long long n = std::min<long long>(abi.splitK, kBlocks); n > 1; --n)
      if (kBlocks % n == 0) {
        s.slices = n;
        break;
      }
  s.kSlice = rm.K / s.slices;
  s.ldw = (rm.N + 3) / 4 * 4; // f32 rows of 16-byte multiples
  s.wBytes = (s.slices * rm.M * s.ldw * 4 + 255) / 256 * 256;
  return s;
}
/// The operands the split kernel reads as stored: A and B (its D is W; C
/// is the reduction's), for the staging path.
static GemmArgs splitKernelOperands(const GemmArgs &rm, const SplitPlan &s) {
  GemmArgs ab = rm;
  ab.D = 256, ab.ldd = s.ldw; // W: aligned, in the workspace
  ab.beta = 0.0f, ab.C = 0;
  return ab;
}

std::size_t Kernel::workspaceBytes(const GemmArgs &args) const {
  if (!impl_)
    return 0;
  if (!args.problems.empty())
    return groupedWorkspaceBytes(args, impl_->info.dtype, kernelOutType(*impl_));
  if (impl_->abi.splitK > 1) {
    const GemmArgs rm = rowMajorProblem(args);
    const SplitPlan s = splitPlan(impl_->abi, rm);
    return (std::size_t)(s.wBytes + stagingWorkspaceBytes(splitKernelOperands(rm, s),
                                                          impl_->info.dtype, DType::F32));
  }
  return (std::size_t)stagingWorkspaceBytes(rowMajorProblem(args), impl_->info.dtype,
                                            impl_->info.outType);
}

// The tensor maps of one problem with a row-major D (its batch entries
// included): A, B, D's first `stored` columns, and C when beta != 0 (else it
// stays zero: the kernel neither prefetches nor loads it).
static Status encodeProblemMaps(const DriverApi &drv, const KernelABI &abi, const GemmArgs &a,
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
  if (stored > 0)
    if (Status s = map(tmD, a.D, StoredShape{a.M, stored, sD.ld}, a.strideD, abi.boxD, "D"); !s)
      return s;
  // C's map has D's box (its chunks land in D's staging tile).
  if (abi.alphaBeta && stored > 0 && a.beta != 0.0f)
    if (Status s = map(tmC, a.C, StoredShape{a.M, stored, storedShape(a, 'C').ld}, a.strideC,
                       abi.boxD, "C");
        !s)
      return s;
  return Status::success();
}

// A grouped launch: one table entry per problem (its shape, its slots of the
// walk, its tensor maps), built here and copied to the workspace by launch.
static Expected<PreparedLaunch> prepareGrouped(const Kernel::Impl &k, const GemmArgs &args) {
  const KernelABI &abi = k.abi;
  const DriverApi &drv = *k.rt->drv;
  const DType t = k.info.dtype, out = kernelOutType(k);
  const std::size_t need = groupedWorkspaceBytes(args, t, out);
  if (!args.workspace || args.workspaceBytes < need)
    return invalidArgument("a grouped launch of " + std::to_string(args.problems.size()) +
                           " problems needs a workspace of " + std::to_string(need) +
                           " bytes for their table and staged copies (Kernel::workspaceBytes); got " +
                           std::to_string(args.workspace ? args.workspaceBytes : 0) +
                           " (Kernel::launch(args, stream) allocates one when none is given)");
  PreparedLaunch p;
  std::vector<schedule::GroupedProblem> table(args.problems.size());
  long long slots = 0, units = 0;
  // Staged copies follow the table in the workspace, problem after problem.
  CUdeviceptr stagingAt = args.workspace + (CUdeviceptr)groupedTableBytes(table.size());
  std::string stagedProblems;
  for (std::size_t i = 0; i < table.size(); ++i) {
    schedule::GroupedProblem &e = table[i];
    std::memset(&e, 0, sizeof e);
    const GemmArgs rm = rowMajorProblem(groupedProblem(args, i));
    e.size_m = (int)rm.M, e.size_n = (int)rm.N, e.size_k = (int)rm.K;
    e.slot_begin = e.slot_end = (int)slots;
    if (rm.M == 0 || rm.N == 0)
      continue; // empty: no slots, maps never read
    const long long stagingBytes = stagingWorkspaceBytes(rm, t, out, /*wholeChunks=*/true);
    GemmArgs a;
    std::string staged;
    if (Status s = planStaging(rm, t, out, stagingAt, (std::size_t)stagingBytes, a, p, staged,
                               /*wholeChunks=*/true);
        !s)
      return Status::error(s.code(), "problem " + std::to_string(i) + ": " + s.message());
    stagingAt += (CUdeviceptr)stagingBytes;
    if (!staged.empty())
      stagedProblems += (stagedProblems.empty() ? "" : " ") + std::to_string(i) + ":" + staged;
    if (Status s = encodeProblemMaps(drv, abi, a, t, out, a.N, e.maps[schedule::GROUPED_MAP_A],
                                     e.maps[schedule::GROUPED_MAP_B],
                                     e.maps[schedule::GROUPED_MAP_D],
                                     e.maps[schedule::GROUPED_MAP_C]);
        !s)
      return Status::error(s.code(), "problem " + std::to_string(i) + ": " + s.message());
    const ProblemWalk walk = problemWalk(abi, a);
    slots += walk.slots;
    units += walk.units;
    e.slot_end = (int)slots;
  }
  p.groupedEntries.resize(table.size() * sizeof(schedule::GroupedProblem));
  std::memcpy(p.groupedEntries.data(), table.data(), p.groupedEntries.size());
  p.groupedTable = args.workspace;
  p.problemCount = (int)table.size();
  p.totalSlots = (int)slots;
  p.alpha = args.alpha, p.beta = args.beta;
  p.gridX = gridForUnits(k, units);
  p.path = "tma+grouped(" + std::to_string(table.size()) + " problems" +
           (stagedProblems.empty() ? "" : ", staged " + stagedProblems) + ")";
  return p;
}

// A split-K launch: A and B staged if TMA cannot take them, the kernel's
// slices as batch entries into W (A's and B's entries kSlice apart along
// K), then the reduction into the user's D.
static Expected<PreparedLaunch> prepareSplitK(const Kernel &kernel, const Kernel::Impl &k,
                                              const GemmArgs &args) {
  const KernelABI &abi = k.abi;
  const DriverApi &drv = *k.rt->drv;
  const DType t = k.info.dtype;
  const GemmArgs rm = rowMajorProblem(args);
  if (rm.batch != 1)
    return invalidArgument("kernel '" + abi.kernelName + "' splits K (scheduler.split_k " +
                           std::to_string(abi.splitK) + ") of one problem per launch, and batch "
                           "is " + std::to_string(rm.batch) +
                           "; launch each entry on its own (batchEntry()), or use a spec without "
                           "split_k");
  const SplitPlan s = splitPlan(abi, rm);
  const GemmArgs ab = splitKernelOperands(rm, s);
  const long long staging = stagingWorkspaceBytes(ab, t, DType::F32);
  const long long need = s.wBytes + staging;
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
  // The kernel's problem: `slices` entries of M x N x kSlice into W.
  g.K = s.kSlice;
  g.batch = s.slices;
  g.strideA = s.slices > 1 ? (g.layoutA == Layout::Row ? s.kSlice : s.kSlice * g.lda) : 0;
  g.strideB = s.slices > 1 ? (g.layoutB == Layout::Col ? s.kSlice : s.kSlice * g.ldb) : 0;
  g.D = args.workspace, g.ldd = s.ldw, g.strideD = rm.M * s.ldw;
  g.alpha = 1.0f, g.beta = 0.0f, g.C = 0, g.ldc = 0, g.strideC = 0;
  const long long stored = tmaStoreColumns(g.N, DType::F32);
  if (Status st = encodeProblemMaps(drv, abi, g, t, DType::F32, stored, p.tmA, p.tmB, p.tmD,
                                    p.tmC);
      !st)
    return st;
  p.alpha = 1.0f, p.beta = 0.0f;
  p.M = (int)g.M, p.N = (int)stored, p.K = (int)g.K, p.batch = (int)g.batch;
  p.gridX = kernel.gridSize(g.M, stored, g.batch);
  p.gridY = 1;
  if (Status st = prepareTailColumns(k, g, p); !st)
    return st;
  PreparedLaunch::SplitReduce &r = p.splitReduce;
  r.w = args.workspace, r.slices = s.slices, r.m = rm.M, r.n = rm.N, r.ldw = s.ldw;
  r.strideW = rm.M * s.ldw;
  r.d = rm.D, r.ldd = storedShape(rm, 'D').ld;
  r.alpha = rm.alpha, r.beta = rm.beta;
  if (rm.beta != 0.0f)
    r.c = rm.C, r.ldc = storedShape(rm, 'C').ld;
  p.path = "tma+split_k(" + std::to_string(s.slices) + ")" +
           (staged.empty() ? "" : "+staged(" + staged + ")");
  return p;
}

Expected<PreparedLaunch> Kernel::prepare(const GemmArgs &args) const {
  if (Status s = check(args); !s)
    return s;
  const KernelABI &abi = impl_->abi;
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt); // cuTensorMapEncodeTiled needs a current context
  if (abi.grouped)
    return prepareGrouped(*impl_, args);
  if (abi.splitK > 1)
    return prepareSplitK(*this, *impl_, args);
  const DType t = impl_->info.dtype, out = kernelOutType(*impl_);
  PreparedLaunch p;
  // What the kernel computes (D row-major), with unaligned operands replaced
  // by their aligned copies in the workspace.
  GemmArgs a;
  std::string staged;
  if (Status s = planStaging(rowMajorProblem(args), t, out, args.workspace, args.workspaceBytes,
                             a, p, staged);
      !s)
    return s;
  if (!staged.empty())
    p.path = "tma+staged(" + staged + ")";
  // The kernel stores whole 16-byte chunks only; the rest is the tail's.
  const long long stored = tmaStoreColumns(a.N, out);
  if (Status s = encodeProblemMaps(drv, abi, a, t, out, stored, p.tmA, p.tmB, p.tmD, p.tmC); !s)
    return s;
  p.alpha = a.alpha, p.beta = a.beta;
  p.M = (int)a.M;
  p.N = (int)stored;
  p.K = (int)a.K;
  p.batch = (int)a.batch;
  p.gridX = gridSize(a.M, stored, a.batch);
  p.gridY = 1;
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

// The launch configuration every GEMM kernel takes: its block, shared
// memory, and the cluster attribute when the cluster has more than one CTA.
struct GemmLaunchConfig {
  CUlaunchConfig cfg = {};
  CUlaunchAttribute attr = {};
  GemmLaunchConfig(const KernelABI &abi, unsigned gridX, unsigned gridY, CUstream stream) {
    cfg.gridDimX = gridX;
    cfg.gridDimY = gridY;
    cfg.gridDimZ = 1;
    cfg.blockDimX = abi.threadsPerBlock;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = abi.sharedMemBytes;
    cfg.hStream = stream;
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = abi.clusterM;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = abi.clusterM > 1 ? 1 : 0;
  }
  GemmLaunchConfig(const GemmLaunchConfig &) = delete; // cfg.attrs points into it
};

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
  float alpha = p.alpha, beta = p.beta;
  void *params[] = {const_cast<unsigned char *>(p.tmA), const_cast<unsigned char *>(p.tmB),
                    const_cast<unsigned char *>(p.tmD), &M, &N, &K,
                    abi.batched ? static_cast<void *>(&batch) : nullptr,
                    const_cast<unsigned char *>(p.tmC), &alpha, &beta};
  if (abi.alphaBeta && !abi.batched)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + abi.kernelName + "': an alpha/beta ABI without batch is not "
                         "one gemmgen emits");
  if (!abi.batched && batch != 1)
    return Status::error(ErrorCode::InvalidArgument,
                         "prepared launch has batch " + std::to_string(batch) + " but kernel '" +
                             abi.kernelName + "' computes one problem per launch");
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

Status Kernel::launchGrouped(const PreparedLaunch &p, CUstream stream) const {
  const KernelABI &abi = impl_->abi;
  const DriverApi &drv = *impl_->rt->drv;
  if (p.groupedEntries.size() != (std::size_t)p.problemCount * sizeof(schedule::GroupedProblem) ||
      !p.groupedTable)
    return invalidArgument("kernel '" + abi.kernelName + "' is grouped, and the prepared launch "
                           "has no problems' table (prepare it from GemmArgs::problems)");
  if (p.totalSlots == 0)
    return Status::success(); // every problem empty: nothing to compute
  GG_CONTEXT_SCOPE(*impl_->rt);
  // The table, then the kernel, in stream order (the copy of pageable memory
  // has read it when the call returns).
  CUresult copied = drv.cuMemcpyHtoDAsync(p.groupedTable, p.groupedEntries.data(),
                                          p.groupedEntries.size(), stream);
  if (copied != CUDA_SUCCESS)
    return drv.fail(copied, "cuMemcpyHtoDAsync(the grouped problems' table, " +
                                std::to_string(p.groupedEntries.size()) + " bytes)");
  GemmLaunchConfig config(abi, p.gridX, 1, stream);
  CUdeviceptr table = p.groupedTable;
  int count = p.problemCount, slots = p.totalSlots;
  float alpha = p.alpha, beta = p.beta;
  void *params[] = {&table, &count, &slots, &alpha, &beta};
  CUresult r = drv.cuLaunchKernelEx(&config.cfg, impl_->fn, params, nullptr);
  if (r != CUDA_SUCCESS)
    return drv.fail(r, "cuLaunchKernelEx(" + abi.kernelName + ", grouped, grid " +
                           std::to_string(p.gridX) + ")");
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

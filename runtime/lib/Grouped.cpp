//===- Grouped.cpp - Grouped GEMM: the problems' table and its launch -------===//
//
// GemmArgs::problems computed by a grouped kernel (scheduler.grouped) in one
// persistent launch: the checks per problem, the workspace (the table, then
// each problem's staged copies), the table of GroupedProblem entries
// (gemmgen/device/tile_schedule.cuh: shape, slots of the walk, tensor maps),
// and the launch that copies it to the device before the kernel.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/device/tile_schedule.cuh"

#include <climits>
#include <cstring>

using namespace gemmgen;

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
Status gemmgen::checkGrouped(const KernelABI &abi, const GemmArgs &a) {
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

// A grouped launch's workspace: the problems' table, then each problem's
// staged copies (TMA cannot address an operand, or D's rows are not whole
// 16-byte chunks), each 256-byte aligned.
static long long groupedTableBytes(std::size_t problems) {
  return ((long long)(problems * sizeof(schedule::GroupedProblem)) + 255) / 256 * 256;
}
std::size_t gemmgen::groupedWorkspaceBytes(const GemmArgs &args, DType t, DType out) {
  long long total = groupedTableBytes(args.problems.size());
  for (std::size_t i = 0; i < args.problems.size(); ++i) {
    const GemmArgs rm = rowMajorProblem(groupedProblem(args, i));
    if (rm.M > 0 && rm.N > 0)
      total += stagingWorkspaceBytes(rm, t, out, /*wholeChunks=*/true);
  }
  return (std::size_t)total;
}

// A grouped launch: one table entry per problem (its shape, its slots of the
// walk, its tensor maps), built here and copied to the workspace by launch.
Expected<PreparedLaunch> gemmgen::prepareGrouped(const Kernel::Impl &k, const GemmArgs &args) {
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


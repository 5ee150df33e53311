//===- Internal.h - Runtime-private declarations ----------------*- C++ -*-===//
//
// Shared by the runtime's .cpp files only (not installed): the lazily loaded
// driver entry points and the private state behind the public handles.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_RUNTIME_INTERNAL_H
#define GEMMGEN_RUNTIME_INTERNAL_H

#include "gemmgen/KernelABI.h"
#include "gemmgen/EpilogueData.h"
#include "gemmgen/device/epilogue_ops.cuh"
#include "gemmgen/gemmgen.h"

#include <atomic>
#include <cuda.h>
#include <mutex>
#include <string>

namespace gemmgen {

/// The narrow path's kernel kinds (NarrowPath.cpp's kNarrowKinds: columns up
/// to kSimtNarrowMaxColumns, rows a warp, aligned or realigned rows, the chain).
constexpr unsigned kNarrowKindCount = 34;

// Every driver entry point the runtime uses. Names are the cuda.h API names
// (some are macros for versioned symbols, e.g. cuMemAlloc -> cuMemAlloc_v2;
// the pointer types follow the macro, and cuGetProcAddress resolves the
// plain name for the CUDA version we were built against).
#define GEMMGEN_DRIVER_FUNCTIONS(X)                                                              \
  X(cuInit)                                                                                      \
  X(cuDriverGetVersion)                                                                          \
  X(cuGetErrorName)                                                                              \
  X(cuGetErrorString)                                                                            \
  X(cuDeviceGetCount)                                                                            \
  X(cuDeviceGet)                                                                                 \
  X(cuDeviceGetName)                                                                             \
  X(cuDeviceGetAttribute)                                                                        \
  X(cuDeviceTotalMem)                                                                            \
  X(cuDevicePrimaryCtxRetain)                                                                    \
  X(cuDevicePrimaryCtxRelease)                                                                   \
  X(cuCtxSetCurrent)                                                                             \
  X(cuCtxGetCurrent)                                                                             \
  X(cuCtxSynchronize)                                                                            \
  X(cuModuleLoadData)                                                                            \
  X(cuModuleUnload)                                                                              \
  X(cuModuleGetFunction)                                                                         \
  X(cuFuncSetAttribute)                                                                          \
  X(cuFuncGetAttribute)                                                                          \
  X(cuLaunchKernel)                                                                              \
  X(cuLaunchKernelEx)                                                                            \
  X(cuOccupancyMaxActiveClusters)                                                                \
  X(cuTensorMapEncodeTiled)                                                                      \
  X(cuMemAlloc)                                                                                  \
  X(cuMemFree)                                                                                   \
  X(cuMemAllocAsync)                                                                             \
  X(cuMemFreeAsync)                                                                              \
  X(cuMemcpyHtoD)                                                                                \
  X(cuMemcpyHtoDAsync)                                                                           \
  X(cuMemcpyDtoH)                                                                                \
  X(cuMemsetD8Async)                                                                             \
  X(cuMemsetD16Async)                                                                            \
  X(cuMemsetD32Async)                                                                            \
  X(cuStreamCreate)                                                                              \
  X(cuStreamDestroy)                                                                             \
  X(cuStreamQuery)                                                                               \
  X(cuStreamSynchronize)                                                                         \
  X(cuEventCreate)                                                                               \
  X(cuEventDestroy)                                                                              \
  X(cuEventRecord)                                                                               \
  X(cuEventQuery)                                                                                \
  X(cuEventSynchronize)                                                                          \
  X(cuEventElapsedTime)

/// The driver's entry points, loaded once per process by loadDriver().
struct DriverApi {
#define GEMMGEN_DECLARE_PFN(name) decltype(&::name) name = nullptr;
  GEMMGEN_DRIVER_FUNCTIONS(GEMMGEN_DECLARE_PFN)
#undef GEMMGEN_DECLARE_PFN
  int driverVersion = 0;

  /// "CUDA_ERROR_X: description" for a result.
  std::string errorString(CUresult r) const;
  /// Status::error(CudaError, "<what>: CUDA_ERROR_X: description").
  Status fail(CUresult r, const std::string &what) const;
};

/// The kernel's dynamic shared memory within the device's opt-in limit (the
/// one check, at load and before each launch).
Status checkSharedMemoryFits(const KernelABI &abi, const DeviceInfo &dev);

/// Loads libcuda.so.1 and every entry point (once; thread-safe). On failure
/// returns ErrorCode::NoDriver with "no CUDA driver/GPU found (...)".
/// `libraryOverride` (tests) dlopens another file instead, uncached.
Expected<const DriverApi *> loadDriver();
Expected<const DriverApi *> loadDriverFrom(const std::string &library);

struct Runtime::Impl {
  const DriverApi *drv = nullptr;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  DeviceInfo info;
  std::atomic<bool> timedOut{false};
  ~Impl();
  /// Error for calls after a watchdog timeout.
  Status checkUsable() const;
};

/// Makes a runtime's context current on the calling thread for one API
/// call, so that any thread may use a Runtime, Kernel or Module without
/// calling makeCurrent() first. A different context the caller had current
/// is restored afterwards; with none current, the runtime's stays current.
class ContextScope {
public:
  explicit ContextScope(const Runtime::Impl &rt);
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  CUresult result() const { return result_; }

private:
  const DriverApi *drv_;
  CUcontext restore_ = nullptr;
  CUresult result_ = CUDA_SUCCESS;
};

/// Enters `rt`'s context for the rest of the enclosing function, or returns
/// the driver's error.
#define GG_CONTEXT_SCOPE(rt)                                                                     \
  ContextScope gg_context_scope(rt);                                                             \
  if (gg_context_scope.result() != CUDA_SUCCESS)                                                 \
  return (rt).drv->fail(gg_context_scope.result(), "cuCtxSetCurrent")

/// The error of every call on a default-constructed (empty) handle.
Status emptyHandle(const char *type, const char *howToFill);

struct Module::Impl {
  std::shared_ptr<Runtime::Impl> rt;
  CUmodule module = nullptr;
  ~Impl();
};

struct Kernel::Impl {
  std::shared_ptr<Runtime::Impl> rt;
  std::shared_ptr<Module::Impl> module;
  CUfunction fn = nullptr;
  KernelABI abi;
  KernelInfo info;
  std::string source;
  int maxActiveClusters = 0; ///< co-resident clusters (0: unknown)
  CompileOptions options;    ///< for the helper kernels compiled later
  /// The kernel for D's last N % 8 columns (TailColumns.cpp), built on the
  /// first prepare() that needs it.
  mutable std::mutex tailMutex;
  mutable std::shared_ptr<Module::Impl> tailModule;
  mutable CUfunction tailFunction = nullptr;
  /// The staging path's 2-D copy and its transposing copy (same module as
  /// the tail kernel).
  mutable CUfunction copyFunction = nullptr, transposeFunction = nullptr;
  /// Split-K's reduction of the f32 slices into D (same module).
  mutable CUfunction reduceFunction = nullptr;
  /// The narrow path's kernels (NarrowPath.cpp), gg_narrow_* by [bf16][short
  /// operand packed MN-major][kind: index in kNarrowKinds] (null where none is
  /// built).
  mutable CUfunction narrowFunctions[2][2][kNarrowKindCount] = {};
};

/// A spec's scalar type as the host API names it.
inline DType toDType(ScalarType t) {
  switch (t) {
  case ScalarType::BF16: return DType::BF16;
  case ScalarType::F32: return DType::F32;
  case ScalarType::E4M3: return DType::E4M3;
  case ScalarType::E5M2: return DType::E5M2;
  default: return DType::F16;
  }
}
/// The host API's type as a spec names it (the inverse of toDType).
inline ScalarType toScalarType(DType t) {
  switch (t) {
  case DType::BF16: return ScalarType::BF16;
  case DType::F32: return ScalarType::F32;
  case DType::E4M3: return ScalarType::E4M3;
  case DType::E5M2: return ScalarType::E5M2;
  default: return ScalarType::F16;
  }
}
/// The type the GEMM kernel itself writes: its spec's types.d (f32 for a
/// split-K kernel, whose reduction then writes KernelInfo::outType).
inline DType kernelOutType(const Kernel::Impl &k) { return toDType(k.abi.dType); }
/// D's partial last 16-byte chunk goes through the staging path (the copy's
/// padding takes the whole chunk) instead of the tail kernel: fp8 kernels,
/// kernels that store D column-major, and a problem (`kernelN` columns as
/// the kernel computes it, D in `out`) with no whole chunk at all, whose
/// every column the SIMT tail would compute (28672x4x4096: 0.69 of cuBLAS).
bool storesWholeChunks(const KernelABI &abi, long long kernelN, DType out);
/// kernelProblem for the layout of D the kernel stores (KernelABI::layoutD).
GemmArgs kernelProblem(const GemmArgs &args, const KernelABI &abi);
/// Whether the staging path copies K-major rows that straddle L2 sectors for
/// this kernel: not when its cluster multicasts B (clusterM > 1). On the H200
/// the 2x1 cluster ran 4096x4096x4104 at 0.98 and 8192x8192x8200 at 1.01 of
/// cuBLAS without the copy, 0.81 and 0.93 with it (2026-12-03_kres_cluster_h200).
bool stagingCopiesStraddling(const KernelABI &abi);
/// Whether operand `op` ('A' or 'B') of a row-major problem, stored `stored`
/// and of type `t`, reaches the kernel through the staging path's transposing
/// copy: wgmma reads 8-bit operands K-major only, so the fp8 kernels are
/// compiled K-major and an 8-bit A stored column-major (M-major) or B stored
/// row-major (N-major) is copied K-major. Staging.cpp makes the copy; the
/// launch checks let the layout mismatch through on the same answer.
inline bool copiedTransposed(char op, Layout stored, DType t) {
  const bool mnMajor = op == 'A' ? stored == Layout::Col : op == 'B' && stored == Layout::Row;
  return mnMajor && isFp8(t);
}

//===--- Launch.cpp's pieces shared with Grouped.cpp and SplitK.cpp -------===//

/// Status::error(InvalidArgument, message).
Status invalidArgument(std::string message);
/// "0x..." for a device pointer in messages.
std::string hexPtr(CUdeviceptr p);
/// One problem's per-operand checks (ld, pointers, batch strides, C vs D).
Status checkOperands(const KernelABI &abi, const GemmArgs &a);
/// The tensor maps of one problem with a row-major D (its batch entries
/// included): A, B, D's first `stored` columns, and C when beta != 0.
Status encodeProblemMaps(const DriverApi &drv, const KernelABI &abi, const GemmArgs &a, DType t,
                         DType out, long long stored, unsigned char *tmA, unsigned char *tmB,
                         unsigned char *tmD, unsigned char *tmC);
/// The grid for `units` of the schedule: one cluster per unit, or the
/// balanced persistent grid (tile_schedule.cuh).
unsigned gridForUnits(const Kernel::Impl &k, long long units);
/// Stream-K: CTAs co-resident at one per SM (every CTA of the grid may wait
/// for a later one's partial sum, so all must run at once).
long long streamKResidentCtas(const Kernel::Impl &k);
/// Stream-K's workspace (KernelABI::streamK): a partial-sum slot of
/// tileM × tileN f32 and a flag per consumer for each resident CTA, in front
/// of the staging path's copies. 0 for other kernels.
long long streamKWorkspaceBytes(const Kernel::Impl &k);
/// The launch configuration every GEMM kernel takes: its block, shared
/// memory, and the cluster attribute when the cluster has more than one CTA.
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


//===--- Grouped.cpp ------------------------------------------------------===//

Status checkGrouped(const KernelABI &abi, const GemmArgs &a);
std::size_t groupedWorkspaceBytes(const GemmArgs &args, DType t, DType out);
Expected<PreparedLaunch> prepareGrouped(const Kernel::Impl &k, const GemmArgs &args);

//===--- SplitK.cpp -------------------------------------------------------===//

/// The K slices a split_k kernel runs for K: the most equal split of whole
/// tile-K blocks (a divisor of the k-blocks, at most splitK); 1 when K is
/// not whole k-blocks. KernelChoice.cpp offers only splits this runs as asked.
long long splitKSlices(long long K, long long tileK, long long splitK);
std::size_t splitKWorkspaceBytes(const KernelABI &abi, DType t, const GemmArgs &args);
Expected<PreparedLaunch> prepareSplitK(const Kernel &kernel, const Kernel::Impl &k,
                                       const GemmArgs &args);

/// Split-K's reduction (TailColumns.cpp's module), enqueued.
Status launchSplitReduce(const Kernel::Impl &k, const PreparedLaunch &p, CUstream stream);

/// Builds the helper module (tail columns, 2-D copy) on first use.
Status ensureHelperModule(const Kernel::Impl &k);

/// The staging path (Staging.cpp): bytes of workspace a row-major problem's
/// unaligned operands need (0: TMA takes them all as they are), ...
/// `wholeChunks`: D is also staged when its rows are not whole 16-byte
/// chunks (N % 8, 4 for f32): a grouped kernel has no tail kernel, and its
/// store's last chunk then lands in the copy's padding ...
/// `copyStraddling` false: K-major rows that straddle 32-byte sectors are
/// not copied (stagingCopiesStraddling: kernels that multicast B read them
/// at full speed).
long long stagingWorkspaceBytes(const GemmArgs &rowMajor, DType in, DType out,
                                bool wholeChunks = false, bool copyStraddling = true);
/// ... the arguments the GEMM kernel gets (aligned copies in the workspace)
/// and the copies before and after it (appended to p.before and p.after),
/// `staged` the operands copied ("A,B,D"), ...
Status planStaging(const GemmArgs &rowMajor, DType in, DType out, CUdeviceptr workspace,
                   std::size_t workspaceBytes, GemmArgs &kernelArgs, PreparedLaunch &p,
                   std::string &staged, bool wholeChunks = false,
                   bool copyStraddling = true);
/// How a narrow kernel's warps meet the long operand's rows: one or two rows
/// a warp, or a row shared by 2 or 4 warps (their lanes interleaved along K).
struct NarrowGrid {
  unsigned rowsPerWarp = 1, warpsPerRow = 1;
  unsigned rowsPerBlock() const { return 8 * rowsPerWarp / warpsPerRow; } // 8 warps a block
};
/// What fixes a narrow kernel besides its type and grid.
struct NarrowForm {
  unsigned cols = 1;         ///< the short operand's rows: D's few columns (1-4)
  bool realigned = false;    ///< rows not 16-byte aligned, read in 16-byte words realigned
  bool shortMN = false;      ///< the short operand packed MN-major, over one column
  bool chain = false;        ///< the spec's epilogue chain applied before the store
};
/// Whether a launch of `args` takes kernel k's SIMT path
/// (scheduler.simt_narrow, NarrowPath.cpp): D of at most that many rows or
/// columns, 16-bit operands, the long one K-major (rows of any alignment),
/// the short one K-major or packed MN-major in 16-byte rows; 1-4 columns in
/// 16-byte rows, 1-2 in others.
struct NarrowRoute {
  bool taken = false;
  bool rowsOfB = false; ///< the warps stream B's rows (D has the few rows)
  NarrowForm form;      ///< the kernel's (a spec with an epilogue chain has chained ones only)
  GemmArgs problem;     ///< rowMajorProblem(args)
};
NarrowRoute narrowRoute(const Kernel::Impl &k, const GemmArgs &args);
/// What the path asks of a row-major problem's shape and layouts, pointers
/// and leading dimensions aside: at most `limit` rows or columns of D and the
/// long operand K-major (also what `auto` asks before it sets simt_narrow).
bool narrowShape(long long M, long long N, Layout a, Layout b, long long limit);
/// The launch of a route taken: a narrow kernel over every column (launched
/// as the tail kernel is), no MMA kernel, no workspace.
Expected<PreparedLaunch> prepareNarrow(const Kernel::Impl &k, const NarrowRoute &r);
/// The narrow kernels' CUDA source (part of the helper module: those that
/// apply an epilogue chain, or those that do not) and the name of the one of
/// type t, form f and grid g (`_mn` a packed MN-major short operand, `_r2`
/// two rows a warp, `_k2`/`_k4` a shared row, `_u` rows realigned,
/// `_c` the chain).
const std::string &narrowKernelSource(bool chain);
std::string narrowKernelName(DType t, const NarrowForm &f, NarrowGrid g = {});
/// Every narrow kernel's function from kernel k's helper module `m`.
Status loadNarrowFunctions(const Kernel::Impl &k, const Module &m);
/// Blocks of the narrow kernel of form f and grid g resident per SM (its
/// launch bound); 0 where no such kernel is built.
unsigned narrowCtasPerSm(const NarrowForm &f, NarrowGrid g = {});
/// The grid for `rows` rows of the long operand on `smCount` SMs: two rows a
/// warp where one a warp would take more than one wave of blocks and two fit
/// in one; a row shared by 4 or 2 warps where that many still fit one wave;
/// else one row a warp; only grids whose kernel is built.
NarrowGrid narrowGrid(long long rows, const NarrowForm &f, int smCount);

/// How one staging copy launches gg_copy2d: the widest word (16, 8, 4, 2 or
/// 1 bytes) that every address, pitch and run is a whole number of, the
/// counts in those words, and the form: a block per line where a line holds
/// at least kCopyLinePerBlockWords words, else one word per thread. The
/// grid covers the rows (or words), at most kCopyMaxBlocks blocks.
struct CopyLaunch {
  int wordBytes = 1;
  long long srcLd = 0, dstLd = 0, run = 0, srcStride = 0, dstStride = 0;
  bool linePerBlock = false;
  unsigned blocks = 1;
};
constexpr long long kCopyLinePerBlockWords = 64;
constexpr long long kCopyMaxBlocks = 4096;
constexpr unsigned kCopyThreads = 256; // gg_copy2d's __launch_bounds__
CopyLaunch copyLaunchOf(const PreparedLaunch::Copy &c);
/// The widest power-of-two word, at most 16 bytes, that every address, pitch
/// and length OR-ed into `byteBits` is a whole number of (the staging copy's
/// and the narrow kernels' loads).
unsigned widestWordBytes(unsigned long long byteBits);
/// ... and the copies, enqueued.
Status runCopies(const Kernel::Impl &k, const std::vector<PreparedLaunch::Copy> &copies,
                 CUstream stream);

/// NVRTC for this runtime's GPU + cuModuleLoadData (a cached cubin the
/// driver refuses is compiled afresh).
Expected<std::shared_ptr<Module::Impl>>
compileAndLoadModule(const std::shared_ptr<Runtime::Impl> &rt, const std::string &source,
                     const std::string &name, const CompileOptions &options);

/// How many of D's N columns the kernel's TMA store may write: N rounded
/// down to whole 16-byte chunks (the store writes whole chunks).
long long tmaStoreColumns(long long N, DType t);
/// The helper module's CUDA source: gg_tail_columns, gg_copy2d,
/// gg_splitk_reduce and the narrow kernels (gg_narrow_*) with the chain or
/// without it (a kernel's module has those its spec needs).
const std::string &helperModuleSource(bool chain);
/// Fills the tail part of `p` (columns [tmaStoreColumns(N), N)).
Status prepareTailColumns(const Kernel::Impl &k, const GemmArgs &a, PreparedLaunch &p);
/// Enqueues the tail kernel of a prepared launch.
Status launchTailColumns(const Kernel::Impl &k, const PreparedLaunch &p, CUstream stream);

/// "sm_90a" for an ABI target.
const char *targetArch(Target t);
/// Compute capability a target needs (90, 100).
int targetComputeCapability(Target t);
/// The pre-launch compatibility check (capability vs target).
Status checkTargetRunsOn(Target t, const DeviceInfo &dev);

/// The host API's layout for a spec layout and back.
inline Layout toLayout(MatrixLayout l) { return l == MatrixLayout::Row ? Layout::Row : Layout::Col; }
inline MatrixLayout toMatrixLayout(Layout l) {
  return l == Layout::Row ? MatrixLayout::Row : MatrixLayout::Col;
}

/// Element strides of A[m, k] (at m·am + k·ak) and B[k, n] (at n·bn + k·bk)
/// as stored in the given layouts with leading dimensions lda, ldb: what
/// the SIMT helper kernels (reference GEMM, tail columns) index with.
struct OperandStrides {
  long long am, ak, bn, bk;
};
inline OperandStrides operandStrides(Layout layoutA, long long lda, Layout layoutB,
                                     long long ldb) {
  const bool aRow = layoutA == Layout::Row, bCol = layoutB == Layout::Col;
  return {aRow ? lda : 1, aRow ? 1 : lda, bCol ? ldb : 1, bCol ? 1 : ldb};
}

/// One operand as a tensor map sees it: `lines` rows of `length` elements,
/// `ld` apart, in `batch` entries `batchStride` elements apart.
struct MapGeometry {
  long long lines = 0, length = 0, ld = 0;
  long long batch = 1, batchStride = 0;
};
/// Builds a rank-2 (one entry) or rank-3 (entries outermost) tensor map of a
/// 16-bit operand with the box and swizzle the kernel's ABI asks for.
Status encodeTensorMap(const DriverApi &drv, void *out, CUdeviceptr base, DType t, int rank,
                       const MapGeometry &g, const TmaBox &box, const char *operand);

/// An ELF64 object for CUDA (e_machine 190), as NVRTC's cubins are
/// (KernelCache.cpp: a cache entry's check; CubinUsage.cpp reads no other).
bool looksLikeCubin(const std::vector<char> &c);

/// The epilogue chain on the host (Epilogue.cpp): KernelInfo::epilogue of
/// the ABI's steps; the chain as data for the tail kernel and the reference
/// (pointers and stride from `a`: gemmgen/EpilogueData.h's chainData); the
/// launch checks it adds.
EpilogueInfo epilogueInfo(const std::vector<EpilogueStep> &steps);
/// `info` is the kernel's (KernelInfo::epilogue, built once at load).
Status checkEpilogueArgs(const KernelABI &abi, const EpilogueInfo &info, const GemmArgs &a);
/// The chain as a kernel that computes D^T applies it: a bias along D's rows
/// runs along that kernel's columns, and one along D's columns along its rows.
void transposeChain(epilogue::Chain &c);
/// checkGemmArgs with the kernel's epilogue already derived (Kernel::check,
/// on every launch); the public checkGemmArgs derives it from the ABI.
Status checkGemmArgs(const KernelABI &abi, const EpilogueInfo &epilogue, const DeviceInfo &dev,
                     const GemmArgs &a);

} // namespace gemmgen

#endif // GEMMGEN_RUNTIME_INTERNAL_H

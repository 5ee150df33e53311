//===- gemmgen.h - The gemmgen host API -------------------------*- C++ -*-===//
//
// The one public header of the gemmgen runtime: open the GPU, compile a
// kernel spec (YAML) to a loaded kernel, launch it on caller-owned device
// memory on the caller's stream.
//
//   gemmgen::Expected<gemmgen::Runtime> rt = gemmgen::Runtime::open();
//   if (!rt) { std::cerr << rt.status().message() << "\n"; return 2; }
//   gemmgen::Expected<gemmgen::Kernel> k = rt->compileFile("specs/sm90/x.yaml");
//   if (!k) ...
//   gemmgen::Status s = k->launch({A, B, D, M, N, K}, stream);   // async
//   s = rt->wait(stream, gemmgen::watchdogSeconds(M, N, K));       // watchdog
//
// D[M,N] = A[M,K] · B[N,K]^T: A, B and D row-major 16-bit (f16 or bf16, as
// the spec says), f32 accumulation; leading dimensions in elements.
//
// Nothing here throws: every fallible call returns a Status or an
// Expected<T> whose message says what went wrong and what to do.
//
// The CUDA driver is never linked: libcuda.so.1 is dlopen'ed by
// Runtime::open(), so programs using this header start (and compile kernels
// with compileCudaSource) on machines without a GPU. See docs/RUNTIME.md.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_GEMMGEN_H
#define GEMMGEN_GEMMGEN_H

#include <cuda.h> // types only (CUstream, CUdeviceptr, CUfunction); never linked

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen {

struct KernelABI; // gemmgen/KernelABI.h (compiler library), for loadKernel()

//===----------------------------------------------------------------------===//
// Status and Expected
//===----------------------------------------------------------------------===//

enum class ErrorCode {
  Ok = 0,
  NoDriver,         ///< libcuda.so.1 missing, or no CUDA device
  InvalidArgument,  ///< a pre-launch check failed (sizes, alignment, strides)
  Unsupported,      ///< the kernel's target does not run on this GPU
  SpecError,        ///< the spec has errors (message holds the diagnostics)
  CompileError,     ///< NVRTC failed (message holds the log)
  CudaError,        ///< a driver call failed
  Timeout,          ///< the watchdog fired; the context is unusable now
  Io,               ///< a file could not be read or written
  VerificationFailed
};

/// "invalid argument", "no driver", ... (for logs; the message says more).
const char *toString(ErrorCode code);

/// Success, or an error with a message (lowercase, no trailing period).
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(ErrorCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return ok(); }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// A value or the Status that says why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status error) : status_(std::move(error)) {}
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

//===----------------------------------------------------------------------===//
// NVRTC compilation (no driver needed)
//===----------------------------------------------------------------------===//

/// What ptxas reported for one entry function (-Xptxas=-v).
struct ResourceUsage {
  bool valid = false;      ///< false when the log had no report for it
  std::string function;
  std::string arch;        ///< e.g. sm_90a
  int registers = 0;
  int barriers = 0;
  int stackFrameBytes = 0;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int localBytes = 0;      ///< lmem, when ptxas prints it
  int staticSmemBytes = 0; ///< static shared memory (dynamic is the ABI's)
  std::vector<std::string> warnings; ///< "ptxas warning" lines (e.g. C7511)
  /// Read from the cubin (usageFromCubin: the log had no ptxas report):
  /// registers and stack frame only; spills unknown, so a stack frame counts
  /// as one.
  bool fromCubin = false;
  bool hasSpills() const {
    return spillStoreBytes || spillLoadBytes || localBytes || (fromCubin && stackFrameBytes);
  }
};

/// Parses a ptxas -v report (as found in the NVRTC program log). With a
/// function name, returns that entry's report; else the first entry's.
ResourceUsage parsePtxasReport(const std::string &log, const std::string &function = "");
/// An entry's registers and stack frame from the cubin's .nv.info records,
/// for an NVRTC whose program log lacks the ptxas report (torch's bundled
/// libnvrtc 13.0 on the H200); invalid when the cubin does not parse or has
/// no such entry.
ResourceUsage usageFromCubin(const std::vector<char> &cubin, const std::string &function);

/// How a matrix is stored: row-major (a row's elements are contiguous) or
/// column-major.
enum class Layout { Row, Col };
const char *toString(Layout l);

/// Values that replace the spec's before it is checked (Runtime::compile*):
/// one spec serves every operand layout (`gemmgen run --layout`).
struct SpecOverrides {
  std::optional<Layout> layoutA, layoutB;
  /// scheduler.grouped: a kernel for GemmArgs::problems (grouped GEMM).
  std::optional<bool> grouped;
};

struct CompileOptions {
  /// Adds -DGEMMGEN_DEBUG_HANGS: every barrier wait is bounded and reports
  /// role, barrier, slot and phase before trapping.
  bool debugHangs = false;
  /// Use the disk cache ($GEMMGEN_CACHE_DIR, default ~/.cache/gemmgen).
  bool useCache = true;
  /// Overrides the cache directory (empty: environment/default).
  std::string cacheDir;
  /// Ignore a cached entry: compile, then overwrite it (what the runtime
  /// does when a cached cubin fails to load).
  bool refreshCache = false;
  /// Extra NVRTC options (e.g. "-DGG_BN=128", "-lineinfo").
  std::vector<std::string> extraOptions;
  /// Spec values replaced before the checks (compileFile/compileString).
  SpecOverrides spec;
};


struct CubinResult {
  std::vector<char> cubin;
  std::string log;          ///< NVRTC program log (with the ptxas report)
  std::string arch;         ///< "sm_90a", "sm_100a"
  std::vector<std::string> options; ///< the NVRTC options used
  bool fromCache = false;
  double compileSeconds = 0;
  /// The entry function's report (parsed from `log`).
  ResourceUsage usage;
};

/// Compiles CUDA C++ to a cubin for `arch` ("sm_90a", "sm_100a") with NVRTC.
/// gemmgen's device headers (gemmgen/device/*.cuh) are embedded in the
/// library and given to NVRTC. `entry` names the function whose ptxas
/// report goes into CubinResult::usage. Needs no GPU and no driver.
Expected<CubinResult> compileCudaSource(const std::string &source, const std::string &name,
                                        const std::string &arch, const std::string &entry,
                                        const CompileOptions &options = CompileOptions());

/// "13.0" (the NVRTC library in use).
std::string nvrtcVersionString();

/// gemmgen's own version ("0.1.0"): the project's, set by the build.
const char *versionString();

/// The device headers embedded in this library: include name -> text.
const std::vector<std::pair<std::string, std::string>> &embeddedDeviceHeaders();

//===----------------------------------------------------------------------===//
// The kernel cache (used by compileCudaSource; exposed for tests and tools)
//===----------------------------------------------------------------------===//

/// A directory of cubins keyed by a hash of everything that affects them.
/// Entries carry a header (magic, lengths, checksum) and nothing in them is
/// trusted: a truncated, corrupt or crafted file, or one that is not a
/// regular file (FIFO, directory, symlink, device), reads as a miss and is
/// replaced by the rebuild; writes go to a temporary file renamed into
/// place, so concurrent processes never see partial files.
class KernelCache {
public:
  /// `dir` empty: $GEMMGEN_CACHE_DIR, else $XDG_CACHE_HOME/gemmgen, else
  /// ~/.cache/gemmgen, else (no $HOME) /tmp/gemmgen-cache-<uid>.
  explicit KernelCache(std::string dir = "");
  const std::string &directory() const { return dir_; }
  static std::string defaultDirectory();

  /// Hex SHA-256 of the parts (each length-prefixed, so ("ab","c") differs
  /// from ("a","bc")).
  static std::string key(const std::vector<std::string> &parts);
  std::string pathFor(const std::string &key) const;

  /// The stored cubin and log, or nullopt (missing, unreadable, not a
  /// regular file, over 256 MiB, truncated, corrupt, not an ELF cubin).
  /// Never blocks and never fails otherwise.
  std::optional<std::pair<std::vector<char>, std::string>> load(const std::string &key) const;
  /// Atomically stores an entry (temp file + rename), replacing whatever is
  /// at the entry's path (a directory too). Creates the directory.
  Status store(const std::string &key, const std::vector<char> &cubin,
               const std::string &log) const;

private:
  std::string dir_;
};

//===----------------------------------------------------------------------===//
// Devices, kernels, launches
//===----------------------------------------------------------------------===//

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int smClockKHz = 0;        ///< CU_DEVICE_ATTRIBUTE_CLOCK_RATE (peak)
  int memClockKHz = 0;
  int l2Bytes = 0;
  int maxSmemOptinBytes = 0; ///< dynamic smem per block after opt-in
  std::size_t totalMemBytes = 0;
  int driverVersion = 0;     ///< e.g. 13000
  std::string archName() const; ///< "sm_90"
};

/// Element types: the 16-bit operand types, f32 (an output type only), and
/// the 8-bit float operand types (fp8 kernels; scaled per tensor).
enum class DType { F16, BF16, F32, E4M3, E5M2 };
const char *toString(DType t);
inline bool isFp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }
inline std::size_t sizeOf(DType t) { return t == DType::F32 ? 4 : isFp8(t) ? 1 : 2; }

/// Arguments of D[M,N] = A[M,K] · B[K,N] (D row-major). A is stored
/// row-major (M×K, K contiguous: the default) or column-major (M contiguous);
/// B column-major (stored N×K, K contiguous: the default) or row-major (K×N,
/// N contiguous). A kernel is compiled for one pair of layouts (the spec's
/// `layout`); the check refuses arguments that name another. Leading
/// dimensions are in elements, the distance between consecutive rows (row-
/// major) or columns (column-major); 0 means packed (see storedShape).
/// One problem of a grouped GEMM (GemmArgs::problems): its own shape and
/// operands, stored in the layouts of the GemmArgs that holds it; a leading
/// dimension of 0 means packed. M = 0 or N = 0 is an empty problem (nothing
/// is read or written); K = 0 gives D = beta·C.
struct GemmProblem {
  long long M = 0, N = 0, K = 0;
  CUdeviceptr A = 0, B = 0, D = 0, C = 0;
  long long lda = 0, ldb = 0, ldd = 0, ldc = 0;
};

struct GemmArgs {
  CUdeviceptr A = 0, B = 0, D = 0;
  long long M = 0, N = 0, K = 0;
  long long lda = 0, ldb = 0, ldd = 0;
  Layout layoutA = Layout::Row, layoutB = Layout::Col;
  /// D row-major (M lines of N) or column-major (N lines of M). A D stored
  /// the other way from the kernel's (KernelInfo::layoutD, row-major unless
  /// the spec says layout.d: col) is computed as D^T = B^T · A^T
  /// (kernelProblem), by a kernel compiled for the layouts that problem has.
  Layout layoutD = Layout::Row;
  /// Strided batched GEMM: `batch` problems of this shape in one launch.
  /// Entry l's operands start l·strideX elements after entry 0's (A, B, D
  /// as stored). A stride of 0 for A or B gives every entry the same matrix
  /// (broadcast); D's stride must keep the entries apart (at least its
  /// stored size, lines·ld). With batch = 1 the strides are not used.
  long long batch = 1;
  long long strideA = 0, strideB = 0, strideD = 0;
  /// D = alpha·A·B + beta·C (kernels whose KernelInfo says alphaBeta: every
  /// sm_90a kernel). C is stored like D (layoutD), with its own leading
  /// dimension ldc (0 = packed) and batch stride strideC; C = D (same
  /// pointer, ldc and stride) computes in place. beta = 0 never reads C
  /// (C may then be null), as in cuBLAS.
  float alpha = 1.0f, beta = 0.0f;
  CUdeviceptr C = 0;
  long long ldc = 0, strideC = 0;
  /// Per-tensor scales of fp8 operands (KernelInfo::perTensorScales): device
  /// f32 scalars, null = 1, read by the kernel once per CTA; it computes
  /// D = (alpha·scaleA·scaleB)·A·B + beta·C. Kernels without them refuse
  /// non-null scales. Blockwise kernels (KernelInfo::blockwiseScales) take
  /// arrays here instead, never null: A's f32 scales [entry][kb][m] (one per
  /// row per 128-wide K block, rows contiguous: ceil(K/128)·M per entry), B's
  /// [entry][n/128][kb] (one per 128×128 block: ceil(N/128)·ceil(K/128) per
  /// entry); blockwiseScaleCounts() gives the lengths.
  CUdeviceptr scaleA = 0, scaleB = 0;
  /// Device memory for operands TMA cannot address as they are (pointers or
  /// line strides that are not 16-byte multiples; one problem, batch 1):
  /// they are copied through it (Kernel::workspaceBytes says how much).
  /// Kernel::launch(args, stream) allocates it on the stream when null.
  CUdeviceptr workspace = 0;
  std::size_t workspaceBytes = 0;
  /// Grouped GEMM (kernels whose KernelInfo says grouped): independent
  /// problems computed in one launch, each with its own M, N, K and
  /// operands; layouts, alpha and beta are these GemmArgs'. M, N, K, A, B,
  /// C, D, their leading dimensions and the batch fields are then unused.
  /// The problems' table goes to the workspace (Kernel::workspaceBytes).
  std::vector<GemmProblem> problems{};
  /// Kernels with an epilogue chain (KernelInfo::epilogue): the bias step's
  /// vector (KernelInfo::epilogue.biasType, one value per row of D with
  /// `per: row`, per column otherwise; entry l's at bias + l·strideBias
  /// elements, 0 = every entry the same) and the scale step's device f32
  /// scalar (null = 1). A `residual` step adds beta·C at its place in the
  /// chain (C as above; beta = 0 leaves it out).
  ///
  /// Kernels with an 8-bit D (KernelInfo::fp8Output) take scaleD as D's
  /// output scale instead (their chains have no scale step): D =
  /// fp8(scaleD · v), v the value after the chain, converted with round to
  /// nearest even and saturated to the type's largest finite value (448 for
  /// e4m3, 57344 for e5m2); null = 1. amaxD (a device f32, 4-byte aligned)
  /// is then set to max |v| over D — the amax before the scale, from which
  /// the next scale is fp8_max / amax — and left alone when null. Other
  /// kernels refuse a non-null amaxD.
  CUdeviceptr bias = 0;
  long long strideBias = 0;
  CUdeviceptr scaleD = 0;
  CUdeviceptr amaxD = 0;
};

/// Elements of a blockwise kernel's scale arrays for `args` (every batch
/// entry): A's ceil(K/128)·M, B's ceil(N/128)·ceil(K/128), times the batch.
std::pair<long long, long long> blockwiseScaleCounts(const GemmArgs &args);

/// Problem `i` of a grouped GemmArgs as GemmArgs of its own (one problem;
/// layouts, alpha and beta kept): what a reference or a loop computes.
GemmArgs groupedProblem(const GemmArgs &args, std::size_t i);

/// Batch entry `l` of `args` as a problem of its own (batch 1, pointers
/// advanced by l strides: A and B of `t`'s elements, D and C of `out`'s):
/// what a reference or a per-entry loop computes.
GemmArgs batchEntry(const GemmArgs &args, long long l, DType t, DType out);
inline GemmArgs batchEntry(const GemmArgs &args, long long l, DType t) {
  return batchEntry(args, l, t, t);
}

/// The problem a kernel that stores D `kernelD` computes for `args`: `args`
/// itself when D is stored that way; otherwise D^T[N,M] = B^T · A^T with A
/// and B swapped (B^T's layout is the opposite of B's, A^T's of A's), M and
/// N swapped, D stored `kernelD`. Kernel::check/prepare do this themselves.
GemmArgs kernelProblem(const GemmArgs &args, Layout kernelD);
/// kernelProblem for the usual kernel, which stores D row-major.
GemmArgs rowMajorProblem(const GemmArgs &args);

/// One operand as it sits in memory: `lines` runs of `length` contiguous
/// elements, `ld` elements apart (ld = length when the argument was 0).
struct StoredShape {
  long long lines = 0, length = 0, ld = 0;
};
/// The stored shape of operand 'A', 'B' or 'D' of `args` (A row-major: M
/// lines of K; A column-major: K lines of M; B column-major: N lines of K;
/// B row-major: K lines of N; D (and C, stored like D) row-major: M lines of
/// N, column-major: N lines of M).
StoredShape storedShape(const GemmArgs &args, char operand);


/// A kernel's epilogue.chain (docs/SPEC.md): what it applies to alpha·acc
/// (+ beta·C) per element of D before the store, in order.
struct EpilogueInfo {
  std::string chain = "none";   ///< "bias(column, bf16) -> gelu_tanh"
  /// The steps as gemmgen/device/epilogue_ops.cuh's Op codes, with the clamp
  /// steps' bounds (lo, hi; unused by the others).
  std::vector<int> ops;
  std::vector<float> lo, hi;
  bool bias = false;            ///< reads GemmArgs::bias
  bool biasPerRow = false;      ///< one value per row of D (else per column)
  DType biasType = DType::F32;
  bool scale = false;           ///< reads GemmArgs::scaleD
  bool residual = false;        ///< adds beta·C at its step, not before the chain
  bool empty() const { return ops.empty(); }
};

/// What the loaded kernel is and needs.
struct KernelInfo {
  std::string name;
  std::string target;            ///< "sm_90a"
  DType dtype = DType::F16;      ///< A element type (and B's)
  DType dtypeB = DType::F16;     ///< B element type: dtype, or the other fp8 type
  DType outType = DType::F16;    ///< D and C element type (dtype, F32, or fp8 for fp8 operands)
  unsigned threads = 0, smemBytes = 0, clusterM = 1, clusterN = 1;
  unsigned tileM = 0, tileN = 0, tileK = 0;
  bool persistent = true;
  unsigned kAlignment = 8, ldAlignment = 8;
  /// The operand layouts the kernel was compiled for (GemmArgs must match).
  Layout layoutA = Layout::Row, layoutB = Layout::Col;
  /// How the kernel stores D (layout.d): a GemmArgs whose D is stored the
  /// other way is computed as D^T = B^T · A^T (kernelProblem).
  Layout layoutD = Layout::Row;
  /// Takes GemmArgs::batch > 1 in one launch (every sm_90a kernel).
  bool batched = false;
  /// Computes alpha·A·B + beta·C (every sm_90a kernel); others refuse
  /// alpha ≠ 1 and beta ≠ 0.
  bool alphaBeta = false;
  /// fp8 operands: takes GemmArgs::scaleA / scaleB. Its D (16-bit) is never
  /// stored by the tail kernel: a partial last chunk takes the staging path.
  bool perTensorScales = false;
  /// fp8 with types.scaling: blockwise: GemmArgs::scaleA/scaleB are the
  /// per-block arrays (see GemmArgs), each k-block promoted in f32.
  bool blockwiseScales = false;
  /// An 8-bit D (outType E4M3 or E5M2): D = fp8(scaleD · v), with v the
  /// value after the chain; GemmArgs::amaxD receives max |v| over D.
  bool fp8Output = false;
  /// scheduler.kind: stream_k: every resident CTA takes an equal share of
  /// all tiles' k-blocks, handing partial sums over through the workspace
  /// (Kernel::workspaceBytes counts it; launch(args, stream) allocates it).
  bool streamK = false;
  /// Computes GemmArgs::problems (a grouped GEMM) in one launch, and only
  /// that (compiled with scheduler.grouped / SpecOverrides::grouped).
  bool grouped = false;
  /// scheduler.split_k: K cut into up to this many slices, summed after the
  /// GEMM (1: none). outType is then the reduction's output; the kernel
  /// itself writes f32 partial sums into the workspace.
  unsigned splitK = 1;
  /// epilogue.chain (empty: D = alpha·A·B + beta·C as it is).
  EpilogueInfo epilogue;
  ResourceUsage usage;
  bool fromCache = false;
  double compileSeconds = 0;
};

/// The pre-launch checks of Kernel::check, for a kernel's ABI on a device
/// (usable without a GPU: tests fill DeviceInfo by hand). In order: target vs
/// compute capability, M/N positive and K ≥ 0, batch and the alpha/beta
/// ABI, layouts, then per operand (A, B, D, and C when beta ≠ 0) leading
/// dimension ≥ row length, pointer non-null (K = 0: A and B are not read
/// and may be null), and for a strided batch 16-byte aligned pointers, line
/// strides and batch strides (one problem stages what TMA cannot address:
/// Kernel::workspaceBytes); C and D the same or apart; shared memory vs the
/// opt-in limit.
Status checkGemmArgs(const KernelABI &abi, const DeviceInfo &device, const GemmArgs &args);

/// What a kernel's epilogue chain reads and does (KernelInfo::epilogue),
/// from its ABI alone: no GPU needed.
EpilogueInfo epilogueInfo(const KernelABI &abi);

/// Tensor maps and grid for one set of arguments (see Kernel::prepare).
struct PreparedLaunch {
  alignas(64) unsigned char tmA[128], tmB[128], tmD[128], tmC[128];
  float alpha = 1.0f, beta = 0.0f;
  CUdeviceptr scaleA = 0, scaleB = 0; ///< fp8 kernels' per-tensor scales (null = 1)
  int M = 0, N = 0, K = 0;  ///< the GEMM kernel's problem (N: columns it stores)
  int batch = 1;            ///< strided batch entries (batched kernels' `batch`)
  unsigned gridX = 0, gridY = 1;
  /// D's last columns, when the problem's N is not a multiple of 8: a TMA
  /// store writes whole 16-byte chunks and would write past column N−1 into
  /// D's padding, so the GEMM kernel stores columns [0, N) and a small SIMT
  /// kernel columns [N, N + tailColumns) after it, on the same stream.
  unsigned tailColumns = 0;
  CUfunction tailFunction = nullptr;
  CUdeviceptr A = 0, B = 0, D = 0;
  long long lda = 0, ldb = 0, ldd = 0;
  long long strideA = 0, strideB = 0, strideD = 0;
  CUdeviceptr C = 0;
  long long ldc = 0, strideC = 0;
  /// The epilogue chain's bias vector (stride between batch entries) and
  /// scale scalar (GemmArgs::bias, strideBias, scaleD).
  CUdeviceptr bias = 0, scaleD = 0;
  long long strideBias = 0;
  /// An 8-bit D's amax (GemmArgs::amaxD): zeroed on the stream before the
  /// kernel, which raises it.
  CUdeviceptr amaxD = 0;
  /// Stream-K: the partial-sum slots and the flags (skFlagCount ints) in the
  /// workspace. The first launch of this PreparedLaunch zeroes the flags on
  /// the stream; every launch leaves them zero (the CTA that takes a flag
  /// resets it), so its later launches, and those of copies made after the
  /// first, skip that (a memset on the stream: 1-2 µs). Between them nothing
  /// else may write the workspace, another kernel's launch included (give
  /// each prepared launch its own, or prepare again). launch(GemmArgs)
  /// prepares, so zeroes, each time.
  CUdeviceptr skPartials = 0, skFlags = 0;
  unsigned skFlagCount = 0;
  mutable bool skFlagsZero = false; ///< set by the first launch: the flags are 0
  Layout layoutA = Layout::Row, layoutB = Layout::Col;
  int tailM = 0, tailK = 0, tailN0 = 0;
  /// Rows each block of the tail kernel or the narrow path's kernel takes
  /// (8 warps: 8 at one row a warp, 16 at two, 4 or 2 where warps share a
  /// row): its grid is ⌈tailM / this⌉ blocks.
  unsigned tailRowsPerBlock = 8;
  /// Elements between D's (C's) columns for the tail kernel: 1, or ldd (ldc)
  /// where the narrow path has it write D^T (rows of B as its rows).
  long long tailDColStride = 1, tailCColStride = 1;
  /// The narrow path's kernel writes D^T (its rows are D's columns): the
  /// epilogue chain's row and column bias trade places for it.
  bool tailWritesDTransposed = false;
  /// The type the tail kernel writes: the GEMM kernel's D (f32 for a split
  /// kernel's slices), or D's own on the narrow path.
  DType tailOut = DType::F16;
  /// The staging path: copies into the workspace before the GEMM (A, B, C;
  /// D's copy holding C when in place) and out of it after (D).
  struct Copy {
    CUdeviceptr src = 0, dst = 0;
    long long lines = 0, length = 0, srcLd = 0, dstLd = 0;
    unsigned elemBytes = 2;
    /// Batch entries copied, srcStride / dstStride elements apart.
    long long batch = 1, srcStride = 0, dstStride = 0;
    /// The copy is the source transposed: `lines` x `length` as stored,
    /// written `length` x `lines` (an 8-bit operand stored M- or N-major,
    /// copied K-major for wgmma, which reads 8-bit types K-major only).
    bool transpose = false;
  };
  std::vector<Copy> before, after;
  /// How the operands reach the kernel: "tma", or "tma+staged(A,D)" naming
  /// the operands copied through the workspace ("A^T": copied transposed, an
  /// 8-bit operand stored M- or N-major); "tma+grouped(N problems)".
  std::string path = "tma";
  /// A grouped launch: the problems' table (tile_schedule.cuh's
  /// GroupedProblem entries), copied to `groupedTable` in the workspace on
  /// the stream before the kernel; `totalSlots` is the walk's length.
  std::vector<unsigned char> groupedEntries;
  CUdeviceptr groupedTable = 0;
  int problemCount = 0, totalSlots = 0;
  /// Split-K: the kernel wrote `slices` f32 partial sums of M×N (ldw apart
  /// in a slice, strideW between slices) at `w`; the reduction writes
  /// D = alpha·sum + beta·C in the output type after it. 0 slices: none.
  struct SplitReduce {
    CUdeviceptr w = 0;
    long long slices = 0, m = 0, n = 0, ldw = 0, strideW = 0;
    CUdeviceptr d = 0, c = 0;
    long long ldd = 0, ldc = 0;
    bool dColMajor = false; ///< D and C stored N lines of M (W stays row-major)
    float alpha = 1.0f, beta = 0.0f;
  } splitReduce;
};

class Runtime;

/// A compiled and loaded GEMM kernel. Cheap to copy (shared state); valid
/// while its Runtime is alive. Default-constructed it is empty: every call
/// returns an error that says to assign it a compiled kernel first.
/// Threads: any thread may use it (no makeCurrent() needed), and several
/// threads may launch one Kernel at once, each on its own stream.
class Kernel {
public:
  Kernel() = default;
  bool empty() const { return !impl_; }

  const KernelInfo &info() const;
  const std::string &source() const;
  CUfunction function() const;

  /// All pre-launch checks; Status::success() when `args` can be launched.
  Status check(const GemmArgs &args) const;
  /// Checks, then builds the three tensor maps and the grid.
  Expected<PreparedLaunch> prepare(const GemmArgs &args) const;
  /// Enqueues the kernel on `stream` (asynchronous; use Runtime::wait).
  Status launch(const PreparedLaunch &prepared, CUstream stream) const;
  Status launch(const GemmArgs &args, CUstream stream) const;

  /// Workspace bytes a launch of `args` needs: 0 when TMA takes every
  /// operand as it is; else the aligned copies of the others.
  std::size_t workspaceBytes(const GemmArgs &args) const;

  /// Grid for an M×N problem of `batch` entries (persistent: the balanced
  /// number of clusters for all entries' tiles, times the cluster size).
  unsigned gridSize(long long M, long long N, long long batch = 1) const;

  struct Impl;
  explicit Kernel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
  /// The GEMM kernel (and the tail columns) of a prepared launch.
  Status launchGemm(const PreparedLaunch &prepared, CUstream stream) const;
  /// A grouped kernel's launch: the problems' table, then the kernel.
  Status launchGrouped(const PreparedLaunch &prepared, CUstream stream) const;
  std::shared_ptr<Impl> impl_;
};

/// A plain NVRTC-compiled module (helper kernels: RNG, reference, compare).
class Module {
public:
  Module() = default;
  bool empty() const { return !impl_; }
  Expected<CUfunction> function(const std::string &name) const;
  struct Impl;
  explicit Module(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
  std::shared_ptr<Impl> impl_;
};

/// The CUDA driver, one device and its primary context. Default-constructed
/// it is empty: every call returns an error that says to assign it
/// Runtime::open() first. Threads: every call makes the runtime's context
/// current on the calling thread for its duration (a different context
/// the caller had current is restored), so no thread needs makeCurrent();
/// a Runtime may be used from several threads at once (docs/RUNTIME.md).
class Runtime {
public:
  Runtime() = default;
  bool empty() const { return !impl_; }

  /// Loads libcuda.so.1, initialises it, retains device `ordinal`'s primary
  /// context and makes it current. Without a driver or GPU returns
  /// ErrorCode::NoDriver: "no CUDA driver/GPU found (libcuda.so.1 could not
  /// be loaded)" or "no CUDA driver/GPU found (cuInit: ...)".
  static Expected<Runtime> open(int ordinal = 0);

  const DeviceInfo &device() const;
  /// Makes this runtime's context current on the calling thread (for the
  /// caller's own driver or CUDA runtime calls; gemmgen's calls do not need it).
  Status makeCurrent() const;

  /// Spec (YAML) -> checks -> IR -> CUDA C++ -> NVRTC -> loaded kernel.
  Expected<Kernel> compileFile(const std::string &specPath,
                               const CompileOptions &options = CompileOptions()) const;
  Expected<Kernel> compileString(const std::string &yaml, const std::string &name,
                                 const CompileOptions &options = CompileOptions()) const;
  /// Already generated (or hand-written) source with its launch contract.
  /// Checks that the ABI's target runs on this GPU before loading.
  Expected<Kernel> loadKernel(const std::string &source, const KernelABI &abi,
                              const CompileOptions &options = CompileOptions()) const;
  /// A helper module compiled for this GPU's architecture.
  Expected<Module> loadModule(const std::string &source, const std::string &name,
                              const CompileOptions &options = CompileOptions()) const;

  /// Enqueues `f` with plain launch parameters.
  Status launchRaw(CUfunction f, unsigned gridX, unsigned gridY, unsigned blockX,
                   unsigned smemBytes, CUstream stream, void **params) const;

  /// Device memory helpers (synchronous unless named Async).
  Expected<CUdeviceptr> alloc(std::size_t bytes) const;
  Status free(CUdeviceptr p) const;
  Status copyToDevice(CUdeviceptr dst, const void *src, std::size_t bytes) const;
  Status copyToHost(void *dst, CUdeviceptr src, std::size_t bytes) const;
  /// Sets `count` 16-bit elements at `dst` to `value` (asynchronous on `s`):
  /// e.g. poison a buffer with GemmVerifier::kPoison (NaN in f16 and bf16)
  /// before a launch, then check every element outside the result kept it.
  Status fill16Async(CUdeviceptr dst, std::uint16_t value, std::size_t count, CUstream s) const;
  /// Sets `count` bytes at `dst` to `value` (any alignment): an 8-bit D's
  /// poison (GemmVerifier::kPoisonFp8).
  Status fill8Async(CUdeviceptr dst, std::uint8_t value, std::size_t count, CUstream s) const;
  Expected<CUstream> createStream() const;
  Status destroyStream(CUstream s) const;

  /// The watchdog: waits for `stream` by polling cuStreamQuery. After
  /// `timeoutSeconds` returns ErrorCode::Timeout ("kernel did not finish
  /// within N s: likely a barrier deadlock; rerun with --debug-hangs"). The
  /// hung kernel keeps running: the context is unusable afterwards (every
  /// later call fails), and a process should report and exit (std::_Exit,
  /// so that driver teardown does not wait for the kernel).
  Status wait(CUstream stream, double timeoutSeconds) const;
  bool timedOut() const;

  /// CUDA events for timing.
  class Timer {
  public:
    Status start(CUstream s);
    Status stop(CUstream s);
    /// Milliseconds between start and stop (waits for stop).
    Expected<float> elapsedMs() const;
    ~Timer();
    Timer(const Timer &) = delete;
    Timer &operator=(const Timer &) = delete;
    Timer(Timer &&o) noexcept;
    Timer &operator=(Timer &&) = delete;
    struct Impl;
    explicit Timer(Impl *impl) : impl_(impl) {}

  private:
    Impl *impl_ = nullptr;
  };
  Expected<Timer> createTimer() const;

  /// Driver error code -> "CUDA_ERROR_X: description".
  std::string errorString(CUresult r) const;

  struct Impl;
  explicit Runtime(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl> &impl() const { return impl_; }

private:
  std::shared_ptr<Impl> impl_;
};

//===----------------------------------------------------------------------===//
// Choosing a kernel for a shape (no GPU needed)
//===----------------------------------------------------------------------===//

/// A kernel chosen for an M×N×K GEMM by the cost model (docs/RUNTIME.md,
/// "Choosing a kernel for a shape"): one of the tile families, with K cut
/// into splitK slices or not, as a complete sm_90a spec.
struct KernelChoice {
  /// 16-bit: "large" (128x256: the fixed default), "wide" (128x192), "medium"
  /// (128x128), "small" (64x128), "fit112"... (wave-filling widths),
  /// "large_c2" (B multicast), "decode" / "decode_d16" / "decode32" /
  /// "decode64" (64x16 with 8 stages and two CTAs per SM or 16 stages, 64x32,
  /// 64x64: tiles storing D column-major for M <= 64, a row-major D computed
  /// as D^T), "pingpong" (spec 20's 128x128 tile,
  /// its consumers taking turns: K <= 1024 on >= 1024 tiles), "pingpong152"
  /// (128x152 on ping-pong consumers where 152-column tiles fill the
  /// rounds better than 256x160). fp8
  /// per-tensor: "large" (spec 13's tile, the default), "wide", "medium";
  /// fp8 blockwise: "medium" (spec 15's, the default), "wide" (spec 19's),
  /// "narrow" (128x64).
  std::string family;
  int splitK = 1;          ///< scheduler.split_k of the spec (1: none)
  /// The split done in one launch: the spec is the family's stream-K kernel,
  /// whose launch cuts each tile's K into splitK aligned shares (name `_skN`).
  bool streamK = false;
  double predictedUs = 0;  ///< the model's time for this choice (0: a measured rule chose it)
  double defaultUs = 0;    ///< the model's time for the default family, no split
  std::string name;        ///< the kernel's name, e.g. gemm_sm90_auto_small_s4_f16
  std::string specYaml;    ///< the spec (Runtime::compileString(specYaml, name))
  std::string reason;      ///< one line: what was chosen and why
};

/// The model's time (µs, an H200 fitted by bench/model/fit_cost_model.py) of
/// family `family` with `splitK` slices on M×N×K; < 0 for an unknown family.
double predictKernelMicros(const std::string &family, int splitK, long long M, long long N,
                           long long K);

/// What the kernel will be compiled for beyond the shape and type, where it
/// narrows the tiles a choice may take (the kernel's layouts: a problem with
/// a column-major D runs as D^T = B^T·A^T, rowMajorProblem).
struct ChoiceOptions {
  /// A's and B's layouts in the kernel. An operand loaded N-major in 64-column
  /// boxes as the MMA's B takes only tiles of whole boxes: B stored K×N
  /// (Layout::Row), or, for the decode tiles that compute D^T = B·A^T with A
  /// as the MMA's B, A stored M-major (Layout::Col).
  Layout a = Layout::Row;
  Layout b = Layout::Col;
  /// D in f32 (16-bit operands, SpecOverrides / --out-dtype f32): tile.n a
  /// multiple of 16 (a 16-bit D's tiles may be any multiple of 8).
  bool f32Out = false;
  /// The L2 in bytes of the GPU the kernel will run on (DeviceInfo::l2Bytes);
  /// 0: unknown, taken as the H200's 60 MiB, where the rules were measured.
  /// A GPU with less (the H100's 50 MiB) does not take the ping-pong rule.
  int l2Bytes = 0;
  /// The GPU's multiprocessors (DeviceInfo::smCount); 0: unknown, taken as
  /// the H200's 132. The model counts its rounds of tiles on this many, the
  /// decode rule its waves, and split-K runs in one launch only where the
  /// stream-K launch on this many CTAs cuts each tile into exactly its slices.
  int smCount = 0;
  /// l2Bytes and smCount of the GPU `d` (Runtime::device()).
  void takeGpu(const DeviceInfo &d) { l2Bytes = d.l2Bytes, smCount = d.smCount; }
};

/// What a choice is asked about for a GEMM stored as `args` says (M, N, K
/// and the layouts of A, B and D): rowMajorProblem's M, N, K and its A and B
/// layouts — the frame of the cost model, its measured rules and the tuned
/// DB. A kernel chosen for it and compiled with those layouts
/// (SpecOverrides) then runs in the orientation the choice assumed: a
/// row-major-D family on that problem, a column-major-D one on its transpose.
struct ChoiceProblem {
  long long M = 0, N = 0, K = 0;
  ChoiceOptions options; ///< the kernel's layouts (and f32Out, as given)
};
ChoiceProblem choiceProblem(const GemmArgs &args, bool f32Out = false);

/// The spec for D = A·Bᵀ (A row-major, B column-major: SpecOverrides give
/// other layouts, within what `options` says) in 16-bit type t the model
/// predicts fastest on an H200-class GPU. M×N is the problem with D
/// row-major: for any other GEMM pass choiceProblem's. It leaves the default (large, no
/// split) only where it predicts at least 10% less time: the default is
/// what was tuned on large shapes. Refuses non-positive sizes and types
/// other than f16/bf16.
Expected<KernelChoice> chooseKernel(long long M, long long N, long long K, DType t,
                                    const ChoiceOptions &options = {});

/// An fp8 GEMM to choose a kernel for: operand types, D's type and how the
/// operands are scaled (GemmArgs::scaleA / scaleB).
struct Fp8Problem {
  DType a = DType::E4M3, b = DType::E4M3; ///< e4m3 or e5m2 each
  DType out = DType::BF16;                ///< bf16, f16, f32, e4m3 or e5m2
  bool blockwise = false; ///< blockwise scales (1x128 A, 128x128 B) instead of per-tensor
};

/// The model's time (µs) of fp8 family `family` (per-tensor or blockwise
/// ones, KernelChoice::family) with `splitK` slices; < 0 for an unknown family.
double predictFp8KernelMicros(const std::string &family, bool blockwise, int splitK,
                              long long M, long long N, long long K);

/// chooseKernel for fp8: among the per-tensor or the blockwise families
/// (their per-k-block times fitted by bench/model/fit_fp8_model.py to the
/// H200's fp8 runs), each with K cut into 1-8 slices where D is not 8-bit;
/// the default is spec 13's tile (per-tensor) or spec 15's (blockwise), left
/// only for a predicted 10% gain. An 8-bit D (output scale and amax) takes
/// no split and only tiles of whole 128-column slabs. Refuses non-positive
/// sizes and operands that are not e4m3/e5m2. Of `gpu` only the GPU's
/// multiprocessors (ChoiceOptions::smCount, takeGpu) are read: the model
/// counts its rounds of tiles on them.
Expected<KernelChoice> chooseFp8Kernel(long long M, long long N, long long K,
                                       const Fp8Problem &problem, const ChoiceOptions &gpu = {});

/// The default watchdog budget for one launch of an M×N×K GEMM:
/// 10 s + 2·M·N·K / 1e12 s (any GEMM kernel does better than 1 TFLOP/s).
double watchdogSeconds(long long M, long long N, long long K);

//===----------------------------------------------------------------------===//
// Helpers for tools, tests and examples: random inputs, reference, compare
//===----------------------------------------------------------------------===//

/// NVRTC-compiled helper kernels for one Runtime: a seeded hash-based normal
/// RNG, a tiled fp32-accumulate reference GEMM on the same 16-bit inputs,
/// and an error reduction.
class GemmVerifier {
public:
  static Expected<GemmVerifier> create(const Runtime &rt);

  /// Fills `count` elements of type t (16-bit, f32, or fp8) with N(0,1) values
  /// (Box-Muller over a counter hash of (seed, index)), rounded to t (fp8:
  /// round to nearest even; |z| < 6, so e4m3's 448 never saturates).
  Status fillNormal(CUdeviceptr p, std::size_t count, DType t, std::uint64_t seed,
                    CUstream s) const;
  /// Fills a rows×cols matrix with leading dimension ld (elements).
  Status fillNormal2D(CUdeviceptr p, long long rows, long long cols, long long ld, DType t,
                      std::uint64_t seed, CUstream s) const;
  /// ref[M,N] (f32, packed, ld = N) = alpha · A · B + beta · C with f32
  /// accumulation, A, B and C in the layouts `args` names; batched:
  /// args.batch such blocks one after another (entry l at ref + l·M·N).
  Status reference(const GemmArgs &args, DType t, CUdeviceptr refF32, CUstream s) const {
    return reference(args, t, refF32, s, t);
  }
  /// The same with C of type `out` (D's type: t, or F32).
  Status reference(const GemmArgs &args, DType t, CUdeviceptr refF32, CUstream s,
                   DType out) const {
    return reference(args, t, t, refF32, s, out, EpilogueInfo());
  }
  /// A of type t, B of type tB (fp8 kernels may mix e4m3 and e5m2); the
  /// reference multiplies alpha by args.scaleA and args.scaleB (device f32
  /// scalars, null = 1), as fp8 kernels do.
  Status reference(const GemmArgs &args, DType t, DType tB, CUdeviceptr refF32, CUstream s,
                   DType out) const {
    return reference(args, t, tB, refF32, s, out, EpilogueInfo());
  }
  /// The same with a kernel's epilogue chain applied to every element (its
  /// bias and scale read from args.bias, strideBias and scaleD).
  Status reference(const GemmArgs &args, DType t, DType tB, CUdeviceptr refF32, CUstream s,
                   DType out, const EpilogueInfo &epilogue) const;
  /// What kernel `k` computes for `args`: its types, scales (per tensor or
  /// blockwise, from args.scaleA/scaleB) and epilogue chain.
  Status reference(const GemmArgs &args, const KernelInfo &k, CUdeviceptr refF32,
                   CUstream s) const;

  /// What attachKernelInputs puts into the inputs a kernel reads besides A,
  /// B and C.
  struct KernelInputValues {
    /// fp8 scales. Per tensor: the device scalar's value (NaN: left null,
    /// read as 1). Blockwise: every block's value (NaN: N(0,1) per block).
    float scaleA = NAN, scaleB = NAN;
    float scaleD = 1.0f;      ///< the chain's scale step, or an 8-bit D's output scale
    long long biasGap = 0;    ///< elements between batch entries' bias vectors
  };
  /// Allocates and fills what kernel `k` reads besides A, B and C and `args`
  /// does not hold yet: its chain's bias (N(0,1), a vector per batch entry,
  /// GemmArgs::strideBias apart) and scale, its fp8 scales (blockwise arrays
  /// sized by blockwiseScaleCounts), an 8-bit D's output scale (scaleD) and
  /// amax (amaxD, which the kernel writes). Returns the allocations, for the caller
  /// to free with Runtime::free; on an error frees what it allocated.
  Expected<std::vector<CUdeviceptr>> attachKernelInputs(const KernelInfo &k, GemmArgs &args,
                                                         const KernelInputValues &values,
                                                         std::uint64_t seed, CUstream s) const;

  struct Comparison {
    double relFrobenius = 0; ///< ‖D − ref‖_F / ‖ref‖_F
    double maxAbsError = 0;
    long long nonFinite = 0; ///< NaN/Inf (includes never-written poison)
    long long count = 0;
    /// max |ref| over the compared elements: for an 8-bit D the value its
    /// kernel's amax (GemmArgs::amaxD) must hold.
    double refAbsMax = 0;
  };
  /// Compares D (16-bit, stored as args.layoutD says, ld = args.ldd) with a
  /// row-major reference that is f32 (refIs16Bit false, packed ld = N) or
  /// 16-bit (ld = N); batched: every entry (D at its strideD, reference
  /// blocks packed), one error over all of them.
  Expected<Comparison> compare(const GemmArgs &args, DType t, CUdeviceptr ref, bool refIs16Bit,
                               CUstream s) const {
    return compare(args, t, ref, refIs16Bit, s, t);
  }
  /// The same for a D (and C) of type `out` (F32: D is read as f32; a
  /// reference with refIs16Bit false is f32 either way). An 8-bit D is
  /// held against x = scaleD · ref (args.scaleD, null = 1; saturated to the
  /// type's range), and each element's error is what lies beyond fp8's own
  /// rounding: |D − x| less half an fp8 step there (at least 0). A value an
  /// accumulation difference moved across a rounding boundary then costs
  /// that difference, not a whole step, and a wrong element nearly all of
  /// its value. Against another fp8 D (refIs16Bit) one step is allowed.
  Expected<Comparison> compare(const GemmArgs &args, DType t, CUdeviceptr ref, bool refIs16Bit,
                               CUstream s, DType out) const;

  /// The NaN pattern written into D before a run (0x7fff: NaN in f16 and bf16).
  static constexpr std::uint16_t kPoison = 0x7fff;
  /// An 8-bit D's poison byte: 0x7f is NaN in e4m3 (S.1111.111) and e5m2.
  static constexpr std::uint8_t kPoisonFp8 = 0x7f;
  /// Writes the poison of type `t` over `elements` elements at `p`: kPoison
  /// in every 16-bit half (f16, bf16, f32), kPoisonFp8 in every byte (fp8).
  Status poison(CUdeviceptr p, std::size_t elements, DType t, CUstream s) const;
  /// The byte poison() left at `offset` bytes from its start (little-endian
  /// halves), for checking what a launch must not have written.
  static std::uint8_t poisonByte(DType t, std::size_t offset) {
    return isFp8(t) ? kPoisonFp8
                    : std::uint8_t(offset % 2 == 0 ? kPoison & 0xff : kPoison >> 8);
  }
  /// Default tolerance on the relative Frobenius error (docs/RUNTIME.md).
  static constexpr double kTolerance = 1e-2;

  struct Impl;
  explicit GemmVerifier(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
  Status referenceImpl(const GemmArgs &args, DType t, DType tB, CUdeviceptr refF32, CUstream s,
                       DType out, const EpilogueInfo &epilogue, bool blockwise) const;
  std::shared_ptr<Impl> impl_;
};

} // namespace gemmgen

#endif // GEMMGEN_GEMMGEN_H

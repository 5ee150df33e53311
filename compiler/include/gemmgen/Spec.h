//===- Spec.h - The kernel spec as written by the user ----------*- C++ -*-===//
//
// The in-memory form of a YAML kernel spec. Every value keeps the source
// location it came from so that checks can point at the exact key at fault.
// Fields the user did not write hold their documented default and have
// `given == false` (their location is then the enclosing mapping's).
//
// The field-by-field reference is docs/SPEC.md.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_SPEC_H
#define GEMMGEN_SPEC_H

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen {

/// A value read from the spec together with where it was written.
template <typename T> struct Located {
  T value{};
  llvm::SMLoc loc;     ///< the value's location (or the parent mapping's)
  llvm::SMLoc keyLoc;  ///< the key's location, for "this key" diagnostics
  bool given = false;  ///< false: the documented default is in effect

  Located() = default;
  Located(T v) : value(std::move(v)) {}
  const T &operator*() const { return value; }
  const T *operator->() const { return &value; }
};

enum class Target { SM90a, SM100a };
/// E4M3 and E5M2 are the 8-bit float operands of Hopper wgmma (k32 shapes).
enum class ScalarType { F16, BF16, F32, E4M3, E5M2 };
enum class MatrixLayout { Row, Col };
enum class SchedulerKind { Persistent, DataParallel, StreamK };
/// Order in which a persistent CTA walks output tiles.
enum class RasterOrder { AlongM, AlongN, Hilbert };
/// How the consumer warpgroups share the output: cooperative (each owns
/// tile.m / consumers rows of every tile) or ping-pong (each owns whole
/// tiles, taking turns, so one's epilogue runs beside the other's MMAs).
enum class ConsumerMode { Cooperative, PingPong };
enum class EpilogueStore { Tma, Direct };
/// Work a role does. A role may do several (Hopper consumers do mma + epilogue).
enum class RoleTask { TmaLoad, Mma, Epilogue };
/// One step of the epilogue chain (epilogue.chain), applied in registers to
/// v = alpha·acc (+ beta·C) before D's store, in the order written.
enum class EpilogueOpKind {
  Bias,      ///< v += bias[row] or bias[col] (a vector in `biasType`)
  Relu,      ///< max(v, 0)
  GeluTanh,  ///< 0.5·v·(1 + tanh(√(2/π)·(v + 0.044715·v³)))
  GeluErf,   ///< 0.5·v·(1 + erf(v/√2))
  Silu,      ///< v / (1 + e^(−v))
  Residual,  ///< v += beta·C here (C is then not added before the chain)
  Clamp,     ///< min(max(v, lo), hi)
  Scale      ///< v *= *scaleD (a device f32 scalar of the launch; null = 1)
};
/// How many EpilogueOpKind values there are (arrays indexed by one).
constexpr unsigned kEpilogueOpKinds = unsigned(EpilogueOpKind::Scale) + 1;
/// The most rows or columns of D scheduler.simt_narrow may name: the
/// runtime builds a narrow kernel for each count up to it.
constexpr unsigned kSimtNarrowMaxColumns = 4;
enum class BiasAxis { Row, Column };
enum class BarrierKind {
  Tma,       ///< mbarrier completed by TMA transaction bytes (+1 expect_tx arrival)
  Mbarrier,  ///< plain mbarrier completed by thread arrivals
  Commit,    ///< mbarrier arrived by an MMA commit (tcgen05.commit, sm_100a)
  Named      ///< bar.sync named barrier among the threads of a group
};

const char *toString(Target t);
const char *toString(ScalarType t);
const char *toString(MatrixLayout l);
const char *toString(SchedulerKind k);
const char *toString(RasterOrder r);
const char *toString(ConsumerMode m);
const char *toString(EpilogueStore s);
const char *toString(RoleTask t);
const char *toString(BarrierKind k);
const char *toString(EpilogueOpKind k);
const char *toString(BiasAxis a);
unsigned sizeInBytes(ScalarType t);
/// E4M3 or E5M2: an 8-bit float operand (K-major only, scaled per tensor).
inline bool isFp8(ScalarType t) { return t == ScalarType::E4M3 || t == ScalarType::E5M2; }

/// An epilogue chain step as the IR, the ABI and the runtime see it.
struct EpilogueStep {
  EpilogueOpKind kind = EpilogueOpKind::Relu;
  BiasAxis axis = BiasAxis::Column;        ///< Bias: indexed by D's row or column
  ScalarType biasType = ScalarType::F32;   ///< Bias: the vector's element type
  float lo = 0.0f, hi = 0.0f;              ///< Clamp bounds
  bool operator==(const EpilogueStep &o) const {
    return kind == o.kind && axis == o.axis && biasType == o.biasType && lo == o.lo &&
           hi == o.hi;
  }
};
/// "bias(column, bf16)", "gelu_tanh", "clamp(-1, 1)": the spec's words.
std::string describe(const EpilogueStep &s);
/// "bias(column, bf16) -> gelu_tanh", or "none".
std::string describeChain(const std::vector<EpilogueStep> &chain);
bool chainHas(const std::vector<EpilogueStep> &chain, EpilogueOpKind k);

/// How fp8 operands are scaled (types.scaling).
enum class ScalingMode {
  PerTensor, ///< one device scalar per operand, folded into alpha
  Blockwise  ///< A per row per 128-wide K block (1×128), B per 128×128 block; each k-block's
             ///< partial sum promoted into f32 accumulators on the CUDA cores
};
const char *toString(ScalingMode m);

struct TypesSpec {
  Located<ScalarType> a{ScalarType::F16}, b{ScalarType::F16},
      d{ScalarType::F16}, accumulate{ScalarType::F32};
  Located<ScalingMode> scaling{ScalingMode::PerTensor};
};

/// D[M,N] = A · B with A stored `a` (row: M×K row-major, K-major) and B stored
/// `b` (col: N×K row-major, i.e. B^T, K-major) — the seed's layout. D is
/// stored `d`: row (M lines of N, the default) or col (N lines of M: the
/// staging tile is written transposed and stored along M).
struct LayoutSpec {
  Located<MatrixLayout> a{MatrixLayout::Row}, b{MatrixLayout::Col}, d{MatrixLayout::Row};
};

struct TileSpec {
  Located<unsigned> m{128}, n{128}, k{64};
};

struct ClusterSpec {
  Located<unsigned> m{1}, n{1};
};

struct PipelineSpec {
  Located<unsigned> depth{4};
  /// wgmma groups left in flight before a stage is released (wait_group N).
  Located<unsigned> mmaInFlight{1};
  /// pipeline.l2_promotion: bytes the L2 fetches per request of A's and B's
  /// TMA loads (64, 128 or 256; 0, unset: the runtime's rule, 256 on rows
  /// that start on 128-byte lines, else 128).
  Located<unsigned> l2Promotion{0};
};

struct SchedulerSpec {
  Located<SchedulerKind> kind{SchedulerKind::Persistent};
  Located<RasterOrder> raster{RasterOrder::AlongM};
  /// Tiles per L2 group along the raster's minor direction (grouped raster).
  Located<unsigned> group{8};
  /// Grouped GEMM: the kernel takes a table of independent problems (each
  /// its own M, N, K and operands) and walks all of them in one launch.
  Located<bool> grouped{false};
  /// Split-K: the K range is cut into this many slices computed as the
  /// entries of a strided batch into an f32 workspace, then summed (with
  /// alpha, beta·C and the cast to types.d) by a reduction after the GEMM.
  Located<unsigned> splitK{1};
  /// scheduler.consumers: cooperative (rows of one tile) or pingpong (whole
  /// tiles in turn; two consumers, a persistent walk).
  Located<ConsumerMode> consumers{ConsumerMode::Cooperative};
  /// scheduler.ctas_per_sm: CTAs resident on one SM (sm_90a: 1 or 2). With 2
  /// the kernel is compiled for two per SM (__launch_bounds__) and the
  /// persistent grid holds twice the CTAs: for kernels whose shared memory
  /// and registers fit twice, e.g. decode tiles whose k-block chain, not
  /// the memory, sets the pace.
  Located<unsigned> ctasPerSm{1};
  /// scheduler.simt_narrow: a launch whose D has at most this many rows or
  /// columns (1-kSimtNarrowMaxColumns; 0: never), the long operand K-major
  /// (rows not 16-byte aligned: at 1-2 columns, in narrower loads), runs on
  /// the runtime's SIMT kernel instead, its warps streaming the long
  /// operand's rows: at 1-2 rows it streamed the weights faster than any MMA
  /// tile (bench/h200-gemv-simt.sh). 16-bit operands; with an epilogue
  /// chain, 16-byte rows only (the runtime's chained kernels apply it).
  Located<unsigned> simtNarrow{0};
  /// What types.d was before split-K made the kernel's output f32 (set by
  /// compileParsedSpec; the reduction writes this type).
  ScalarType splitOut = ScalarType::F16;
};

/// One warp role: which warps run it, with how many registers, doing what.
struct RoleSpec {
  Located<std::string> name;
  llvm::SMLoc loc;
  Located<unsigned> warps{0};       ///< set for warp-granular roles
  Located<unsigned> warpgroups{0};  ///< set for warpgroup-granular roles
  /// First warp of the role within the CTA (derived when not given).
  Located<std::optional<unsigned>> firstWarp;
  Located<unsigned> registers{0};   ///< setmaxnreg value; 0 = leave as launched
  std::vector<Located<RoleTask>> does;
};

/// An optional barrier declaration. Absent fields are derived by lowering;
/// given fields are checked against what the protocol needs.
struct BarrierSpec {
  Located<std::string> name;
  llvm::SMLoc loc;
  Located<std::string> from, to;        ///< role names
  Located<BarrierKind> kind{BarrierKind::Mbarrier};
  Located<std::optional<unsigned>> slots;     ///< "depth" is accepted and means pipeline.depth
  Located<std::optional<unsigned>> arrivals;  ///< arrival count per phase
  Located<std::optional<unsigned>> initialPhase; ///< phase the waiting side starts at
  Located<std::optional<unsigned>> txBytes;   ///< kind tma: bytes per phase
  Located<std::optional<unsigned>> ctaMask;   ///< CTAs of the cluster signalled (sm_100a)
  Located<std::optional<unsigned>> id;        ///< named-barrier id (kind: named)
};

/// One entry of epilogue.chain as written: `gelu_tanh`, or
/// `bias: { per: row, type: bf16 }`, `clamp: { min: -1, max: 1 }`.
struct EpilogueOpSpec {
  llvm::SMLoc loc;  ///< the entry (its op word)
  Located<EpilogueOpKind> kind;
  Located<BiasAxis> per{BiasAxis::Column};
  /// Bias vector type; not given: D's type (types.d).
  Located<ScalarType> type{ScalarType::F32};
  Located<float> min{-3.0e38f}, max{3.0e38f};
};

struct EpilogueSpec {
  Located<EpilogueStore> store{EpilogueStore::Tma};
  /// Overlap the TMA store of tile i with the main loop of tile i+1.
  Located<bool> overlap{true};
  /// Columns written back per chunk (the seed's EPI_N); 0 = whole tile.
  Located<unsigned> chunkN{0};
  /// Staging tiles per consumer: 2 alternates them by chunk, so a chunk's
  /// TMA store reads one while the next chunk is written into the other.
  Located<unsigned> buffers{1};
  /// Ops applied in registers to alpha·acc (+ beta·C) before the store.
  std::vector<EpilogueOpSpec> chain;
  llvm::SMLoc chainLoc;  ///< the `chain:` key (invalid when absent)
  /// The chain as steps (bias type resolved against types.d).
  std::vector<EpilogueStep> steps(ScalarType dType) const;
};

/// A whole kernel spec: the unit gemmgen checks, lowers and emits.
struct KernelSpec {
  std::string path;  ///< file the spec came from (for the generated banner)
  Located<std::string> kernel;
  Located<Target> target{Target::SM90a};
  TypesSpec types;
  LayoutSpec layout;
  TileSpec tile;
  ClusterSpec cluster;
  PipelineSpec pipeline;
  Located<unsigned> consumers{1};
  SchedulerSpec scheduler;
  std::vector<RoleSpec> roles;
  std::vector<BarrierSpec> barriers;
  EpilogueSpec epilogue;
  /// sm_100a: CTAs cooperating on one MMA (tcgen05 cta_group). 1 on sm_90a.
  Located<unsigned> ctaGroup{1};
  /// sm_100a: TMEM columns per consumer accumulator; 0 = derived (tile.n).
  Located<unsigned> tmemColumns{0};
  /// Free text from `description:`, for the generated banner.
  Located<std::string> description;
  /// Where the spec's top-level mapping, its `roles:` key and its
  /// `barriers:` key were written (for "missing ..." diagnostics); the
  /// latter two are invalid when the key is absent.
  llvm::SMLoc loc, rolesLoc, barriersLoc;

  const RoleSpec *findRole(const std::string &name) const;
  const RoleSpec *roleDoing(RoleTask task) const;
};

} // namespace gemmgen

#endif // GEMMGEN_SPEC_H

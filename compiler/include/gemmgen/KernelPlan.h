//===- KernelPlan.h - Every derived fact of a kernel, derived once -*- C++ -*-===//
//
// The kernel plan stands between a spec and everything downstream: the
// shared-memory layout (buffers with offsets, swizzle, alignment, the total),
// the barrier protocol (each barrier's kind, slots, both ends, arrivals, tx
// bytes, the waiter's initial phase, its place in shared memory), the tile
// schedule and the workspace a launch needs. derivePlan() is the one place
// these facts are computed: the checks compare declarations with it, the
// lowerings build the IR from it, the printers and the ABI read its numbers
// through the IR, the runtime's grid and the tests read it.
//
// The model for each target is the kernel its lowering builds:
//   sm_90a   smemA[depth], smemB[depth], smemD[consumers] (store: tma);
//            full (tma) and empty (mbarrier) rings of `depth` slots, one
//            named epilogue barrier per consumer warpgroup, and (store: tma)
//            one cload (tma) slot per consumer: C's chunk loaded into the
//            staging tile when the launch's β ≠ 0
//   sm_100a  smemA[depth][consumers], smemB[depth] (this CTA's B half),
//            smemD[consumers], acc in TMEM; tma2mma, mma2tma, mma2ld,
//            ld2mma and the writeback's named barrier
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_KERNELPLAN_H
#define GEMMGEN_KERNELPLAN_H

#include "gemmgen/Spec.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace gemmgen {

/// 227 KB: the opt-in dynamic shared memory of one block on sm_90a and sm_100a.
constexpr unsigned kMaxSharedBytesPerBlock = 232448;
/// Every SMEM buffer starts 1024-byte aligned (128B-swizzle atoms repeat every
/// 1024 bytes); the launch adds as much slack to align the dynamic base.
constexpr unsigned kSmemAlignment = 1024;
/// Bytes of one mbarrier slot.
constexpr unsigned kMbarrierBytes = 8;
/// One 128B-swizzle row: a K-major k-block row is this many bytes.
constexpr unsigned kSwizzleRowBytes = 128;
/// K bytes one wgmma reads per row: k16 for 16-bit, k32 for 8-bit operands.
constexpr unsigned kMmaKBytes = 32;

/// sm_90a tile.k for operand type t: one swizzle row (64 16-bit, 128 8-bit).
unsigned tileKFor(ScalarType t);
/// wgmma K (elements) per instruction for operand type t (16 or 32).
unsigned mmaKFor(ScalarType t);

enum class MemSpace { Shared, Tensor, Registers };

/// Storage that roles hand to each other. Sizes are per CTA, per stage, per
/// role instance.
struct BufferPlan {
  std::string name;
  MemSpace space = MemSpace::Shared;
  ScalarType type = ScalarType::F16;
  unsigned rows = 0, cols = 0;  ///< one stage of one instance
  unsigned stages = 1;          ///< ring slots
  unsigned instances = 1;       ///< one copy per role instance (consumer)
  unsigned swizzleBytes = 0;    ///< SMEM swizzle (128 for TMA/MMA tiles)
  unsigned alignment = 0;       ///< SMEM: byte alignment of `offset`
  unsigned offset = 0;          ///< SMEM: bytes from the aligned base
  unsigned bytesPerStage() const { return rows * cols * sizeInBytes(type); }
  unsigned totalBytes() const { return bytesPerStage() * stages * instances; }
};

/// Which dimension of an operand tile is contiguous in shared memory: K (the
/// operand is stored K-major in global memory) or M/N (stored M- or N-major;
/// wgmma reads it transposed, 16-bit types only).
enum class OperandMajor { K, MN };

/// How one operand's stage tile is loaded and addressed (A: the tile's M
/// rows; B: the N rows this CTA loads). Both majors use the 128-byte swizzle
/// (a box row is 128 bytes: 64 16-bit or 128 8-bit elements; 8 rows form a
/// 1024-byte swizzle atom), but for an MN-major part of 16 or 32 rows: one
/// box row of 32 or 64 bytes, the 32- or 64-byte swizzle.
///   K-major   one box of tileK (inner) × rows; row r of the tile at r·128 B;
///             a wgmma k-step (k16 of 16-bit, k32 of 8-bit) advances the
///             descriptor by 32 B. So an fp8 k-block (tile.k 128) has the byte
///             geometry of a 16-bit one (tile.k 64).
///   MN-major  (16-bit only) rows/64 boxes of 64 (inner, M or N) × tileK; box j
///             holds MN elements [64j, 64j+64) with K row k at k·128 B; a k16
///             step advances by 16 rows (2048 B); boxes lie `boxBytes` apart
///             (the descriptor's leading byte offset). 16 or 32 rows: one box
///             of them, K row k at k·32 (k·64) B, a k16 step 512 (1024) B.
/// In both, 64 MN rows (one m64 wgmma block) span 64·128 bytes.
struct OperandLoadPlan {
  OperandMajor major = OperandMajor::K;
  unsigned rows = 0;                 ///< M or N extent of the stage tile (this CTA)
  unsigned boxInner = 0, boxOuter = 0; ///< TMA box in elements, inner first
  unsigned boxes = 1;                ///< TMA loads per stage
  unsigned boxBytes = 0;             ///< bytes of one box in shared memory
  unsigned kStepBytes = 0;           ///< descriptor advance per wgmma k-step
  unsigned swizzleBytes = kSwizzleRowBytes; ///< a box row's bytes: 128, or 32/64 (MN-major)
  unsigned l2PromotionBytes = 0;     ///< pipeline.l2_promotion (0: the runtime's rule)
};

/// The swizzle (bytes of a box row) an MN-major part of `rows` elements of
/// `elemBytes` loads with: 128 where the rows are whole 128-byte rows, else a
/// single box of 32 or 64 bytes; 0 where none fits (the checks refuse it).
unsigned mnMajorSwizzleBytes(unsigned rows, unsigned elemBytes);

/// The barriers of the protocols, by what they do (their names vary: the
/// spec may call the full ring `full` or `tma2mma`).
enum class ProtocolBarrier {
  Full,      ///< producer -> MMA: the stage's bytes landed (tma2mma)
  Empty,     ///< MMA -> producer: the stage may be refilled (mma2tma)
  AccReady,  ///< sm_100a MMA -> writeback: the accumulator is complete (mma2ld)
  AccFree,   ///< sm_100a writeback -> MMA: the accumulator was read (ld2mma)
  Epilogue,  ///< a consumer/writeback warpgroup's named barrier over its staging tile
  CLoad,     ///< sm_90a: C's chunk landed in a consumer's staging tile (β ≠ 0), one slot
             ///< per consumer, armed and awaited by that consumer
  Order      ///< sm_90a ping-pong: consumer c's mainloop passed its last wait, the other's
             ///< may begin (named, slot c: c arrives, the other syncs)
};
/// How many ProtocolBarrier values there are (arrays indexed by one).
constexpr unsigned kProtocolBarriers = unsigned(ProtocolBarrier::Order) + 1;

/// One barrier array of the protocol.
struct BarrierPlan {
  ProtocolBarrier role = ProtocolBarrier::Full;
  std::string name;               ///< as declared, else the protocol's name
  BarrierKind kind = BarrierKind::Mbarrier;
  unsigned slots = 1;
  const char *slotsKey = "depth"; ///< the spec value `slots` follows
  std::string signaller, waiter;  ///< role names: who arrives, who waits
  unsigned arrivals = 1;          ///< arrivals per phase (named: threads)
  unsigned txBytes = 0;           ///< kind tma: bytes per phase, all CTAs' writes
  /// Parity of the waiter's first wait (mbarrier kinds): 0 waits for the
  /// first completion, 1 passes on the barrier's initial phase.
  unsigned waiterPhase = 0;
  unsigned ctaMask = 0;           ///< commit barriers: CTAs signalled (0 = this CTA)
  unsigned namedId = 0;           ///< kind named: first hardware barrier id
  unsigned offset = 0;            ///< mbarrier kinds: bytes from the aligned base
  bool inSharedMemory() const { return kind != BarrierKind::Named; }
};

/// The persistent walk over output tiles (executed by
/// gemmgen/device/tile_schedule.cuh on the device, the host and the
/// simulator). A unit is the output block one cluster computes per step.
struct SchedulePlan {
  SchedulerKind kind = SchedulerKind::Persistent;
  RasterOrder raster = RasterOrder::AlongM;
  unsigned group = 8;
  unsigned unitRows = 0;    ///< output rows of one unit
  unsigned unitCols = 0;    ///< output columns of one unit
  unsigned ctasPerUnit = 1; ///< CTAs (the cluster) that compute one unit
  /// scheduler.simt_narrow: launches with at most this many rows or columns
  /// of D take the runtime's SIMT kernel (0: none).
  unsigned simtNarrow = 0;
  /// kind stream_k: CTA c of the grid computes k-block iterations
  /// [c·I/G, (c+1)·I/G) of all I = units × k-blocks (tile_schedule.cuh's
  /// sk_range); a unit started by another CTA is a partial sum handed over
  /// through the workspace to the CTA holding its first k-block.
  bool streamK() const { return kind == SchedulerKind::StreamK; }
  /// scheduler.grouped: the walk covers a table of problems (tile_schedule.cuh's
  /// GroupedProblem), not batch copies of one.
  bool grouped = false;
  /// scheduler.split_k: K slices (1: none); the kernel's D is then f32 and
  /// `splitOut` the type the runtime's reduction writes.
  unsigned splitK = 1;
  ScalarType splitOut = ScalarType::F16;
  /// scheduler.consumers pingpong: consumer c computes the c-th, (c+2)-th, ...
  /// tile of its CTA's walk alone (all tile.m rows) and skips the other's
  /// stages; the order barrier hands the mainloop from one to the other.
  bool pingpong = false;
  /// sm_90a, one CTA a cluster, one producer thread, no grouped table, the
  /// empty barrier's waiter starting at phase 1: the thread that initialises
  /// the barriers issues the first tile's first `depth` k-blocks
  /// (early_blocks; stream-K: of its walk's first step, from that step's
  /// first k-block) before the CTA's barrier, and the producer's loop starts
  /// after them. Those are the loop's first iterations
  /// moved earlier (their empty-slot waits would pass at once); lowering puts
  /// them in the IR as the producer's `early_loads`, which the simulator runs.
  /// A one-tile CTA's first wgmma then starts ~1.5k cycles sooner
  /// (docs/PERF.md, "a one-tile CTA's cycles").
  bool earlyLoads = false;
  /// scheduler.ctas_per_sm: the CTAs one SM holds (__launch_bounds__'s
  /// minimum blocks); the runtime's persistent grid follows from occupancy.
  unsigned ctasPerSm = 1;
  long long unitsM(long long M) const { return M <= 0 ? 0 : (M + unitRows - 1) / unitRows; }
  long long unitsN(long long N) const { return N <= 0 ? 0 : (N + unitCols - 1) / unitCols; }
};

/// How D's value enters epilogue.chain on sm_90a: the instructions a chain
/// shares with alpha·acc. A leading bias joins alpha's multiply in one FMA,
/// and a gelu_tanh after only linear steps (bias, residual, scale) takes the
/// value halved, which saves its own halving: alpha, beta and the bias carry
/// the 1/2 (exact: a power of two). Bias + gelu_tanh: 6 instructions per
/// element where they took 8 (docs/PERF.md, "Chain entry").
struct ChainEntryPlan {
  /// The chain's first step is its bias: v = fmaf(alpha, acc, bias), and
  /// beta·C (unless placed by a residual step) joins after it.
  bool biasInAlpha = false;
  /// The gelu_tanh step that takes the value halved
  /// (epi::gelu_tanh_half_fast), or -1: none.
  int halfGeluStep = -1;
  /// The bias step comes before halfGeluStep: its vector is loaded halved.
  bool halvesBias = false;
  /// beta·C joins before halfGeluStep (no residual step: before the chain;
  /// else at the residual step): it is taken with beta halved.
  bool halvesC = false;
  bool halved() const { return halfGeluStep >= 0; }
};

/// Every derived fact of one (spec, target).
struct KernelPlan {
  Target target = Target::SM90a;
  unsigned tileM = 0, tileN = 0, tileK = 0;
  unsigned consumers = 1, depth = 1, ctaGroup = 1;
  /// wgmma K per instruction (mmaKFor(types.a)): tileK / mmaK k-steps per stage.
  unsigned mmaK = 16;
  /// 8-bit operands: the kernel takes per-tensor scales (device f32 scalars,
  /// null = 1) and folds them into alpha once per CTA.
  bool perTensorScales = false;
  /// types.scaling: blockwise (8-bit operands): scaleA/scaleB are per-block
  /// arrays, each k-block's wgmma partial sum is promoted into the f32
  /// accumulators on the CUDA cores (tile.k is the 128-element scale block).
  bool blockwiseScales = false;
  /// An 8-bit D (types.d e4m3 or e5m2): the consumers multiply each value by
  /// the output scale and convert pairs with cvt.rn.satfinite, and keep the
  /// amax (max |value| before the scale) that the kernel publishes.
  bool fp8Output = false;
  /// Blockwise: partial-sum register buffers per consumer thread. 1 (mma_in_flight 0): each
  /// k-block waits for its wgmmas, then promotes; 2 (mma_in_flight 1): the k-blocks go in
  /// pairs, the first one's sum promoted while the second one's wgmmas run into the other
  /// buffer, the second one's after every group is done (Lowering: if_second_of_pair).
  unsigned partialBuffers = 0;
  /// Blockwise scales on sm_90a: the producer copies each k-block's scales
  /// (A's for the tile's rows, B's for its blocks, 16-byte-aligned bulk
  /// copies) into the stage's smemScales slot on its full barrier; the
  /// consumers read them from shared memory as they issue the k-block.
  bool scalesInSmem = false;
  /// Blockwise: B's 128-column scale blocks one tile touches (a tile.n that
  /// is not a multiple of 128 can start 64 columns into one).
  unsigned scaleBlocksN = 0;
  /// scalesInSmem: the bytes of one stage's scale slot, which the full
  /// barrier's txBytes counts (the plan's and the simulator's figure; the
  /// kernel announces what its copies move, 16-byte-aligned chunks of at most
  /// this many bytes, fewer at M's edge).
  unsigned scaleTxBytes = 0;
  /// scalesInSmem: where B's scales start in a stage's slot, after A's tile.m
  /// rows and the 4 floats a 16-byte-aligned copy of them can span beyond.
  unsigned scaleBOffsetBytes = 0;
  /// scalesInSmem with roles.producer.warps 4: producer warps besides warp 0
  /// that copy the scales (warp 1 A's, warp 2 B's), each arriving once per
  /// stage on its full barrier with the bytes of its copies. A producer instruction costs the consumer
  /// warps on its sub-partition issue slots (docs/PERF.md, producer pad), so
  /// the k-block's producer work is spread over three of them. The simulator
  /// models the stage's three arrivals as the producer's one.
  unsigned scaleCopyWarps = 0;
  /// scaleCopyWarps: the producer warp that issues the B tile's TMA load and
  /// arrives with its bytes, or 0: warp 0 with A's.
  unsigned producerBWarp = 0;
  unsigned clusterM = 1, clusterN = 1;
  /// Output columns staged and stored per epilogue chunk (divides tile.n,
  /// unless lastChunkOverlaps).
  unsigned epilogueChunkN = 0;
  /// sm_90a, a chunk_n that does not divide tile.n (lastChunkOverlaps): every
  /// chunk is chunk_n wide and the last one ends at the tile's edge, storing
  /// again the columns it shares with the one before. D then leaves in boxes
  /// as wide as the chunks (a narrower last chunk needs boxes that divide
  /// both widths: 16-byte ones at 256x152, 17% slower, docs/PERF.md).
  bool chunksOverlap = false;
  /// Epilogue chunks per tile, and chunk `c`'s first tile column: c × chunk_n,
  /// the last one's tile.n − chunk_n where chunks overlap (what the printer
  /// prints and the simulator walks).
  unsigned chunkWidth() const { return epilogueChunkN ? epilogueChunkN : tileN; }
  unsigned epilogueChunks() const { return (tileN + chunkWidth() - 1) / chunkWidth(); }
  unsigned chunkFirstColumn(unsigned c) const {
    return chunksOverlap && c + 1 == epilogueChunks() ? tileN - chunkWidth() : c * chunkWidth();
  }
  /// Bytes of one row of an output staging slab: one TMA store box row, with
  /// the swizzle of the same span (outputSlabBytes).
  unsigned dSlabBytes = 128;
  /// layout.d: col (sm_90a; problemDColumnMajor): the problem's D is
  /// column-major, N lines of M (a row-major D is mapped onto it transposed
  /// by the runtime).
  bool dProblemColMajor = false;
  /// The kernel stores D column-major (storesDColumnMajor): a slab is one m64
  /// block of the consumer's rows, a 128-byte row per output column of the
  /// chunk, written by stmatrix .trans, stored in boxes of 64 rows × chunk.
  /// Not with split_k: the slices' f32 partial sums are stored row-major and
  /// the runtime's reduction writes D column-major.
  bool dColMajor = false;
  /// sm_90a kernels with a chain and a C path (alpha, beta); otherwise none.
  ChainEntryPlan chainEntry;
  /// Staging tiles per consumer (epilogue.buffers): chunk c uses c % buffers.
  unsigned epilogueBuffers = 1;
  /// Tile rows one consumer computes: tile.m / consumers, or all of tile.m
  /// for ping-pong consumers (schedule.pingpong).
  unsigned rowsPerConsumer = 0;
  /// sm_100a: TMEM columns per consumer accumulator and allocated per CTA.
  unsigned tmemColumnsPerConsumer = 0, tmemColumns = 0;

  std::vector<BufferPlan> buffers;   ///< smemA, smemB, acc, smemD (if any)
  OperandLoadPlan loadA, loadB;      ///< how smemA and smemB are filled and read
  std::vector<BarrierPlan> barriers; ///< in protocol order
  unsigned barrierOffset = 0;        ///< first mbarrier slot
  unsigned barrierBytes = 0;         ///< mbarrier slots, rounded up to 128
  /// sm_100a: where tcgen05.alloc writes the TMEM address (after the barriers).
  unsigned tmemSlotOffset = 0;
  /// Bytes of the layout from the aligned base (buffers and barriers).
  unsigned sharedMemUsed = 0;
  /// Dynamic shared memory per block: sharedMemUsed + alignment slack.
  unsigned sharedMemBytes = 0;

  SchedulePlan schedule;
  /// Global memory a launch needs besides A, B and D (stream-K fix-up later).
  unsigned long long workspaceBytes = 0;

  const BufferPlan *findBuffer(const std::string &name) const;
  const BarrierPlan *findBarrier(ProtocolBarrier role) const;
  const BarrierPlan *findBarrier(const std::string &name) const;
};

/// Whether the spec's barrier declarations replace derived values. Checks
/// derive without them (to compare); lowering applies them, which changes
/// nothing for a checked spec and lets `--no-protocol-checks` execute a
/// deliberately wrong declaration.
enum class Declarations { Ignore, Apply };

/// Derives the plan. Total on any parsed spec (never divides by zero or
/// crashes); meaningful for one whose structure (tile, consumers, roles)
/// passed the checks.
KernelPlan derivePlan(const KernelSpec &spec, Declarations decls = Declarations::Apply);

/// The protocol barrier a declared name stands for on `target`, if any.
std::optional<ProtocolBarrier> protocolBarrierNamed(llvm::StringRef name, Target target);

/// roles.producer.warps that spread a blockwise kernel's producer over a
/// warp per part of the stage (KernelPlan::scaleCopyWarps, producerBWarp).
constexpr unsigned kSpreadProducerWarps = 4;

/// The full barrier's arrivals beyond the producer's one: its other warps'
/// (KernelPlan::scaleCopyWarps, producerBWarp), each announcing its bytes.
unsigned producerWarpArrivals(const KernelPlan &p);

/// Whether the producer's k-block is spread over several warps (each waits
/// for the stage and arrives with its own bytes), and how many issue.
bool spreadsProducer(const KernelPlan &p);
unsigned producerIssuingWarps(const KernelPlan &p);

/// Output columns per epilogue chunk: epilogue.chunk_n, or the default.
unsigned epilogueChunkColumns(const KernelSpec &spec);

/// Bytes of one row of an output staging slab (the TMA store box's row and
/// swizzle span): 128 (64 16-bit, 32 f32 or 128 8-bit columns); on sm_90a a
/// 16-bit or f32 D whose chunk is no multiple of 128 bytes takes the widest
/// of 64 and 32 bytes that divides it (tiles such as 128x144 that fill a
/// wave), and a 16-bit chunk of an odd number of 16-byte columns (8 mod 16
/// columns: 256x152's) is one unswizzled slab, a box as wide as the chunk.
unsigned outputSlabBytes(const KernelSpec &spec);

/// The TMA swizzle of a D slab of `slabBytes`: the slab's own span (32, 64 or
/// 128 bytes), none for an odd number of 16-byte columns, whose rows, an odd
/// multiple of 16 bytes apart, put a warp's 8 stmatrix rows in 8 different
/// 4-bank groups.
unsigned outputSlabSwizzleBytes(unsigned slabBytes);

/// sm_90a: whether the last epilogue chunk overlaps the one before
/// (KernelPlan::chunksOverlap): chunk_n does not divide tile.n.
bool lastChunkOverlaps(const KernelSpec &spec);

/// Whether the problem's D is column-major: layout.d col on sm_90a (the
/// runtime maps a row-major D onto such a kernel transposed).
bool problemDColumnMajor(const KernelSpec &spec);

/// Whether the kernel itself stores D column-major: problemDColumnMajor
/// without split_k (whose slices store row-major f32 partial sums).
bool storesDColumnMajor(const KernelSpec &spec);

/// The fewest output columns a slab of `d` holds on `target`: what tile.n and
/// epilogue.chunk_n must be multiples of (16 for a 16-bit or f32 D on sm_90a).
unsigned minSlabColumns(ScalarType d, Target target);

/// Whether an sm_90a kernel of `spec` can take a tile.n with an odd number of
/// 8-column blocks (152 = 19 x 8) and epilogue chunks that do not divide
/// tile.n: 16-bit operands, a row-major 16-bit D stored by TMA in slabs of 8
/// columns, cluster.m 1.
bool takesOddN8Blocks(const KernelSpec &spec);

/// What tile.n and epilogue.chunk_n must be multiples of on sm_90a: 8 where
/// takesOddN8Blocks, else the slab's fewest columns (16).
unsigned tileNStep(const KernelSpec &spec);

/// sm_100a: TMEM columns per consumer accumulator: tmem_columns, or tile.n
/// rounded up to a power of two (at least 32).
unsigned tmemColumnsPerConsumer(const KernelSpec &spec);

/// Registers per thread a CTA of `threads` is launched with when `ctasPerSm`
/// of them share an SM's 65536: in whole steps of 8, at most 256.
/// setmaxnreg moves registers between a CTA's warpgroups within this pool.
unsigned launchedRegistersPerThread(unsigned ctasPerSm, unsigned threads);

const char *toString(MemSpace s);
const char *toString(OperandMajor m);
const char *toString(ProtocolBarrier b);

} // namespace gemmgen

#endif // GEMMGEN_KERNELPLAN_H

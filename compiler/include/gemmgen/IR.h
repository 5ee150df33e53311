//===- IR.h - The Kernel IR: roles, buffers, barriers, async ops -*- C++ -*-===//
//
// A lowered kernel is a set of typed objects (buffers, barriers, pipeline
// states) and one small structured program per warp role. The IR has three
// consumers, which is why it exists:
//   - the textual printer (`gemmgen emit --print-ir`, golden tests),
//   - the CPU simulator, which executes every role of every CTA as an actor
//     with real mbarrier semantics,
//   - the target printers (sm_90a today, sm_100a next), one emitX() per op.
//
// Ops have fixed meanings (no general expression language): the tile being
// processed, the k-block index and the role instance (consumer warpgroup)
// are implicit loop variables that every consumer of the IR knows.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_IR_H
#define GEMMGEN_IR_H

#include "gemmgen/KernelABI.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Spec.h"

#include <string>
#include <vector>

namespace gemmgen {
namespace ir {

// sm_100a semantics (Kernel::target == SM100a; lowered by LoweringSm100.cpp).
//
// Tiles. A cluster of `ctaGroup` CTAs (the CTA pair) walks cluster tiles of
// (consumers × ctaGroup × tileM) × tileN outputs. Consumer c's accumulator in
// CTA r holds D rows (um·C·G + c·G + r)·tileM + [0, tileM) and all tileN
// columns un·tileN + [0, tileN) of cluster tile (um, un).
//
// Buffers. smemA: tileM × tileK per stage, one instance per consumer (this
// CTA's A block of that consumer). smemB: (tileN / ctaGroup) × tileK per
// stage: this CTA's half of the B rows; the pair MMA reads both halves.
// acc: MemSpace::Tensor, tileM lanes × tileN columns per consumer, at column
// offset c × Kernel::tmemColumnsPerConsumer. smemD: tileM × epilogueChunkN
// per consumer.
//
// TmaLoad (scope Leader, parts = ctaGroup): CTA r loads its own box (A of
// instance `instance`: rows as above; B: rows un·tileN + r·tileN/G) into its
// own stage, and the transaction bytes complete on the *leader* CTA's
// barrier slot. With ctaGroup 1 the scope is Local.
//
// Mma (role leaderCtaOnly with ctaGroup 2; issued by one elected thread):
// for every CTA r of the pair, acc_r[inst] (+)= smemA_r[stage][inst] ·
// [smemB_0[stage]; smemB_1[stage]]^T; the first k-block of a tile
// overwrites. Its completion is observed only through MmaCommitArrive.
//
// LoadAcc copies the instance's accumulator columns [chunk·chunkN, +chunkN)
// (chunk 0 and chunkN = tileN when there is no ForEachChunk) into the
// thread's registers; StoreAcc on sm_100a converts those registers (not the
// TMEM accumulator) into the staging buffer. TmaStore writes the staging
// tile at the consumer's D rows (above) and columns un·tileN + chunk·chunkN.
//
// Arrive with scope Leader and Exec::All: every thread of the instance
// arrives once on the leader CTA's barrier (the seed's ld2mma remote view).
// ArriveExpectTx with leaderCtaOnly: only the leader CTA's producer arms the
// barrier, with the bytes of both CTAs' loads (the loads may land first: the
// transaction count may go below zero within a phase, as PTX allows).

using gemmgen::MemSpace;
/// Scales: blockwise fp8's per-k-block scales (plan.scalesInSmem), copied
/// into smemScales on the stage's full barrier.
enum class Operand { A, B, D, C, Scales };

/// Storage that roles hand to each other: SMEM operand stages, accumulators,
/// output staging. The plan's buffers, offsets included (KernelPlan.h).
using Buffer = BufferPlan;

/// An array of `slots` barriers of one kind. `arriveCount` and `txBytes` are
/// what one phase needs to complete; the phase bit flips when it does.
struct Barrier {
  std::string name;
  BarrierKind kind = BarrierKind::Mbarrier;
  unsigned slots = 1;
  unsigned arriveCount = 1;
  unsigned txBytes = 0;         ///< Tma kind: bytes per phase, all CTAs' writes into this CTA
  std::string signaller, waiter; ///< role names: who arrives, who waits
  unsigned namedId = 0;         ///< Named kind: hardware barrier id (first of `slots`)
  unsigned namedThreads = 0;    ///< Named kind: participating threads
  unsigned offset = 0;          ///< mbarrier kinds: bytes from the aligned SMEM base
};

/// A (stage, phase) cursor over a ring of `depth` slots, owned by one role
/// instance. advance() moves to the next slot and flips the phase on wrap.
struct PipelineState {
  std::string name;
  unsigned depth = 1;
  unsigned initialPhase = 0; ///< parity the first wait uses
};

/// Which threads of a role instance execute an op.
enum class Exec {
  All,      ///< every thread of the instance (warp-collective ops)
  Elected   ///< one elected thread of the instance
};

/// Which CTAs of the cluster an arrive or a load reaches.
enum class CtaScope {
  Local,     ///< this CTA only
  Cluster,   ///< every CTA of the cluster (remote arrive / multicast)
  Leader     ///< the cluster's (or CTA pair's) first CTA
};

enum class FenceKind {
  ProxyAsync,     ///< generic-proxy SMEM writes before an async-proxy read
  MbarrierInit,   ///< barrier inits visible cluster-wide
  MmaOperands,    ///< wgmma.fence: registers/SMEM ready for the MMA
  TcgenBeforeSync,///< sm_100a tcgen05.fence::before_thread_sync: this thread's tcgen05
                  ///< ops (e.g. a finished tcgen05.ld) ordered before the next sync/arrive
  TcgenAfterSync  ///< sm_100a tcgen05.fence::after_thread_sync: tcgen05 ops after a
                  ///< wait/sync ordered after what that sync observed
};

enum class OpKind {
  ForEachTile,   ///< persistent scheduler: body runs once per output tile
  ForK,          ///< body runs once per k-block of the tile
  IfNotFirstK,   ///< body runs when the k-block index is > 0
  ForEachChunk,  ///< body runs once per epilogue chunk of Kernel::epilogueChunkN columns
  Wait,          ///< wait barrier[state.stage] for parity state.phase
  Arrive,        ///< arrive on barrier[state.stage] (count 1) in `scope` CTAs
  ArriveExpectTx,///< arrive + expect txBytes on barrier[state.stage]
  TmaLoad,       ///< async copy of one operand box into buffer[state.stage]; operand C:
                 ///< C's epilogue chunk (the consumer's rows, the chunk's columns) into the
                 ///< instance's staging buffer, completing on barrier[instance]
  Mma,           ///< acc (+)= A-stage · B-stage^T over one k-block
  MmaCommit,     ///< close the group of MMAs issued so far
  MmaWait,       ///< wait until at most `count` MMA groups are pending
  Advance,       ///< state.advance()
  StoreAcc,      ///< D = chain(α·acc (+ β·C, the staging buffer's values, when β ≠ 0)) in
                 ///< D's type, written to the staging buffer; Kernel::epilogueChain's ops
                 ///< apply per element at its D row and column (a `residual` step adds
                 ///< β·C at its place in the chain instead of before it)
  Fence,         ///< memory/proxy fence of `fence` kind
  NamedBarrierSync, ///< bar.sync barrier.namedId + instance % slots, barrier.namedThreads
  TmaStore,      ///< async store of the staging buffer to D at the tile
  TmaStoreCommit,///< close the group of TMA stores
  TmaStoreWait,  ///< wait until the staging buffer may be written again
  // --- sm_100a (appended; see "sm_100a semantics" below) ---
  MmaCommitArrive,///< tcgen05.commit: barrier[slot] gets one arrival, in every CTA of
                  ///< `ctaMask` (0: this CTA), once every MMA this thread issued so far
                  ///< has completed
  LoadAcc,       ///< tcgen05.ld of the instance's accumulator columns of the current
                 ///< epilogue chunk (TMEM -> the thread's registers) + tcgen05.wait::ld
  // --- K = 0 (appended) ---
  IfAnyK,        ///< body runs once when the tile has k-blocks (K > 0): releases what they used
  IfNoK,         ///< body runs once when the tile has no k-block (K = 0): no MMA wrote
                 ///< the accumulators, whose first MMA would have overwritten them
  ZeroAcc,       ///< the values store_acc reads become 0: sm_90a the wgmma accumulator
                 ///< registers of `acc`; sm_100a the registers load_acc filled
  // --- α/β with C (appended) ---
  IfBeta,        ///< body runs when the launch's β ≠ 0 (C is read); the body is
                 ///< uniform across every thread of the launch
  // --- fp8 blockwise scaling (appended) ---
  PromoteAcc,    ///< acc += partial sum of this k-block · sA(row, kb) · sB(col block, kb) on
                 ///< the CUDA cores (a zero_acc starts the tile); reads the partial sum the
                 ///< k-block's `mma partial` wrote, so every MMA group must be done
  // --- stream-K (appended; SchedulePlan::streamK) ---
  IfSkPartial,   ///< body runs when this CTA's share of the unit does not start at its
                 ///< first k-block: another CTA finishes the tile
  IfSkFinish,    ///< body runs when it does (the unit's epilogue is this CTA's)
  StorePartial,  ///< the instance's accumulators to this CTA's partial-sum slot in the
                 ///< workspace, then its flag released (every MMA group must be done)
  AddPartials,   ///< for every later CTA whose share starts inside this unit: wait for its
                 ///< flag (acquire), then acc += its partial sum (the instance's rows)
  // --- ping-pong consumers (appended; SchedulePlan::pingpong) ---
  IfOtherTurn,   ///< body runs when the tile is another consumer's turn (the CTA's n-th
                 ///< tile belongs to consumer n % consumers); the rest of the tile's body
                 ///< is then skipped: the tile is that consumer's alone
  SkipK,         ///< state advances once per k-block of the tile: past the stages the
                 ///< turn's owner reads and releases
  NamedBarrierArrive, ///< bar.arrive barrier.namedId + instance % slots, namedThreads: this
                 ///< instance's threads count toward the phase without waiting for it
  // --- blockwise scaling with two partial sums (appended; KernelPlan::partialBuffers 2):
  // the tile's k-blocks go in pairs from its first one ---
  IfSecondOfPair,///< body runs when the k-block is the second of its pair (its index from
                 ///< the tile's first is odd): the first one's sum is promoted beside it
  IfPairEnds,    ///< body runs when the k-block ends its pair: the second, or the tile's
                 ///< last k-block when that one is a pair's first
  // --- loads before the CTA's barrier (appended; SchedulePlan::earlyLoads) ---
  EarlyLoads     ///< first in the producer's body: when the CTA's walk starts with a tile
                 ///< (its first slot is not a hole), body runs once per k-block of that
                 ///< tile's first min(k-blocks, state depth), before the CTA's barrier (on
                 ///< sm_90a by the thread that initialises the barriers). The body is the
                 ///< k-block's loads without the empty-slot wait (a fresh ring's first
                 ///< waits pass at once) and ends in the state's advance; the role's ForK
                 ///< then starts after those k-blocks on that tile
};

struct Op {
  OpKind kind;
  Exec exec = Exec::All;
  std::string barrier;   ///< Wait/Arrive/ArriveExpectTx/NamedBarrierSync
  std::string state;     ///< pipeline state selecting slot and phase
  std::string buffer;    ///< TmaLoad destination, StoreAcc/TmaStore staging
  std::string acc;       ///< Mma/StoreAcc/LoadAcc/ZeroAcc accumulator buffer
  std::string a, b;      ///< Mma operand buffers
  Operand operand = Operand::A;  ///< TmaLoad/TmaStore tensor
  CtaScope scope = CtaScope::Local;
  FenceKind fence = FenceKind::ProxyAsync;
  unsigned count = 0;    ///< MmaWait: groups left pending
  /// Mma: into the k-block's partial sum (every k-block overwrites it),
  /// which PromoteAcc then scales into `acc` (types.scaling: blockwise).
  bool partial = false;
  /// PromoteAcc: the previous k-block's partial sum (its group done, the
  /// current one's may still run: mma_wait pending<=1); false: this k-block's,
  /// every group done.
  bool previousK = false;
  unsigned txBytes = 0;  ///< ArriveExpectTx
  /// TmaLoad: the slice of the box this CTA loads, as (part, parts): rows
  /// [part·rows/parts, (part+1)·rows/parts) of the stage. parts > 1 with
  /// scope Cluster is a multicast split across the cluster (part = CTA rank).
  unsigned parts = 1;
  std::vector<Op> body;  ///< ForEachTile/ForK/ForEachChunk and the If* ops
  // --- sm_100a fields (appended) ---
  /// Wait/Arrive/MmaCommitArrive: the slot is the role instance (the consumer
  /// index, the seed's `mma2ld.wait(wg_id, ...)`); `state` gives only the phase.
  bool slotIsInstance = false;
  /// MmaCommitArrive: CTAs of the pair whose barrier gets the arrival (bit r =
  /// CTA rank r, the seed's cta_mask); 0 = this CTA only (no multicast).
  unsigned ctaMask = 0;
  /// Executed only in the leader CTA (rank 0) of the CTA pair (`if cbx == 0`).
  bool leaderCtaOnly = false;
  /// TmaLoad: the buffer instance written (consumer c's A block); -1 = the
  /// executing role instance.
  int instance = -1;
  /// NamedBarrierSync inside if_other_turn: the slot is the turn's owner
  /// (whose arrive it meets), not the executing instance.
  bool slotIsTurnOwner = false;
};

/// One warp role: `instances` copies of `body` (e.g. two consumer
/// warpgroups), each `warpsPerInstance` warps, starting at `firstWarp`.
struct Role {
  std::string name;
  std::vector<RoleTask> tasks;
  unsigned firstWarp = 0;
  unsigned warpsPerInstance = 1;
  unsigned instances = 1;
  /// Warps the role owns (a whole warpgroup for setmaxnreg); only the first
  /// `warpsPerInstance * instances` run `body`, the rest idle.
  unsigned ownedWarps = 1;
  unsigned registers = 0;   ///< setmaxnreg value (0 = unchanged)
  bool registersIncrease = false;
  std::vector<PipelineState> states;
  std::vector<Op> body;
  /// sm_100a: the role runs only in the leader CTA of the CTA pair (the MMA
  /// issuer with cta_group 2); in the other CTA its warps idle.
  bool leaderCtaOnly = false;
  unsigned threadsPerInstance() const { return warpsPerInstance * 32; }
};

/// The scheduler's walk over output tiles.
struct Schedule {
  SchedulerKind kind = SchedulerKind::Persistent;
  RasterOrder raster = RasterOrder::AlongM;
  unsigned group = 8;
  /// The walk covers a table of problems (grouped GEMM), not one problem.
  bool grouped = false;
  /// K slices summed after the kernel (scheduler.split_k; 1: none).
  unsigned splitK = 1;
};

struct Kernel {
  std::string name;
  std::string sourcePath;
  Target target = Target::SM90a;
  ScalarType aType = ScalarType::F16, bType = ScalarType::F16,
             dType = ScalarType::F16, accType = ScalarType::F32;
  unsigned tileM = 0, tileN = 0, tileK = 0;
  unsigned clusterM = 1, clusterN = 1;
  unsigned ctaGroup = 1;
  unsigned depth = 1;
  unsigned consumers = 1;
  /// Instruction shape of one MMA (wgmma: m64 nN k16).
  unsigned mmaM = 64, mmaN = 0, mmaK = 16;
  Schedule schedule;
  bool epilogueOverlap = false;
  /// Output columns staged and stored per epilogue chunk (divides tileN).
  unsigned epilogueChunkN = 0;
  /// epilogue.chain: what store_acc applies to alpha·acc (+ beta·C) per
  /// element, in order, before converting to D's type (empty: nothing).
  std::vector<EpilogueStep> epilogueChain;
  std::vector<Buffer> buffers;
  std::vector<Barrier> barriers;
  std::vector<Role> roles;
  /// sm_100a: TMEM columns allocated per CTA (tcgen05.alloc, a power of two
  /// from 32 to 512) and the column offset between consumers' accumulators.
  unsigned tmemColumns = 0;
  unsigned tmemColumnsPerConsumer = 0;
  /// The plan the kernel was lowered from (declared barrier values applied):
  /// the shared-memory layout, the protocol's numbers, the schedule.
  KernelPlan plan;

  unsigned threadsPerBlock() const;
  unsigned sharedMemBytes() const { return plan.sharedMemBytes; }
  const Buffer *findBuffer(const std::string &name) const;
  const Barrier *findBarrier(const std::string &name) const;
  const Role *findRole(const std::string &name) const;
};

const char *toString(OpKind k);
const char *toString(CtaScope s);
const char *toString(FenceKind f);
const char *toString(Operand o);

} // namespace ir
} // namespace gemmgen

#endif // GEMMGEN_IR_H

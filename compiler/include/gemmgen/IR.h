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
#include "gemmgen/Spec.h"

#include <string>
#include <vector>

namespace gemmgen {
namespace ir {

enum class MemSpace { Shared, Tensor, Registers };
enum class Operand { A, B, D };

/// Storage that roles hand to each other: SMEM operand stages, accumulators,
/// output staging. Sizes are per CTA, per stage, per role instance.
struct Buffer {
  std::string name;
  MemSpace space = MemSpace::Shared;
  ScalarType type = ScalarType::F16;
  unsigned rows = 0, cols = 0; ///< one stage of one instance
  unsigned stages = 1;         ///< ring slots
  unsigned instances = 1;      ///< one copy per role instance (consumer)
  unsigned swizzleBytes = 0;   ///< SMEM swizzle (128 for TMA/MMA tiles)
  unsigned bytesPerStage() const { return rows * cols * sizeInBytes(type); }
  unsigned totalBytes() const { return bytesPerStage() * stages * instances; }
};

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
  MmaOperands     ///< wgmma.fence: registers/SMEM ready for the MMA
};

enum class OpKind {
  ForEachTile,   ///< persistent scheduler: body runs once per output tile
  ForK,          ///< body runs once per k-block of the tile
  IfNotFirstK,   ///< body runs when the k-block index is > 0
  ForEachChunk,  ///< body runs once per epilogue chunk of Kernel::epilogueChunkN columns
  Wait,          ///< wait barrier[state.stage] for parity state.phase
  Arrive,        ///< arrive on barrier[state.stage] (count 1) in `scope` CTAs
  ArriveExpectTx,///< arrive + expect txBytes on barrier[state.stage]
  TmaLoad,       ///< async copy of one operand box into buffer[state.stage]
  Mma,           ///< acc (+)= A-stage · B-stage^T over one k-block
  MmaCommit,     ///< close the group of MMAs issued so far
  MmaWait,       ///< wait until at most `count` MMA groups are pending
  Advance,       ///< state.advance()
  StoreAcc,      ///< convert acc to D's type and write it to the staging buffer
  Fence,         ///< memory/proxy fence of `fence` kind
  NamedBarrierSync, ///< bar.sync barrier.namedId + instance, barrier.namedThreads
  TmaStore,      ///< async store of the staging buffer to D at the tile
  TmaStoreCommit,///< close the group of TMA stores
  TmaStoreWait   ///< wait until the staging buffer may be written again
};

struct Op {
  OpKind kind;
  Exec exec = Exec::All;
  std::string barrier;   ///< Wait/Arrive/ArriveExpectTx/NamedBarrierSync
  std::string state;     ///< pipeline state selecting slot and phase
  std::string buffer;    ///< TmaLoad destination, StoreAcc/TmaStore staging
  std::string acc;       ///< Mma/StoreAcc accumulator buffer
  std::string a, b;      ///< Mma operand buffers
  Operand operand = Operand::A;  ///< TmaLoad/TmaStore tensor
  CtaScope scope = CtaScope::Local;
  FenceKind fence = FenceKind::ProxyAsync;
  unsigned count = 0;    ///< MmaWait: groups left pending
  unsigned txBytes = 0;  ///< ArriveExpectTx
  /// TmaLoad: the slice of the box this CTA loads, as (part, parts): rows
  /// [part·rows/parts, (part+1)·rows/parts) of the stage. parts > 1 with
  /// scope Cluster is a multicast split across the cluster (part = CTA rank).
  unsigned parts = 1;
  std::vector<Op> body;  ///< ForEachTile/ForK/IfNotFirstK/ForEachChunk
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
  unsigned threadsPerInstance() const { return warpsPerInstance * 32; }
};

/// The scheduler's walk over output tiles.
struct Schedule {
  SchedulerKind kind = SchedulerKind::Persistent;
  RasterOrder raster = RasterOrder::AlongM;
  unsigned group = 8;
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
  std::vector<Buffer> buffers;
  std::vector<Barrier> barriers;
  std::vector<Role> roles;

  unsigned threadsPerBlock() const;
  unsigned sharedMemBytes() const;  ///< buffers + barriers + alignment slack
  const Buffer *findBuffer(const std::string &name) const;
  const Barrier *findBarrier(const std::string &name) const;
  const Role *findRole(const std::string &name) const;
};

const char *toString(OpKind k);
const char *toString(MemSpace s);
const char *toString(CtaScope s);
const char *toString(FenceKind f);
const char *toString(Operand o);

} // namespace ir
} // namespace gemmgen

#endif // GEMMGEN_IR_H

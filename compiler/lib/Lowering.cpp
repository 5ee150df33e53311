//===- Lowering.cpp - KernelSpec to Kernel IR ------------------------------===//
//
// Turns a checked spec into one structured program per role over the
// buffers and barriers of its plan (KernelPlan.cpp derives the protocol;
// the checks have already rejected any declared barrier value that
// disagrees with it).
//
// sm_90a protocol (one CTA; with a 2×1 cluster every CTA runs the same):
//
//   producer (1 warp, elected lane)        consumer[c] (1 warpgroup each)
//   for each tile, for each k-block:        for each tile, for each k-block:
//     wait   empty[s] (phase starts at 1)     wait  full[s] (phase starts at 0)
//     arrive full[s] + expect_tx bytes        mma   acc[c] += A[s] · B[s]^T
//     tma    A -> smemA[s], B -> smemB[s]     keep `mma_in_flight` groups
//                                             arrive empty[s-1] (every CTA
//                                               whose multicast fills it)
//                                           epilogue: acc -> smem -> TMA store
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Lowering.h"

#include "LoweringCommon.h"

#include <cassert>

using namespace gemmgen;
using namespace gemmgen::ir;
using namespace gemmgen::lowering;

namespace {

/// Op builders for the sm_90a programs (makeOp, loop, advance: LoweringCommon.h).
Op waitOn(const std::string &barrier, const std::string &state, Exec exec) {
  Op op = makeOp(OpKind::Wait, exec);
  op.barrier = barrier;
  op.state = state;
  return op;
}

Op arriveOn(const std::string &barrier, const std::string &state, CtaScope scope) {
  Op op = makeOp(OpKind::Arrive, Exec::Elected);
  op.barrier = barrier;
  op.state = state;
  op.scope = scope;
  return op;
}

unsigned specRegisters(const RoleSpec *role, unsigned fallback) {
  return role && role->registers.value ? role->registers.value : fallback;
}

class Sm90Lowering {
public:
  explicit Sm90Lowering(const KernelSpec &spec) : spec(spec) {}

  Kernel run() {
    Kernel k = kernelFromPlan(spec, derivePlan(spec));
    k.mmaM = 64;
    k.mmaN = k.tileN;
    k.mmaK = k.plan.mmaK;
    k.epilogueOverlap = spec.epilogue.overlap.value;
    k.roles.push_back(producerRole(k));
    k.roles.push_back(consumerRole(k));
    return k;
  }

private:
  bool multicastB(const Kernel &k) const { return k.clusterM > 1; }
  bool tmaStore() const { return spec.epilogue.store.value == EpilogueStore::Tma; }

  /// The phase a role's cursor over `which` starts at (the waiter's).
  static unsigned waiterPhase(const Kernel &k, ProtocolBarrier which) {
    return k.plan.findBarrier(which)->waiterPhase;
  }

  std::string producerName() const {
    const RoleSpec *r = spec.roleDoing(RoleTask::TmaLoad);
    return r ? r->name.value : "producer";
  }
  std::string consumerName() const {
    const RoleSpec *r = spec.roleDoing(RoleTask::Mma);
    return r ? r->name.value : "consumer";
  }

  Role producerRole(const Kernel &k) const {
    const std::string full = k.barriers[0].name, empty = k.barriers[1].name;
    Role r;
    r.name = producerName();
    r.tasks = {RoleTask::TmaLoad};
    r.firstWarp = 0;
    r.warpsPerInstance = 1;
    r.instances = 1;
    r.ownedWarps = 4; // setmaxnreg acts on whole warpgroups
    r.registers = specRegisters(spec.roleDoing(RoleTask::TmaLoad), 40);
    r.registersIncrease = false;
    // Buffers start empty: the producer's first wait on each slot must pass,
    // so its cursor starts at phase 1 (the barrier sits in phase 0).
    r.states = {{"load", k.depth, waiterPhase(k, ProtocolBarrier::Empty)}};

    Op loadA = makeOp(OpKind::TmaLoad, Exec::Elected);
    loadA.operand = Operand::A;
    loadA.buffer = "smemA";
    loadA.barrier = full;
    loadA.state = "load";
    Op loadB = makeOp(OpKind::TmaLoad, Exec::Elected);
    loadB.operand = Operand::B;
    loadB.buffer = "smemB";
    loadB.barrier = full;
    loadB.state = "load";
    if (multicastB(k)) {
      loadB.scope = CtaScope::Cluster;
      loadB.parts = k.clusterM;
    }
    Op expect = makeOp(OpKind::ArriveExpectTx, Exec::Elected);
    expect.barrier = full;
    expect.state = "load";
    expect.txBytes = k.barriers[0].txBytes;

    std::vector<Op> kBody = {waitOn(empty, "load", Exec::Elected), expect, loadA, loadB};
    if (k.plan.scalesInSmem) { // the k-block's scales land with its operands
      Op loadScales = loadA;
      loadScales.operand = Operand::Scales;
      loadScales.buffer = "smemScales";
      kBody.push_back(loadScales);
    }
    kBody.push_back(advance("load"));
    r.body = {loop(OpKind::ForEachTile, {loop(OpKind::ForK, kBody)})};
    if (k.plan.schedule.earlyLoads) { // the first tile's first k-blocks, without their waits
      std::vector<Op> early;
      for (const Op &op : kBody)
        if (op.kind != OpKind::Wait)
          early.push_back(op);
      r.body.insert(r.body.begin(), loop(OpKind::EarlyLoads, std::move(early)));
      r.body.front().state = "load";
    }
    return r;
  }

  Role consumerRole(const Kernel &k) const {
    const std::string full = k.barriers[0].name, empty = k.barriers[1].name;
    const RoleSpec *spec_ = spec.roleDoing(RoleTask::Mma);
    Role r;
    r.name = consumerName();
    r.tasks = {RoleTask::Mma, RoleTask::Epilogue};
    r.firstWarp = 4;
    r.warpsPerInstance = 4;
    r.instances = k.consumers;
    r.ownedWarps = 4 * k.consumers;
    r.registers = specRegisters(spec_, 232);
    r.registersIncrease = true;
    r.states = {{"read", k.depth, waiterPhase(k, ProtocolBarrier::Full)}, {"release", k.depth, 0}};
    if (k.plan.findBarrier(ProtocolBarrier::CLoad))
      r.states.push_back({"cload", 1, waiterPhase(k, ProtocolBarrier::CLoad)});

    CtaScope releaseScope = multicastB(k) ? CtaScope::Cluster : CtaScope::Local;
    // Blockwise scaling promotes each k-block's partial sum once its wgmmas
    // are done: at once with one buffer (none in flight), or, with two, in
    // pairs of k-blocks: the first's sum is promoted while the second's
    // wgmmas run into the other buffer, the second's after every group is
    // done. A pair ends with nothing in flight: ptxas keeps the wgmmas
    // asynchronous in that form, and serialises every one of them (C7514)
    // when a group stays in flight from one k-block to the next.
    const bool blockwise = k.plan.blockwiseScales;
    const bool pairs = blockwise && k.plan.partialBuffers == 2;
    unsigned inFlight = blockwise ? 0 : spec.pipeline.mmaInFlight.value;

    Op mma = makeOp(OpKind::Mma);
    mma.acc = "acc";
    mma.a = "smemA";
    mma.b = "smemB";
    mma.state = "read";
    mma.partial = blockwise;
    Op commit = makeOp(OpKind::MmaCommit);
    Op waitMma = makeOp(OpKind::MmaWait);
    waitMma.count = inFlight;
    Op fence = makeOp(OpKind::Fence);
    fence.fence = FenceKind::MmaOperands;

    std::vector<Op> kBody = {waitOn(full, "read", Exec::All), fence, mma, commit};
    Op promote = makeOp(OpKind::PromoteAcc);
    promote.acc = "acc";
    std::vector<Op> release = {arriveOn(empty, "release", releaseScope), advance("release")};
    if (pairs) {
      Op waitFirst = waitMma, waitAll = waitMma;
      waitFirst.count = 1;
      waitAll.count = 0;
      Op previous = promote;
      previous.previousK = true;
      std::vector<Op> second = {waitFirst, previous}, ends = {waitAll, promote};
      second.insert(second.end(), release.begin(), release.end());
      ends.insert(ends.end(), release.begin(), release.end());
      kBody.push_back(advance("read"));
      kBody.push_back(loop(OpKind::IfSecondOfPair, second));
      kBody.push_back(loop(OpKind::IfPairEnds, ends));
    } else {
      kBody.push_back(waitMma);
      if (blockwise)
        kBody.push_back(promote);
      if (inFlight == 0) {
        // The stage just read is finished: release it at once.
        kBody.insert(kBody.end(), release.begin(), release.end());
      } else {
        // The newest group may still read its stage: release the one before.
        kBody.push_back(loop(OpKind::IfNotFirstK, release));
      }
      kBody.push_back(advance("read"));
    }

    std::vector<Op> tileBody;
    if (blockwise) { // promote_acc adds every k-block's sum to accumulators that start at 0
      Op zero = makeOp(OpKind::ZeroAcc);
      zero.acc = "acc";
      tileBody.push_back(zero);
    }
    // Ping-pong (the plan has an order barrier): the other consumer's tile
    // is skipped in step with the ring, and waited out on the order barrier:
    // its owner has passed its last full-barrier wait when it arrives, so
    // this consumer's next waits see their own phases, not one two behind.
    const BarrierPlan *order = k.plan.findBarrier(ProtocolBarrier::Order);
    if (order) {
      Op skipRead = makeOp(OpKind::SkipK), skipRelease = makeOp(OpKind::SkipK);
      skipRead.state = "read";
      skipRelease.state = "release";
      Op awaitOwner = makeOp(OpKind::NamedBarrierSync);
      awaitOwner.barrier = order->name;
      awaitOwner.slotIsTurnOwner = true;
      tileBody.insert(tileBody.begin(),
                      loop(OpKind::IfOtherTurn, {skipRead, skipRelease, awaitOwner}));
    }
    tileBody.push_back(loop(OpKind::ForK, kBody));
    if (order) {
      Op handOver = makeOp(OpKind::NamedBarrierArrive); // this tile's waits are all passed
      handOver.barrier = order->name;
      tileBody.push_back(handOver);
    }
    if (inFlight != 0) {
      // The last stage read is released after the last group finished; a
      // tile without k-blocks (K = 0, or a grouped problem's) read none, and
      // an arrival then would free a slot the ring has not filled. The wait
      // itself is on every path: under the condition, ptxas cannot tie it to
      // the k-loop and serialises every wgmma of the kernel (C7518, C7517).
      Op drain = makeOp(OpKind::MmaWait);
      drain.count = 0;
      tileBody.push_back(drain);
      tileBody.push_back(loop(OpKind::IfAnyK, release));
    }
    // K = 0: no MMA ran, and the first one of a tile is what overwrites the
    // accumulators (scale-d = 0); zero them instead. Off the k > 0 path.
    Op zero = makeOp(OpKind::ZeroAcc);
    zero.acc = "acc";
    tileBody.push_back(loop(OpKind::IfNoK, {zero}));
    if (k.plan.schedule.streamK()) {
      // Stream-K: a share that starts inside the unit hands its partial sum
      // over; the share holding the unit's first k-block adds the later ones'
      // and stores the tile.
      Op store = makeOp(OpKind::StorePartial);
      store.acc = "acc";
      Op add = makeOp(OpKind::AddPartials);
      add.acc = "acc";
      tileBody.push_back(loop(OpKind::IfSkPartial, {store}));
      std::vector<Op> finish = {add};
      appendEpilogue(k, finish);
      tileBody.push_back(loop(OpKind::IfSkFinish, finish));
    } else {
      appendEpilogue(k, tileBody);
    }

    r.body = {loop(OpKind::ForEachTile, tileBody)};
    if (tmaStore()) {
      Op drainStores = makeOp(OpKind::TmaStoreWait, Exec::Elected);
      drainStores.count = 0;
      r.body.push_back(drainStores);
    }
    return r;
  }

  void appendEpilogue(const Kernel &k, std::vector<Op> &body) const {
    const BarrierPlan *epilogue = k.plan.findBarrier(ProtocolBarrier::Epilogue);
    Op store = makeOp(OpKind::StoreAcc);
    store.acc = "acc";
    if (!tmaStore()) {
      store.buffer = ""; // direct global stores from registers
      body.push_back(store);
      return;
    }
    store.buffer = "smemD";
    Op sync = makeOp(OpKind::NamedBarrierSync);
    sync.barrier = epilogue->name;
    // The previous tile's TMA store must have finished reading the staging
    // tile before it is overwritten (overlap: that store ran during this
    // tile's main loop).
    // With two staging tiles (epilogue.buffers) only the store of the chunk
    // before the previous one must be done: it used the tile this chunk writes.
    Op waitStore = makeOp(OpKind::TmaStoreWait, Exec::Elected);
    waitStore.count = k.epilogueOverlap ? k.plan.epilogueBuffers - 1 : 0;
    Op fence = makeOp(OpKind::Fence);
    fence.fence = FenceKind::ProxyAsync;
    Op tma = makeOp(OpKind::TmaStore, Exec::Elected);
    tma.operand = Operand::D;
    tma.buffer = "smemD";
    Op commit = makeOp(OpKind::TmaStoreCommit, Exec::Elected);
    // β ≠ 0: C's chunk lands in the (free) staging tile, store_acc reads it
    // back and overwrites it with α·acc + β·C.
    Op readC = readCChunk(*k.plan.findBarrier(ProtocolBarrier::CLoad));
    Op chunks = makeOp(OpKind::ForEachChunk);
    if (k.epilogueOverlap) {
      chunks.body = {waitStore, sync, readC, store, fence, sync, tma, commit};
    } else {
      chunks.body = {readC, store, fence, sync, tma, commit, waitStore, sync};
    }
    body.push_back(chunks);
  }

  const KernelSpec &spec;
};

} // namespace

Kernel gemmgen::lowerToIR(const KernelSpec &spec) {
  if (spec.target.value == Target::SM100a)
    return lowerToIRSm100(spec);
  return Sm90Lowering(spec).run();
}

KernelABI gemmgen::deriveKernelABI(const Kernel &k) {
  KernelABI abi;
  abi.kernelName = k.name;
  abi.target = k.target;
  abi.aType = k.aType;
  abi.bType = k.bType;
  abi.dType = k.dType;
  abi.threadsPerBlock = k.threadsPerBlock();
  abi.sharedMemBytes = k.sharedMemBytes();
  abi.clusterM = k.clusterM;
  abi.clusterN = k.clusterN;
  abi.tileM = k.tileM;
  abi.tileN = k.tileN;
  abi.tileK = k.tileK;
  abi.consumers = k.consumers;
  abi.persistent = k.plan.schedule.kind == SchedulerKind::Persistent || k.plan.schedule.streamK();
  abi.unitRows = k.plan.schedule.unitRows;
  abi.unitCols = k.plan.schedule.unitCols;
  abi.ctasPerUnit = k.plan.schedule.ctasPerUnit;
  abi.raster = k.plan.schedule.raster;
  abi.group = k.plan.schedule.group;
  abi.grouped = k.schedule.grouped;
  abi.splitK = k.plan.schedule.splitK;
  abi.splitOut = k.plan.schedule.splitOut;
  abi.simtNarrow = k.plan.schedule.simtNarrow;
  // 128B swizzle: 64 16-bit elements per box row.
  abi.layoutA = k.plan.loadA.major == OperandMajor::K ? MatrixLayout::Row : MatrixLayout::Col;
  abi.layoutB = k.plan.loadB.major == OperandMajor::K ? MatrixLayout::Col : MatrixLayout::Row;
  abi.boxA = {k.plan.loadA.boxInner, k.plan.loadA.boxOuter, k.plan.loadA.swizzleBytes,
              k.plan.loadA.l2PromotionBytes};
  abi.boxB = {k.plan.loadB.boxInner, k.plan.loadB.boxOuter, k.plan.loadB.swizzleBytes,
              k.plan.loadB.l2PromotionBytes};
  const Buffer *epi = k.findBuffer("smemD");
  unsigned dRows = epi ? epi->rows : k.tileM / k.consumers;
  // One swizzled slab row of D per box: 128 bytes (128 8-bit, 64 16-bit or
  // 32 f32 columns), or 64 / 32 bytes of 16-bit or f32 columns for narrower
  // chunks, or 16 unswizzled bytes (8 16-bit columns: tiles of 8 mod 16).
  const unsigned slab = k.plan.dSlabBytes;
  abi.boxD = {slab / sizeInBytes(k.dType), dRows, outputSlabSwizzleBytes(slab)};
  // Column-major D: boxes of 64 rows of D (one 128-byte slab row) by the
  // chunk's columns. A split kernel's boxes are of its row-major f32 slices.
  abi.layoutD = k.plan.dProblemColMajor ? MatrixLayout::Col : MatrixLayout::Row;
  if (k.plan.dColMajor)
    abi.boxD = {slab / sizeInBytes(k.dType), k.epilogueChunkN, slab};
  // K is the contiguous dimension of a K-major operand only: then its rows
  // (K elements, packed) must be 16-byte multiples for TMA.
  bool kContiguous = k.plan.loadA.major == OperandMajor::K || k.plan.loadB.major == OperandMajor::K;
  abi.kAlignment = kContiguous ? 16 / sizeInBytes(k.aType) : 1;
  abi.ldAlignment = 16 / sizeInBytes(k.aType);
  // The sm_90a printer walks batch entries with 3-D maps; sm_100a does not yet.
  abi.batched = k.target == Target::SM90a;
  abi.alphaBeta = k.plan.findBarrier(ProtocolBarrier::CLoad) != nullptr;
  abi.epilogueChain = k.epilogueChain;
  abi.perTensorScales = k.plan.perTensorScales;
  abi.blockwiseScales = k.plan.blockwiseScales;
  abi.fp8Output = k.plan.fp8Output;
  abi.streamK = k.plan.schedule.streamK();
  return abi;
}

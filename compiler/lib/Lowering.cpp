//===- Lowering.cpp - KernelSpec to Kernel IR ------------------------------===//
//
// Turns a checked spec into buffers, the barrier protocol between roles and
// one structured program per role. The protocol is derived here from the
// roles, consumers and cluster; the checks (Checks.cpp) have already
// rejected any declared barrier value that disagrees with it.
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
    Kernel k = kernelFromSpec(spec);
    k.ctaGroup = 1;
    k.mmaM = 64;
    k.mmaN = k.tileN;
    k.mmaK = 16;
    k.epilogueOverlap = spec.epilogue.overlap.value;
    addBuffers(k);
    addBarriers(k);
    k.roles.push_back(producerRole(k));
    k.roles.push_back(consumerRole(k));
    return k;
  }

private:
  unsigned rowsPerConsumer(const Kernel &k) const { return k.tileM / k.consumers; }
  bool multicastB(const Kernel &k) const { return k.clusterM > 1; }
  bool tmaStore() const { return spec.epilogue.store.value == EpilogueStore::Tma; }

  void addBuffers(Kernel &k) const {
    Buffer a{"smemA", MemSpace::Shared, k.aType, k.tileM, k.tileK, k.depth, 1, 128};
    Buffer b{"smemB", MemSpace::Shared, k.bType, k.tileN, k.tileK, k.depth, 1, 128};
    Buffer acc{"acc", MemSpace::Registers, k.accType, rowsPerConsumer(k), k.tileN, 1,
               k.consumers, 0};
    k.buffers = {a, b, acc};
    if (tmaStore()) {
      // Output staging for one epilogue chunk, in 64-column slabs with 128B
      // swizzle (the TMA store box is 64 columns wide), one per consumer.
      Buffer epi{"smemD", MemSpace::Shared, k.dType, rowsPerConsumer(k), k.epilogueChunkN, 1,
                 k.consumers, 128};
      k.buffers.push_back(epi);
    }
  }

  void addBarriers(Kernel &k) const {
    const std::string producer = producerName(), consumer = consumerName();
    unsigned stageBytes = (k.tileM + k.tileN) * k.tileK * sizeInBytes(k.aType);
    // full: one expect_tx arrival by the producer; completes when all stage
    // bytes landed, including the B half that the peer CTA multicasts here.
    Barrier full{barrierName("full", BarrierKind::Tma), BarrierKind::Tma, k.depth, 1,
                 stageBytes, producer, consumer, 0, 0};
    // empty: one elected thread per consumer warpgroup, in every CTA that
    // reads the stage (the multicast source must hear from both).
    Barrier empty{barrierName("empty", BarrierKind::Mbarrier), BarrierKind::Mbarrier,
                  k.depth, k.consumers * k.clusterM, 0, consumer, producer, 0, 0};
    k.barriers = {full, empty};
    if (tmaStore()) {
      // One named barrier per consumer warpgroup guards its staging tile.
      Barrier epi{"epilogue", BarrierKind::Named, k.consumers, 128, 0, consumer,
                  consumer, 1, 128};
      k.barriers.push_back(epi);
    }
    for (Barrier &bar : k.barriers)
      applyBarrierDeclaration(bar, declaredBarrier(bar.name));
  }

  const BarrierSpec *declaredBarrier(const std::string &name) const {
    for (const BarrierSpec &b : spec.barriers)
      if (b.name.value == name)
        return &b;
    return nullptr;
  }

  /// The phase a role's cursor over `barrier` starts at: derived unless the
  /// barrier declaration gives one.
  unsigned initialPhase(const std::string &barrier, unsigned derived) const {
    const BarrierSpec *decl = declaredBarrier(barrier);
    if (decl && decl->initialPhase.given && decl->initialPhase.value)
      return *decl->initialPhase.value;
    return derived;
  }

  /// The declared name for the barrier the protocol calls `role` (spec
  /// barriers may rename full/empty, e.g. tma2mma/mma2tma as in the seed).
  std::string barrierName(const std::string &role, BarrierKind kind) const {
    // Well-known names first (the seed's tma2mma/mma2tma, or full/empty),
    // then any declared barrier by its direction.
    static const char *const fullNames[] = {"full", "tma2mma"};
    static const char *const emptyNames[] = {"empty", "mma2tma"};
    for (const BarrierSpec &b : spec.barriers)
      for (const char *known : role == "full" ? fullNames : emptyNames)
        if (b.name.value == known)
          return b.name.value;
    for (const BarrierSpec &b : spec.barriers) {
      if (b.kind.value == BarrierKind::Named || !b.from.given)
        continue;
      bool fromProducer = spec.findRole(b.from.value) == spec.roleDoing(RoleTask::TmaLoad);
      if (role == "full" && fromProducer)
        return b.name.value;
      if (role == "empty" && !fromProducer)
        return b.name.value;
    }
    return role;
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
    r.states = {{"load", k.depth, initialPhase(empty, 1)}};

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

    r.body = {loop(OpKind::ForEachTile,
                   {loop(OpKind::ForK, {waitOn(empty, "load", Exec::Elected), expect, loadA,
                                        loadB, advance("load")})})};
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
    r.states = {{"read", k.depth, initialPhase(full, 0)}, {"release", k.depth, 0}};

    CtaScope releaseScope = multicastB(k) ? CtaScope::Cluster : CtaScope::Local;
    unsigned inFlight = spec.pipeline.mmaInFlight.value;

    Op mma = makeOp(OpKind::Mma);
    mma.acc = "acc";
    mma.a = "smemA";
    mma.b = "smemB";
    mma.state = "read";
    Op commit = makeOp(OpKind::MmaCommit);
    Op waitMma = makeOp(OpKind::MmaWait);
    waitMma.count = inFlight;
    Op fence = makeOp(OpKind::Fence);
    fence.fence = FenceKind::MmaOperands;

    std::vector<Op> kBody = {waitOn(full, "read", Exec::All), fence, mma, commit, waitMma};
    std::vector<Op> release = {arriveOn(empty, "release", releaseScope), advance("release")};
    if (inFlight == 0) {
      // The stage just read is finished: release it at once.
      kBody.insert(kBody.end(), release.begin(), release.end());
    } else {
      // The newest group may still read its stage: release the one before.
      kBody.push_back(loop(OpKind::IfNotFirstK, release));
    }
    kBody.push_back(advance("read"));

    std::vector<Op> tileBody = {loop(OpKind::ForK, kBody)};
    if (inFlight != 0) {
      Op drain = makeOp(OpKind::MmaWait);
      drain.count = 0;
      tileBody.push_back(drain);
      tileBody.insert(tileBody.end(), release.begin(), release.end());
    }
    appendEpilogue(k, tileBody);

    r.body = {loop(OpKind::ForEachTile, tileBody)};
    if (tmaStore()) {
      Op drainStores = makeOp(OpKind::TmaStoreWait, Exec::Elected);
      drainStores.count = 0;
      r.body.push_back(drainStores);
    }
    return r;
  }

  void appendEpilogue(const Kernel &k, std::vector<Op> &body) const {
    Op store = makeOp(OpKind::StoreAcc);
    store.acc = "acc";
    if (!tmaStore()) {
      store.buffer = ""; // direct global stores from registers
      body.push_back(store);
      return;
    }
    store.buffer = "smemD";
    Op sync = makeOp(OpKind::NamedBarrierSync);
    sync.barrier = "epilogue";
    // The previous tile's TMA store must have finished reading the staging
    // tile before it is overwritten (overlap: that store ran during this
    // tile's main loop).
    Op waitStore = makeOp(OpKind::TmaStoreWait, Exec::Elected);
    waitStore.count = 0;
    Op fence = makeOp(OpKind::Fence);
    fence.fence = FenceKind::ProxyAsync;
    Op tma = makeOp(OpKind::TmaStore, Exec::Elected);
    tma.operand = Operand::D;
    tma.buffer = "smemD";
    Op commit = makeOp(OpKind::TmaStoreCommit, Exec::Elected);
    Op chunks = makeOp(OpKind::ForEachChunk);
    if (k.epilogueOverlap) {
      chunks.body = {waitStore, sync, store, fence, sync, tma, commit};
    } else {
      chunks.body = {store, fence, sync, tma, commit, waitStore, sync};
    }
    body.push_back(chunks);
  }

  const KernelSpec &spec;
};

} // namespace

unsigned gemmgen::epilogueChunkColumns(const KernelSpec &spec) {
  if (spec.epilogue.chunkN.value)
    return spec.epilogue.chunkN.value;
  // Default: 128 columns (two 64-column TMA boxes) keeps the staging tile
  // small enough for a 4-stage 128x256 ring within 227 KB.
  unsigned n = spec.tile.n.value;
  return n % 128 == 0 ? 128 : n;
}

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
  abi.persistent = k.schedule.kind == SchedulerKind::Persistent;
  // 128B swizzle: 64 16-bit elements per box row.
  abi.boxA = {k.tileK, k.tileM, 128};
  abi.boxB = {k.tileK, k.tileN / k.clusterM, 128};
  const Buffer *epi = k.findBuffer("smemD");
  unsigned dRows = epi ? epi->rows : k.tileM / k.consumers;
  abi.boxD = {64, dRows, 128};
  abi.kAlignment = 16 / sizeInBytes(k.aType);
  abi.ldAlignment = 16 / sizeInBytes(k.aType);
  return abi;
}

//===- LoweringSm100.cpp - KernelSpec to Kernel IR for sm_100a -------------===//
//
// lowerToIRSm100() turns a checked sm_100a spec into the seed's Blackwell
// kernel (hgemm_v7 / v8 / v9): three roles on fixed warps and four barriers
// between them, plus the writeback's named barrier and, for β ≠ 0, its
// C-load barrier (C's chunk into the staging tile before store_acc).
//
//   producer (1 warp, elected lane)     tma2mma (tma)      mma (1 warp per consumer,
//   for each tile, k-block:           ───────────────▶     elected lane; leader CTA
//     wait mma2tma[s] (phase 1)                            only with cta_group 2)
//     TMA A blocks + B half into      ◀───────────────     for each tile:
//       this CTA, bytes complete on     mma2tma (commit,     wait ld2mma[c] (phase 1)
//       the leader's tma2mma[s]         cta_mask)            for each k-block:
//     leader: arrive.expect_tx                                 wait tma2mma[s] (phase 0)
//       (both CTAs' bytes)                                     tcgen05.mma (cta_group)
//                                                              commit -> mma2tma[s]
//   writeback (1 warpgroup per consumer)  mma2ld (commit)    commit -> mma2ld[c]
//   for each tile:                      ◀───────────────
//     wait mma2ld[c] (phase 0)          ───────────────▶
//     per EPI_N chunk: tcgen05.ld,        ld2mma (mbarrier,
//       convert, SMEM, TMA store          128 × cta_group
//       (named barrier 10 + c)            arrivals on the
//     arrive ld2mma[c] on the leader      leader's barrier)
//
// Declared barrier values replace derived ones (as on sm_90a), so that a
// deliberately wrong protocol reaches the simulator when the protocol
// checks are off. The field-by-field meaning of the ops is in IR.h
// ("sm_100a semantics").
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Lowering.h"

#include "LoweringCommon.h"

#include <algorithm>
#include <cassert>

using namespace gemmgen;
using namespace gemmgen::ir;
using namespace gemmgen::lowering;

namespace {

Op fence(FenceKind kind, Exec exec = Exec::All) {
  Op op = makeOp(OpKind::Fence, exec);
  op.fence = kind;
  return op;
}

class Sm100Lowering {
public:
  explicit Sm100Lowering(const KernelSpec &spec) : spec(spec) {}

  Kernel run() {
    Kernel k = kernelFromPlan(spec, derivePlan(spec));
    // One tcgen05.mma (kind::f16, or kind::f8f6f4 for 8-bit operands): M =
    // tile.m per CTA of the pair, N = tile.n, K = 32 bytes of each operand.
    k.mmaM = k.tileM * k.ctaGroup;
    k.mmaN = k.tileN;
    k.mmaK = k.plan.mmaK;
    k.epilogueOverlap = false; // the seed waits for every TMA store (checked)
    k.roles.push_back(producerRole(k));
    k.roles.push_back(mmaRole(k));
    k.roles.push_back(writebackRole(k));
    return k;
  }

private:
  // --- names -----------------------------------------------------------------

  const RoleSpec *roleDoing(RoleTask t) const { return spec.roleDoing(t); }
  std::string roleName(RoleTask t, const char *fallback) const {
    const RoleSpec *r = roleDoing(t);
    return r ? r->name.value : fallback;
  }
  std::string producerName() const { return roleName(RoleTask::TmaLoad, "producer"); }
  std::string mmaName() const { return roleName(RoleTask::Mma, "mma"); }
  std::string writebackName() const { return roleName(RoleTask::Epilogue, "writeback"); }

  /// The phase a role's cursor over `which` starts at (the waiter's) and
  /// the CTAs a commit to it reaches: the plan's, declarations applied.
  static unsigned phase(const Kernel &k, ProtocolBarrier which) {
    return k.plan.findBarrier(which)->waiterPhase;
  }
  static unsigned ctaMask(const Kernel &k, ProtocolBarrier which) {
    return k.plan.findBarrier(which)->ctaMask;
  }

  // --- objects ---------------------------------------------------------------

  unsigned firstWarp(RoleTask t, unsigned derived) const {
    const RoleSpec *r = roleDoing(t);
    if (r && r->firstWarp.given && r->firstWarp.value)
      return *r->firstWarp.value;
    return derived;
  }

  /// Default placement, the seed's: writeback warpgroups 0..C-1, then one
  /// warpgroup holding the MMA warps (0..C-1) and the producer (warp 3).
  unsigned defaultMmaWarp(const Kernel &k) const { return 4 * k.consumers; }

  // --- roles -----------------------------------------------------------------

  Role producerRole(const Kernel &k) const {
    const Barrier &full = k.barriers[0], &empty = k.barriers[1];
    bool pair = k.ctaGroup > 1;
    Role r;
    r.name = producerName();
    r.tasks = {RoleTask::TmaLoad};
    r.firstWarp = firstWarp(RoleTask::TmaLoad, defaultMmaWarp(k) + 3);
    r.warpsPerInstance = 1;
    r.instances = 1;
    r.ownedWarps = 1;
    // The stages start empty: the first wait on mma2tma passes.
    r.states = {{"tma_ps", k.depth, phase(k, ProtocolBarrier::Empty)}};

    Op wait = makeOp(OpKind::Wait, Exec::Elected);
    wait.barrier = empty.name;
    wait.state = "tma_ps";
    std::vector<Op> kBody = {wait};
    auto load = [&](Operand which, const char *buffer, int instance) {
      Op op = makeOp(OpKind::TmaLoad, Exec::Elected);
      op.operand = which;
      op.buffer = buffer;
      op.barrier = full.name;
      op.state = "tma_ps";
      op.instance = instance;
      op.parts = k.ctaGroup;
      op.scope = pair ? CtaScope::Leader : CtaScope::Local;
      return op;
    };
    for (unsigned c = 0; c < k.consumers; ++c)
      kBody.push_back(load(Operand::A, "smemA", int(c)));
    kBody.push_back(load(Operand::B, "smemB", -1));
    // The seed arms the barrier after issuing the loads (`if cbx == 0:
    // tma2mma_cta0.arrive(stage, bytes)`).
    Op expect = makeOp(OpKind::ArriveExpectTx, Exec::Elected);
    expect.barrier = full.name;
    expect.state = "tma_ps";
    expect.txBytes = full.txBytes;
    expect.leaderCtaOnly = pair;
    kBody.push_back(expect);
    kBody.push_back(advance("tma_ps"));
    r.body = {loop(OpKind::ForEachTile, {loop(OpKind::ForK, kBody)})};
    return r;
  }

  Role mmaRole(const Kernel &k) const {
    const Barrier &full = k.barriers[0], &empty = k.barriers[1], &ready = k.barriers[2],
                  &freed = k.barriers[3];
    bool pair = k.ctaGroup > 1;
    Role r;
    r.name = mmaName();
    r.tasks = {RoleTask::Mma};
    r.firstWarp = firstWarp(RoleTask::Mma, defaultMmaWarp(k));
    r.warpsPerInstance = 1;
    r.instances = k.consumers;
    r.ownedWarps = k.consumers;
    r.leaderCtaOnly = pair;
    r.states = {{"mma_ps", k.depth, phase(k, ProtocolBarrier::Full)},
                {"ld_ps", 1, phase(k, ProtocolBarrier::AccFree)}};

    Op waitFree = makeOp(OpKind::Wait, Exec::Elected);
    waitFree.barrier = freed.name;
    waitFree.state = "ld_ps";
    waitFree.slotIsInstance = true;
    Op waitFull = makeOp(OpKind::Wait, Exec::Elected);
    waitFull.barrier = full.name;
    waitFull.state = "mma_ps";
    Op mma = makeOp(OpKind::Mma, Exec::Elected);
    mma.acc = "acc";
    mma.a = "smemA";
    mma.b = "smemB";
    mma.state = "mma_ps";
    Op release = makeOp(OpKind::MmaCommitArrive, Exec::Elected);
    release.barrier = empty.name;
    release.state = "mma_ps";
    release.ctaMask = ctaMask(k, ProtocolBarrier::Empty);
    Op done = makeOp(OpKind::MmaCommitArrive, Exec::Elected);
    done.barrier = ready.name;
    done.state = "ld_ps";
    done.slotIsInstance = true;
    done.ctaMask = ctaMask(k, ProtocolBarrier::AccReady);

    std::vector<Op> kBody = {waitFull, mma, release, advance("mma_ps")};
    r.body = {loop(OpKind::ForEachTile,
                   {waitFree, advance("ld_ps"),
                    // the writeback's tcgen05.ld of the last tile are ordered
                    // before this tile's MMAs overwrite the accumulator
                    fence(FenceKind::TcgenAfterSync, Exec::Elected),
                    loop(OpKind::ForK, kBody), done})};
    return r;
  }

  Role writebackRole(const Kernel &k) const {
    const Barrier &ready = k.barriers[2], &freed = k.barriers[3], &epi = k.barriers[4];
    bool pair = k.ctaGroup > 1;
    Role r;
    r.name = writebackName();
    r.tasks = {RoleTask::Epilogue};
    r.firstWarp = firstWarp(RoleTask::Epilogue, 0);
    r.warpsPerInstance = 4;
    r.instances = k.consumers;
    r.ownedWarps = 4 * k.consumers;
    r.states = {{"wb_ps", 1, phase(k, ProtocolBarrier::AccReady)},
                {"cload", 1, phase(k, ProtocolBarrier::CLoad)}};

    Op wait = makeOp(OpKind::Wait);
    wait.barrier = ready.name;
    wait.state = "wb_ps";
    wait.slotIsInstance = true;
    Op load = makeOp(OpKind::LoadAcc);
    load.acc = "acc";
    Op store = makeOp(OpKind::StoreAcc);
    store.acc = "acc";
    store.buffer = "smemD";
    Op sync = makeOp(OpKind::NamedBarrierSync);
    sync.barrier = epi.name;
    Op tma = makeOp(OpKind::TmaStore, Exec::Elected);
    tma.operand = Operand::D;
    tma.buffer = "smemD";
    Op commit = makeOp(OpKind::TmaStoreCommit, Exec::Elected);
    Op drain = makeOp(OpKind::TmaStoreWait, Exec::Elected);
    drain.count = 0;
    Op release = makeOp(OpKind::Arrive, Exec::All);
    release.barrier = freed.name;
    release.state = "wb_ps";
    release.slotIsInstance = true;
    release.scope = pair ? CtaScope::Leader : CtaScope::Local;
    std::vector<Op> freeAcc = {fence(FenceKind::TcgenBeforeSync), release};
    // β ≠ 0: C's chunk first, into the staging tile the previous chunk's
    // drained store left free; store_acc reads it back.
    Op readC = readCChunk(*k.plan.findBarrier(ProtocolBarrier::CLoad));
    std::vector<Op> storeChunk = {readC, store, fence(FenceKind::ProxyAsync), sync, tma, commit,
                                  drain, sync};

    // K = 0: no MMA wrote TMEM this tile; the loaded registers become zeros.
    Op zero = makeOp(OpKind::ZeroAcc);
    zero.acc = "acc";
    Op zeroIfNoK = loop(OpKind::IfNoK, {zero});

    std::vector<Op> tile = {wait, advance("wb_ps"), fence(FenceKind::TcgenAfterSync)};
    if (k.epilogueChunkN == k.tileN) {
      // hgemm_v7: the whole accumulator fits the registers; it is released
      // as soon as it is loaded, before the conversion and the store.
      tile.push_back(load);
      tile.push_back(zeroIfNoK);
      tile.insert(tile.end(), freeAcc.begin(), freeAcc.end());
      tile.insert(tile.end(), storeChunk.begin(), storeChunk.end());
    } else {
      // hgemm_v8/v9: EPI_N columns at a time; released after the last chunk.
      std::vector<Op> chunk = {load, zeroIfNoK};
      chunk.insert(chunk.end(), storeChunk.begin(), storeChunk.end());
      tile.push_back(loop(OpKind::ForEachChunk, chunk));
      tile.insert(tile.end(), freeAcc.begin(), freeAcc.end());
    }
    r.body = {loop(OpKind::ForEachTile, tile)};
    return r;
  }

  const KernelSpec &spec;
};

} // namespace

Kernel gemmgen::lowerToIRSm100(const KernelSpec &spec) {
  assert(spec.target.value == Target::SM100a);
  return Sm100Lowering(spec).run();
}

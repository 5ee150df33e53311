//===- Engine.cpp - The simulator's interpreter and scheduler ------------===//
//
// Setup of one interleaving (CTAs, storage, barriers, one actor per role
// instance), the interpreter that walks each actor through its structured
// ops one leaf op per step, and the seeded scheduler that picks the next
// actor or async completion.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include "gemmgen/device/tile_schedule.cuh"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gemmgen {
namespace sim {

SeedResult Machine::run(uint64_t seed) {
  SeedResult r;
  r.seed = seed;
  try {
    init();
    loop();
    checkFlagsTaken();
    checkResult();
  } catch (Stop &s) {
    r.verdict = s.verdict;
    r.message = std::move(s.message);
    r.details = std::move(s.details);
  }
  r.steps = steps;
  return r;
}

void Machine::init() {
  for (const Barrier &b : k.barriers)
    if (b.kind != BarrierKind::Named && b.arriveCount == 0)
      fail(SimVerdict::Invalid, "barrier " + b.name + " has an arrival count of 0");
  ctas.resize(p.ctas);
  for (unsigned c = 0; c < p.ctas; ++c) {
    Cta &cta = ctas[c];
    cta.cluster = c / p.clusterSize;
    cta.rank = c % p.clusterSize;
    cta.rankM = cta.rank % k.clusterM;
    cta.rankN = cta.rank / k.clusterM;
    for (const ScheduledUnit &s : p.walks[cta.cluster]) {
      TileRef t;
      t.ct = int(s.slot);
      t.entry = s.entry;
      t.kBegin = s.kBegin;
      t.kEnd = s.kEnd >= 0 ? s.kEnd : int(p.entries[s.entry].kBlocks);
      if (sm100()) { // the CTA pair shares the cluster tile (IR.h, sm_100a semantics)
        t.tm = s.m;
        t.tn = s.n;
      } else {
        t.tm = s.m * k.clusterM + cta.rankM;
        t.tn = s.n * k.clusterN + cta.rankN;
      }
      cta.tiles.push_back(t);
    }
    for (const Buffer &b : k.buffers) {
      std::vector<Region> regs(std::max(1u, b.instances) * std::max(1u, b.stages));
      for (Region &r : regs) {
        r.rows = b.rows;
        r.cols = b.cols;
        r.data.assign(size_t(b.rows) * b.cols, NAN); // poison: never written
        r.tags.assign(b.rows, Tag());
        if (sm100() && b.space != MemSpace::Shared)
          r.chunksRead.assign(chunkCount(), false);
      }
      cta.regions.push_back(std::move(regs));
    }
    for (const Barrier &b : k.barriers) {
      std::vector<Mbar> slots(b.kind == BarrierKind::Named ? 0 : b.slots);
      for (Mbar &m : slots)
        m.pending = b.arriveCount;
      cta.bars.push_back(std::move(slots));
    }
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  asyncBias = 0.1 + 0.8 * unit(rng);
  longLatency = 0.3 * unit(rng);
  for (unsigned c = 0; c < p.ctas; ++c)
    for (unsigned r = 0; r < k.roles.size(); ++r)
      for (unsigned i = 0; i < k.roles[r].instances; ++i) {
        // sm_100a: a leader-only role (the pair's MMA issuer) has no actor
        // in the peer CTA: its warps idle there.
        if (k.roles[r].leaderCtaOnly && ctas[c].rank != 0)
          continue;
        Actor a;
        a.id = int(actors.size());
        a.cta = c;
        a.role = r;
        a.instance = i;
        for (const PipelineState &s : k.roles[r].states) {
          Cursor cur;
          cur.depth = std::max(1u, s.depth);
          cur.phase = s.initialPhase & 1;
          a.cursors.push_back(cur);
        }
        // The role's body: a one-shot frame with no loop variable.
        a.stack.push_back(Frame{&k.roles[r].body, 0, OpKind::IfNotFirstK, 0, 1});
        a.weight = 0.2 + 0.8 * unit(rng);
        actors.push_back(std::move(a));
      }
  // Which roles arrive on each barrier of each CTA, once per phase.
  signallers.resize(p.ctas);
  for (unsigned c = 0; c < p.ctas; ++c)
    for (size_t b = 0; b < k.barriers.size(); ++b)
      signallers[c].push_back(expectedSignallers(c, int(b), false));
  D.assign(p.dElements, NAN);
  written.assign(p.dElements, false);
  partials.assign(p.ctas, std::vector<std::vector<float>>(std::max(1u, k.consumers)));
  partialFlags.assign(p.ctas, std::vector<bool>(std::max(1u, k.consumers), false));
  partialTaken.assign(p.ctas, std::vector<bool>(std::max(1u, k.consumers), false));
  for (Actor &a : actors)
    settle(a);
}

/// Moves `a` to its next leaf op, entering and leaving loops.
void Machine::settle(Actor &a) {
  const unsigned tileCount = ctas[a.cta].tiles.size();
  while (!a.stack.empty()) {
    Frame &f = a.stack.back();
    if (f.pc == f.body->size()) {
      if (++f.iter < f.count) {
        f.pc = 0;
        enterIteration(a, f);
        continue;
      }
      OpKind kind = f.kind;
      unsigned count = f.count;
      a.stack.pop_back();
      if (kind == OpKind::ForEachTile) {
        a.tilesDone = count;
        a.inTile = false;
        a.k = -1;
      }
      if (kind == OpKind::ForK)
        a.k = -1;
      if (kind == OpKind::EarlyLoads) {
        a.earlyK = int(count);
        a.inTile = false;
        a.k = -1;
      }
      if (kind == OpKind::IfOtherTurn) {
        // The other consumer's tile: the rest of the tile's body is not run.
        a.stack.back().pc = a.stack.back().body->size();
        continue;
      }
      if (kind == OpKind::ForEachChunk)
        a.chunk = -1;
      if (!a.stack.empty())
        a.stack.back().pc++;
      continue;
    }
    const Op &op = (*f.body)[f.pc];
    if (op.kind == OpKind::ForEachTile || op.kind == OpKind::ForK ||
        op.kind == OpKind::IfNotFirstK || op.kind == OpKind::ForEachChunk ||
        op.kind == OpKind::IfAnyK || op.kind == OpKind::IfNoK || op.kind == OpKind::IfBeta ||
        op.kind == OpKind::IfSkPartial || op.kind == OpKind::IfSkFinish ||
        op.kind == OpKind::IfOtherTurn || op.kind == OpKind::IfSecondOfPair ||
        op.kind == OpKind::IfPairEnds || op.kind == OpKind::EarlyLoads) {
      // The unit's k-blocks this CTA computes: [kBegin, kEnd) (all of them
      // but under stream-K).
      const int kBegin = a.tile.kBegin, kEnd = a.tile.kEnd;
      unsigned count = 0;
      if (op.kind == OpKind::ForEachTile)
        count = tileCount;
      else if (op.kind == OpKind::ForK)
        count = a.inTile ? unsigned(kEnd - kBegin - earlySkip(a)) : 0;
      else if (op.kind == OpKind::EarlyLoads)
        count = earlyCount(a, op);
      else if (op.kind == OpKind::ForEachChunk)
        count = a.inTile ? chunkCount() : 0;
      else if (op.kind == OpKind::IfNoK)
        count = a.inTile && kEnd == kBegin ? 1 : 0;
      else if (op.kind == OpKind::IfAnyK)
        count = a.inTile && kEnd > kBegin ? 1 : 0;
      else if (op.kind == OpKind::IfBeta)
        count = a.inTile && p.beta != 0.0f ? 1 : 0;
      else if (op.kind == OpKind::IfSkPartial)
        count = a.inTile && kBegin > 0 ? 1 : 0;
      else if (op.kind == OpKind::IfSkFinish)
        count = a.inTile && kBegin == 0 ? 1 : 0;
      else if (op.kind == OpKind::IfOtherTurn)
        count = a.inTile && turnOwner(a) != a.instance ? 1 : 0;
      else if (op.kind == OpKind::IfSecondOfPair)
        count = (a.k - kBegin) % 2 == 1 ? 1 : 0;
      else if (op.kind == OpKind::IfPairEnds)
        count = (a.k - kBegin) % 2 == 1 || a.k == kEnd - 1 ? 1 : 0;
      else
        count = a.k > kBegin ? 1 : 0;
      if (count == 0) {
        f.pc++;
        continue;
      }
      a.stack.push_back(Frame{&op.body, 0, op.kind, 0, count});
      enterIteration(a, a.stack.back());
      continue;
    }
    a.op = &op;
    return;
  }
  a.op = nullptr;
  a.finished = true;
  onActorFinished(a);
}

void Machine::enterIteration(Actor &a, const Frame &f) {
  if (f.kind == OpKind::ForEachTile) {
    if (f.iter > 0)
      a.tilesDone++;
    a.tile = ctas[a.cta].tiles[f.iter];
    a.turn = f.iter;
    a.inTile = true;
    a.k = -1;
    // A new tile: no MMA has written the accumulators yet. (sm_100a tags
    // the TMEM accumulators with their tile instead: other roles of the
    // CTA enter tiles while the MMA warp still works on an earlier one.)
    for (size_t b = 0; b < k.buffers.size() && !sm100(); ++b)
      if (k.buffers[b].space != MemSpace::Shared)
        for (Region &r : ctas[a.cta].regions[b])
          r.accWritten = false;
  } else if (f.kind == OpKind::ForK) {
    a.k = a.tile.kBegin + earlySkip(a) + int(f.iter);
  } else if (f.kind == OpKind::EarlyLoads) {
    a.tile = ctas[a.cta].tiles[0]; // earlyCount: the walk's first slot is a tile
    a.inTile = true;
    a.k = a.tile.kBegin + int(f.iter);
  } else if (f.kind == OpKind::ForEachChunk) {
    a.chunk = int(f.iter);
  }
}

unsigned Machine::earlyCount(Actor &a, const Op &op) {
  const Cta &cta = ctas[a.cta];
  // The printers' first slot is the cluster's index (a persistent walk's
  // start) or a stream-K walk's first step; a hole there starts the walk
  // later and nothing loads early.
  int first = int(cta.cluster);
  if (k.plan.schedule.streamK()) {
    schedule::SkWalk w = schedule::sk_walk(a.cta, p.ctas, p.skSlots, p.kBlocks);
    int kb0 = 0, kb1 = 0;
    if (!schedule::sk_next(w, p.ctas, p.kBlocks, first, kb0, kb1))
      return 0;
  }
  if (cta.tiles.empty() || cta.tiles[0].ct != first)
    return 0;
  return std::min(unsigned(cta.tiles[0].kEnd - cta.tiles[0].kBegin), cursor(a, op).depth);
}

int Machine::earlySkip(const Actor &a) const { return a.inTile && a.turn == 0 ? a.earlyK : 0; }

void Machine::onActorFinished(Actor &a) {
  a.inTile = false;
  for (const Actor &o : actors)
    if (o.cta == a.cta && !o.finished)
      return;
  // The whole CTA has exited: nothing may still read or write its SMEM.
  for (const Event &e : events) {
    if (e.done || e.kind == EventKind::Commit)
      continue;
    unsigned cta = e.kind == EventKind::Load ? e.dstCta : actors[e.actor].cta;
    if (!e.pairCtas.empty() &&
        std::find(e.pairCtas.begin(), e.pairCtas.end(), a.cta) != e.pairCtas.end())
      cta = a.cta; // the pair MMA reads this CTA's stages too
    if (cta != a.cta)
      continue;
    int buf = e.kind == EventKind::Mma ? e.aBuf : e.buf;
    int reg = e.kind == EventKind::Mma ? e.aRegion : e.region;
    fail(SimVerdict::Race,
         "race: CTA " + std::to_string(a.cta) + " exited while " + describeEvent(e) +
             " still accesses " + regionName(buf, reg, cta),
         {"every role of CTA " + std::to_string(a.cta) +
          " finished with that async operation in flight; wait for it (mma_wait 0 / "
          "tma_store_wait 0) before the role ends"});
  }
}

bool Machine::canRun(Actor &a) {
  if (a.finished)
    return false;
  const Op &op = *a.op;
  switch (op.kind) {
  case OpKind::Wait:
    if (k.barriers[barrierIndex(a, op)].kind == BarrierKind::Named)
      fail(SimVerdict::Invalid, "invalid IR: wait on named barrier " + op.barrier);
    return waitPasses(a, op);
  case OpKind::NamedBarrierSync:
    return !a.namedWaiting || ctas[a.cta].named[a.namedId].generation != a.namedGen;
  case OpKind::MmaWait:
    return pendingMmaGroups(a) <= op.count;
  case OpKind::TmaStoreWait:
    return storeGroupsDoneButNewest(a, op.count);
  case OpKind::AddPartials:
    return partialsReady(a);
  default:
    return true;
  }
}

/// Executes the actor's current op (it is runnable) and moves on.
void Machine::step(Actor &a) {
  const Op &op = *a.op;
  switch (op.kind) {
  case OpKind::Wait:
  case OpKind::MmaWait:
  case OpKind::TmaStoreWait:
    // Runnable means satisfied. A TMA store's completion already marked
    // its staging tile: the other warps learn of it only through bar.sync.
    break;
  case OpKind::Arrive:
    doArrive(a, op);
    break;
  case OpKind::ArriveExpectTx:
    doArriveExpectTx(a, op);
    break;
  case OpKind::TmaLoad:
    doTmaLoad(a, op);
    break;
  case OpKind::Mma:
    doMma(a, op);
    break;
  case OpKind::MmaCommit:
    a.mmaGroupEnds.push_back(a.mmaIssued);
    break;
  case OpKind::Advance:
    advanceCursor(cursor(a, op), 1);
    break;
  case OpKind::SkipK:
    advanceCursor(cursor(a, op), unsigned(a.tile.kEnd - a.tile.kBegin));
    break;
  case OpKind::NamedBarrierArrive:
    doNamedArrive(a, op);
    break;
  case OpKind::StoreAcc:
    doStoreAcc(a, op);
    break;
  case OpKind::Fence:
    if (op.fence == FenceKind::ProxyAsync)
      forEachOwnSmem(a, [](Region &r) { r.unfenced = false; });
    break;
  case OpKind::NamedBarrierSync:
    if (!doNamedSync(a, op))
      return; // arrived; now blocked until the barrier completes
    break;
  case OpKind::TmaStore:
    doTmaStore(a, op);
    break;
  case OpKind::TmaStoreCommit:
    a.storeGroups.push_back(a.openStores);
    a.openStores.clear();
    break;
  case OpKind::MmaCommitArrive:
    doCommitArrive(a, op);
    break;
  case OpKind::LoadAcc:
    doLoadAcc(a, op);
    break;
  case OpKind::ZeroAcc:
    doZeroAcc(a, op);
    break;
  case OpKind::StorePartial:
    doStorePartial(a, op);
    break;
  case OpKind::AddPartials:
    doAddPartials(a, op);
    break;
  case OpKind::PromoteAcc:
    // The MMA's completion applied the block's scales (Problem::blockScale);
    // what is checked here is that the partial sum was complete when read:
    // every MMA done, or (the previous k-block's sum) all but this k-block's.
    if (std::any_of(a.mmaQueue.begin(), a.mmaQueue.end(),
                    [&](int id) { return !op.previousK || events[id].k != a.k; }))
      fail(SimVerdict::Race,
           "race: " + who(a) + " (" + where(a) + ") promotes the k-block's partial sum while " +
               describeEvent(events[a.mmaQueue.front()]) + " still writes it",
           {"wait for every MMA group (mma_wait pending<=0) before promote_acc"});
    break;
  case OpKind::ForEachTile:
  case OpKind::ForK:
  case OpKind::IfNotFirstK:
  case OpKind::ForEachChunk:
  case OpKind::IfAnyK:
  case OpKind::IfNoK:
  case OpKind::IfBeta:
  case OpKind::IfSkPartial:
  case OpKind::IfSkFinish:
  case OpKind::IfOtherTurn:
  case OpKind::IfSecondOfPair:
  case OpKind::IfPairEnds:
  case OpKind::EarlyLoads:
    assert(false && "structured ops are entered by settle()");
    break;
  }
  a.stack.back().pc++;
  settle(a);
}

/// Queues an async operation with a random latency: mostly short, now and
/// then long enough to span a whole main loop, so that slow copies, MMAs
/// and stores are explored as well as fast ones.
void Machine::addEvent(Event &e) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  uint64_t delay = unit(rng) < longLatency ? std::uniform_int_distribution<uint64_t>(0, 400)(rng)
                                           : std::uniform_int_distribution<uint64_t>(0, 8)(rng);
  e.readyAt = clock + delay;
  pending.push_back(int(events.size()));
  events.push_back(e);
}

void Machine::loop() {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> runnable, ready;
  while (true) {
    ++clock;
    runnable.clear();
    ready.clear();
    double total = 0;
    for (Actor &a : actors)
      if (canRun(a)) {
        runnable.push_back(a.id);
        total += a.weight;
      }
    size_t w = 0;
    uint64_t nextReady = UINT64_MAX;
    for (int id : pending) {
      if (events[id].done)
        continue;
      pending[w++] = id;
      const Event &e = events[id];
      if (e.kind == EventKind::Mma && actors[e.actor].mmaQueue.front() != id)
        continue; // wgmma groups complete in order
      if (e.kind == EventKind::Commit &&
          (actors[e.actor].commitQueue.front() != id || actors[e.actor].mmaCompleted < e.threshold))
        continue; // tcgen05.commit arrives after the MMAs before it, in order
      if (e.readyAt > clock) {
        nextReady = std::min(nextReady, e.readyAt);
        continue;
      }
      ready.push_back(id);
    }
    pending.resize(w);
    if (runnable.empty() && ready.empty() && nextReady != UINT64_MAX) {
      clock = nextReady - 1; // nothing to do until the next completion
      continue;
    }
    if (runnable.empty() && ready.empty()) {
      for (const Actor &a : actors)
        if (!a.finished)
          reportDeadlock();
      return;
    }
    if (++steps > maxSteps)
      fail(SimVerdict::StepLimit,
           "step limit: no verdict after " + std::to_string(maxSteps) + " scheduler steps");
    bool pickEvent = runnable.empty() || (!ready.empty() && unit(rng) < asyncBias);
    if (pickEvent) {
      int id = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng)];
      Event &e = events[id];
      e.done = true;
      switch (e.kind) {
      case EventKind::Load:
        completeLoad(e);
        break;
      case EventKind::Mma:
        completeMma(e);
        break;
      case EventKind::Store:
        completeStore(e);
        break;
      case EventKind::Commit:
        completeCommit(e);
        break;
      }
      continue;
    }
    double x = unit(rng) * total;
    int pick = runnable.back();
    for (int id : runnable) {
      x -= actors[id].weight;
      if (x < 0) {
        pick = id;
        break;
      }
    }
    step(actors[pick]);
  }
}

} // namespace sim
} // namespace gemmgen

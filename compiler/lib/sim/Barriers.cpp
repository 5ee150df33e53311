//===- Barriers.cpp - The simulator's barrier and memory model -----------===//
//
// mbarriers (phase, pending arrivals, transaction bytes, parity waits, local
// and remote arrivals), hardware named barriers (bar.sync ids and thread
// counts), the pipeline cursors that pick slots and stages, and the checks on
// storage every op shares: an MMA operand has landed and holds the right
// k-block, a staging tile is free to write.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include <algorithm>

namespace gemmgen {
namespace sim {

Cursor &Machine::cursor(Actor &a, const Op &op) {
  const Role &r = k.roles[a.role];
  for (size_t i = 0; i < r.states.size(); ++i)
    if (r.states[i].name == op.state)
      return a.cursors[i];
  fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " uses unknown pipeline state '" + op.state +
                                "' in " + toString(op.kind));
}

int Machine::barrierIndex(const Actor &a, const Op &op) {
  int b = indexOf(k.barriers, op.barrier);
  if (b < 0)
    fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " uses unknown barrier '" + op.barrier +
                                  "' in " + toString(op.kind));
  return b;
}

int Machine::bufferIndex(const Actor &a, const std::string &name, const Op &op) {
  int b = indexOf(k.buffers, name);
  if (b < 0)
    fail(SimVerdict::Invalid,
         "invalid IR: " + who(a) + " uses unknown buffer '" + name + "' in " + toString(op.kind));
  return b;
}

unsigned Machine::slotOf(const Actor &a, int bar, const Cursor &c) {
  if (c.stage >= k.barriers[bar].slots)
    fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + k.barriers[bar].name + "[" +
                                  std::to_string(c.stage) + "] but the barrier has " +
                                  std::to_string(k.barriers[bar].slots) + " slot(s)");
  return c.stage;
}

/// The barrier slot an op uses: the cursor's stage, or (sm_100a,
/// slotIsInstance) the role instance, with the phase still from the cursor.
unsigned Machine::slotFor(const Actor &a, const Op &op, int bar, const Cursor &c) {
  if (!op.slotIsInstance)
    return slotOf(a, bar, c);
  if (a.instance >= k.barriers[bar].slots)
    fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + k.barriers[bar].name + "[" +
                                  std::to_string(a.instance) +
                                  "] (its instance) but the barrier has " +
                                  std::to_string(k.barriers[bar].slots) + " slot(s)");
  return a.instance;
}

/// The barrier phase an arrival of `op` belongs to. A stage-indexed op
/// arrives in the phase its cursor's wraps say. An instance-indexed op
/// (sm_100a) is issued after its cursor advanced, so the cursor cannot
/// tell; every role arrives once per phase, so its phase is the number of
/// arrivals the actor made on that slot before.
uint64_t Machine::arrivalRound(Actor &a, const Op &op, int bar, unsigned slot, const Cursor &c) {
  if (!op.slotIsInstance)
    return c.round;
  return a.instanceArrivals[{bar, slot}]++;
}

/// Whether (actor, op) arrives on slot `slot` (false only for an op whose
/// slot is another role instance's).
bool Machine::signalsSlot(const std::pair<int, const Op *> &sg, unsigned slot) const {
  return !sg.second->slotIsInstance || actors[sg.first].instance == slot;
}

/// Arrivals one execution of `op` brings: an Arrive by every thread
/// (Exec::All, the sm_100a writeback's ld2mma release) counts each thread.
unsigned Machine::arrivalsOf(const Actor &a, const Op &op) const {
  if (op.kind == OpKind::Arrive && op.exec == Exec::All)
    return k.roles[a.role].threadsPerInstance();
  return 1;
}

int Machine::regionIndex(const Actor &a, int buf, unsigned stage, int instance) {
  const Buffer &b = k.buffers[buf];
  unsigned stages = std::max(1u, b.stages);
  if (stage >= stages)
    fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + b.name + " stage " +
                                  std::to_string(stage) + " but it has " + std::to_string(stages) +
                                  " stage(s)");
  unsigned want = instance >= 0 ? unsigned(instance) : a.instance;
  unsigned inst = b.instances > 1 ? want % b.instances : 0;
  return int(inst * stages + stage);
}

unsigned Machine::stagingStage(const Actor &a, int buf) const {
  // epilogue.buffers: chunk c of a tile stages in tile c % buffers (the
  // printer's D_BUFFERS); one staging tile otherwise.
  const unsigned stages = std::max(1u, k.buffers[buf].stages);
  return a.chunk >= 0 ? unsigned(a.chunk) % stages : 0;
}

unsigned Machine::namedHwId(const Actor &a, const Barrier &b) const {
  // An array of `slots` named barriers; instance c uses slot c mod slots.
  return b.namedId + (b.slots ? a.instance % b.slots : a.instance);
}

unsigned Machine::namedHwId(const Actor &a, const Op &op, const Barrier &b) const {
  if (!op.slotIsTurnOwner)
    return namedHwId(a, b);
  return b.namedId + (b.slots ? turnOwner(a) % b.slots : turnOwner(a));
}

unsigned Machine::turnOwner(const Actor &a) const {
  unsigned instances = std::max(1u, k.roles[a.role].instances);
  return a.turn % instances;
}

void Machine::advanceCursor(Cursor &c, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if (++c.stage == c.depth) {
      c.stage = 0;
      c.phase ^= 1;
      c.round++;
    }
}

unsigned Machine::pendingMmaGroups(Actor &a) const {
  unsigned n = 0;
  for (uint64_t end : a.mmaGroupEnds)
    n += end > a.mmaCompleted;
  return n;
}

bool Machine::storeGroupsDoneButNewest(const Actor &a, unsigned newest) const {
  // cp.async.bulk.wait_group.read N: every bulk group but the N most recent
  // has finished reading (the newest N may or may not have; completions of
  // the others in any order do not count towards N).
  const size_t older = a.storeGroups.size() > newest ? a.storeGroups.size() - newest : 0;
  for (size_t i = 0; i < older; ++i)
    for (int e : a.storeGroups[i])
      if (!events[e].done)
        return false;
  return true;
}

bool Machine::waitPasses(Actor &a, const Op &op, unsigned *slotOut) {
  int b = barrierIndex(a, op);
  const Cursor &c = cursor(a, op);
  unsigned slot = slotFor(a, op, b, c);
  if (slotOut)
    *slotOut = slot;
  const Mbar &bar = ctas[a.cta].bars[b][slot];
  // try_wait.parity P succeeds once the phase with parity P has completed,
  // i.e. while the current phase's parity differs from P.
  return (bar.phase & 1) != c.phase;
}

std::vector<unsigned> Machine::scopeCtas(const Actor &a, CtaScope scope) const {
  std::vector<unsigned> out;
  const Cta &me = ctas[a.cta];
  unsigned base = me.cluster * p.clusterSize;
  switch (scope) {
  case CtaScope::Local:
    out.push_back(a.cta);
    break;
  case CtaScope::Cluster:
    for (unsigned r = 0; r < p.clusterSize; ++r)
      out.push_back(base + r);
    break;
  case CtaScope::Leader:
    out.push_back(base);
    break;
  }
  return out;
}

/// The CTAs an arriving op reaches when `a` executes it: its scope; for
/// tcgen05.commit the CTAs of its cta_mask (0: this CTA); none for a
/// leader-only op in the peer CTA.
std::vector<unsigned> Machine::reachOf(const Actor &a, const Op &op) const {
  if (op.leaderCtaOnly && ctas[a.cta].rank != 0)
    return {};
  if (op.kind == OpKind::MmaCommitArrive) {
    if (op.ctaMask == 0)
      return {a.cta};
    std::vector<unsigned> out;
    unsigned base = ctas[a.cta].cluster * p.clusterSize;
    for (unsigned r = 0; r < p.clusterSize; ++r)
      if (op.ctaMask >> r & 1)
        out.push_back(base + r);
    return out;
  }
  return scopeCtas(a, op.scope);
}

void Machine::arrive(const Actor &a, unsigned cta, int b, unsigned slot, uint64_t round,
                     const Op &op, unsigned count) {
  const Barrier &bd = k.barriers[b];
  Mbar &bar = ctas[cta].bars[b][slot];
  std::string name = bd.name + "[" + std::to_string(slot) + "] of CTA " + std::to_string(cta);
  if (round != bar.phase) {
    std::vector<std::string> d;
    d.push_back(name + " expects " + std::to_string(bd.arriveCount) + " arrival(s) per phase (" +
                std::to_string(bar.pending) + " still pending in phase " +
                std::to_string(bar.phase) + ")");
    if (round < bar.phase) {
      d.push_back("phase " + std::to_string(round) +
                  " already completed without this "
                  "arrival: more roles arrive than the barrier's arrival count says, so "
                  "the waiter was released early");
      fail(SimVerdict::OverArrival,
           "over-arrival: " + who(a) + " (" + where(a) + ") arrived on " + name + " for phase " +
               std::to_string(round) + ", which had already completed",
           d);
    }
    d.push_back("the arrival belongs to a later phase: the barrier's earlier phase never "
                "got all its arrivals");
    fail(SimVerdict::OverArrival,
         "over-arrival: " + who(a) + " (" + where(a) + ") arrived on " + name + " for phase " +
             std::to_string(round) + " while it is still in phase " + std::to_string(bar.phase),
         d);
  }
  if (count > bar.pending)
    fail(SimVerdict::OverArrival,
         "over-arrival: " + who(a) + " (" + where(a) + ") brings " + std::to_string(count) +
             " arrivals (one per thread) to " + name + ", but only " + std::to_string(bar.pending) +
             " of its " + std::to_string(bd.arriveCount) + " remain in phase " +
             std::to_string(bar.phase),
         {"the barrier's arrival count is smaller than the threads that arrive on it in one "
          "phase: count every arriving thread, of every CTA that arrives on it"});
  bar.arrivedBy.push_back(a.id);
  bar.pending -= count;
  maybeComplete(cta, b, slot);
}

void Machine::maybeComplete(unsigned cta, int b, unsigned slot) {
  Mbar &bar = ctas[cta].bars[b][slot];
  // sm_100a: the transaction count may go below zero while arrivals are
  // pending (the peer's bytes land before the leader's expect_tx); with
  // every arrival in, more bytes landed than were announced, and the
  // phase can never complete.
  bool overDelivered = sm100() && bar.pending == 0 && bar.tx < 0;
  if (!overDelivered && (bar.pending != 0 || bar.tx != 0))
    return;
  const Barrier &desc = k.barriers[b];
  std::string name = desc.name + "[" + std::to_string(slot) + "] of CTA " + std::to_string(cta);
  if (overDelivered)
    fail(SimVerdict::TxUnderflow,
         "tx underflow: " + name + " has all its arrivals in phase " + std::to_string(bar.phase) +
             ", but its copies delivered " + std::to_string(-bar.tx) + " byte(s) more than the " +
             std::to_string(bar.expectedTx) +
             " bytes expect_tx announced (the TMA loads of "
             "one phase complete " +
             std::to_string(p.bytesPerPhase[b]) + " bytes on it)",
         {"the phase can never complete (the GPU hangs; in other interleavings it completes "
          "before every copy landed)",
          txHint(desc)});
  // More roles arrive every phase than the count: the phase completes
  // before the last of them is done, and their arrivals spill over.
  // Slot-by-instance ops (sm_100a) reach only their instance's slot.
  std::vector<std::pair<int, const Op *>> sigs;
  // Ping-pong consumers take turns: one instance of the role arrives per phase.
  for (const auto &sg : signallers[cta][b])
    if (signalsSlot(sg, slot) && !(k.plan.schedule.pingpong && actors[sg.first].instance > 0))
      sigs.push_back(sg);
  uint64_t sigArrivals = 0; // arrivals the signallers bring per phase
  for (const auto &sg : sigs)
    sigArrivals += arrivalsOf(actors[sg.first], *sg.second);
  if (sigArrivals > desc.arriveCount && sigArrivals != sigs.size()) {
    // sm_100a: every thread of the roles arrives (the writeback's ld2mma).
    std::string names, missing;
    for (const auto &sg : sigs) {
      std::string n = who(actors[sg.first]) + " (" +
                      std::to_string(arrivalsOf(actors[sg.first], *sg.second)) + ")";
      names += (names.empty() ? "" : ", ") + n;
      if (std::find(bar.arrivedBy.begin(), bar.arrivedBy.end(), sg.first) == bar.arrivedBy.end())
        missing += (missing.empty() ? "" : ", ") + n;
    }
    fail(SimVerdict::OverArrival,
         "over-arrival: " + name + " completed phase " + std::to_string(bar.phase) + " after " +
             std::to_string(desc.arriveCount) +
             " arrival(s), its arrival count, "
             "but " +
             std::to_string(sigArrivals) + " threads of " + std::to_string(sigs.size()) +
             " role instance(s) arrive on it every phase",
         {"role instances that arrive on " + desc.name + " in CTA " + std::to_string(cta) +
              " (threads): " + names,
          "not yet arrived when the phase completed: " + missing +
              "; their arrivals will "
              "count towards the next phase",
          "the waiting role (" + desc.waiter +
              ") is released while they still use what it "
              "guards: set the barrier's arrivals to " +
              std::to_string(sigArrivals) + " (every thread of every CTA that arrives)"});
  }
  if (sigs.size() > desc.arriveCount) {
    std::string names, missing;
    for (const auto &sg : sigs) {
      names += (names.empty() ? "" : ", ") + who(actors[sg.first]);
      if (std::find(bar.arrivedBy.begin(), bar.arrivedBy.end(), sg.first) == bar.arrivedBy.end())
        missing += (missing.empty() ? "" : ", ") + who(actors[sg.first]);
    }
    fail(SimVerdict::OverArrival,
         "over-arrival: " + name + " completed phase " + std::to_string(bar.phase) + " after " +
             std::to_string(desc.arriveCount) +
             " arrival(s), its arrival count, "
             "but " +
             std::to_string(sigs.size()) + " roles arrive on it every phase",
         {"roles that arrive on " + desc.name + " in CTA " + std::to_string(cta) + ": " + names,
          "not yet arrived when the phase completed: " + missing +
              "; their arrivals will "
              "count towards the next phase",
          "the waiting role (" + desc.waiter +
              ") is released while they still use the "
              "stage: set the barrier's arrivals to " +
              std::to_string(sigs.size())});
  }
  // expect_tx announced fewer bytes than the phase's copies write.
  if (desc.kind == BarrierKind::Tma && bar.expectedTx < p.bytesPerPhase[b])
    fail(SimVerdict::TxUnderflow,
         "tx underflow: " + name + " completed phase " + std::to_string(bar.phase) + " after the " +
             std::to_string(bar.expectedTx) + " bytes expect_tx announced, but the TMA loads of " +
             "one phase " + (sm100() ? "complete " : "write ") +
             std::to_string(p.bytesPerPhase[b]) +
             (sm100() ? " bytes on it" : " bytes into this CTA"),
         {txHint(desc)});
  // The phase completes. Any copy of this phase still in flight means the
  // expected byte count was too small.
  for (const Event &e : events) {
    if (e.done || e.kind != EventKind::Load || e.barCta != cta || e.barrier != b ||
        e.slot != slot || e.round != bar.phase)
      continue;
    const Barrier &bd = k.barriers[b];
    uint64_t inFlight = 0;
    for (const Event &o : events)
      if (!o.done && o.kind == EventKind::Load && o.barCta == cta && o.barrier == b &&
          o.slot == slot && o.round == bar.phase)
        inFlight += o.bytes;
    fail(SimVerdict::TxUnderflow,
         "tx underflow: " + bd.name + "[" + std::to_string(slot) + "] of CTA " +
             std::to_string(cta) + " completed phase " + std::to_string(bar.phase) + " while " +
             std::to_string(inFlight) + " bytes of its copies were in flight (" + describeEvent(e) +
             ")",
         {"expect_tx declares " + std::to_string(bd.txBytes) +
              " bytes per phase; the TMA loads of one phase write " +
              std::to_string(p.bytesPerPhase[b]) + " bytes into this CTA",
          "the waiter is released before the data landed; count every copy that "
          "signals this barrier, including the peer CTA's multicast"});
  }
  bar.phase++;
  bar.pending = k.barriers[b].arriveCount;
  bar.expectedTx = 0;
  bar.arrivedBy.clear();
}

void Machine::doArrive(Actor &a, const Op &op) {
  int b = barrierIndex(a, op);
  Cursor &c = cursor(a, op);
  unsigned slot = slotFor(a, op, b, c);
  uint64_t round = arrivalRound(a, op, b, slot, c);
  for (unsigned cta : reachOf(a, op))
    arrive(a, cta, b, slot, round, op, arrivalsOf(a, op));
}

void Machine::doArriveExpectTx(Actor &a, const Op &op) {
  int b = barrierIndex(a, op);
  Cursor &c = cursor(a, op);
  unsigned slot = slotFor(a, op, b, c);
  for (unsigned cta : reachOf(a, op)) { // none: a leader-only arm in the peer CTA
    Mbar &bar = ctas[cta].bars[b][slot];
    if (c.round == bar.phase) {
      bar.tx += op.txBytes;
      bar.expectedTx += op.txBytes;
      if (bar.tx > (1 << 20) - 1)
        fail(SimVerdict::TxOverflow, "tx overflow: " + k.barriers[b].name + "[" +
                                         std::to_string(slot) + "] of CTA " + std::to_string(cta) +
                                         " expects " + std::to_string(bar.tx) +
                                         " transaction bytes, beyond the mbarrier's 2^20-1 limit");
    }
    arrive(a, cta, b, slot, c.round, op);
  }
}

/// One group's threads reach named barrier `op` (bar.sync or bar.arrive):
/// checks the id and the groups sharing it, counts them, and completes the
/// phase when every thread it waits for is there (returns true then).
bool Machine::countNamedArrival(Actor &a, const Op &op, unsigned &id) {
  const Barrier &bd = k.barriers[barrierIndex(a, op)];
  if (bd.kind != BarrierKind::Named)
    fail(SimVerdict::Invalid, "invalid IR: " + std::string(toString(op.kind)) + " on " + bd.name +
                                  ", a " + toString(bd.kind) + " barrier");
  id = namedHwId(a, op, bd);
  if (id > 15)
    fail(SimVerdict::Invalid, who(a) + " uses named barrier id " + std::to_string(id) + " (" +
                                  bd.name + "); ids are 0..15");
  NamedHw &hw = ctas[a.cta].named[id];
  unsigned threads = k.roles[a.role].threadsPerInstance();
  if (hw.users.empty())
    hw.barrier = bd.name;
  hw.users.insert(a.id);
  if (hw.users.size() > 1) {
    unsigned total = 0;
    std::string names;
    for (int u : hw.users) {
      total += k.roles[actors[u].role].threadsPerInstance();
      names += (names.empty() ? "" : " and ") + who(actors[u]);
    }
    if (bd.namedThreads < total)
      fail(SimVerdict::Race,
           "race: named barrier id " + std::to_string(id) + " (" + bd.name + ") is shared by " +
               names + ", but one phase completes after " + std::to_string(bd.namedThreads) +
               " threads",
           {"the groups have " + std::to_string(total) +
                " threads together; warps of both "
                "count towards one phase, so a group can pass bar.sync before its own warps "
                "finished writing its staging buffer (" +
                where(a) + ")",
            "give each group its own id (id + instance, slots = number of groups)"});
  }
  if (hw.arrived == 0)
    hw.expected = bd.namedThreads;
  else if (hw.expected != bd.namedThreads)
    fail(SimVerdict::Race, "race: named barrier id " + std::to_string(id) +
                               " used with different thread counts (" +
                               std::to_string(hw.expected) + " by " + hw.barrier + ", " +
                               std::to_string(bd.namedThreads) + " by " + bd.name + ")");
  if (hw.expected == 0)
    fail(SimVerdict::Invalid, "named barrier " + bd.name + " has 0 threads");
  if (hw.arrivedNow.count(a.id))
    fail(SimVerdict::OverArrival,
         "over-arrival: " + who(a) + " (" + where(a) + ") comes to named barrier id " +
             std::to_string(id) + " (" + bd.name + ") again before the phase its earlier "
             "bar.arrive counts toward completed",
         {"its threads count toward the phase twice, so the phase completes without the group "
          "it should wait for",
          "give each hand-over direction its own id (slots = consumers), so that a group's "
          "next arrival on an id waits for the other group's sync"});
  hw.arrived += threads;
  if (hw.arrived > hw.expected)
    fail(SimVerdict::OverArrival,
         "over-arrival: " + who(a) + " (" + where(a) + ") brings " + std::to_string(threads) +
             " threads to named barrier id " + std::to_string(id) + " (" + bd.name +
             "), which completes after " + std::to_string(hw.expected) + " (" +
             std::to_string(hw.arrived - threads) + " already arrived)",
         {"a phase would complete in the middle of a group: set the barrier's thread "
          "count to the threads of the groups that sync on it"});
  if (hw.arrived == hw.expected) {
    hw.arrived = 0;
    hw.arrivedNow.clear();
    hw.generation++;
    return true;
  }
  hw.arrivedNow.insert(a.id);
  return false;
}

/// bar.sync: returns true when the actor may go on now.
bool Machine::doNamedSync(Actor &a, const Op &op) {
  if (a.namedWaiting) { // the barrier completed since we arrived
    a.namedWaiting = false;
    publishSync(a);
    return true;
  }
  unsigned id = 0;
  if (countNamedArrival(a, op, id)) {
    publishSync(a);
    return true;
  }
  a.namedWaiting = true;
  a.namedId = id;
  a.namedGen = ctas[a.cta].named[id].generation;
  return false;
}

void Machine::doNamedArrive(Actor &a, const Op &op) {
  unsigned id = 0;
  countNamedArrival(a, op, id);
}

void Machine::publishSync(Actor &a) {
  forEachOwnSmem(a, [](Region &r) {
    r.unsynced = false;
    r.drainUnpublished = false;
  });
}

/// `a`'s MMA reads rows [row0, row0 + rows) of `region` of `buf` in CTA
/// `cta`: the rows must have landed and hold (tile, k-block) `want`.
void Machine::checkOperand(Actor &a, unsigned cta, int buf, int region, unsigned row0,
                           unsigned rows, const Tag &want) {
  Region &r = ctas[cta].regions[buf][region];
  for (int w : r.pendingWrites) {
    const Event &e = events[w];
    if (e.row0 < row0 + rows && row0 < e.row0 + e.rows)
      fail(SimVerdict::Race,
           "race: " + who(a) + "'s MMA (" + where(a) + ") reads " + regionName(buf, region, cta) +
               " before the " + describeEvent(e) + " landed",
           {"the consumer passed its wait on the full barrier before the stage's bytes "
            "arrived: check the waiter's initial phase and the barrier's tx bytes"});
  }
  for (unsigned i = row0; i < row0 + rows && i < r.rows; ++i) {
    if (r.tags[i] == want)
      continue;
    std::string holds = r.tags[i].tile < 0 ? std::string("data no TMA load has written")
                                           : "tile #" + std::to_string(r.tags[i].tile) +
                                                 " k-block " + std::to_string(r.tags[i].k);
    fail(SimVerdict::Race,
         "race: " + who(a) + "'s MMA (" + where(a) + ") reads " + regionName(buf, region, cta) +
             " row " + std::to_string(i) + ", which holds " + holds + " instead of tile #" +
             std::to_string(want.tile) + " k-block " + std::to_string(want.k),
         {"the stage was not loaded for this k-block when the MMA read it (overwritten "
          "before it was read, or read before it was loaded): check the pipeline phases, "
          "arrival counts and the full barrier's tx bytes"});
  }
}

/// store_acc may write the staging tile: no TMA store still reads it, and
/// the wait for the last one was published to every warp.
void Machine::checkStagingWritable(Actor &a, int sBuf, int sReg, const Region &stg) {
  for (int rd : stg.readers)
    fail(SimVerdict::Race,
         "race: " + who(a) + " (" + where(a) + ") writes " + regionName(sBuf, sReg, a.cta) +
             " in store_acc while the " + describeEvent(events[rd]) + " still reads it",
         {"wait for the previous TMA store (tma_store_wait pending<=0) before writing "
          "the staging buffer again"});
  if (stg.drainUnpublished)
    fail(SimVerdict::Race,
         "race: " + who(a) + " (" + where(a) + ") writes " + regionName(sBuf, sReg, a.cta) +
             " in store_acc after only the elected thread waited for the previous TMA store",
         {"the other warps may write while the store still reads: put a named barrier "
          "between tma_store_wait and store_acc"});
}

bool Machine::rowsOverlap(const Event &mma, int buf, unsigned row0, unsigned rows) const {
  if (mma.aBuf == buf && mma.bBuf != buf) {
    unsigned accRows = k.buffers[mma.accBuf].rows;
    return row0 < mma.aRow0 + accRows && mma.aRow0 < row0 + rows;
  }
  return true;
}

void Machine::write(unsigned entry, unsigned row, unsigned col, float v) {
  D[p.d(entry, row, col)] = v;
  written[p.d(entry, row, col)] = true;
}

} // namespace sim
} // namespace gemmgen

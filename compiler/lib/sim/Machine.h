//===- Machine.h - One interleaving of the simulator ----------*- C++ -*-===//
//
// One Machine per interleaving. Every role instance of every CTA is an Actor
// with an explicit interpreter state (a stack of frames over the structured
// ops, its pipeline-state cursors, its open MMA and TMA-store groups). Async
// work (TMA loads, MMAs, TMA stores, tcgen05.commit arrivals) becomes an
// Event that completes when the scheduler picks it. The scheduler picks, with
// a seeded RNG, either a runnable actor (which executes one op) or a ready
// event.
//
// The class is defined by concern, one file each:
//   Engine.cpp    setup, the interpreter (loops, one op per step), scheduler
//   Barriers.cpp  barrier and memory model: mbarrier phases, arrivals and tx
//                 bytes, named barriers, slots/stages, operand and staging checks
//   Ops.cpp       the async ops, one function per op for both targets (the
//                 target only chooses geometry: multicast vs the CTA pair)
//   Reports.cpp   naming in reports, the deadlock report, the result check
//
// sm_100a kernels take the same machine (IR.h, "sm_100a semantics"): the CTA
// pair's loads and MMA, tcgen05.commit as an async arrival (EventKind::Commit),
// load_acc into the actor's registers, and the TMEM hand-off checks.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_SIM_MACHINE_H
#define GEMMGEN_SIM_MACHINE_H

#include "SimModel.h"

#include <random>

namespace gemmgen {
namespace sim {

class Machine {
public:
  Machine(const Problem &p, uint64_t seed, uint64_t maxSteps)
      : p(p), k(p.k), rng(seed), maxSteps(maxSteps) {}

  /// Runs the interleaving to its verdict.
  SeedResult run(uint64_t seed);

private:
  //===--- Engine.cpp: setup, interpreter, scheduler -----------------------===//
  void init();
  /// Moves `a` to its next leaf op, entering and leaving loops.
  void settle(Actor &a);
  void enterIteration(Actor &a, const Frame &f);
  void onActorFinished(Actor &a);
  bool canRun(Actor &a);
  /// Executes the actor's current op (it is runnable) and moves on.
  void step(Actor &a);
  void addEvent(Event &e);
  void loop();

  //===--- Barriers.cpp: barrier and memory model --------------------------===//
  Cursor &cursor(Actor &a, const Op &op);
  int barrierIndex(const Actor &a, const Op &op);
  int bufferIndex(const Actor &a, const std::string &name, const Op &op);
  unsigned slotOf(const Actor &a, int bar, const Cursor &c);
  unsigned slotFor(const Actor &a, const Op &op, int bar, const Cursor &c);
  uint64_t arrivalRound(Actor &a, const Op &op, int bar, unsigned slot, const Cursor &c);
  bool signalsSlot(const std::pair<int, const Op *> &sg, unsigned slot) const;
  unsigned arrivalsOf(const Actor &a, const Op &op) const;
  int regionIndex(const Actor &a, int buf, unsigned stage, int instance = -1);
  /// The staging buffer's stage the actor's current epilogue chunk uses.
  unsigned stagingStage(const Actor &a, int buf) const;
  unsigned namedHwId(const Actor &a, const Barrier &b) const;
  /// The hardware id an op's named barrier uses: the instance's slot, or
  /// (slotIsTurnOwner) the current tile's owner's.
  unsigned namedHwId(const Actor &a, const Op &op, const Barrier &b) const;
  unsigned pendingMmaGroups(Actor &a) const;
  /// tma_store_wait pending<=N: every store group but the N newest is done.
  bool storeGroupsDoneButNewest(const Actor &a, unsigned newest) const;
  bool waitPasses(Actor &a, const Op &op, unsigned *slotOut = nullptr);
  std::vector<unsigned> scopeCtas(const Actor &a, CtaScope scope) const;
  std::vector<unsigned> reachOf(const Actor &a, const Op &op) const;
  void arrive(const Actor &a, unsigned cta, int b, unsigned slot, uint64_t round, const Op &op,
              unsigned count = 1);
  void maybeComplete(unsigned cta, int b, unsigned slot);
  void doArrive(Actor &a, const Op &op);
  void doArriveExpectTx(Actor &a, const Op &op);
  /// bar.sync: returns true when the actor may go on now.
  bool doNamedSync(Actor &a, const Op &op);
  /// bar.sync and bar.arrive alike: the group's threads toward the phase;
  /// true when they complete it. `id` is the hardware id used.
  bool countNamedArrival(Actor &a, const Op &op, unsigned &id);
  /// bar.arrive: the instance's threads count toward the phase; it goes on.
  void doNamedArrive(Actor &a, const Op &op);
  /// Ping-pong: which consumer instance owns the actor's current tile.
  unsigned turnOwner(const Actor &a) const;
  /// early_loads: how many k-blocks of the walk's first tile it loads.
  unsigned earlyCount(Actor &a, const Op &op);
  /// k-blocks of the current tile loaded before the CTA's barrier (its first).
  int earlySkip(const Actor &a) const;
  static void advanceCursor(Cursor &c, unsigned n);
  /// sm_90a: the first tile row of the instance's share of `b` (its rows of
  /// a cooperative tile; 0 for ping-pong consumers, who own whole tiles).
  unsigned instanceRow0(const Actor &a, const Buffer &b) const {
    return b.instances > 1 && !k.plan.schedule.pingpong ? a.instance * b.rows : 0;
  }
  void publishSync(Actor &a);
  void checkOperand(Actor &a, unsigned cta, int buf, int region, unsigned row0, unsigned rows,
                    const Tag &want);
  void checkStagingWritable(Actor &a, int sBuf, int sReg, const Region &stg);
  bool rowsOverlap(const Event &mma, int buf, unsigned row0, unsigned rows) const;
  void write(unsigned entry, unsigned row, unsigned col, float v);
  /// Key of `notes` for the tileM-row block `blockRow` of D in `entry`.
  std::pair<unsigned, unsigned> noteKey(unsigned entry, unsigned blockRow, unsigned tn) const {
    return {entry, blockRow * 65536u + tn}; // the simulator holds at most 1024 tiles
  }
  template <typename F> void forEachOwnSmem(Actor &a, F f) {
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      const Buffer &buf = k.buffers[b];
      if (buf.space != MemSpace::Shared)
        continue;
      unsigned stages = std::max(1u, buf.stages);
      unsigned inst = buf.instances > 1 ? a.instance % buf.instances : 0;
      for (unsigned s = 0; s < stages; ++s)
        f(ctas[a.cta].regions[b][inst * stages + s]);
    }
  }

  //===--- Ops.cpp: async copies, MMA, accumulators, stores ----------------===//
  void doTmaLoad(Actor &a, const Op &op);
  void completeLoad(Event &e);
  void doMma(Actor &a, const Op &op);
  void completeMma(Event &e);
  void doStoreAcc(Actor &a, const Op &op);
  void doTmaStore(Actor &a, const Op &op);
  void completeStore(Event &e);
  void doCommitArrive(Actor &a, const Op &op);
  void completeCommit(Event &e);
  void doLoadAcc(Actor &a, const Op &op);
  void doZeroAcc(Actor &a, const Op &op);
  // Stream-K (Ops.cpp): the partial sums handed between CTAs, per CTA and
  // consumer instance, with the flag that releases each.
  void doStorePartial(Actor &a, const Op &op);
  /// The CTAs whose shares start inside the actor's unit after its own.
  std::vector<unsigned> laterShares(const Actor &a) const;
  bool partialsReady(const Actor &a) const;
  void doAddPartials(Actor &a, const Op &op);

  // Target geometry (IR.h, "sm_100a semantics"). On sm_100a a cluster is the
  // CTA pair (G = ctaGroup CTAs, rank r); cluster tile (um, un) holds
  // C·G·tileM rows × tileN columns, and consumer c of CTA r owns D rows
  // (um·C·G + c·G + r)·tileM + [0, tileM).
  bool sm100() const { return k.target == Target::SM100a; }
  unsigned pairSize() const { return std::max(1u, k.ctaGroup); }
  unsigned leaderOf(unsigned cta) const { return ctas[cta].cluster * p.clusterSize; }
  /// First D row (and A row) of consumer `inst` of CTA rank `rank` (sm_100a).
  unsigned rowsSm100(const TileRef &t, unsigned inst, unsigned rank) const {
    return ((t.tm * k.consumers + inst) * pairSize() + rank) * k.tileM;
  }
  unsigned chunkWidth() const { return k.plan.chunkWidth(); }
  unsigned chunkCount() const { return k.plan.epilogueChunks(); }
  /// First tile column of the actor's current epilogue chunk (the plan's).
  unsigned chunkCol0(const Actor &a) const {
    return a.chunk < 0 ? 0 : k.plan.chunkFirstColumn(unsigned(a.chunk));
  }

  //===--- Reports.cpp: names, deadlock report, result check ---------------===//
  std::string who(const Actor &a) const;
  std::string tileName(const TileRef &t) const;
  std::string where(const Actor &a) const;
  std::string at(const Event &e) const;
  std::string regionName(int buf, int region, unsigned cta) const;
  std::string describeEvent(const Event &e) const;
  std::string txHint(const Barrier &desc) const;
  [[noreturn]] void fail(SimVerdict v, std::string msg, std::vector<std::string> details = {});
  std::string opText(const Actor &a, const Op &op);
  /// One line: what `a` is blocked on.
  std::string blockedOn(Actor &a);
  /// Actors whose program can arrive on (or, with loads, complete tx on)
  /// barrier `b` of CTA `cta`.
  std::vector<std::pair<int, const Op *>> expectedSignallers(unsigned cta, int b, bool loads);
  [[noreturn]] void reportDeadlock();
  void checkResult();
  /// Every flag a launch released was taken (and so reset): the next launch
  /// does not zero them (Launch.cpp), so one left at 1 would pass for ready.
  void checkFlagsTaken();

  const Problem &p;
  const Kernel &k;
  std::mt19937_64 rng;
  uint64_t maxSteps;
  uint64_t steps = 0;
  double asyncBias = 0.5;   ///< chance to complete an async op rather than step a role
  double longLatency = 0.1; ///< share of async ops that take long
  uint64_t clock = 0;
  std::vector<Cta> ctas;
  std::vector<Actor> actors;
  std::vector<Event> events;
  std::vector<int> pending;
  std::vector<float> D;
  std::vector<bool> written;
  std::vector<std::vector<std::vector<float>>> partials; ///< [cta][instance]: stream-K
  std::vector<std::vector<bool>> partialFlags;           ///< [cta][instance]: released
  std::vector<std::vector<bool>> partialTaken;           ///< [cta][instance]: taken, so back to 0
  std::map<std::pair<unsigned, unsigned>, std::string> notes;
  /// [cta][barrier]: the actors that arrive on it each phase.
  std::vector<std::vector<std::vector<std::pair<int, const Op *>>>> signallers;
};

} // namespace sim
} // namespace gemmgen

#endif // GEMMGEN_SIM_MACHINE_H

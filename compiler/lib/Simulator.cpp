//===- Simulator.cpp - Execute a lowered kernel's IR on the CPU -----------===//
//
// One Machine per interleaving. Every role instance of every CTA is an Actor
// with an explicit interpreter state (a stack of frames over the structured
// ops, its pipeline-state cursors, its open MMA and TMA-store groups). Async
// work (TMA loads, MMAs, TMA stores) becomes an Event that completes when the
// scheduler picks it. The scheduler picks, with a seeded RNG, either a
// runnable actor (which executes one op) or a ready event.
//
// Storage is real: each SMEM stage, accumulator and staging tile is a Region
// of floats with per-row tags (which cluster tile and k-block the row holds)
// and the in-flight events that write or read it. Races are reported when an
// access meets an in-flight access it must not overlap; barrier misuse is
// reported where it happens (over-arrival, tx underflow); a deadlock is
// reported when nothing can run and nothing is in flight.
//
// sm_100a kernels take the same machine; the section "sm_100a" below holds
// what differs (IR.h, "sm_100a semantics"): the CTA pair's loads and MMA,
// tcgen05.commit as an async arrival (EventKind::Commit), load_acc into the
// actor's registers, and the TMEM hand-off checks.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Simulator.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

/// Rounds `x` to the nearest value with `bits` significant bits (ties to even).
float roundSignificand(float x, int bits, int minExp) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0f)
    return x;
  float a = std::fabs(x);
  int e;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  e = std::max(e, minExp);
  float q = std::ldexp(1.0f, e - bits);
  return std::copysign(std::nearbyint(a / q) * q, x);
}

float roundTo(ScalarType t, float x) {
  switch (t) {
  case ScalarType::F16: {
    if (std::fabs(x) >= 65520.0f)
      return std::copysign(INFINITY, x);
    return roundSignificand(x, 11, -13); // subnormals: quantum 2^-24
  }
  case ScalarType::BF16:
    return roundSignificand(x, 8, -125);
  case ScalarType::F32:
    return x;
  }
  return x;
}

std::string fmtFloat(float v) {
  if (std::isnan(v))
    return "nan";
  std::ostringstream os;
  os << v;
  return os.str();
}

//===----------------------------------------------------------------------===//
// Machine state
//===----------------------------------------------------------------------===//

/// What a row of an SMEM stage holds: the cluster tile (index in the
/// scheduler's list) and k-block it was loaded for; -1 = never loaded.
struct Tag {
  int tile = -1;
  int k = -1;
  bool operator==(const Tag &o) const { return tile == o.tile && k == o.k; }
  bool operator!=(const Tag &o) const { return !(*this == o); }
};

/// One stage of one instance of one buffer in one CTA.
struct Region {
  unsigned rows = 0, cols = 0;
  std::vector<float> data;
  std::vector<Tag> tags;          ///< per row (SMEM operand stages)
  std::vector<int> pendingWrites; ///< TMA loads landing here
  std::vector<int> readers;       ///< MMAs / TMA stores reading it
  bool unfenced = false;          ///< generic writes not yet fenced for the async proxy
  bool unsynced = false;          ///< store_acc by all warps, no named barrier since
  bool drainUnpublished = false;  ///< a TMA store finished; only the elected thread knows
  bool accWritten = false;        ///< accumulators: an MMA wrote it in this tile
  // sm_100a accumulators (TMEM):
  int accTile = -1;               ///< cluster tile whose MMAs last wrote it (-1: none)
  std::vector<bool> chunksRead;   ///< epilogue chunks load_acc read since the tile's first MMA
  std::vector<int> mmaWriters;    ///< MMAs in flight that write it
};

struct Mbar {
  uint64_t phase = 0;  ///< phases completed so far (parity = phase & 1)
  unsigned pending = 0;
  int64_t tx = 0;
  uint64_t expectedTx = 0;    ///< expect_tx bytes announced in the current phase
  std::vector<int> arrivedBy; ///< actor ids that arrived in the current phase
};

/// A hardware named barrier (bar.sync id) of one CTA.
struct NamedHw {
  unsigned expected = 0, arrived = 0;
  uint64_t generation = 0;
  std::set<int> users; ///< actors that ever synced on this id
  std::string barrier; ///< IR barrier name of the first user
};

struct TileRef {
  int ct = -1;       ///< index in the cluster-tile list
  unsigned tm = 0, tn = 0;
};

struct Cta {
  unsigned cluster = 0, rank = 0, rankM = 0, rankN = 0;
  std::vector<std::vector<Region>> regions; ///< [buffer][instance * stages + stage]
  std::vector<std::vector<Mbar>> bars;      ///< [barrier][slot]
  std::map<unsigned, NamedHw> named;
  std::vector<TileRef> tiles;
};

struct Cursor {
  unsigned depth = 1, stage = 0, phase = 0;
  uint64_t round = 0; ///< wraps of the ring so far: the barrier phase an arrival completes
};

struct Frame {
  const std::vector<Op> *body;
  size_t pc = 0;
  OpKind kind;
  unsigned iter = 0, count = 0;
};

struct Actor {
  int id = 0;
  unsigned cta = 0, role = 0, instance = 0;
  std::vector<Frame> stack;
  std::vector<Cursor> cursors;
  const Op *op = nullptr; ///< the next leaf op (nullptr when finished)
  bool finished = false;
  TileRef tile;
  bool inTile = false;
  unsigned tilesDone = 0;
  int k = -1; ///< current k-block, -1 outside for_k
  int chunk = -1; ///< current epilogue chunk, -1 outside for_each_chunk
  // MMA groups: MMAs complete in issue order.
  std::deque<int> mmaQueue;
  uint64_t mmaIssued = 0, mmaCompleted = 0;
  std::deque<uint64_t> mmaGroupEnds; ///< issued-count at each commit
  // TMA store groups: stores complete in any order.
  std::vector<int> openStores;
  std::vector<std::vector<int>> storeGroups;
  // sm_100a: tcgen05.commit arrivals in flight (in issue order), the
  // registers load_acc filled, and per (barrier, slot) the arrivals this
  // actor made with a slot chosen by instance (their phase number).
  std::deque<int> commitQueue;
  std::vector<float> regs;
  unsigned regsWidth = 0;
  bool regsLoaded = false;
  std::map<std::pair<int, unsigned>, uint64_t> instanceArrivals;
  // Named barrier wait.
  bool namedWaiting = false;
  unsigned namedId = 0;
  uint64_t namedGen = 0;
  double weight = 1.0;
};

enum class EventKind { Load, Mma, Store, Commit };

struct Event {
  EventKind kind;
  bool done = false;
  uint64_t readyAt = 0; ///< scheduler clock before which it cannot complete
  int actor = -1;
  TileRef tile;
  int k = -1;
  int chunk = -1;
  // Load: a box slice landing in one CTA.
  unsigned dstCta = 0;
  unsigned barCta = 0; ///< the CTA whose barrier gets the bytes (sm_100a pair: the leader)
  int buf = -1, region = -1;
  unsigned row0 = 0, rows = 0;
  Operand operand = Operand::A;
  unsigned gRow0 = 0, gCol0 = 0;
  int barrier = -1;
  unsigned slot = 0;
  uint64_t round = 0;
  unsigned bytes = 0;
  Tag tag;
  // Mma
  int aBuf = -1, aRegion = -1, bBuf = -1, bRegion = -1, accBuf = -1, accRegion = -1;
  unsigned aRow0 = 0;
  bool accumulate = false;
  /// sm_100a: the CTAs whose A, B and accumulators the MMA uses (the CTA
  /// pair); empty: the issuing CTA only (sm_90a wgmma).
  std::vector<unsigned> pairCtas;
  // Commit (tcgen05.commit): arrives once the issuer completed `threshold` MMAs.
  uint64_t threshold = 0;
  std::vector<unsigned> commitCtas;
  const Op *op = nullptr;
  // Store (reads region `region` of buffer `buf`)
  unsigned dRow0 = 0, dCol0 = 0;
};

/// Thrown (internally) to end an interleaving with a verdict.
struct Stop {
  SimVerdict verdict;
  std::string message;
  std::vector<std::string> details;
};

/// Everything shared by all interleavings: geometry, inputs, reference.
struct Problem {
  const Kernel &k;
  unsigned M, N, K;
  unsigned clusterSize, tilesM, tilesN, ctM, ctN, kBlocks, clusters, ctas;
  std::vector<std::pair<unsigned, unsigned>> clusterTiles; ///< (cm, cn) in walk order
  std::vector<float> A, B, ref;
  /// Per barrier: ops that arrive on it / load onto it, with their role.
  std::vector<std::vector<std::pair<unsigned, const Op *>>> arrivers, loaders;
  /// Bytes one phase of each barrier receives from all its TMA loads.
  std::vector<uint64_t> bytesPerPhase;

  explicit Problem(const Kernel &k) : k(k) {}
};

void collectOps(const std::vector<Op> &body, std::vector<const Op *> &out) {
  for (const Op &op : body) {
    out.push_back(&op);
    collectOps(op.body, out);
  }
}

int indexOf(const std::vector<Buffer> &v, const std::string &name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name)
      return int(i);
  return -1;
}
int indexOf(const std::vector<Barrier> &v, const std::string &name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name)
      return int(i);
  return -1;
}

/// The cluster tiles (cm, cn) in the order the persistent scheduler walks
/// them: grouped bands of `group` columns (along_m) or rows (along_n).
std::vector<std::pair<unsigned, unsigned>> walkOrder(unsigned ctM, unsigned ctN,
                                                     const Schedule &s) {
  std::vector<std::pair<unsigned, unsigned>> out;
  unsigned total = ctM * ctN;
  unsigned g = std::max(1u, s.group);
  bool alongN = s.raster == RasterOrder::AlongN;
  unsigned major = alongN ? ctN : ctM; // walked fastest inside a band
  unsigned minor = alongN ? ctM : ctN;
  for (unsigned idx = 0; idx < total; ++idx) {
    unsigned band = idx / (major * g);
    unsigned width = std::min(g, minor - band * g);
    unsigned local = idx % (major * g);
    unsigned mi = band * g + local % width;
    unsigned ma = local / width;
    out.push_back(alongN ? std::make_pair(mi, ma) : std::make_pair(ma, mi));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// One interleaving
//===----------------------------------------------------------------------===//

class Machine {
public:
  Machine(const Problem &p, uint64_t seed, uint64_t maxSteps)
      : p(p), k(p.k), rng(seed), maxSteps(maxSteps) {}

  SeedResult run(uint64_t seed) {
    SeedResult r;
    r.seed = seed;
    try {
      init();
      loop();
      checkResult();
    } catch (Stop &s) {
      r.verdict = s.verdict;
      r.message = std::move(s.message);
      r.details = std::move(s.details);
    }
    r.steps = steps;
    return r;
  }

private:
  //===--- setup ----------------------------------------------------------===//

  void init() {
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
      for (size_t i = cta.cluster; i < p.clusterTiles.size(); i += p.clusters) {
        TileRef t;
        t.ct = int(i);
        if (sm100()) { // the CTA pair shares the cluster tile (IR.h, sm_100a semantics)
          t.tm = p.clusterTiles[i].first;
          t.tn = p.clusterTiles[i].second;
        } else {
          t.tm = p.clusterTiles[i].first * k.clusterM + cta.rankM;
          t.tn = p.clusterTiles[i].second * k.clusterN + cta.rankN;
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
    D.assign(size_t(p.M) * p.N, NAN);
    written.assign(size_t(p.M) * p.N, false);
    for (Actor &a : actors)
      settle(a);
  }

  //===--- naming for reports --------------------------------------------===//

  std::string who(const Actor &a) const {
    return "CTA " + std::to_string(a.cta) + " " + k.roles[a.role].name + "[" +
           std::to_string(a.instance) + "]";
  }
  std::string tileName(const TileRef &t) const {
    return std::string(sm100() ? "cluster tile" : "tile") + " (m " + std::to_string(t.tm) +
           ", n " + std::to_string(t.tn) + ")";
  }
  std::string where(const Actor &a) const {
    if (a.finished)
      return "finished after " + std::to_string(a.tilesDone) + " tile(s)";
    if (!a.inTile)
      return a.tilesDone ? "after its last tile" : "before its first tile";
    std::string s = tileName(a.tile);
    if (a.k >= 0)
      s += " k-block " + std::to_string(a.k);
    if (a.chunk >= 0)
      s += " chunk " + std::to_string(a.chunk);
    return s;
  }
  std::string at(const Event &e) const {
    std::string s = tileName(e.tile);
    if (e.k >= 0)
      s += " k-block " + std::to_string(e.k);
    if (e.chunk >= 0)
      s += " chunk " + std::to_string(e.chunk);
    return s;
  }
  std::string regionName(int buf, int region, unsigned cta) const {
    const Buffer &b = k.buffers[buf];
    unsigned stages = std::max(1u, b.stages);
    std::string s = b.name;
    if (b.instances > 1)
      s += "[" + std::to_string(region / stages) + "]";
    if (b.stages > 1)
      s += " stage " + std::to_string(region % stages);
    return s + " of CTA " + std::to_string(cta);
  }
  std::string describeEvent(const Event &e) const {
    const Actor &a = actors[e.actor];
    switch (e.kind) {
    case EventKind::Load:
      return "TMA load of " + std::string(toString(e.operand)) + " (" + at(e) + ") issued by " +
             who(a);
    case EventKind::Mma:
      return who(a) + "'s MMA (" + at(e) + ")";
    case EventKind::Store:
      return who(a) + "'s TMA store (" + at(e) + ")";
    case EventKind::Commit:
      return who(a) + "'s tcgen05.commit on " + k.barriers[e.barrier].name + "[" +
             std::to_string(e.slot) + "] (" + at(e) + ")";
    }
    return "?";
  }

  [[noreturn]] void fail(SimVerdict v, std::string msg, std::vector<std::string> details = {}) {
    throw Stop{v, std::move(msg), std::move(details)};
  }

  //===--- interpreter ----------------------------------------------------===//

  /// Moves `a` to its next leaf op, entering and leaving loops.
  void settle(Actor &a) {
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
        if (kind == OpKind::ForEachChunk)
          a.chunk = -1;
        if (!a.stack.empty())
          a.stack.back().pc++;
        continue;
      }
      const Op &op = (*f.body)[f.pc];
      if (op.kind == OpKind::ForEachTile || op.kind == OpKind::ForK ||
          op.kind == OpKind::IfNotFirstK || op.kind == OpKind::ForEachChunk) {
        unsigned count = 0;
        if (op.kind == OpKind::ForEachTile)
          count = tileCount;
        else if (op.kind == OpKind::ForK)
          count = a.inTile ? p.kBlocks : 0;
        else if (op.kind == OpKind::ForEachChunk)
          count = a.inTile ? chunkCount() : 0;
        else
          count = a.k > 0 ? 1 : 0;
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

  void enterIteration(Actor &a, const Frame &f) {
    if (f.kind == OpKind::ForEachTile) {
      if (f.iter > 0)
        a.tilesDone++;
      a.tile = ctas[a.cta].tiles[f.iter];
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
      a.k = int(f.iter);
    } else if (f.kind == OpKind::ForEachChunk) {
      a.chunk = int(f.iter);
    }
  }

  unsigned chunkWidth() const { return k.epilogueChunkN ? k.epilogueChunkN : k.tileN; }
  unsigned chunkCount() const { return (k.tileN + chunkWidth() - 1) / chunkWidth(); }
  /// First tile column of the actor's current epilogue chunk.
  unsigned chunkCol0(const Actor &a) const {
    return a.chunk >= 0 ? unsigned(a.chunk) * chunkWidth() : 0;
  }

  void onActorFinished(Actor &a) {
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

  Cursor &cursor(Actor &a, const Op &op) {
    const Role &r = k.roles[a.role];
    for (size_t i = 0; i < r.states.size(); ++i)
      if (r.states[i].name == op.state)
        return a.cursors[i];
    fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " uses unknown pipeline state '" +
                                  op.state + "' in " + toString(op.kind));
  }
  int barrierIndex(const Actor &a, const Op &op) {
    int b = indexOf(k.barriers, op.barrier);
    if (b < 0)
      fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " uses unknown barrier '" +
                                    op.barrier + "' in " + toString(op.kind));
    return b;
  }
  int bufferIndex(const Actor &a, const std::string &name, const Op &op) {
    int b = indexOf(k.buffers, name);
    if (b < 0)
      fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " uses unknown buffer '" + name +
                                    "' in " + toString(op.kind));
    return b;
  }
  unsigned slotOf(const Actor &a, int bar, const Cursor &c) {
    if (c.stage >= k.barriers[bar].slots)
      fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + k.barriers[bar].name +
                                    "[" + std::to_string(c.stage) + "] but the barrier has " +
                                    std::to_string(k.barriers[bar].slots) + " slot(s)");
    return c.stage;
  }
  /// The barrier slot an op uses: the cursor's stage, or (sm_100a,
  /// slotIsInstance) the role instance, with the phase still from the cursor.
  unsigned slotFor(const Actor &a, const Op &op, int bar, const Cursor &c) {
    if (!op.slotIsInstance)
      return slotOf(a, bar, c);
    if (a.instance >= k.barriers[bar].slots)
      fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + k.barriers[bar].name +
                                    "[" + std::to_string(a.instance) +
                                    "] (its instance) but the barrier has " +
                                    std::to_string(k.barriers[bar].slots) + " slot(s)");
    return a.instance;
  }
  /// The barrier phase an arrival of `op` belongs to. A stage-indexed op
  /// arrives in the phase its cursor's wraps say. An instance-indexed op
  /// (sm_100a) is issued after its cursor advanced, so the cursor cannot
  /// tell; every role arrives once per phase, so its phase is the number of
  /// arrivals the actor made on that slot before.
  uint64_t arrivalRound(Actor &a, const Op &op, int bar, unsigned slot, const Cursor &c) {
    if (!op.slotIsInstance)
      return c.round;
    return a.instanceArrivals[{bar, slot}]++;
  }
  /// Whether (actor, op) arrives on slot `slot` (false only for an op whose
  /// slot is another role instance's).
  bool signalsSlot(const std::pair<int, const Op *> &sg, unsigned slot) const {
    return !sg.second->slotIsInstance || actors[sg.first].instance == slot;
  }
  /// Arrivals one execution of `op` brings: an Arrive by every thread
  /// (Exec::All, the sm_100a writeback's ld2mma release) counts each thread.
  unsigned arrivalsOf(const Actor &a, const Op &op) const {
    if (op.kind == OpKind::Arrive && op.exec == Exec::All)
      return k.roles[a.role].threadsPerInstance();
    return 1;
  }
  int regionIndex(const Actor &a, int buf, unsigned stage, int instance = -1) {
    const Buffer &b = k.buffers[buf];
    unsigned stages = std::max(1u, b.stages);
    if (stage >= stages)
      fail(SimVerdict::Invalid, who(a) + " (" + where(a) + ") uses " + b.name + " stage " +
                                    std::to_string(stage) + " but it has " +
                                    std::to_string(stages) + " stage(s)");
    unsigned want = instance >= 0 ? unsigned(instance) : a.instance;
    unsigned inst = b.instances > 1 ? want % b.instances : 0;
    return int(inst * stages + stage);
  }
  unsigned namedHwId(const Actor &a, const Barrier &b) const {
    // An array of `slots` named barriers; instance c uses slot c mod slots.
    return b.namedId + (b.slots ? a.instance % b.slots : a.instance);
  }

  unsigned pendingMmaGroups(Actor &a) const {
    unsigned n = 0;
    for (uint64_t end : a.mmaGroupEnds)
      n += end > a.mmaCompleted;
    return n;
  }
  unsigned pendingStoreGroups(const Actor &a) const {
    unsigned n = 0;
    for (const std::vector<int> &g : a.storeGroups)
      for (int e : g)
        if (!events[e].done) {
          n++;
          break;
        }
    return n;
  }

  bool waitPasses(Actor &a, const Op &op, unsigned *slotOut = nullptr) {
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

  bool canRun(Actor &a) {
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
      return pendingStoreGroups(a) <= op.count;
    default:
      return true;
    }
  }

  /// Executes the actor's current op (it is runnable) and moves on.
  void step(Actor &a) {
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
      if (sm100())
        doTmaLoadSm100(a, op);
      else
        doTmaLoad(a, op);
      break;
    case OpKind::Mma:
      if (sm100())
        doMmaSm100(a, op);
      else
        doMma(a, op);
      break;
    case OpKind::MmaCommit:
      a.mmaGroupEnds.push_back(a.mmaIssued);
      break;
    case OpKind::Advance: {
      Cursor &c = cursor(a, op);
      if (++c.stage == c.depth) {
        c.stage = 0;
        c.phase ^= 1;
        c.round++;
      }
      break;
    }
    case OpKind::StoreAcc:
      if (sm100())
        doStoreAccSm100(a, op);
      else
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
    case OpKind::ForEachTile:
    case OpKind::ForK:
    case OpKind::IfNotFirstK:
    case OpKind::ForEachChunk:
      assert(false && "structured ops are entered by settle()");
      break;
    }
    a.stack.back().pc++;
    settle(a);
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

  //===--- barriers -------------------------------------------------------===//

  std::vector<unsigned> scopeCtas(const Actor &a, CtaScope scope) const {
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
  std::vector<unsigned> reachOf(const Actor &a, const Op &op) const {
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

  void arrive(const Actor &a, unsigned cta, int b, unsigned slot, uint64_t round,
              const Op &op, unsigned count = 1) {
    const Barrier &bd = k.barriers[b];
    Mbar &bar = ctas[cta].bars[b][slot];
    std::string name = bd.name + "[" + std::to_string(slot) + "] of CTA " + std::to_string(cta);
    if (round != bar.phase) {
      std::vector<std::string> d;
      d.push_back(name + " expects " + std::to_string(bd.arriveCount) +
                  " arrival(s) per phase (" + std::to_string(bar.pending) +
                  " still pending in phase " + std::to_string(bar.phase) + ")");
      if (round < bar.phase) {
        d.push_back("phase " + std::to_string(round) + " already completed without this "
                    "arrival: more roles arrive than the barrier's arrival count says, so "
                    "the waiter was released early");
        fail(SimVerdict::OverArrival,
             "over-arrival: " + who(a) + " (" + where(a) + ") arrived on " + name +
                 " for phase " + std::to_string(round) + ", which had already completed",
             d);
      }
      d.push_back("the arrival belongs to a later phase: the barrier's earlier phase never "
                  "got all its arrivals");
      fail(SimVerdict::OverArrival,
           "over-arrival: " + who(a) + " (" + where(a) + ") arrived on " + name +
               " for phase " + std::to_string(round) + " while it is still in phase " +
               std::to_string(bar.phase),
           d);
    }
    if (count > bar.pending)
      fail(SimVerdict::OverArrival,
           "over-arrival: " + who(a) + " (" + where(a) + ") brings " + std::to_string(count) +
               " arrivals (one per thread) to " + name + ", but only " +
               std::to_string(bar.pending) + " of its " + std::to_string(bd.arriveCount) +
               " remain in phase " + std::to_string(bar.phase),
           {"the barrier's arrival count is smaller than the threads that arrive on it in one "
            "phase: count every arriving thread, of every CTA that arrives on it"});
    bar.arrivedBy.push_back(a.id);
    bar.pending -= count;
    maybeComplete(cta, b, slot);
  }

  std::string txHintSm100(const Barrier &desc) const {
    return "the waiter (" + desc.waiter + ") is released before every copy landed; count every "
           "copy that completes on this barrier: each consumer's A block and the B rows" +
           std::string(k.ctaGroup > 1 ? ", of both CTAs of the pair (their loads complete on "
                                        "the leader's barrier)"
                                      : "");
  }

  void maybeComplete(unsigned cta, int b, unsigned slot) {
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
           "tx underflow: " + name + " has all its arrivals in phase " +
               std::to_string(bar.phase) + ", but its copies delivered " +
               std::to_string(-bar.tx) + " byte(s) more than the " +
               std::to_string(bar.expectedTx) + " bytes expect_tx announced (the TMA loads of "
               "one phase complete " + std::to_string(p.bytesPerPhase[b]) + " bytes on it)",
           {"the phase can never complete (the GPU hangs; in other interleavings it completes "
            "before every copy landed)",
            txHintSm100(desc)});
    // More roles arrive every phase than the count: the phase completes
    // before the last of them is done, and their arrivals spill over.
    // Slot-by-instance ops (sm_100a) reach only their instance's slot.
    std::vector<std::pair<int, const Op *>> sigs;
    for (const auto &sg : signallers[cta][b])
      if (signalsSlot(sg, slot))
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
        if (std::find(bar.arrivedBy.begin(), bar.arrivedBy.end(), sg.first) ==
            bar.arrivedBy.end())
          missing += (missing.empty() ? "" : ", ") + n;
      }
      fail(SimVerdict::OverArrival,
           "over-arrival: " + name + " completed phase " + std::to_string(bar.phase) +
               " after " + std::to_string(desc.arriveCount) + " arrival(s), its arrival count, "
               "but " + std::to_string(sigArrivals) + " threads of " +
               std::to_string(sigs.size()) + " role instance(s) arrive on it every phase",
           {"role instances that arrive on " + desc.name + " in CTA " + std::to_string(cta) +
                " (threads): " + names,
            "not yet arrived when the phase completed: " + missing + "; their arrivals will "
            "count towards the next phase",
            "the waiting role (" + desc.waiter + ") is released while they still use what it "
            "guards: set the barrier's arrivals to " + std::to_string(sigArrivals) +
            " (every thread of every CTA that arrives)"});
    }
    if (sigs.size() > desc.arriveCount) {
      std::string names, missing;
      for (const auto &sg : sigs) {
        names += (names.empty() ? "" : ", ") + who(actors[sg.first]);
        if (std::find(bar.arrivedBy.begin(), bar.arrivedBy.end(), sg.first) ==
            bar.arrivedBy.end())
          missing += (missing.empty() ? "" : ", ") + who(actors[sg.first]);
      }
      fail(SimVerdict::OverArrival,
           "over-arrival: " + name + " completed phase " + std::to_string(bar.phase) +
               " after " + std::to_string(desc.arriveCount) + " arrival(s), its arrival count, "
               "but " + std::to_string(sigs.size()) + " roles arrive on it every phase",
           {"roles that arrive on " + desc.name + " in CTA " + std::to_string(cta) + ": " + names,
            "not yet arrived when the phase completed: " + missing + "; their arrivals will "
            "count towards the next phase",
            "the waiting role (" + desc.waiter + ") is released while they still use the "
            "stage: set the barrier's arrivals to " + std::to_string(sigs.size())});
    }
    // expect_tx announced fewer bytes than the phase's copies write.
    if (desc.kind == BarrierKind::Tma && bar.expectedTx < p.bytesPerPhase[b] && sm100())
      fail(SimVerdict::TxUnderflow,
           "tx underflow: " + name + " completed phase " + std::to_string(bar.phase) +
               " after the " + std::to_string(bar.expectedTx) + " bytes expect_tx announced, "
               "but the TMA loads of one phase complete " + std::to_string(p.bytesPerPhase[b]) +
               " bytes on it",
           {txHintSm100(desc)});
    if (desc.kind == BarrierKind::Tma && bar.expectedTx < p.bytesPerPhase[b])
      fail(SimVerdict::TxUnderflow,
           "tx underflow: " + name + " completed phase " + std::to_string(bar.phase) +
               " after the " + std::to_string(bar.expectedTx) + " bytes expect_tx announced, "
               "but the TMA loads of one phase write " + std::to_string(p.bytesPerPhase[b]) +
               " bytes into this CTA",
           {"the waiter (" + desc.waiter + ") is released before every copy landed; count "
            "every copy that signals this barrier, including the peer CTA's multicast"});
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
               std::to_string(cta) + " completed phase " + std::to_string(bar.phase) +
               " while " + std::to_string(inFlight) + " bytes of its copies were in flight (" +
               describeEvent(e) + ")",
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

  void doArrive(Actor &a, const Op &op) {
    int b = barrierIndex(a, op);
    Cursor &c = cursor(a, op);
    unsigned slot = slotFor(a, op, b, c);
    uint64_t round = arrivalRound(a, op, b, slot, c);
    for (unsigned cta : reachOf(a, op))
      arrive(a, cta, b, slot, round, op, arrivalsOf(a, op));
  }

  void doArriveExpectTx(Actor &a, const Op &op) {
    int b = barrierIndex(a, op);
    Cursor &c = cursor(a, op);
    unsigned slot = slotFor(a, op, b, c);
    for (unsigned cta : reachOf(a, op)) { // none: a leader-only arm in the peer CTA
      Mbar &bar = ctas[cta].bars[b][slot];
      if (c.round == bar.phase) {
        bar.tx += op.txBytes;
        bar.expectedTx += op.txBytes;
        if (bar.tx > (1 << 20) - 1)
          fail(SimVerdict::TxOverflow,
               "tx overflow: " + k.barriers[b].name + "[" + std::to_string(slot) +
                   "] of CTA " + std::to_string(cta) + " expects " + std::to_string(bar.tx) +
                   " transaction bytes, beyond the mbarrier's 2^20-1 limit");
      }
      arrive(a, cta, b, slot, c.round, op);
    }
  }

  /// bar.sync: returns true when the actor may go on now.
  bool doNamedSync(Actor &a, const Op &op) {
    if (a.namedWaiting) { // the barrier completed since we arrived
      a.namedWaiting = false;
      publishSync(a);
      return true;
    }
    int b = barrierIndex(a, op);
    const Barrier &bd = k.barriers[b];
    if (bd.kind != BarrierKind::Named)
      fail(SimVerdict::Invalid, "invalid IR: named_barrier on " + bd.name + ", a " +
                                    toString(bd.kind) + " barrier");
    unsigned id = namedHwId(a, bd);
    if (id > 15)
      fail(SimVerdict::Invalid, who(a) + " uses named barrier id " + std::to_string(id) +
                                    " (" + bd.name + "); ids are 0..15");
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
             {"the groups have " + std::to_string(total) + " threads together; warps of both "
              "count towards one phase, so a group can pass bar.sync before its own warps "
              "finished writing its staging buffer (" + where(a) + ")",
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
      hw.generation++;
      publishSync(a);
      return true;
    }
    a.namedWaiting = true;
    a.namedId = id;
    a.namedGen = hw.generation;
    return false;
  }

  void publishSync(Actor &a) {
    forEachOwnSmem(a, [](Region &r) {
      r.unsynced = false;
      r.drainUnpublished = false;
    });
  }

  //===--- async copies and MMA -------------------------------------------===//

  void doTmaLoad(Actor &a, const Op &op) {
    if (!a.inTile)
      fail(SimVerdict::Invalid, who(a) + " issues a TMA load outside for_each_tile");
    int buf = bufferIndex(a, op.buffer, op);
    int b = barrierIndex(a, op);
    Cursor &c = cursor(a, op);
    unsigned slot = slotOf(a, b, c);
    const Buffer &bd = k.buffers[buf];
    const Cta &me = ctas[a.cta];
    unsigned parts = std::max(1u, op.parts);
    unsigned rank = op.operand == Operand::A ? me.rankN : me.rankM;
    unsigned part = parts > 1 ? rank % parts : 0;
    unsigned row0 = part * bd.rows / parts, row1 = (part + 1) * bd.rows / parts;
    std::vector<unsigned> dsts;
    if (op.scope == CtaScope::Local) {
      dsts.push_back(a.cta);
    } else {
      // Multicast: the CTAs of the cluster that share this operand (same
      // tile row for A, same tile column for B).
      for (unsigned r = 0; r < p.clusterSize; ++r) {
        unsigned cta = me.cluster * p.clusterSize + r;
        const Cta &o = ctas[cta];
        if (op.operand == Operand::A ? o.rankM == me.rankM : o.rankN == me.rankN)
          dsts.push_back(cta);
      }
    }
    for (unsigned dst : dsts) {
      Event e;
      e.kind = EventKind::Load;
      e.actor = a.id;
      e.tile = a.tile;
      e.k = a.k;
      e.dstCta = dst;
      e.barCta = dst;
      e.buf = buf;
      e.region = regionIndex(a, buf, c.stage);
      e.row0 = row0;
      e.rows = row1 - row0;
      e.operand = op.operand;
      e.gRow0 = (op.operand == Operand::A ? a.tile.tm * k.tileM : a.tile.tn * k.tileN) + row0;
      e.gCol0 = unsigned(std::max(a.k, 0)) * k.tileK;
      e.barrier = b;
      e.slot = slot;
      e.round = c.round;
      e.bytes = e.rows * bd.cols * sizeInBytes(bd.type);
      e.tag = Tag{a.tile.ct, a.k};
      int id = int(events.size());
      Region &r = ctas[dst].regions[buf][e.region];
      for (int rd : r.readers) {
        const Event &o = events[rd];
        if (o.kind == EventKind::Mma && !rowsOverlap(o, buf, e.row0, e.rows))
          continue;
        fail(SimVerdict::Race,
             "race: " + regionName(buf, e.region, dst) + " is overwritten by the " +
                 describeEvent(e) + " while " + describeEvent(o) + " still reads it",
             {"the stage was released (or its barrier completed) before every reader "
              "finished: check the empty barrier's arrival count and who arrives on it",
              "barrier " + k.barriers[b].name + "[" + std::to_string(slot) + "], load phase " +
                  std::to_string(c.round)});
      }
      r.pendingWrites.push_back(id);
      addEvent(e);
    }
  }

  bool rowsOverlap(const Event &mma, int buf, unsigned row0, unsigned rows) const {
    if (mma.aBuf == buf && mma.bBuf != buf) {
      unsigned accRows = k.buffers[mma.accBuf].rows;
      return row0 < mma.aRow0 + accRows && mma.aRow0 < row0 + rows;
    }
    return true;
  }

  void completeLoad(Event &e) {
    const Buffer &bd = k.buffers[e.buf];
    Region &r = ctas[e.dstCta].regions[e.buf][e.region];
    const std::vector<float> &src = e.operand == Operand::A ? p.A : p.B;
    unsigned srcRows = e.operand == Operand::A ? p.M : p.N;
    for (unsigned i = 0; i < e.rows; ++i) {
      unsigned gr = e.gRow0 + i;
      float *dst = &r.data[size_t(e.row0 + i) * bd.cols];
      for (unsigned j = 0; j < bd.cols; ++j) {
        unsigned gc = e.gCol0 + j;
        dst[j] = (gr < srcRows && gc < p.K) ? src[size_t(gr) * p.K + gc] : 0.0f;
      }
      r.tags[e.row0 + i] = e.tag;
    }
    r.pendingWrites.erase(std::find(r.pendingWrites.begin(), r.pendingWrites.end(),
                                    int(&e - events.data())));
    Mbar &bar = ctas[e.barCta].bars[e.barrier][e.slot];
    const Barrier &bdesc = k.barriers[e.barrier];
    if (bar.phase != e.round)
      fail(SimVerdict::TxUnderflow,
           "tx underflow: " + describeEvent(e) + " completed its " + std::to_string(e.bytes) +
               " bytes on " + bdesc.name + "[" + std::to_string(e.slot) + "] of CTA " +
               std::to_string(e.barCta) + " for phase " + std::to_string(e.round) +
               (bar.phase > e.round ? ", which had already completed"
                                    : ", but the barrier is still in phase " +
                                          std::to_string(bar.phase)),
           {"expect_tx declares " + std::to_string(bdesc.txBytes) +
            " bytes per phase; the TMA loads of one phase write " +
            std::to_string(p.bytesPerPhase[e.barrier]) + " bytes into this CTA"});
    bar.tx -= e.bytes;
    maybeComplete(e.barCta, e.barrier, e.slot);
  }

  void checkOperand(Actor &a, int buf, int region, unsigned row0, unsigned rows,
                    const Tag &want) {
    checkOperand(a, a.cta, buf, region, row0, rows, want);
  }
  /// `a`'s MMA reads rows [row0, row0 + rows) of `region` of `buf` in CTA
  /// `cta`: the rows must have landed and hold (tile, k-block) `want`.
  void checkOperand(Actor &a, unsigned cta, int buf, int region, unsigned row0, unsigned rows,
                    const Tag &want) {
    Region &r = ctas[cta].regions[buf][region];
    for (int w : r.pendingWrites) {
      const Event &e = events[w];
      if (e.row0 < row0 + rows && row0 < e.row0 + e.rows)
        fail(SimVerdict::Race,
             "race: " + who(a) + "'s MMA (" + where(a) + ") reads " +
                 regionName(buf, region, cta) + " before the " + describeEvent(e) +
                 " landed",
             {"the consumer passed its wait on the full barrier before the stage's bytes "
              "arrived: check the waiter's initial phase and the barrier's tx bytes"});
    }
    for (unsigned i = row0; i < row0 + rows && i < r.rows; ++i) {
      if (r.tags[i] == want)
        continue;
      std::string holds = r.tags[i].tile < 0
                              ? std::string("data no TMA load has written")
                              : "tile #" + std::to_string(r.tags[i].tile) + " k-block " +
                                    std::to_string(r.tags[i].k);
      fail(SimVerdict::Race,
           "race: " + who(a) + "'s MMA (" + where(a) + ") reads " +
               regionName(buf, region, cta) + " row " + std::to_string(i) + ", which holds " +
               holds + " instead of tile #" + std::to_string(want.tile) + " k-block " +
               std::to_string(want.k),
           {"the stage was not loaded for this k-block when the MMA read it (overwritten "
            "before it was read, or read before it was loaded): check the pipeline phases, "
            "arrival counts and the full barrier's tx bytes"});
    }
  }

  void doMma(Actor &a, const Op &op) {
    if (!a.inTile)
      fail(SimVerdict::Invalid, who(a) + " issues an MMA outside for_each_tile");
    Cursor &c = cursor(a, op);
    Event e;
    e.kind = EventKind::Mma;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = a.k;
    e.aBuf = bufferIndex(a, op.a, op);
    e.bBuf = bufferIndex(a, op.b, op);
    e.accBuf = bufferIndex(a, op.acc, op);
    e.aRegion = regionIndex(a, e.aBuf, c.stage);
    e.bRegion = regionIndex(a, e.bBuf, c.stage);
    e.accRegion = regionIndex(a, e.accBuf, 0);
    const Buffer &acc = k.buffers[e.accBuf];
    e.aRow0 = acc.instances > 1 ? a.instance * acc.rows : 0;
    e.accumulate = a.k > 0;
    Tag want{a.tile.ct, a.k};
    checkOperand(a, e.aBuf, e.aRegion, e.aRow0, acc.rows, want);
    checkOperand(a, e.bBuf, e.bRegion, 0, k.buffers[e.bBuf].rows, want);
    int id = int(events.size());
    ctas[a.cta].regions[e.aBuf][e.aRegion].readers.push_back(id);
    ctas[a.cta].regions[e.bBuf][e.bRegion].readers.push_back(id);
    ctas[a.cta].regions[e.accBuf][e.accRegion].accWritten = true;
    a.mmaQueue.push_back(id);
    a.mmaIssued++;
    addEvent(e);
  }

  void completeMma(Event &e) {
    if (!e.pairCtas.empty())
      return completeMmaSm100(e);
    Actor &a = actors[e.actor];
    Cta &cta = ctas[a.cta];
    Region &A = cta.regions[e.aBuf][e.aRegion];
    Region &B = cta.regions[e.bBuf][e.bRegion];
    Region &acc = cta.regions[e.accBuf][e.accRegion];
    unsigned kk = std::min(A.cols, B.cols);
    for (unsigned i = 0; i < acc.rows; ++i) {
      const float *arow = &A.data[size_t(e.aRow0 + i) * A.cols];
      for (unsigned j = 0; j < acc.cols && j < B.rows; ++j) {
        const float *brow = &B.data[size_t(j) * B.cols];
        float s = e.accumulate ? acc.data[size_t(i) * acc.cols + j] : 0.0f;
        for (unsigned t = 0; t < kk; ++t)
          s += arow[t] * brow[t];
        acc.data[size_t(i) * acc.cols + j] = s;
      }
    }
    int id = int(&e - events.data());
    for (Region *r : {&A, &B})
      r->readers.erase(std::find(r->readers.begin(), r->readers.end(), id));
    a.mmaQueue.pop_front();
    a.mmaCompleted++;
  }

  void doStoreAcc(Actor &a, const Op &op) {
    int accBuf = bufferIndex(a, op.acc, op);
    int accReg = regionIndex(a, accBuf, 0);
    for (int id : a.mmaQueue)
      if (events[id].accBuf == accBuf && events[id].accRegion == accReg)
        fail(SimVerdict::Race,
             "race: " + who(a) + " (" + where(a) + ") reads accumulator " +
                 regionName(accBuf, accReg, a.cta) + " in store_acc while " +
                 describeEvent(events[id]) + " still writes it",
             {"wait for every MMA group (mma_wait pending<=0) before reading the "
              "accumulators"});
    Region &acc = ctas[a.cta].regions[accBuf][accReg];
    const Buffer &accB = k.buffers[accBuf];
    unsigned row0 = a.tile.tm * k.tileM + (accB.instances > 1 ? a.instance * accB.rows : 0);
    unsigned col0 = a.tile.tn * k.tileN;
    unsigned accCol0 = chunkCol0(a);
    if (!acc.accWritten)
      notes[{a.tile.tm, a.tile.tn}] =
          regionName(accBuf, accReg, a.cta) + " was not written by any MMA in " +
          tileName(a.tile) + " (" + std::to_string(p.kBlocks) +
          " k-block(s)): store_acc wrote stale or uninitialised registers";
    if (op.buffer.empty()) { // direct global stores, clipped
      unsigned j1 = a.chunk >= 0 ? std::min(acc.cols, accCol0 + chunkWidth()) : acc.cols;
      for (unsigned i = 0; i < acc.rows; ++i)
        for (unsigned j = accCol0; j < j1; ++j)
          if (row0 + i < p.M && col0 + j < p.N)
            write(row0 + i, col0 + j, roundTo(k.dType, acc.data[i * acc.cols + j]));
      return;
    }
    int sBuf = bufferIndex(a, op.buffer, op);
    int sReg = regionIndex(a, sBuf, 0);
    Region &stg = ctas[a.cta].regions[sBuf][sReg];
    checkStagingWritable(a, sBuf, sReg, stg);
    for (unsigned i = 0; i < stg.rows && i < acc.rows; ++i)
      for (unsigned j = 0; j < stg.cols && accCol0 + j < acc.cols; ++j)
        stg.data[i * stg.cols + j] = roundTo(k.dType, acc.data[i * acc.cols + accCol0 + j]);
    stg.unfenced = true;
    stg.unsynced = true;
  }

  /// store_acc may write the staging tile: no TMA store still reads it, and
  /// the wait for the last one was published to every warp.
  void checkStagingWritable(Actor &a, int sBuf, int sReg, const Region &stg) {
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

  void doTmaStore(Actor &a, const Op &op) {
    int sBuf = bufferIndex(a, op.buffer, op);
    int sReg = regionIndex(a, sBuf, 0);
    Region &stg = ctas[a.cta].regions[sBuf][sReg];
    if (stg.unfenced)
      fail(SimVerdict::Race,
           "race: " + who(a) + "'s TMA store (" + where(a) + ") reads " +
               regionName(sBuf, sReg, a.cta) +
               " written by store_acc with no fence.proxy.async in between",
           {"generic-proxy writes are not visible to the TMA (async proxy) without "
            "fence proxy_async"});
    if (stg.unsynced)
      fail(SimVerdict::Race,
           "race: " + who(a) + "'s TMA store (" + where(a) + ") reads " +
               regionName(sBuf, sReg, a.cta) +
               " before the group's warps synchronised after store_acc",
           {"the elected thread may read rows other warps have not written yet: put a "
            "named barrier between store_acc and tma_store"});
    const Buffer &bd = k.buffers[sBuf];
    Event e;
    e.kind = EventKind::Store;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = -1;
    e.chunk = a.chunk;
    e.buf = sBuf;
    e.region = sReg;
    if (sm100()) { // the consumer's D rows of the cluster tile (IR.h)
      e.dRow0 = rowsSm100(a.tile, a.instance, ctas[a.cta].rank);
    } else {
      e.dRow0 = a.tile.tm * k.tileM + (bd.instances > 1 ? a.instance * bd.rows : 0);
    }
    e.dCol0 = a.tile.tn * k.tileN + chunkCol0(a);
    int id = int(events.size());
    stg.readers.push_back(id);
    a.openStores.push_back(id);
    addEvent(e);
  }

  void write(unsigned row, unsigned col, float v) {
    D[size_t(row) * p.N + col] = v;
    written[size_t(row) * p.N + col] = true;
  }

  void completeStore(Event &e) {
    Actor &a = actors[e.actor];
    Region &stg = ctas[a.cta].regions[e.buf][e.region];
    for (unsigned i = 0; i < stg.rows; ++i)
      for (unsigned j = 0; j < stg.cols; ++j)
        if (e.dRow0 + i < p.M && e.dCol0 + j < p.N)
          write(e.dRow0 + i, e.dCol0 + j, stg.data[i * stg.cols + j]);
    stg.readers.erase(std::find(stg.readers.begin(), stg.readers.end(), int(&e - events.data())));
    stg.drainUnpublished = true;
  }

  //===--- sm_100a: pair loads, tcgen05.mma / commit / ld ------------------===//
  // IR.h, "sm_100a semantics". A cluster is the CTA pair (G = ctaGroup CTAs,
  // rank r); cluster tile (um, un) holds C·G·tileM rows × tileN columns, and
  // consumer c of CTA r owns D rows (um·C·G + c·G + r)·tileM + [0, tileM).

  bool sm100() const { return k.target == Target::SM100a; }
  unsigned pairSize() const { return std::max(1u, k.ctaGroup); }
  unsigned leaderOf(unsigned cta) const { return ctas[cta].cluster * p.clusterSize; }
  /// First D row (and A row) of consumer `inst` of CTA rank `rank`.
  unsigned rowsSm100(const TileRef &t, unsigned inst, unsigned rank) const {
    return ((t.tm * k.consumers + inst) * pairSize() + rank) * k.tileM;
  }

  /// TMA load: CTA r's own box into its own stage; with the pair (scope
  /// Leader) the bytes complete on the leader CTA's barrier, and the load
  /// is not a multicast.
  void doTmaLoadSm100(Actor &a, const Op &op) {
    if (!a.inTile)
      fail(SimVerdict::Invalid, who(a) + " issues a TMA load outside for_each_tile");
    int buf = bufferIndex(a, op.buffer, op);
    int b = barrierIndex(a, op);
    Cursor &c = cursor(a, op);
    unsigned slot = slotFor(a, op, b, c);
    const Buffer &bd = k.buffers[buf];
    unsigned rank = ctas[a.cta].rank;
    unsigned inst = op.instance >= 0 ? unsigned(op.instance) : a.instance;
    if (op.scope == CtaScope::Cluster)
      fail(SimVerdict::Invalid, "invalid IR: " + who(a) + " issues a multicast TMA load; "
                                "sm_100a loads are local or complete on the leader's barrier");
    if (op.operand == Operand::A && bd.instances > 1 && inst >= bd.instances)
      fail(SimVerdict::Invalid, who(a) + " loads " + bd.name + "[" + std::to_string(inst) +
                                    "] but it has " + std::to_string(bd.instances) +
                                    " instance(s)");
    Event e;
    e.kind = EventKind::Load;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = a.k;
    e.dstCta = a.cta;
    e.barCta = op.scope == CtaScope::Leader ? leaderOf(a.cta) : a.cta;
    e.buf = buf;
    e.region = regionIndex(a, buf, c.stage, int(inst));
    e.row0 = 0;
    e.rows = bd.rows;
    e.operand = op.operand;
    e.gRow0 = op.operand == Operand::A ? rowsSm100(a.tile, inst, rank)
                                       : a.tile.tn * k.tileN + rank * bd.rows;
    e.gCol0 = unsigned(std::max(a.k, 0)) * k.tileK;
    e.barrier = b;
    e.slot = slot;
    e.round = c.round;
    e.bytes = e.rows * bd.cols * sizeInBytes(bd.type);
    e.tag = Tag{a.tile.ct, a.k};
    Region &r = ctas[a.cta].regions[buf][e.region];
    for (int rd : r.readers)
      fail(SimVerdict::Race,
           "race: " + regionName(buf, e.region, a.cta) + " is overwritten by the " +
               describeEvent(e) + " while " + describeEvent(events[rd]) + " still reads it",
           {"the stage was released before every MMA that reads it completed: the release "
            "must be a tcgen05.commit (it arrives once the MMAs completed) that reaches this "
            "CTA, and the barrier must count every MMA warp's commit",
            "barrier " + k.barriers[b].name + "[" + std::to_string(slot) + "], load phase " +
                std::to_string(c.round)});
    r.pendingWrites.push_back(int(events.size()));
    addEvent(e);
  }

  /// tcgen05.mma (cta_group G, one elected thread of the leader): for every
  /// CTA r of the pair, acc_r[inst] (+)= A_r[stage][inst] · [B_0; ...; B_G-1]^T.
  void doMmaSm100(Actor &a, const Op &op) {
    if (!a.inTile)
      fail(SimVerdict::Invalid, who(a) + " issues an MMA outside for_each_tile");
    Cursor &c = cursor(a, op);
    Event e;
    e.kind = EventKind::Mma;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = a.k;
    e.aBuf = bufferIndex(a, op.a, op);
    e.bBuf = bufferIndex(a, op.b, op);
    e.accBuf = bufferIndex(a, op.acc, op);
    e.aRegion = regionIndex(a, e.aBuf, c.stage);
    e.bRegion = regionIndex(a, e.bBuf, c.stage);
    e.accRegion = regionIndex(a, e.accBuf, 0);
    e.aRow0 = 0;
    e.accumulate = a.k > 0;
    unsigned G = pairSize();
    if (G > 1 && ctas[a.cta].rank != 0)
      fail(SimVerdict::Invalid, who(a) + " issues a cta_group::" + std::to_string(G) +
                                    " MMA from a CTA that is not the pair's leader");
    if (k.buffers[e.bBuf].rows * G != k.tileN)
      fail(SimVerdict::Invalid, "invalid IR: " + k.buffers[e.bBuf].name + " holds " +
                                    std::to_string(k.buffers[e.bBuf].rows) +
                                    " rows per CTA; the pair MMA needs tile.n / cta_group = " +
                                    std::to_string(k.tileN / G));
    for (unsigned r = 0; r < G; ++r)
      e.pairCtas.push_back(leaderOf(a.cta) + r);
    Tag want{a.tile.ct, a.k};
    for (unsigned cta : e.pairCtas) {
      checkOperand(a, cta, e.aBuf, e.aRegion, 0, k.buffers[e.aBuf].rows, want);
      checkOperand(a, cta, e.bBuf, e.bRegion, 0, k.buffers[e.bBuf].rows, want);
    }
    int id = int(events.size());
    for (unsigned cta : e.pairCtas) {
      Region &acc = ctas[cta].regions[e.accBuf][e.accRegion];
      if (!e.accumulate && acc.accTile >= 0) {
        unsigned read = unsigned(std::count(acc.chunksRead.begin(), acc.chunksRead.end(), true));
        if (read < acc.chunksRead.size())
          fail(SimVerdict::Race,
               "race: " + who(a) + "'s MMA (" + where(a) + ") overwrites accumulator " +
                   regionName(e.accBuf, e.accRegion, cta) + " before the writeback of CTA " +
                   std::to_string(cta) + " read tile #" + std::to_string(acc.accTile) + " (" +
                   std::to_string(read) + " of " + std::to_string(acc.chunksRead.size()) +
                   " chunk(s) loaded)",
               {"the MMA passed its wait on the accumulator-free barrier (ld2mma) before every "
                "writeback thread of every CTA of the pair released the accumulator: check "
                "its arrival count (128 threads x cta_group) and the waiter's phase"});
      }
      ctas[cta].regions[e.aBuf][e.aRegion].readers.push_back(id);
      ctas[cta].regions[e.bBuf][e.bRegion].readers.push_back(id);
      acc.mmaWriters.push_back(id);
      if (!e.accumulate)
        std::fill(acc.chunksRead.begin(), acc.chunksRead.end(), false);
      acc.accTile = a.tile.ct;
      acc.accWritten = true;
    }
    a.mmaQueue.push_back(id);
    a.mmaIssued++;
    addEvent(e);
  }

  void completeMmaSm100(Event &e) {
    Actor &a = actors[e.actor];
    int id = int(&e - events.data());
    std::vector<const Region *> bParts;
    for (unsigned cta : e.pairCtas)
      bParts.push_back(&ctas[cta].regions[e.bBuf][e.bRegion]);
    unsigned bRows = bParts[0]->rows;
    for (unsigned cta : e.pairCtas) {
      Region &A = ctas[cta].regions[e.aBuf][e.aRegion];
      Region &acc = ctas[cta].regions[e.accBuf][e.accRegion];
      for (unsigned i = 0; i < acc.rows && i < A.rows; ++i) {
        const float *arow = &A.data[size_t(i) * A.cols];
        for (unsigned j = 0; j < acc.cols && j < bRows * bParts.size(); ++j) {
          const Region &B = *bParts[j / bRows];
          const float *brow = &B.data[size_t(j % bRows) * B.cols];
          unsigned kk = std::min(A.cols, B.cols);
          float s = e.accumulate ? acc.data[size_t(i) * acc.cols + j] : 0.0f;
          for (unsigned t = 0; t < kk; ++t)
            s += arow[t] * brow[t];
          acc.data[size_t(i) * acc.cols + j] = s;
        }
      }
      for (std::vector<int> *v : {&A.readers, &ctas[cta].regions[e.bBuf][e.bRegion].readers,
                                  &acc.mmaWriters})
        v->erase(std::find(v->begin(), v->end(), id));
    }
    a.mmaQueue.pop_front();
    a.mmaCompleted++;
  }

  /// tcgen05.commit: one arrival on barrier[slot] in every CTA of ctaMask,
  /// once every MMA the actor issued so far has completed.
  void doCommitArrive(Actor &a, const Op &op) {
    int b = barrierIndex(a, op);
    Cursor &c = cursor(a, op);
    unsigned slot = slotFor(a, op, b, c);
    if (op.ctaMask >> p.clusterSize)
      fail(SimVerdict::Invalid, who(a) + " commits to " + op.barrier + " with cta_mask " +
                                    std::to_string(op.ctaMask) + ", but the cluster has " +
                                    std::to_string(p.clusterSize) + " CTA(s)");
    Event e;
    e.kind = EventKind::Commit;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = a.k;
    e.barrier = b;
    e.slot = slot;
    e.round = arrivalRound(a, op, b, slot, c);
    e.threshold = a.mmaIssued;
    e.commitCtas = reachOf(a, op);
    e.op = &op;
    a.commitQueue.push_back(int(events.size()));
    addEvent(e);
  }

  void completeCommit(Event &e) {
    Actor &a = actors[e.actor];
    a.commitQueue.pop_front();
    for (unsigned cta : e.commitCtas)
      arrive(a, cta, e.barrier, e.slot, e.round, *e.op);
  }

  /// tcgen05.ld + wait::ld: the instance's accumulator columns of the
  /// current chunk (all tileN columns outside a chunk loop) into registers.
  void doLoadAcc(Actor &a, const Op &op) {
    int accBuf = bufferIndex(a, op.acc, op);
    int accReg = regionIndex(a, accBuf, 0);
    Region &acc = ctas[a.cta].regions[accBuf][accReg];
    for (int id : acc.mmaWriters)
      fail(SimVerdict::Race,
           "race: " + who(a) + " (" + where(a) + ") reads accumulator " +
               regionName(accBuf, accReg, a.cta) + " in load_acc (tcgen05.ld) while " +
               describeEvent(events[id]) + " still writes it",
           {"the writeback passed its wait on the accumulator-ready barrier (mma2ld) before "
            "the MMAs completed: it must be arrived by a tcgen05.commit that reaches this CTA "
            "(cta_mask), and the waiter must start at phase 0"});
    if (acc.accTile > a.tile.ct)
      fail(SimVerdict::Race,
           "race: " + who(a) + " (" + where(a) + ") reads accumulator " +
               regionName(accBuf, accReg, a.cta) + " in load_acc, but the MMAs of tile #" +
               std::to_string(acc.accTile) + " already overwrote it",
           {"the MMA warp reused the accumulator before this writeback released it: check "
            "the accumulator-free barrier (ld2mma): its arrival count and the waiter's phase"});
    unsigned rank = ctas[a.cta].rank;
    unsigned row0 = rowsSm100(a.tile, a.instance, rank);
    if (acc.accTile != a.tile.ct)
      notes[{row0 / k.tileM, a.tile.tn}] =
          regionName(accBuf, accReg, a.cta) + " was not written by any MMA in " +
          tileName(a.tile) + " (" + std::to_string(p.kBlocks) +
          " k-block(s)): load_acc read stale TMEM";
    unsigned col0 = chunkCol0(a);
    unsigned width = a.chunk >= 0 ? chunkWidth() : k.tileN;
    a.regs.assign(size_t(acc.rows) * width, NAN);
    for (unsigned i = 0; i < acc.rows; ++i)
      for (unsigned j = 0; j < width && col0 + j < acc.cols; ++j)
        a.regs[size_t(i) * width + j] = acc.data[size_t(i) * acc.cols + col0 + j];
    a.regsWidth = width;
    a.regsLoaded = true;
    if (a.chunk < 0)
      std::fill(acc.chunksRead.begin(), acc.chunksRead.end(), true);
    else if (unsigned(a.chunk) < acc.chunksRead.size())
      acc.chunksRead[a.chunk] = true;
  }

  /// sm_100a store_acc: the registers load_acc filled (not TMEM: step 7
  /// releases the accumulator before it converts) into the staging tile.
  void doStoreAccSm100(Actor &a, const Op &op) {
    int sBuf = bufferIndex(a, op.buffer, op);
    int sReg = regionIndex(a, sBuf, 0);
    Region &stg = ctas[a.cta].regions[sBuf][sReg];
    checkStagingWritable(a, sBuf, sReg, stg);
    if (!a.regsLoaded) {
      unsigned row0 = rowsSm100(a.tile, a.instance, ctas[a.cta].rank);
      notes[{row0 / k.tileM, a.tile.tn}] =
          who(a) + " ran store_acc before any load_acc: it stored uninitialised registers";
    }
    for (unsigned i = 0; i < stg.rows; ++i)
      for (unsigned j = 0; j < stg.cols; ++j)
        stg.data[size_t(i) * stg.cols + j] =
            a.regsLoaded && j < a.regsWidth && size_t(i) * a.regsWidth + j < a.regs.size()
                ? roundTo(k.dType, a.regs[size_t(i) * a.regsWidth + j])
                : NAN;
    stg.unfenced = true;
    stg.unsynced = true;
  }

  //===--- scheduler ------------------------------------------------------===//

  /// Queues an async operation with a random latency: mostly short, now and
  /// then long enough to span a whole main loop, so that slow copies, MMAs
  /// and stores are explored as well as fast ones.
  void addEvent(Event &e) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    uint64_t delay = unit(rng) < longLatency
                         ? std::uniform_int_distribution<uint64_t>(0, 400)(rng)
                         : std::uniform_int_distribution<uint64_t>(0, 8)(rng);
    e.readyAt = clock + delay;
    pending.push_back(int(events.size()));
    events.push_back(e);
  }

  void loop() {
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
            (actors[e.actor].commitQueue.front() != id ||
             actors[e.actor].mmaCompleted < e.threshold))
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
        fail(SimVerdict::StepLimit, "step limit: no verdict after " +
                                        std::to_string(maxSteps) + " scheduler steps");
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

  //===--- verdicts -------------------------------------------------------===//

  std::string opText(const Actor &a, const Op &op) {
    std::string s = toString(op.kind);
    if (op.kind == OpKind::Wait || op.kind == OpKind::Arrive ||
        op.kind == OpKind::ArriveExpectTx || op.kind == OpKind::MmaCommitArrive)
      s += " " + op.barrier + "[" + (op.slotIsInstance ? "instance" : op.state) + "]";
    if (op.kind == OpKind::MmaCommitArrive)
      s += " cta_mask=" + std::to_string(op.ctaMask);
    return s;
  }

  /// One line: what `a` is blocked on.
  std::string blockedOn(Actor &a) {
    if (a.finished)
      return "finished after " + std::to_string(a.tilesDone) + " tile(s)";
    const Op &op = *a.op;
    if (op.kind == OpKind::Wait) {
      unsigned slot;
      waitPasses(a, op, &slot);
      const Cursor &c = cursor(a, op);
      return "waits " + op.barrier + "[" + std::to_string(slot) + "] for parity " +
             std::to_string(c.phase) + " (" + where(a) + ")";
    }
    if (op.kind == OpKind::NamedBarrierSync)
      return "waits named barrier id " + std::to_string(a.namedId) + " (" + op.barrier + ", " +
             where(a) + ")";
    return "runnable at " + std::string(toString(op.kind)) + " (" + where(a) + ")";
  }

  /// Actors whose program can arrive on (or, with loads, complete tx on)
  /// barrier `b` of CTA `cta`.
  std::vector<std::pair<int, const Op *>> expectedSignallers(unsigned cta, int b, bool loads) {
    std::vector<std::pair<int, const Op *>> out;
    const auto &list = loads ? p.loaders[b] : p.arrivers[b];
    for (const auto &[role, op] : list)
      for (Actor &a : actors) {
        if (a.role != role)
          continue;
        std::vector<unsigned> reach;
        if (loads && op->scope == CtaScope::Leader) {
          reach.push_back(leaderOf(a.cta)); // sm_100a pair: bytes on the leader's barrier
        } else if (loads && op->scope != CtaScope::Local) {
          const Cta &me = ctas[a.cta], &t = ctas[cta];
          if (me.cluster == t.cluster &&
              (op->operand == Operand::A ? me.rankM == t.rankM : me.rankN == t.rankN))
            reach.push_back(cta);
        } else {
          reach = reachOf(a, *op);
        }
        bool listed = false;
        for (const auto &o : out)
          listed |= o.first == a.id;
        if (!listed && std::find(reach.begin(), reach.end(), cta) != reach.end())
          out.push_back({a.id, op});
      }
    return out;
  }

  [[noreturn]] void reportDeadlock() {
    std::vector<std::string> d;
    std::string first;
    bool txStuck = false;
    std::string txLine;
    unsigned blocked = 0;
    for (Actor &a : actors) {
      if (a.finished)
        continue;
      blocked++;
      const Op &op = *a.op;
      std::string line = who(a) + " at " + where(a) + ": ";
      if (op.kind == OpKind::Wait) {
        unsigned slot;
        waitPasses(a, op, &slot);
        int b = barrierIndex(a, op);
        const Barrier &bd = k.barriers[b];
        const Mbar &bar = ctas[a.cta].bars[b][slot];
        const Cursor &c = cursor(a, op);
        std::string bname = bd.name + "[" + std::to_string(slot) + "]";
        line += "waits " + bname + " for parity " + std::to_string(c.phase) + "; " + bname +
                " of CTA " + std::to_string(a.cta) + " is in phase " + std::to_string(bar.phase) +
                " (parity " + std::to_string(bar.phase & 1) + "), " +
                std::to_string(bar.pending) + " of " + std::to_string(bd.arriveCount) +
                " arrival(s) missing, tx " + std::to_string(bar.tx) + " byte(s) outstanding";
        if (first.empty())
          first = who(a) + " waits " + bname + " for parity " + std::to_string(c.phase) +
                  " (barrier in phase " + std::to_string(bar.phase) + ", " +
                  std::to_string(bar.pending) + "/" + std::to_string(bd.arriveCount) +
                  " arrivals missing)";
        d.push_back(line);
        // sm_100a: bytes still missing while expect_tx did not exceed what
        // the loads of a phase deliver come from a load not issued yet (a
        // peer's producer blocked elsewhere): a deadlock, not an overflow.
        bool notIssuedYet = sm100() && bar.expectedTx <= p.bytesPerPhase[b];
        if (bar.pending == 0 && bar.tx > 0 && !txStuck && !notIssuedYet) {
          txStuck = true;
          txLine = "tx overflow: " + bname + " of CTA " + std::to_string(a.cta) +
                   " has all its arrivals but waits for " + std::to_string(bar.tx) +
                   " transaction byte(s) that no copy will deliver (expect_tx declares " +
                   std::to_string(bd.txBytes) + " bytes per phase; the TMA loads of one "
                   "phase write " + std::to_string(p.bytesPerPhase[b]) + ")";
        }
        // Who was supposed to arrive, and why they did not.
        std::map<int, unsigned> arrivedCount;
        for (int id : bar.arrivedBy)
          arrivedCount[id]++;
        auto sigs = expectedSignallers(a.cta, b, false);
        sigs.erase(std::remove_if(sigs.begin(), sigs.end(),
                                  [&](const auto &sg) { return !signalsSlot(sg, slot); }),
                   sigs.end());
        if (sigs.empty())
          d.push_back("    no role arrives on " + bd.name + " in any CTA that reaches CTA " +
                      std::to_string(a.cta));
        for (const auto &[id, sop] : sigs) {
          Actor &s = actors[id];
          std::string sl = "    expected to arrive: " + who(s) + " (" + opText(s, *sop) + ")";
          if (arrivedCount.count(id))
            sl += " already arrived " + std::to_string(arrivedCount[id]) +
                  " time(s) in this phase; now ";
          else
            sl += " did not arrive in this phase: ";
          sl += s.finished ? "it finished after " + std::to_string(s.tilesDone) + " tile(s)"
                           : "it is blocked: " + blockedOn(s);
          d.push_back(sl);
        }
        if (bar.tx != 0) {
          for (const auto &[id, sop] : expectedSignallers(a.cta, b, true))
            d.push_back("    copies signal it: " + who(actors[id]) + " (tma_load " +
                        toString(sop->operand) + ") — " + blockedOn(actors[id]));
        }
      } else if (op.kind == OpKind::NamedBarrierSync) {
        NamedHw &hw = ctas[a.cta].named[a.namedId];
        int b = barrierIndex(a, op);
        line += "waits named barrier id " + std::to_string(a.namedId) + " (" + op.barrier +
                "): " + std::to_string(hw.arrived) + " of " + std::to_string(hw.expected) +
                " threads arrived";
        if (first.empty())
          first = who(a) + " waits named barrier id " + std::to_string(a.namedId) + " (" +
                  std::to_string(hw.arrived) + "/" + std::to_string(hw.expected) + " threads)";
        d.push_back(line);
        for (Actor &o : actors) {
          if (o.cta != a.cta || o.id == a.id)
            continue;
          bool syncs = false;
          std::vector<const Op *> ops;
          collectOps(k.roles[o.role].body, ops);
          for (const Op *x : ops)
            syncs |= x->kind == OpKind::NamedBarrierSync &&
                     indexOf(k.barriers, x->barrier) >= 0 &&
                     namedHwId(o, k.barriers[indexOf(k.barriers, x->barrier)]) == a.namedId;
          if (syncs)
            d.push_back("    also syncs on id " + std::to_string(a.namedId) + ": " + who(o) +
                        " — " + blockedOn(o));
        }
        (void)b;
        d.push_back("    " + std::to_string(k.roles[a.role].threadsPerInstance()) +
                    " threads per group; the barrier waits for " +
                    std::to_string(hw.expected));
      } else {
        line += blockedOn(a);
        d.push_back(line);
      }
    }
    if (txStuck)
      fail(SimVerdict::TxOverflow, txLine, d);
    fail(SimVerdict::Deadlock,
         "deadlock: " + std::to_string(blocked) + " of " + std::to_string(actors.size()) +
             " roles blocked, nothing in flight; " + first,
         d);
  }

  void checkResult() {
    unsigned wrongTiles = 0;
    std::string msg;
    std::vector<std::string> d;
    for (unsigned tm = 0; tm < p.tilesM; ++tm)
      for (unsigned tn = 0; tn < p.tilesN; ++tn) {
        unsigned bad = 0, fi = 0, fj = 0;
        for (unsigned i = tm * k.tileM; i < std::min(p.M, (tm + 1) * k.tileM); ++i)
          for (unsigned j = tn * k.tileN; j < std::min(p.N, (tn + 1) * k.tileN); ++j) {
            float got = D[size_t(i) * p.N + j], want = p.ref[size_t(i) * p.N + j];
            bool ok = std::fabs(got - want) <= 1e-3f * std::fabs(want) + 1e-6f;
            if (!ok && bad++ == 0) {
              fi = i;
              fj = j;
            }
          }
        if (!bad)
          continue;
        if (wrongTiles++ == 0) {
          float got = D[size_t(fi) * p.N + fj];
          msg = "wrong result: " + std::string(sm100() ? "D block" : "tile") + " (m " +
                std::to_string(tm) + ", n " + std::to_string(tn) + ") element [" +
                std::to_string(fi) + ", " + std::to_string(fj) + "]: got " + fmtFloat(got) +
                (written[size_t(fi) * p.N + fj] ? "" : " (never written)") + ", want " +
                fmtFloat(p.ref[size_t(fi) * p.N + fj]);
          d.push_back(std::to_string(bad) + " wrong element(s) in this tile");
          auto it = notes.find({tm, tn});
          if (it != notes.end())
            d.push_back(it->second);
        }
      }
    if (wrongTiles) {
      d.push_back(std::to_string(wrongTiles) + " of " + std::to_string(p.tilesM * p.tilesN) +
                  " tile(s) wrong");
      fail(SimVerdict::WrongResult, msg, d);
    }
  }

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
  std::map<std::pair<unsigned, unsigned>, std::string> notes;
  /// [cta][barrier]: the actors that arrive on it each phase.
  std::vector<std::vector<std::vector<std::pair<int, const Op *>>>> signallers;
};

unsigned ceilDiv(unsigned a, unsigned b) { return b ? (a + b - 1) / b : 0; }

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

const char *gemmgen::toString(SimVerdict v) {
  switch (v) {
  case SimVerdict::Ok: return "ok";
  case SimVerdict::Deadlock: return "deadlock";
  case SimVerdict::Race: return "race";
  case SimVerdict::WrongResult: return "wrong-result";
  case SimVerdict::OverArrival: return "over-arrival";
  case SimVerdict::TxUnderflow: return "tx-underflow";
  case SimVerdict::TxOverflow: return "tx-overflow";
  case SimVerdict::Invalid: return "invalid";
  case SimVerdict::StepLimit: return "step-limit";
  }
  return "?";
}

bool SimulationResult::ok() const { return failures() == 0; }

unsigned SimulationResult::failures() const {
  unsigned n = 0;
  for (const SeedResult &r : runs)
    n += r.verdict != SimVerdict::Ok;
  return n;
}

const SeedResult *SimulationResult::firstFailure() const {
  for (const SeedResult &r : runs)
    if (r.verdict != SimVerdict::Ok)
      return &r;
  return nullptr;
}

SimulationResult gemmgen::simulate(const Kernel &kernel, const SimulationOptions &options) {
  Problem p(kernel);
  p.M = options.m;
  p.N = options.n;
  p.K = options.k;
  SimulationResult result;
  result.kernel = kernel.name;
  result.m = p.M;
  result.n = p.N;
  result.k = p.K;

  auto invalid = [&](const std::string &msg) {
    SeedResult r;
    r.seed = options.firstSeed;
    r.verdict = SimVerdict::Invalid;
    r.message = "invalid: " + msg;
    result.runs.push_back(r);
    return result;
  };
  if (!kernel.tileM || !kernel.tileN || !kernel.tileK)
    return invalid("the kernel has a zero tile size");
  if (!kernel.clusterM || !kernel.clusterN)
    return invalid("the kernel has a zero cluster size");
  p.clusterSize = kernel.clusterM * kernel.clusterN;
  p.tilesM = ceilDiv(p.M, kernel.tileM);
  p.tilesN = ceilDiv(p.N, kernel.tileN);
  p.ctM = ceilDiv(p.tilesM, kernel.clusterM);
  p.ctN = ceilDiv(p.tilesN, kernel.clusterN);
  const bool sm100 = kernel.target == Target::SM100a;
  if (sm100) {
    // The cluster is the CTA pair; a cluster tile is C·G·tileM rows by
    // tileN columns. tilesM/tilesN count tileM × tileN blocks of D (one
    // consumer's accumulator of one CTA), the unit of the wrong-result report.
    if (kernel.clusterN != 1 || kernel.clusterM != std::max(1u, kernel.ctaGroup))
      return invalid("an sm_100a kernel needs cluster m = cta_group and n = 1");
    if (!kernel.consumers)
      return invalid("the kernel has no consumers");
    p.ctM = ceilDiv(p.M, kernel.consumers * kernel.clusterM * kernel.tileM);
    p.ctN = p.tilesN;
  }
  p.kBlocks = ceilDiv(p.K, kernel.tileK);
  unsigned nct = p.ctM * p.ctN;
  if (kernel.schedule.kind == SchedulerKind::DataParallel) {
    p.clusters = std::max(1u, nct);
  } else if (options.ctas) {
    if (options.ctas % p.clusterSize)
      return invalid("--ctas " + std::to_string(options.ctas) +
                     " is not a multiple of the cluster size " + std::to_string(p.clusterSize));
    p.clusters = options.ctas / p.clusterSize;
  } else {
    p.clusters = std::max(1u, (nct + 1) / 2);
  }
  p.ctas = p.clusters * p.clusterSize;
  p.clusterTiles = walkOrder(p.ctM, p.ctN, kernel.schedule);
  result.ctas = p.ctas;
  result.clusterSize = p.clusterSize;
  result.tilesM = p.tilesM;
  result.tilesN = p.tilesN;
  result.kBlocks = p.kBlocks;

  // Inputs: multiples of 1/8 in [-1, 1] without 0, exact in f16/bf16, so
  // every partial sum is exact in float and the reference is exact.
  std::mt19937_64 data(options.dataSeed);
  std::uniform_int_distribution<int> pick(1, 16);
  auto value = [&] {
    int v = pick(data);
    return (v <= 8 ? -v : v - 8) / 8.0f;
  };
  p.A.resize(size_t(p.M) * p.K);
  p.B.resize(size_t(p.N) * p.K);
  for (float &x : p.A)
    x = value();
  for (float &x : p.B)
    x = value();
  p.ref.assign(size_t(p.M) * p.N, 0.0f);
  for (unsigned i = 0; i < p.M; ++i)
    for (unsigned j = 0; j < p.N; ++j) {
      float s = 0;
      for (unsigned t = 0; t < p.K; ++t)
        s += p.A[size_t(i) * p.K + t] * p.B[size_t(j) * p.K + t];
      p.ref[size_t(i) * p.N + j] = roundTo(kernel.dType, s);
    }

  p.arrivers.resize(kernel.barriers.size());
  p.loaders.resize(kernel.barriers.size());
  p.bytesPerPhase.assign(kernel.barriers.size(), 0);
  for (unsigned r = 0; r < kernel.roles.size(); ++r) {
    std::vector<const Op *> ops;
    collectOps(kernel.roles[r].body, ops);
    for (const Op *op : ops) {
      int b = indexOf(kernel.barriers, op->barrier);
      if (b < 0)
        continue;
      if (op->kind == OpKind::Arrive || op->kind == OpKind::ArriveExpectTx ||
          op->kind == OpKind::MmaCommitArrive)
        p.arrivers[b].push_back({r, op});
      if (op->kind == OpKind::TmaLoad) {
        p.loaders[b].push_back({r, op});
        // A multicast split lands every part in each CTA; a local load
        // with parts > 1 lands only this CTA's part.
        // sm_100a (scope leader): every CTA of the pair loads its own box
        // and completes the bytes on the leader's barrier.
        if (const Buffer *buf = kernel.findBuffer(op->buffer))
          p.bytesPerPhase[b] += sm100 ? buf->bytesPerStage() * (op->scope == CtaScope::Leader
                                                                    ? p.clusterSize
                                                                    : 1)
                                : op->scope == CtaScope::Local
                                    ? buf->bytesPerStage() / std::max(1u, op->parts)
                                    : buf->bytesPerStage();
      }
    }
  }

  uint64_t maxSteps = options.maxSteps;
  if (!maxSteps) {
    uint64_t work = uint64_t(nct) * p.clusterSize * std::max(1u, p.kBlocks) * 64 *
                    (kernel.consumers + 2);
    maxSteps = std::max<uint64_t>(1000000, work * 8);
  }
  for (unsigned s = 0; s < options.seeds; ++s) {
    uint64_t seed = options.firstSeed + s;
    Machine m(p, seed, maxSteps);
    result.runs.push_back(m.run(seed));
    if (options.stopAtFirstFailure && result.runs.back().verdict != SimVerdict::Ok)
      break;
  }
  return result;
}

void gemmgen::printSimulationResult(const SimulationResult &r, llvm::raw_ostream &os,
                                    bool allSeeds) {
  os << "simulate " << r.kernel << ": M=" << r.m << " N=" << r.n << " K=" << r.k << ", "
     << r.tilesM << "x" << r.tilesN << " tiles, " << r.kBlocks << " k-block(s), " << r.ctas
     << " CTA(s) in clusters of " << r.clusterSize << ", " << r.runs.size()
     << " interleaving(s)\n";
  const SeedResult *first = r.firstFailure();
  for (const SeedResult &s : r.runs) {
    if (s.verdict == SimVerdict::Ok) {
      if (allSeeds)
        os << "seed " << s.seed << ": ok (" << s.steps << " steps)\n";
      continue;
    }
    os << "seed " << s.seed << ": " << s.message << "\n";
    if (&s == first)
      for (const std::string &line : s.details)
        os << "  " << line << "\n";
  }
  if (!first) {
    os << "ok: " << r.runs.size() << " of " << r.runs.size()
       << " interleavings completed with the right D\n";
    return;
  }
  std::map<std::string, unsigned> byKind;
  for (const SeedResult &s : r.runs)
    if (s.verdict != SimVerdict::Ok)
      byKind[toString(s.verdict)]++;
  os << "FAILED: " << r.failures() << " of " << r.runs.size() << " interleavings (";
  bool firstKind = true;
  for (const auto &[kind, n] : byKind) {
    os << (firstKind ? "" : ", ") << n << " " << kind;
    firstKind = false;
  }
  os << "); first failure: seed " << first->seed << "\n";
}

llvm::json::Value gemmgen::toJSON(const SimulationResult &r) {
  llvm::json::Array runs;
  for (const SeedResult &s : r.runs) {
    llvm::json::Array details;
    for (const std::string &d : s.details)
      details.push_back(d);
    runs.push_back(llvm::json::Object{{"seed", int64_t(s.seed)},
                                      {"verdict", toString(s.verdict)},
                                      {"message", s.message},
                                      {"details", std::move(details)},
                                      {"steps", int64_t(s.steps)}});
  }
  return llvm::json::Object{{"kernel", r.kernel},
                            {"m", r.m},
                            {"n", r.n},
                            {"k", r.k},
                            {"ctas", r.ctas},
                            {"cluster_size", r.clusterSize},
                            {"tiles_m", r.tilesM},
                            {"tiles_n", r.tilesN},
                            {"k_blocks", r.kBlocks},
                            {"ok", r.ok()},
                            {"failures", r.failures()},
                            {"runs", std::move(runs)}};
}

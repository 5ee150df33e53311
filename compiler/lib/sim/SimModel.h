//===- SimModel.h - The simulator's machine state -------------*- C++ -*-===//
//
// The state one interleaving runs on (internal to the simulator): storage
// regions with per-row tags and in-flight accesses, mbarriers and hardware
// named barriers, CTAs, the actors' interpreter state and async events, and
// the Problem every interleaving shares (geometry, inputs, reference).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_SIM_SIMMODEL_H
#define GEMMGEN_SIM_SIMMODEL_H

#include "gemmgen/device/epilogue_ops.cuh"
#include "gemmgen/IR.h"
#include "gemmgen/Simulator.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen {
namespace sim {

using namespace gemmgen::ir;

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
  int accTile = -1;             ///< cluster tile whose MMAs last wrote it (-1: none)
  std::vector<bool> chunksRead; ///< epilogue chunks load_acc read since the tile's first MMA
  std::vector<int> mmaWriters;  ///< MMAs in flight that write it
};

struct Mbar {
  uint64_t phase = 0; ///< phases completed so far (parity = phase & 1)
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
  std::set<int> arrivedNow; ///< actors whose threads count toward the current phase
  std::string barrier; ///< IR barrier name of the first user
};

struct TileRef {
  int ct = -1; ///< index in the cluster-tile list
  unsigned tm = 0, tn = 0;
  unsigned entry = 0; ///< batch entry (its own A, B and D)
  /// The k-blocks this CTA computes of it: all, or a stream-K share's.
  int kBegin = 0, kEnd = 0;
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
  unsigned turn = 0; ///< the current tile's index in the CTA's walk (ping-pong turns)
  int k = -1;     ///< current k-block, -1 outside for_k
  /// early_loads: k-blocks of the walk's first tile loaded before the CTA's
  /// barrier, which the role's for_k on that tile starts after.
  int earlyK = 0;
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
  unsigned entry = 0; ///< Load, Store: the batch entry (tile.entry)
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
  /// The CTAs whose A, B and accumulators the MMA uses: the issuing CTA
  /// (sm_90a wgmma) or the CTA pair (sm_100a cta_group 2), in rank order.
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
/// One entry of a launch (a batch entry, or a grouped kernel's problem):
/// its shape and where its A, B and D (C, ref) start in Problem's arrays.
struct EntryShape {
  unsigned M = 0, N = 0, K = 0;
  unsigned tilesM = 0, tilesN = 0, kBlocks = 0;
  size_t aBase = 0, bBase = 0, dBase = 0;
};

struct Problem {
  const Kernel &k;
  unsigned M, N, K;   ///< a batch entry's shape (a grouped launch: the first problem's)
  unsigned batch = 1; ///< entries, each M×N×K with its own A, B, D (stored one after another)
  /// Every entry (batch entries or grouped problems), in walk order.
  std::vector<EntryShape> entries;
  size_t dElements = 0; ///< D (and ref, C) elements of all entries
  float alpha = 1.0f, beta = 0.0f; ///< D = alpha·A·B + beta·C
  /// The kernel's epilogue chain as data (gemmgen/device/epilogue_ops.cuh),
  /// its bias vector (f32, one per entry, biasLength apart) and scale.
  epilogue::Chain chain;
  std::vector<float> bias;
  float scaleD = 1.0f;
  /// D's value at (row, col) of entry l before it leaves the registers:
  /// alpha·acc with beta·C (cBeta) and the chain, rounded to D's type.
  float epilogueValue(unsigned l, unsigned row, unsigned col, float acc, float cBeta) const;
  /// Blockwise fp8 scaling (KernelPlan::blockwiseScales): per entry, A's
  /// scales [kb][row] and B's [col / 128][kb], powers of two (exact); the
  /// MMA of k-block kb adds its sum times sA·sB. 1 without blockwise scales.
  std::vector<std::vector<float>> scaleA, scaleB;
  float blockScale(unsigned l, unsigned row, unsigned col, unsigned kb) const {
    if (scaleA.empty())
      return 1.0f;
    const EntryShape &e = entries[l];
    if (row >= e.M || col >= e.N || kb >= e.kBlocks)
      return 0.0f;
    return scaleA[l][size_t(kb) * e.M + row] * scaleB[l][size_t(col / 128) * e.kBlocks + kb];
  }
  unsigned clusterSize, tilesM, tilesN, ctM, ctN, kBlocks, clusters, ctas;
  /// Stream-K: the launch's unit slots (every entry's), whose last waves'
  /// k-blocks tile_schedule.cuh's sk_share_begin splits between the CTAs.
  long long skSlots = 0;
  /// Per cluster, the cluster tiles (units) it computes, in order: the walk
  /// of gemmgen/device/tile_schedule.cuh (SimulationResult::walks).
  std::vector<std::vector<ScheduledUnit>> walks;
  /// A and B as stored in global memory (the kernel plan's operand majors),
  /// entry after entry: A K-major M×K (a(m,k) at m·K + k) or M-major (at
  /// k·M + m); B K-major N×K (b(k,n) at n·K + k) or N-major (at k·N + n).
  /// D and ref: M×N per entry.
  std::vector<float> A, B, C, ref; ///< C: M×N per entry, like D (empty when beta = 0)
  bool aMMajor = false, bNMajor = false;
  float a(unsigned l, unsigned m, unsigned kk) const {
    const EntryShape &e = entries[l];
    return aMMajor ? A[e.aBase + size_t(kk) * e.M + m] : A[e.aBase + size_t(m) * e.K + kk];
  }
  float b(unsigned l, unsigned kk, unsigned n) const {
    const EntryShape &e = entries[l];
    return bNMajor ? B[e.bBase + size_t(kk) * e.N + n] : B[e.bBase + size_t(n) * e.K + kk];
  }
  /// Index of D / ref element (i, j) of entry l.
  size_t d(unsigned l, unsigned i, unsigned j) const {
    return entries[l].dBase + size_t(i) * entries[l].N + j;
  }
  /// Per barrier: ops that arrive on it / load onto it, with their role.
  std::vector<std::vector<std::pair<unsigned, const Op *>>> arrivers, loaders;
  /// Bytes one phase of each barrier receives from all its TMA loads.
  std::vector<uint64_t> bytesPerPhase;

  explicit Problem(const Kernel &k) : k(k) {}
};

//===--- helpers shared by the simulator's files ---------------------------===//

/// `x` rounded to `t` (f16 with overflow to inf and subnormals, bf16, f32).
float roundTo(ScalarType t, float x);
std::string fmtFloat(float v);
/// Every op of `body`, depth first.
void collectOps(const std::vector<Op> &body, std::vector<const Op *> &out);
int indexOf(const std::vector<Buffer> &v, const std::string &name);
int indexOf(const std::vector<Barrier> &v, const std::string &name);

} // namespace sim
} // namespace gemmgen

#endif // GEMMGEN_SIM_SIMMODEL_H

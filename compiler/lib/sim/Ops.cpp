//===- Ops.cpp - The simulator's async ops and accumulators --------------===//
//
// TMA loads, MMAs, store_acc, TMA stores, and the sm_100a tcgen05.commit and
// load_acc: one function per op for both targets. The target only chooses
// the geometry (IR.h, "sm_100a semantics"): an sm_90a load may be a
// multicast split over the cluster, an sm_100a load lands in its own CTA and
// counts on the pair leader's barrier; an sm_90a wgmma reads and writes its
// own CTA, an sm_100a cta_group MMA both CTAs of the pair; TMEM accumulators
// (sm_100a) are tagged with their tile and handed to the writeback through
// load_acc, register accumulators (sm_90a) are read by store_acc itself.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include "gemmgen/device/tile_schedule.cuh"

#include <algorithm>
#include <cmath>

namespace gemmgen {
namespace sim {

/// TMA load of one operand box into the stage of the op's cursor. sm_90a:
/// this CTA's slice of the box (parts > 1: a multicast split) lands in this
/// CTA (scope Local) or in every CTA of the cluster that shares the operand
/// (scope Cluster: same tile row for A, same tile column for B). sm_100a: CTA
/// r's own box lands in its own stage; with the pair (scope Leader) its bytes
/// complete on the leader CTA's barrier; no multicast.
void Machine::doTmaLoad(Actor &a, const Op &op) {
  if (!a.inTile)
    fail(SimVerdict::Invalid, who(a) + " issues a TMA load outside for_each_tile");
  int buf = bufferIndex(a, op.buffer, op);
  int b = barrierIndex(a, op);
  Cursor &c = cursor(a, op);
  unsigned slot = slotFor(a, op, b, c);
  const Buffer &bd = k.buffers[buf];
  const Cta &me = ctas[a.cta];
  unsigned inst = op.instance >= 0 ? unsigned(op.instance) : a.instance;
  // Where the box lands: the CTAs, the rows of the stage, the first row of A or B.
  std::vector<unsigned> dsts;
  unsigned row0 = 0, rows = bd.rows, gRow0 = 0;
  if (sm100()) {
    if (op.scope == CtaScope::Cluster)
      fail(SimVerdict::Invalid, "invalid IR: " + who(a) +
                                    " issues a multicast TMA load; "
                                    "sm_100a loads are local or complete on the leader's barrier");
    if (op.operand == Operand::A && bd.instances > 1 && inst >= bd.instances)
      fail(SimVerdict::Invalid, who(a) + " loads " + bd.name + "[" + std::to_string(inst) +
                                    "] but it has " + std::to_string(bd.instances) +
                                    " instance(s)");
    dsts.push_back(a.cta);
    // A and C: the instance's rows of the cluster tile (C's chunk: its D rows).
    gRow0 = op.operand == Operand::A || op.operand == Operand::C
                ? rowsSm100(a.tile, inst, me.rank)
                : a.tile.tn * k.tileN + me.rank * bd.rows;
  } else {
    unsigned parts = std::max(1u, op.parts);
    unsigned rank = op.operand == Operand::A ? me.rankN : me.rankM;
    unsigned part = parts > 1 ? rank % parts : 0;
    row0 = part * bd.rows / parts;
    rows = (part + 1) * bd.rows / parts - row0;
    if (op.operand == Operand::C) // C's chunk: the consumer's rows of D
      gRow0 = a.tile.tm * k.tileM + instanceRow0(a, bd);
    else
      gRow0 = (op.operand == Operand::A ? a.tile.tm * k.tileM : a.tile.tn * k.tileN) + row0;
    if (op.scope == CtaScope::Local) {
      dsts.push_back(a.cta);
    } else {
      for (unsigned r = 0; r < p.clusterSize; ++r) {
        unsigned cta = me.cluster * p.clusterSize + r;
        const Cta &o = ctas[cta];
        if (op.operand == Operand::A ? o.rankM == me.rankM : o.rankN == me.rankN)
          dsts.push_back(cta);
      }
    }
  }
  std::string releaseHint =
      sm100() ? "the stage was released before every MMA that reads it completed: the release "
                "must be a tcgen05.commit (it arrives once the MMAs completed) that reaches this "
                "CTA, and the barrier must count every MMA warp's commit"
              : "the stage was released (or its barrier completed) before every reader "
                "finished: check the empty barrier's arrival count and who arrives on it";
  for (unsigned dst : dsts) {
    Event e;
    e.kind = EventKind::Load;
    e.actor = a.id;
    e.tile = a.tile;
    e.k = a.k;
    e.dstCta = dst;
    e.barCta = op.scope == CtaScope::Leader ? leaderOf(a.cta) : dst;
    e.buf = buf;
    // C lands in the chunk's staging tile; A and B in the ring's stage.
    e.region = op.operand == Operand::C ? regionIndex(a, buf, stagingStage(a, buf), int(inst))
                                        : regionIndex(a, buf, c.stage, int(inst));
    e.row0 = row0;
    e.rows = rows;
    e.operand = op.operand;
    e.gRow0 = gRow0;
    e.gCol0 = op.operand == Operand::C ? a.tile.tn * k.tileN + chunkCol0(a)
                                       : unsigned(std::max(a.k, 0)) * k.tileK;
    e.entry = a.tile.entry;
    e.barrier = b;
    e.slot = slot;
    e.round = c.round;
    e.bytes = e.rows * bd.cols * sizeInBytes(bd.type);
    e.tag = Tag{a.tile.ct, a.k};
    Region &r = ctas[dst].regions[buf][e.region];
    for (int rd : r.readers) {
      const Event &o = events[rd];
      if (o.kind == EventKind::Mma && !rowsOverlap(o, buf, e.row0, e.rows))
        continue;
      fail(SimVerdict::Race,
           "race: " + regionName(buf, e.region, dst) + " is overwritten by the " +
               describeEvent(e) + " while " + describeEvent(o) + " still reads it",
           {releaseHint, "barrier " + k.barriers[b].name + "[" + std::to_string(slot) +
                             "], load phase " + std::to_string(c.round)});
    }
    r.pendingWrites.push_back(int(events.size()));
    addEvent(e);
  }
}

/// MMA over one k-block: for every CTA of the MMA (the issuing CTA; sm_100a
/// cta_group G: the G CTAs of the pair), acc (+)= A-stage · B^T, where B is
/// the B stages of all those CTAs stacked (each CTA holds tileN / G rows).
/// sm_90a consumer c reads rows [c·accRows, +accRows) of the shared A stage.
void Machine::doMma(Actor &a, const Op &op) {
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
  const Buffer &accB = k.buffers[e.accBuf];
  const bool tmem = accB.space == MemSpace::Tensor;
  unsigned aRows = accB.rows;
  if (!sm100() && accB.instances > 1)
    e.aRow0 = instanceRow0(a, accB);
  if (sm100())
    aRows = k.buffers[e.aBuf].rows; // one A instance per consumer
  e.accumulate = a.k > a.tile.kBegin; // the share's first k-block overwrites
  unsigned G = sm100() ? pairSize() : 1;
  if (G > 1 && ctas[a.cta].rank != 0)
    fail(SimVerdict::Invalid, who(a) + " issues a cta_group::" + std::to_string(G) +
                                  " MMA from a CTA that is not the pair's leader");
  if (sm100() && k.buffers[e.bBuf].rows * G != k.tileN)
    fail(SimVerdict::Invalid, "invalid IR: " + k.buffers[e.bBuf].name + " holds " +
                                  std::to_string(k.buffers[e.bBuf].rows) +
                                  " rows per CTA; the pair MMA needs tile.n / cta_group = " +
                                  std::to_string(k.tileN / G));
  for (unsigned r = 0; r < G; ++r) // the leader (rank 0) and its peers
    e.pairCtas.push_back(a.cta + r);
  Tag want{a.tile.ct, a.k};
  for (unsigned cta : e.pairCtas) {
    checkOperand(a, cta, e.aBuf, e.aRegion, e.aRow0, aRows, want);
    checkOperand(a, cta, e.bBuf, e.bRegion, 0, k.buffers[e.bBuf].rows, want);
  }
  // Blockwise scales through shared memory: the consumer reads the stage's
  // scales into registers as it issues the k-block's MMAs.
  if (op.partial && k.plan.scalesInSmem) {
    const int sBuf = bufferIndex(a, "smemScales", op);
    checkOperand(a, a.cta, sBuf, regionIndex(a, sBuf, c.stage), 0, k.buffers[sBuf].rows, want);
  }
  int id = int(events.size());
  for (unsigned cta : e.pairCtas) {
    Region &acc = ctas[cta].regions[e.accBuf][e.accRegion];
    if (tmem && !e.accumulate && acc.accTile >= 0) {
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
    if (tmem) { // TMEM is tagged with its tile: other roles run ahead of the MMA warp
      if (!e.accumulate)
        std::fill(acc.chunksRead.begin(), acc.chunksRead.end(), false);
      acc.accTile = a.tile.ct;
    }
    acc.accWritten = true;
  }
  a.mmaQueue.push_back(id);
  a.mmaIssued++;
  addEvent(e);
}

void Machine::completeMma(Event &e) {
  Actor &a = actors[e.actor];
  int id = int(&e - events.data());
  std::vector<const Region *> bParts;
  for (unsigned cta : e.pairCtas)
    bParts.push_back(&ctas[cta].regions[e.bBuf][e.bRegion]);
  unsigned bRows = bParts[0]->rows;
  for (unsigned cta : e.pairCtas) {
    Region &A = ctas[cta].regions[e.aBuf][e.aRegion];
    Region &acc = ctas[cta].regions[e.accBuf][e.accRegion];
    for (unsigned i = 0; i < acc.rows && e.aRow0 + i < A.rows; ++i) {
      const float *arow = &A.data[size_t(e.aRow0 + i) * A.cols];
      for (unsigned j = 0; j < acc.cols && j < bRows * bParts.size(); ++j) {
        const Region &B = *bParts[j / bRows];
        const float *brow = &B.data[size_t(j % bRows) * B.cols];
        unsigned kk = std::min(A.cols, B.cols);
        float sum = 0.0f;
        for (unsigned t = 0; t < kk; ++t)
          sum += arow[t] * brow[t];
        // Blockwise scales: the promotion's factor, folded in here (exact).
        const unsigned row = e.tile.tm * k.tileM + e.aRow0 + i, col = e.tile.tn * k.tileN + j;
        const bool inside = row < p.entries[e.tile.entry].M && col < p.entries[e.tile.entry].N;
        if (!p.scaleA.empty())
          sum *= inside ? p.blockScale(e.tile.entry, row, col, unsigned(e.k)) : 0.0f;
        acc.data[size_t(i) * acc.cols + j] =
            (e.accumulate ? acc.data[size_t(i) * acc.cols + j] : 0.0f) + sum;
      }
    }
    for (std::vector<int> *v :
         {&A.readers, &ctas[cta].regions[e.bBuf][e.bRegion].readers, &acc.mmaWriters})
      v->erase(std::find(v->begin(), v->end(), id));
  }
  a.mmaQueue.pop_front();
  a.mmaCompleted++;
}

/// store_acc: the accumulators converted to D's type into the staging tile
/// (no staging buffer: straight to D, clipped). sm_90a reads the wgmma
/// accumulator registers (after every MMA group drained); sm_100a the
/// registers load_acc filled, not TMEM (the writeback releases the
/// accumulator before it converts).
void Machine::doStoreAcc(Actor &a, const Op &op) {
  const std::vector<float> *src = &a.regs;
  unsigned srcWidth = a.regsWidth, srcCol0 = 0;
  bool have = a.regsLoaded;
  if (!sm100()) {
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
    if (!acc.accWritten)
      notes[noteKey(a.tile.entry, a.tile.tm, a.tile.tn)] =
          regionName(accBuf, accReg, a.cta) + " was not written by any MMA in " + tileName(a.tile) +
          " (" + std::to_string(p.entries[a.tile.entry].kBlocks) +
          " k-block(s)): store_acc wrote stale or uninitialised registers";
    src = &acc.data;
    srcWidth = acc.cols;
    srcCol0 = chunkCol0(a);
    have = true;
    if (op.buffer.empty()) { // direct global stores, clipped
      unsigned row0 = a.tile.tm * k.tileM + instanceRow0(a, accB);
      unsigned col0 = a.tile.tn * k.tileN;
      unsigned j1 = a.chunk >= 0 ? std::min(acc.cols, srcCol0 + chunkWidth()) : acc.cols;
      for (unsigned i = 0; i < acc.rows; ++i)
        for (unsigned j = srcCol0; j < j1; ++j)
          if (row0 + i < p.entries[a.tile.entry].M && col0 + j < p.entries[a.tile.entry].N)
            write(a.tile.entry, row0 + i, col0 + j,
                  p.epilogueValue(a.tile.entry, row0 + i, col0 + j, acc.data[i * acc.cols + j],
                                  0.0f));
      return;
    }
  }
  int sBuf = bufferIndex(a, op.buffer, op);
  int sReg = regionIndex(a, sBuf, stagingStage(a, sBuf));
  Region &stg = ctas[a.cta].regions[sBuf][sReg];
  checkStagingWritable(a, sBuf, sReg, stg);
  if (!have) {
    unsigned row0 = rowsSm100(a.tile, a.instance, ctas[a.cta].rank);
    notes[noteKey(a.tile.entry, row0 / k.tileM, a.tile.tn)] =
        who(a) + " ran store_acc before any load_acc: it stored uninitialised registers";
  }
  size_t srcRows = srcWidth ? src->size() / srcWidth : 0;
  // beta != 0: the staging tile holds C's chunk (if_beta loaded it); it must
  // have landed, and D = alpha·acc + beta·C overwrites it in place.
  const bool readC = p.beta != 0.0f;
  if (readC && !stg.pendingWrites.empty())
    fail(SimVerdict::Race,
         "race: " + who(a) + " (" + where(a) + ") reads C from " + regionName(sBuf, sReg, a.cta) +
             " in store_acc while " + describeEvent(events[stg.pendingWrites.front()]) +
             " still writes it",
         {"wait on the C-load barrier (cload) before store_acc reads the staging tile"});
  // D's row and column of the staging tile's (0, 0), for the chain's bias.
  const Buffer &stgB = k.buffers[sBuf];
  const unsigned dRow0 = sm100() ? rowsSm100(a.tile, a.instance, ctas[a.cta].rank)
                                 : a.tile.tm * k.tileM + instanceRow0(a, stgB);
  const unsigned dCol0 = a.tile.tn * k.tileN + chunkCol0(a);
  for (unsigned i = 0; i < stg.rows; ++i)
    for (unsigned j = 0; j < stg.cols; ++j) {
      float &out = stg.data[size_t(i) * stg.cols + j];
      const float c = readC ? p.beta * out : 0.0f;
      out = have && i < srcRows && srcCol0 + j < srcWidth
                ? p.epilogueValue(a.tile.entry, dRow0 + i, dCol0 + j,
                                  (*src)[size_t(i) * srcWidth + srcCol0 + j], c)
                : NAN;
    }
  stg.unfenced = true;
  stg.unsynced = true;
}

void Machine::doTmaStore(Actor &a, const Op &op) {
  int sBuf = bufferIndex(a, op.buffer, op);
  int sReg = regionIndex(a, sBuf, stagingStage(a, sBuf));
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
    e.dRow0 = a.tile.tm * k.tileM + instanceRow0(a, bd);
  }
  e.dCol0 = a.tile.tn * k.tileN + chunkCol0(a);
  e.entry = a.tile.entry;
  int id = int(events.size());
  stg.readers.push_back(id);
  a.openStores.push_back(id);
  addEvent(e);
}

void Machine::completeStore(Event &e) {
  Actor &a = actors[e.actor];
  Region &stg = ctas[a.cta].regions[e.buf][e.region];
  // A store never reaches past its tile (chunks end at its edge; the check
  // keeps a model error from writing a neighbour's columns unseen).
  const unsigned tileEnd = e.tile.tn * k.tileN + k.tileN;
  for (unsigned i = 0; i < stg.rows; ++i)
    for (unsigned j = 0; j < stg.cols; ++j)
      if (e.dRow0 + i < p.entries[e.entry].M && e.dCol0 + j < p.entries[e.entry].N &&
          (sm100() || e.dCol0 + j < tileEnd))
        write(e.entry, e.dRow0 + i, e.dCol0 + j, stg.data[i * stg.cols + j]);
  stg.readers.erase(std::find(stg.readers.begin(), stg.readers.end(), int(&e - events.data())));
  stg.drainUnpublished = true;
}

/// tcgen05.commit: one arrival on barrier[slot] in every CTA of ctaMask,
/// once every MMA the actor issued so far has completed.
void Machine::doCommitArrive(Actor &a, const Op &op) {
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

void Machine::completeCommit(Event &e) {
  Actor &a = actors[e.actor];
  a.commitQueue.pop_front();
  for (unsigned cta : e.commitCtas)
    arrive(a, cta, e.barrier, e.slot, e.round, *e.op);
}

/// tcgen05.ld + wait::ld: the instance's accumulator columns of the
/// current chunk (all tileN columns outside a chunk loop) into registers.
void Machine::doLoadAcc(Actor &a, const Op &op) {
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
    notes[noteKey(a.tile.entry, row0 / k.tileM, a.tile.tn)] =
        regionName(accBuf, accReg, a.cta) + " was not written by any MMA in " + tileName(a.tile) +
        " (" + std::to_string(p.entries[a.tile.entry].kBlocks) +
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

void Machine::completeLoad(Event &e) {
  const Buffer &bd = k.buffers[e.buf];
  Region &r = ctas[e.dstCta].regions[e.buf][e.region];
  // The tile in shared memory holds (row of M or N) × (k), whichever way
  // the operand is stored; out-of-bounds elements are zero (TMA fill).
  const bool isA = e.operand == Operand::A, isC = e.operand == Operand::C;
  const bool isScales = e.operand == Operand::Scales; // tags only: the MMA folds the values in
  const EntryShape &shape = p.entries[e.entry];
  unsigned srcRows = isA || isC ? shape.M : shape.N, srcCols = isC ? shape.N : shape.K;
  for (unsigned i = 0; i < e.rows; ++i) {
    if (isScales) {
      if (e.row0 + i < r.tags.size())
        r.tags[e.row0 + i] = e.tag;
      continue;
    }
    unsigned gr = e.gRow0 + i;
    float *dst = &r.data[size_t(e.row0 + i) * bd.cols];
    for (unsigned j = 0; j < bd.cols; ++j) {
      unsigned gc = e.gCol0 + j;
      if (gr >= srcRows || gc >= srcCols)
        dst[j] = 0.0f;
      else if (isC)
        dst[j] = roundTo(k.dType, p.C[p.d(e.entry, gr, gc)]);
      else
        dst[j] = isA ? p.a(e.entry, gr, gc) : p.b(e.entry, gc, gr);
    }
    if (e.row0 + i < r.tags.size())
      r.tags[e.row0 + i] = e.tag;
  }
  r.pendingWrites.erase(
      std::find(r.pendingWrites.begin(), r.pendingWrites.end(), int(&e - events.data())));
  Mbar &bar = ctas[e.barCta].bars[e.barrier][e.slot];
  const Barrier &bdesc = k.barriers[e.barrier];
  if (bar.phase != e.round)
    fail(SimVerdict::TxUnderflow,
         "tx underflow: " + describeEvent(e) + " completed its " + std::to_string(e.bytes) +
             " bytes on " + bdesc.name + "[" + std::to_string(e.slot) + "] of CTA " +
             std::to_string(e.barCta) + " for phase " + std::to_string(e.round) +
             (bar.phase > e.round
                  ? ", which had already completed"
                  : ", but the barrier is still in phase " + std::to_string(bar.phase)),
         {"expect_tx declares " + std::to_string(bdesc.txBytes) +
          " bytes per phase; the TMA loads of one phase write " +
          std::to_string(p.bytesPerPhase[e.barrier]) + " bytes into this CTA"});
  bar.tx -= e.bytes;
  maybeComplete(e.barCta, e.barrier, e.slot);
}

/// zero_acc (the tile had no k-block): what store_acc reads becomes 0.
/// sm_90a: the wgmma accumulator registers, once no MMA writes them;
/// sm_100a: the registers load_acc filled (TMEM holds whatever the last MMA
/// left there, which the writeback must not store).
void Machine::doZeroAcc(Actor &a, const Op &op) {
  int accBuf = bufferIndex(a, op.acc, op);
  int accReg = regionIndex(a, accBuf, 0);
  Region &acc = ctas[a.cta].regions[accBuf][accReg];
  if (k.buffers[accBuf].space == MemSpace::Tensor) {
    unsigned width = a.chunk >= 0 ? chunkWidth() : k.tileN;
    a.regs.assign(size_t(acc.rows) * width, 0.0f);
    a.regsWidth = width;
    a.regsLoaded = true;
    notes.erase(noteKey(a.tile.entry, rowsSm100(a.tile, a.instance, ctas[a.cta].rank) / k.tileM,
                        a.tile.tn));
    return;
  }
  for (int id : a.mmaQueue)
    if (events[id].accBuf == accBuf && events[id].accRegion == accReg)
      fail(SimVerdict::Race,
           "race: " + who(a) + " (" + where(a) + ") zeroes accumulator " +
               regionName(accBuf, accReg, a.cta) + " in zero_acc while " +
               describeEvent(events[id]) + " still writes it",
           {"wait for every MMA group (mma_wait pending<=0) before writing the accumulators"});
  std::fill(acc.data.begin(), acc.data.end(), 0.0f);
  acc.accWritten = true;
}

// --- stream-K -------------------------------------------------------------

std::vector<unsigned> Machine::laterShares(const Actor &a) const {
  // (every entry of a stream-K launch has the same K: one batch, no groups)
  const long long per = schedule::sk_per_unit(p.entries[0].kBlocks);
  const long long unitEnd = (long long)(a.tile.ct + 1) * per;
  std::vector<unsigned> out;
  for (unsigned c = a.cta + 1;
       c < p.ctas && schedule::sk_share_begin(c, p.ctas, p.skSlots, p.entries[0].kBlocks) < unitEnd;
       ++c)
    out.push_back(c);
  return out;
}

/// The accumulators of the actor's instance, whole (every MMA group done).
static const char *kMmaDoneHint = "wait for every MMA group (mma_wait pending<=0) first";

void Machine::doStorePartial(Actor &a, const Op &op) {
  int accBuf = bufferIndex(a, op.acc, op);
  int accReg = regionIndex(a, accBuf, 0);
  const Region &acc = ctas[a.cta].regions[accBuf][accReg];
  if (!a.mmaQueue.empty())
    fail(SimVerdict::Race,
         "race: " + who(a) + " (" + where(a) + ") stores its partial sum while " +
             describeEvent(events[a.mmaQueue.front()]) + " still writes the accumulators",
         {kMmaDoneHint});
  if (partialFlags[a.cta][a.instance])
    fail(SimVerdict::Invalid,
         "invalid IR: " + who(a) + " (" + where(a) + ") hands over a second partial sum; a "
         "share starts inside at most one unit");
  partials[a.cta][a.instance] = acc.data;
  partialFlags[a.cta][a.instance] = true;
}

/// A flag is taken once: its reader sets it back to 0 (flag_take), so a
/// second reader would wait for ever.
bool Machine::partialsReady(const Actor &a) const {
  for (unsigned c : laterShares(a))
    if (!partialFlags[c][a.instance] || partialTaken[c][a.instance])
      return false;
  return true;
}

void Machine::doAddPartials(Actor &a, const Op &op) {
  int accBuf = bufferIndex(a, op.acc, op);
  int accReg = regionIndex(a, accBuf, 0);
  Region &acc = ctas[a.cta].regions[accBuf][accReg];
  if (!a.mmaQueue.empty())
    fail(SimVerdict::Race,
         "race: " + who(a) + " (" + where(a) + ") adds the later shares' partial sums while " +
             describeEvent(events[a.mmaQueue.front()]) + " still writes the accumulators",
         {kMmaDoneHint});
  for (unsigned c : laterShares(a)) {
    const std::vector<float> &part = partials[c][a.instance];
    if (part.size() != acc.data.size())
      fail(SimVerdict::Invalid, "invalid IR: CTA " + std::to_string(c) +
                                    "'s partial sum has another shape than " + who(a) + "'s");
    for (size_t i = 0; i < part.size(); ++i)
      acc.data[i] += part[i];
    partialTaken[c][a.instance] = true;
  }
}

} // namespace sim
} // namespace gemmgen

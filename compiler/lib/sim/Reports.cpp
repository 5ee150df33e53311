//===- Reports.cpp - What the simulator tells the user -------------------===//
//
// Names in reports (roles, tiles, regions, async ops), the deadlock report
// (every blocked role, the barrier it waits on, who was expected to arrive
// and why they did not), the check of D against the reference, and the
// public printers of a SimulationResult (text and JSON).
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include <algorithm>
#include <cmath>

namespace gemmgen {
namespace sim {

std::string Machine::who(const Actor &a) const {
  return "CTA " + std::to_string(a.cta) + " " + k.roles[a.role].name + "[" +
         std::to_string(a.instance) + "]";
}

std::string Machine::tileName(const TileRef &t) const {
  return std::string(sm100() ? "cluster tile" : "tile") + " (m " + std::to_string(t.tm) + ", n " +
         std::to_string(t.tn) + ")";
}

std::string Machine::where(const Actor &a) const {
  if (a.finished)
    return "finished after " + std::to_string(a.tilesDone) + " tile(s)";
  if (!a.inTile)
    return a.tilesDone ? "after its last tile" : "before its first tile";
  std::string s = tileName(a.tile);
  if (a.k >= 0)
    s += " k-block " + std::to_string(a.k);
  if (a.chunk >= 0)
    s += " chunk " + std::to_string(a.chunk);
  for (const Frame &f : a.stack)
    if (f.kind == OpKind::EarlyLoads)
      s += ", loaded early (before the CTA's barrier)";
  return s;
}

std::string Machine::at(const Event &e) const {
  std::string s = tileName(e.tile);
  if (e.k >= 0)
    s += " k-block " + std::to_string(e.k);
  if (e.chunk >= 0)
    s += " chunk " + std::to_string(e.chunk);
  return s;
}

std::string Machine::regionName(int buf, int region, unsigned cta) const {
  const Buffer &b = k.buffers[buf];
  unsigned stages = std::max(1u, b.stages);
  std::string s = b.name;
  if (b.instances > 1)
    s += "[" + std::to_string(region / stages) + "]";
  if (b.stages > 1)
    s += " stage " + std::to_string(region % stages);
  return s + " of CTA " + std::to_string(cta);
}

std::string Machine::describeEvent(const Event &e) const {
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

void Machine::fail(SimVerdict v, std::string msg, std::vector<std::string> details) {
  throw Stop{v, std::move(msg), std::move(details)};
}

/// What to check when a phase completed before its copies landed.
std::string Machine::txHint(const Barrier &desc) const {
  std::string released = "the waiter (" + desc.waiter + ") is released before every copy landed; ";
  if (!sm100())
    return released + "count every copy that signals this barrier, including the peer CTA's "
                      "multicast";
  return released +
         "count every copy that completes on this barrier: each consumer's A block "
         "and the B rows" +
         std::string(k.ctaGroup > 1 ? ", of both CTAs of the pair (their loads complete on "
                                      "the leader's barrier)"
                                    : "");
}

std::string Machine::opText(const Actor &a, const Op &op) {
  std::string s = toString(op.kind);
  if (op.kind == OpKind::Wait || op.kind == OpKind::Arrive || op.kind == OpKind::ArriveExpectTx ||
      op.kind == OpKind::MmaCommitArrive)
    s += " " + op.barrier + "[" + (op.slotIsInstance ? "instance" : op.state) + "]";
  if (op.kind == OpKind::MmaCommitArrive)
    s += " cta_mask=" + std::to_string(op.ctaMask);
  return s;
}

/// One line: what `a` is blocked on.
std::string Machine::blockedOn(Actor &a) {
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
  if (op.kind == OpKind::AddPartials) {
    std::string missing;
    for (unsigned c : laterShares(a))
      if (!partialFlags[c][a.instance])
        missing += (missing.empty() ? "" : ", ") + std::to_string(c);
    return "waits for the partial sum of CTA " + missing + " (its flag is never released; " +
           where(a) + ")";
  }
  if (op.kind == OpKind::NamedBarrierSync)
    return "waits named barrier id " + std::to_string(a.namedId) + " (" + op.barrier + ", " +
           where(a) + ")";
  return "runnable at " + std::string(toString(op.kind)) + " (" + where(a) + ")";
}

/// Actors whose program can arrive on (or, with loads, complete tx on)
/// barrier `b` of CTA `cta`.
std::vector<std::pair<int, const Op *>> Machine::expectedSignallers(unsigned cta, int b,
                                                                    bool loads) {
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

void Machine::reportDeadlock() {
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
              " (parity " + std::to_string(bar.phase & 1) + "), " + std::to_string(bar.pending) +
              " of " + std::to_string(bd.arriveCount) + " arrival(s) missing, tx " +
              std::to_string(bar.tx) + " byte(s) outstanding";
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
                 std::to_string(bd.txBytes) +
                 " bytes per phase; the TMA loads of one "
                 "phase write " +
                 std::to_string(p.bytesPerPhase[b]) + ")";
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
          syncs |= x->kind == OpKind::NamedBarrierSync && indexOf(k.barriers, x->barrier) >= 0 &&
                   namedHwId(o, k.barriers[indexOf(k.barriers, x->barrier)]) == a.namedId;
        if (syncs)
          d.push_back("    also syncs on id " + std::to_string(a.namedId) + ": " + who(o) + " — " +
                      blockedOn(o));
      }
      (void)b;
      d.push_back("    " + std::to_string(k.roles[a.role].threadsPerInstance()) +
                  " threads per group; the barrier waits for " + std::to_string(hw.expected));
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

void Machine::checkFlagsTaken() {
  for (unsigned c = 0; c < p.ctas; ++c)
    for (unsigned i = 0; i < partialFlags[c].size(); ++i)
      if (partialFlags[c][i] && !partialTaken[c][i])
        fail(SimVerdict::Race,
             "race: CTA " + std::to_string(c) + " (instance " + std::to_string(i) +
                 ") released its partial sum's flag and no CTA took it: the flag stays 1 into "
                 "the next launch, which does not zero it and would take it for a new partial",
             {"the CTA holding the unit's first k-block adds every later share's partial sum "
              "(add_partials), which takes and resets its flag"});
}

void Machine::checkResult() {
  unsigned wrongTiles = 0;
  std::string msg;
  std::vector<std::string> d;
  unsigned allTiles = 0;
  const bool grouped = k.schedule.grouped;
  for (unsigned l = 0; l < p.entries.size(); ++l) {
  const EntryShape &shape = p.entries[l];
  allTiles += shape.tilesM * shape.tilesN;
  for (unsigned tm = 0; tm < shape.tilesM; ++tm)
    for (unsigned tn = 0; tn < shape.tilesN; ++tn) {
      unsigned bad = 0, fi = 0, fj = 0;
      for (unsigned i = tm * k.tileM; i < std::min(shape.M, (tm + 1) * k.tileM); ++i)
        for (unsigned j = tn * k.tileN; j < std::min(shape.N, (tn + 1) * k.tileN); ++j) {
          float got = D[p.d(l, i, j)], want = p.ref[p.d(l, i, j)];
          bool ok = std::fabs(got - want) <= 1e-3f * std::fabs(want) + 1e-6f;
          if (!ok && bad++ == 0) {
            fi = i;
            fj = j;
          }
        }
      if (!bad)
        continue;
      if (wrongTiles++ == 0) {
        float got = D[p.d(l, fi, fj)];
        msg = "wrong result: " + std::string(sm100() ? "D block" : "tile") + " (m " +
              std::to_string(tm) + ", n " + std::to_string(tn) + ")" +
              (grouped        ? " of problem " + std::to_string(l)
               : p.batch > 1 ? " of batch entry " + std::to_string(l)
                             : std::string()) +
              " element [" + std::to_string(fi) + ", " + std::to_string(fj) + "]: got " +
              fmtFloat(got) + (written[p.d(l, fi, fj)] ? "" : " (never written)") + ", want " +
              fmtFloat(p.ref[p.d(l, fi, fj)]);
        d.push_back(std::to_string(bad) + " wrong element(s) in this tile");
        auto it = notes.find(noteKey(l, tm, tn));
        if (it != notes.end())
          d.push_back(it->second);
      }
    }
  }
  if (wrongTiles) {
    d.push_back(std::to_string(wrongTiles) + " of " + std::to_string(allTiles) +
                " tile(s) wrong");
    fail(SimVerdict::WrongResult, msg, d);
  }
}

} // namespace sim
} // namespace gemmgen

//===----------------------------------------------------------------------===//
// Public: verdict words, results, printers
//===----------------------------------------------------------------------===//

using namespace gemmgen;

const char *gemmgen::toString(SimVerdict v) {
  switch (v) {
  case SimVerdict::Ok:
    return "ok";
  case SimVerdict::Deadlock:
    return "deadlock";
  case SimVerdict::Race:
    return "race";
  case SimVerdict::WrongResult:
    return "wrong-result";
  case SimVerdict::OverArrival:
    return "over-arrival";
  case SimVerdict::TxUnderflow:
    return "tx-underflow";
  case SimVerdict::TxOverflow:
    return "tx-overflow";
  case SimVerdict::Invalid:
    return "invalid";
  case SimVerdict::StepLimit:
    return "step-limit";
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

void gemmgen::printSimulationResult(const SimulationResult &r, llvm::raw_ostream &os,
                                    bool allSeeds) {
  os << "simulate " << r.kernel << ": ";
  if (!r.groups.empty()) {
    unsigned empty = 0;
    for (const auto &g : r.groups)
      empty += g[0] == 0 || g[1] == 0;
    os << r.groups.size() << " grouped problem(s) (" << empty << " empty), the first M=" << r.m
       << " N=" << r.n << " K=" << r.k;
  } else {
    os << "M=" << r.m << " N=" << r.n << " K=" << r.k;
  }
  if (r.batch > 1)
    os << " batch=" << r.batch;
  os << ", " << r.tilesM << "x" << r.tilesN << " tiles" << (r.batch > 1 ? " per entry" : "") << ", " << r.kBlocks << " k-block(s), " << r.ctas
     << " CTA(s) in clusters of " << r.clusterSize << ", " << r.runs.size() << " interleaving(s)\n";
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
                            {"batch", r.batch},
                            {"problems", int64_t(r.groups.size())},
                            {"ctas", r.ctas},
                            {"cluster_size", r.clusterSize},
                            {"tiles_m", r.tilesM},
                            {"tiles_n", r.tilesN},
                            {"k_blocks", r.kBlocks},
                            {"ok", r.ok()},
                            {"failures", r.failures()},
                            {"runs", std::move(runs)}};
}

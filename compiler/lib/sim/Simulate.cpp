//===- Simulate.cpp - The simulator's entry point ------------------------===//
//
// simulate(): the geometry of the problem (tiles, cluster tiles in the
// scheduler's walk order, the grid), random inputs and their exact reference,
// which ops arrive on or load onto each barrier, then one Machine per seed.
// Also the number helpers the simulator's files share.
//
// The simulator's files, by concern (Machine.h says more):
//   SimModel.h    the machine state (regions, mbarriers, actors, events)
//   Engine.cpp    setup, interpreter, scheduler
//   Barriers.cpp  barrier and memory model
//   Ops.cpp       the async ops, one function per op for both targets
//   Reports.cpp   the verdicts' reports, the result check, the printers
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include "gemmgen/EpilogueChain.h"
#include "gemmgen/device/tile_schedule.cuh"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gemmgen {
namespace sim {

namespace {
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
} // namespace

float Problem::epilogueValue(unsigned l, unsigned row, unsigned col, float acc,
                             float cBeta) const {
  // Outside D (a partial tile's padding, which the TMA store clips) the
  // kernels guard their bias loads; nothing there is stored, so no chain.
  // An 8-bit D is multiplied by its output scale at the conversion.
  const float out = k.plan.fp8Output ? scaleD : 1.0f;
  if (row >= entries[l].M || col >= entries[l].N)
    return roundTo(k.dType, out * (alpha * acc + cBeta));
  return roundTo(k.dType, out * epilogue::apply_chain(chain, alpha * acc, cBeta, row, col, l));
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
  case ScalarType::E4M3: // no infinities: saturated to 448 (cvt.rn.satfinite)
    return std::copysign(std::min(std::fabs(roundSignificand(x, 4, -5)), 448.0f), x);
  case ScalarType::E5M2: // saturated to 57344 as cvt.rn.satfinite converts
    return std::copysign(std::min(std::fabs(roundSignificand(x, 3, -13)), 57344.0f), x);
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

void collectOps(const std::vector<Op> &body, std::vector<const Op *> &out) {
  for (const Op &op : body) {
    out.push_back(&op);
    // early_loads runs the k-loop's own ops earlier: who arrives on or loads
    // into a barrier, and how much a phase writes, are the k-loop's.
    if (op.kind != OpKind::EarlyLoads)
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

namespace {

/// Each cluster's units in order, by gemmgen/device/tile_schedule.cuh as the
/// kernels run it: cluster c takes slots c, c + clusters, ... of every batch
/// entry's walk one after another, and skips the holes of a Hilbert square.
std::vector<std::vector<ScheduledUnit>> clusterWalks(const SchedulePlan &s, unsigned unitsM,
                                                     unsigned unitsN, unsigned clusters,
                                                     unsigned batch);

/// A grouped kernel's walk: every problem's unit slots one after another
/// (empty problems own none), through the kernels' own grouped_slot() on a
/// table laid out as the runtime writes it.
std::vector<std::vector<ScheduledUnit>>
groupedWalks(const SchedulePlan &s, const std::vector<std::array<unsigned, 2>> &units,
             unsigned clusters) {
  const int raster = int(s.raster), group = int(std::max(1u, s.group));
  std::vector<schedule::GroupedProblem> table(units.size());
  int slots = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    table[i].slot_begin = slots;
    if (units[i][0] && units[i][1])
      slots += schedule::tile_slots(raster, int(units[i][0]), int(units[i][1]));
    table[i].slot_end = slots;
  }
  std::vector<std::vector<ScheduledUnit>> out(clusters);
  for (unsigned c = 0; c < clusters; ++c)
    for (int slot = int(c), problem = 0; slot < slots; slot += int(clusters)) {
      const int inner = schedule::grouped_slot(table.data(), slot, problem);
      int um = 0, un = 0;
      if (schedule::tile_coords(raster, group, inner, int(units[problem][0]),
                                int(units[problem][1]), um, un))
        out[c].push_back({unsigned(slot), unsigned(um), unsigned(un), unsigned(problem)});
    }
  return out;
}

std::vector<std::vector<ScheduledUnit>> clusterWalks(const SchedulePlan &s, unsigned unitsM,
                                                     unsigned unitsN, unsigned clusters,
                                                     unsigned batch) {
  const int raster = int(s.raster), group = int(std::max(1u, s.group));
  const int slots = schedule::tile_slots(raster, int(unitsM), int(unitsN));
  const int batchSlots = slots * int(batch);
  std::vector<std::vector<ScheduledUnit>> out(clusters);
  for (unsigned c = 0; c < clusters; ++c)
    for (int slot = int(c); slot < batchSlots; slot += int(clusters)) {
      int inner = 0, um = 0, un = 0;
      const int entry = schedule::batch_entry(slot, slots, inner);
      if (schedule::tile_coords(raster, group, inner, int(unitsM), int(unitsN), um, un))
        out[c].push_back({unsigned(slot), unsigned(um), unsigned(un), unsigned(entry)});
    }
  return out;
}

/// Stream-K: each CTA's whole units, then its share of the rest's k-blocks,
/// one unit per step, through the kernels' own sk_walk / sk_next (one CTA per
/// cluster: the checks require cluster.m 1).
std::vector<std::vector<ScheduledUnit>> streamKWalks(const SchedulePlan &s, unsigned unitsM,
                                                     unsigned unitsN, unsigned ctas,
                                                     unsigned batch, unsigned kBlocks) {
  const int raster = int(s.raster), group = int(std::max(1u, s.group));
  const int slots = schedule::tile_slots(raster, int(unitsM), int(unitsN));
  const long long batchSlots = (long long)slots * batch;
  std::vector<std::vector<ScheduledUnit>> out(ctas);
  for (unsigned c = 0; c < ctas; ++c) {
    schedule::SkWalk w = schedule::sk_walk(c, ctas, batchSlots, kBlocks);
    int slot = 0, kb0 = 0, kb1 = 0;
    while (schedule::sk_next(w, ctas, kBlocks, slot, kb0, kb1)) {
      int inner = 0, um = 0, un = 0;
      const int entry = schedule::batch_entry(slot, slots, inner);
      if (schedule::tile_coords(raster, group, inner, int(unitsM), int(unitsN), um, un))
        out[c].push_back(
            {unsigned(slot), unsigned(um), unsigned(un), unsigned(entry), kb0, kb1});
    }
  }
  return out;
}

unsigned ceilDiv(unsigned a, unsigned b) { return b ? (a + b - 1) / b : 0; }

} // namespace
} // namespace sim
} // namespace gemmgen

using namespace gemmgen;
using namespace gemmgen::sim;

SimulationResult gemmgen::simulate(const Kernel &kernel, const SimulationOptions &options) {
  Problem p(kernel);
  p.M = options.m;
  p.N = options.n;
  p.K = options.k;
  p.batch = std::max(1u, options.batch);
  p.alpha = options.alpha;
  p.beta = options.beta;
  SimulationResult result;
  result.kernel = kernel.name;
  result.m = p.M;
  result.n = p.N;
  result.k = p.K;
  result.batch = std::max(1u, options.batch);

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
  if (std::string why = checkSimulationSize(kernel, options); !why.empty())
    return invalid(why);
  if (!kernel.clusterM || !kernel.clusterN)
    return invalid("the kernel has a zero cluster size");
  p.clusterSize = kernel.clusterM * kernel.clusterN;
  const bool sm100 = kernel.target == Target::SM100a;
  if (sm100) {
    // The cluster is the CTA pair; a cluster tile is C·G·tileM rows by
    // tileN columns. tilesM/tilesN count tileM × tileN blocks of D (one
    // consumer's accumulator of one CTA), the unit of the wrong-result report.
    if (kernel.clusterN != 1 || kernel.clusterM != std::max(1u, kernel.ctaGroup))
      return invalid("an sm_100a kernel needs cluster m = cta_group and n = 1");
    if (!kernel.consumers)
      return invalid("the kernel has no consumers");
  }
  // Units (cluster tiles) and their order: the plan's schedule, walked by
  // the kernels' own header.
  const SchedulePlan &sched = kernel.plan.schedule;
  if (!sched.unitRows || !sched.unitCols)
    return invalid("the kernel has no schedule plan (lowerToIR derives it)");
  // The entries: batch copies of one shape, or a grouped kernel's problems
  // (one problem of m×n×k when none are given).
  const bool grouped = kernel.schedule.grouped;
  std::vector<std::array<unsigned, 3>> shapes;
  if (grouped)
    shapes = options.groups.empty() ? std::vector<std::array<unsigned, 3>>{{p.M, p.N, p.K}}
                                    : options.groups;
  else
    shapes.assign(p.batch, {p.M, p.N, p.K});
  if (grouped) {
    result.groups = shapes;
    p.M = shapes[0][0], p.N = shapes[0][1], p.K = shapes[0][2];
    result.m = p.M, result.n = p.N, result.k = p.K;
  }
  std::vector<std::array<unsigned, 2>> units;
  unsigned nct = 0; // every entry's units
  size_t aElems = 0, bElems = 0;
  for (const auto &sh : shapes) {
    EntryShape e;
    e.M = sh[0], e.N = sh[1], e.K = sh[2];
    e.tilesM = ceilDiv(e.M, kernel.tileM);
    e.tilesN = ceilDiv(e.N, kernel.tileN);
    e.kBlocks = ceilDiv(e.K, kernel.tileK);
    e.aBase = aElems, e.bBase = bElems, e.dBase = p.dElements;
    aElems += size_t(e.M) * e.K, bElems += size_t(e.N) * e.K, p.dElements += size_t(e.M) * e.N;
    p.entries.push_back(e);
    units.push_back({unsigned(sched.unitsM(e.M)), unsigned(sched.unitsN(e.N))});
    nct += units.back()[0] * units.back()[1];
  }
  p.tilesM = p.entries[0].tilesM;
  p.tilesN = p.entries[0].tilesN;
  p.ctM = units[0][0];
  p.ctN = units[0][1];
  p.kBlocks = p.entries[0].kBlocks;
  // The slots a persistent stream-K walk covers (Hilbert holes included) and
  // their k-block iterations: the runtime launches at most one CTA for each.
  p.skSlots = (long long)schedule::tile_slots(int(sched.raster), int(p.ctM), int(p.ctN)) * p.batch;
  const long long skIterations = p.skSlots * schedule::sk_per_unit(p.kBlocks);
  if (sched.kind == SchedulerKind::DataParallel) {
    p.clusters = std::max(1u, nct);
  } else if (sched.streamK() && !options.ctas) {
    // One CTA more than units: every share but none whole, so hand-overs
    // (and units split three ways when there are few k-blocks) happen.
    p.clusters = unsigned(std::min<long long>(nct + 1, skIterations));
  } else if (options.ctas) {
    if (options.ctas % p.clusterSize)
      return invalid("--ctas " + std::to_string(options.ctas) +
                     " is not a multiple of the cluster size " + std::to_string(p.clusterSize));
    p.clusters = options.ctas / p.clusterSize;
  } else {
    p.clusters = std::max(1u, (nct + 1) / 2);
  }
  p.ctas = p.clusters * p.clusterSize;
  p.walks = grouped        ? groupedWalks(sched, units, p.clusters)
            : sched.streamK() ? streamKWalks(sched, p.ctM, p.ctN, p.ctas, p.batch, p.kBlocks)
                              : clusterWalks(sched, p.ctM, p.ctN, p.clusters, p.batch);
  result.walks = p.walks;
  result.ctas = p.ctas;
  result.clusterSize = p.clusterSize;
  result.tilesM = p.tilesM;
  result.tilesN = p.tilesN;
  result.kBlocks = p.kBlocks;
  // A stream-K grid is at most one CTA per k-block iteration (the runtime's
  // sk_grid_ctas): a CTA with an empty share would never hand its partial
  // sum over, and the unit's finishing CTA would wait for it for ever.
  if (sched.streamK() && (long long)p.ctas > skIterations)
    return invalid("--ctas " + std::to_string(p.ctas) +
                   ": a stream-K launch has at most one CTA per k-block iteration (" +
                   std::to_string(skIterations) + " here: " + std::to_string(p.skSlots) +
                   " unit(s) x " + std::to_string(schedule::sk_per_unit(p.kBlocks)) +
                   " k-blocks), as the runtime launches it; give at most " +
                   std::to_string(skIterations));

  // Inputs: multiples of 1/8 in [-1, 1] without 0, exact in f16/bf16, so
  // every partial sum is exact in float and the reference is exact.
  std::mt19937_64 data(options.dataSeed);
  std::uniform_int_distribution<int> pick(1, 16);
  auto value = [&] {
    int v = pick(data);
    return (v <= 8 ? -v : v - 8) / 8.0f;
  };
  p.A.resize(aElems);
  p.B.resize(bElems);
  for (float &x : p.A)
    x = value();
  for (float &x : p.B)
    x = value();
  p.aMMajor = kernel.plan.loadA.major == OperandMajor::MN;
  p.bNMajor = kernel.plan.loadB.major == OperandMajor::MN;
  if (p.beta != 0.0f) {
    p.C.resize(p.dElements);
    for (float &x : p.C)
      x = value();
  }
  // The chain's bias vector (per entry, along D's rows or columns) and scale.
  p.chain = toChainData(kernel.epilogueChain);
  p.scaleD = options.scaleD;
  p.chain.scale_d = &p.scaleD;
  p.chain.bias_type = epilogue::BIAS_F32;
  if (chainHas(kernel.epilogueChain, EpilogueOpKind::Bias)) {
    const bool perRow = std::any_of(kernel.epilogueChain.begin(), kernel.epilogueChain.end(),
                                    [](const EpilogueStep &s) {
                                      return s.kind == EpilogueOpKind::Bias &&
                                             s.axis == BiasAxis::Row;
                                    });
    unsigned length = 0;
    for (const EntryShape &e : p.entries)
      length = std::max(length, perRow ? e.M : e.N);
    p.bias.resize(size_t(length) * p.entries.size());
    for (float &x : p.bias)
      x = value();
    p.chain.bias = p.bias.data();
    p.chain.bias_stride = length;
  }
  if (kernel.plan.blockwiseScales) {
    const float pow2[] = {0.25f, 0.5f, 1.0f, 2.0f};
    std::uniform_int_distribution<int> pickScale(0, 3);
    for (const EntryShape &e : p.entries) {
      p.scaleA.emplace_back(size_t(e.kBlocks) * e.M);
      p.scaleB.emplace_back(size_t((e.N + 127) / 128) * e.kBlocks);
      for (float &x : p.scaleA.back())
        x = pow2[pickScale(data)];
      for (float &x : p.scaleB.back())
        x = pow2[pickScale(data)];
    }
  }
  p.ref.assign(p.dElements, 0.0f);
  for (unsigned l = 0; l < p.entries.size(); ++l)
    for (unsigned i = 0; i < p.entries[l].M; ++i)
      for (unsigned j = 0; j < p.entries[l].N; ++j) {
        float s = 0;
        for (unsigned t = 0; t < p.entries[l].K; ++t)
          s += p.a(l, i, t) * p.b(l, t, j) * p.blockScale(l, i, j, t / kernel.tileK);
        // One rounding of alpha·sum + beta·C and the chain, as the kernels' epilogue does.
        const float c = p.beta != 0.0f ? p.beta * roundTo(kernel.dType, p.C[p.d(l, i, j)]) : 0.0f;
        p.ref[p.d(l, i, j)] = p.epilogueValue(l, i, j, s, c);
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
          p.bytesPerPhase[b] +=
              sm100 ? buf->bytesPerStage() * (op->scope == CtaScope::Leader ? p.clusterSize : 1)
              : op->scope == CtaScope::Local ? buf->bytesPerStage() / std::max(1u, op->parts)
                                             : buf->bytesPerStage();
      }
    }
  }

  unsigned maxKBlocks = 0;
  for (const EntryShape &e : p.entries)
    maxKBlocks = std::max(maxKBlocks, e.kBlocks);
  uint64_t maxSteps = options.maxSteps;
  if (!maxSteps) {
    uint64_t work =
        uint64_t(nct) * p.clusterSize * std::max(1u, maxKBlocks) * 64 * (kernel.consumers + 2);
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

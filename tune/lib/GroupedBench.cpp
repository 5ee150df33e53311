//===- GroupedBench.cpp - A grouped GEMM side by side with cuBLAS ----------===//
//
// benchGroupedAgainstCublas (GroupedBench.h): the mixture-of-experts layout
// in rotating input sets, both contenders verified per problem, then timed.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/GroupedBench.h"

#include <algorithm>
#include <memory>

using namespace gemmgen;
using namespace gemmgen::tune;

long long GroupedBenchResult::totalRows() const {
  long long t = 0;
  for (long long m : rows)
    t += m;
  return t;
}

namespace {

/// One input set: stacked A, one B per problem, a D per contender, the
/// grouped arguments into them, gemmgen's prepared launch and cuBLAS's
/// pointer arrays on the device.
struct GroupedSet {
  GemmArgs gemmgen, cublas;
  PreparedLaunch prepared;
  CUdeviceptr cublasPointers = 0;
};

/// Device buffers freed with the bench.
struct Owned {
  const Runtime &rt;
  std::vector<CUdeviceptr> ptrs;
  ~Owned() {
    for (CUdeviceptr p : ptrs)
      (void)rt.free(p);
  }
  Expected<CUdeviceptr> alloc(std::size_t bytes) {
    Expected<CUdeviceptr> p = rt.alloc(std::max<std::size_t>(bytes, 256));
    if (p)
      ptrs.push_back(*p);
    return p;
  }
};

} // namespace

Status tune::benchGroupedAgainstCublas(const Runtime &rt, const Kernel &kernel,
                                       const Cublas &cublas, const GemmVerifier &ver,
                                       CUstream stream, const BenchSettings &o,
                                       GroupedBenchResult &r) {
  const KernelInfo &ki = kernel.info();
  if (!ki.grouped)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + ki.name + "' is not grouped; compile it with "
                         "scheduler.grouped: true (`--groups` does)");
  if (ki.layoutA != Layout::Row)
    return Status::error(ErrorCode::InvalidArgument,
                         "the grouped bench stacks the groups' tokens as rows of one "
                         "row-major A; use a spec with layout.a: row");
  if (r.rows.empty() || r.N <= 0 || r.K < 0)
    return Status::error(ErrorCode::InvalidArgument, "the grouped bench needs problems, N and K");
  const DType t = ki.dtype, out = ki.outType;
  const long long T = std::max(1LL, r.totalRows()), G = (long long)r.rows.size(), N = r.N,
                  K = r.K;
  const std::size_t e = sizeOf(t), eo = sizeOf(out);
  const double setBytes = (double)e * (double)(T * K + G * N * K) + 2.0 * eo * (double)(T * N);
  const int sets = inputSetCount(rt.device(), setBytes, 4.0 * (double)(T * N));
  Owned owned{rt, {}};
  std::vector<GroupedSet> in(sets);
  for (int s = 0; s < sets; ++s) {
    Expected<CUdeviceptr> A = owned.alloc(T * K * e), B = owned.alloc(G * N * K * e),
                          Dg = owned.alloc(T * N * eo), Dc = owned.alloc(T * N * eo);
    for (const Expected<CUdeviceptr> *p : {&A, &B, &Dg, &Dc})
      if (!*p)
        return p->status();
    if (Status st = ver.fillNormal(*A, T * K, t, o.seed * 1000 + 2 * s + 1, stream); !st)
      return st;
    if (Status st = ver.fillNormal(*B, G * N * K, t, o.seed * 1000 + 2 * s + 2, stream); !st)
      return st;
    GroupedSet &g = in[s];
    g.gemmgen.layoutA = Layout::Row, g.gemmgen.layoutB = ki.layoutB;
    long long row = 0;
    for (long long i = 0; i < G; ++i) {
      GemmProblem p;
      p.M = r.rows[i], p.N = N, p.K = K;
      p.A = *A + row * K * e;
      p.B = *B + i * N * K * e;
      p.D = *Dg + row * N * eo;
      p.lda = K, p.ldd = N;
      p.ldb = ki.layoutB == Layout::Col ? K : N;
      g.gemmgen.problems.push_back(p);
      row += r.rows[i];
    }
    g.cublas = g.gemmgen;
    for (GemmProblem &p : g.cublas.problems)
      p.D = p.D - *Dg + *Dc;
    const std::size_t ws = kernel.workspaceBytes(g.gemmgen);
    Expected<CUdeviceptr> wsp = owned.alloc(ws);
    if (!wsp)
      return wsp.status();
    g.gemmgen.workspace = *wsp, g.gemmgen.workspaceBytes = ws;
    Expected<PreparedLaunch> prep = kernel.prepare(g.gemmgen);
    if (!prep)
      return prep.status();
    g.prepared = *prep;
    const std::vector<CUdeviceptr> ptrs = Cublas::groupedPointers(g.cublas);
    Expected<CUdeviceptr> pp = owned.alloc(ptrs.size() * sizeof(CUdeviceptr));
    if (!pp)
      return pp.status();
    if (Status st = rt.copyToDevice(*pp, ptrs.data(), ptrs.size() * sizeof(CUdeviceptr)); !st)
      return st;
    g.cublasPointers = *pp;
  }
  r.sets = sets;
  auto launchGemmgen = [&](int s) { return kernel.launch(in[s].prepared, stream); };
  auto launchCublas = [&](int s) {
    return cublas.gemmGrouped(in[s].cublas, t, stream, out, in[s].cublasPointers);
  };
  const double seconds = watchdogSeconds(T, N, K);

  // Both verified on set 0, problem by problem, D poisoned first.
  const GroupedSet &g0 = in[0];
  for (const GemmArgs *a : {&g0.gemmgen, &g0.cublas})
    for (const GemmProblem &p : a->problems)
      if (p.M > 0)
        if (Status st = rt.fill16Async(p.D, GemmVerifier::kPoison, p.M * N * eo / 2, stream); !st)
          return st;
  if (Status st = launchGemmgen(0); !st)
    return st;
  if (Status st = launchCublas(0); !st)
    return st;
  if (Status st = rt.wait(stream, 2 * seconds); !st)
    return st;
  Expected<CUdeviceptr> ref = owned.alloc(T * N * 4);
  if (!ref)
    return ref.status();
  for (std::size_t i = 0; i < g0.gemmgen.problems.size(); ++i) {
    if (r.rows[i] == 0)
      continue;
    const GemmArgs pg = groupedProblem(g0.gemmgen, i), pc = groupedProblem(g0.cublas, i);
    const CUdeviceptr refI = *ref + (pg.D - g0.gemmgen.problems[0].D) / eo * 4;
    if (Status st = ver.reference(pg, t, refI, stream, out); !st)
      return st;
    Expected<GemmVerifier::Comparison> eg = ver.compare(pg, t, refI, false, stream, out);
    Expected<GemmVerifier::Comparison> ec = ver.compare(pc, t, refI, false, stream, out);
    Expected<GemmVerifier::Comparison> egc = ver.compare(pg, t, pc.D, true, stream, out);
    for (const auto *c : {&eg, &ec, &egc})
      if (!*c)
        return c->status();
    r.errG = std::max(r.errG, eg->relFrobenius), r.errC = std::max(r.errC, ec->relFrobenius);
    r.errGC = std::max(r.errGC, egc->relFrobenius);
    r.unwrittenG += eg->nonFinite, r.unwrittenC += ec->nonFinite;
  }
  const double tol = GemmVerifier::kTolerance;
  r.pass = r.unwrittenG == 0 && r.unwrittenC == 0 && r.errG <= tol && r.errC <= tol &&
           r.errGC <= 2 * tol;

  std::vector<Contender> contenders = {{"gemmgen", launchGemmgen}, {"cublas", launchCublas}};
  ProtocolOptions po;
  po.warmup = o.warmup, po.rounds = o.rounds, po.sets = sets;
  po.launchSeconds = seconds;
  std::unique_ptr<TimingDevice> dev = streamTiming(rt, stream);
  Expected<ProtocolResult> timed = timeInterleaved(*dev, contenders, po);
  if (!timed)
    return timed.status();
  r.gemmgen = timed->ms[0];
  r.cublas = timed->ms[1];
  r.reps = timed->reps;
  r.rounds = timed->rounds;
  r.ratio = r.gemmgen.median > 0 ? r.cublas.median / r.gemmgen.median : 0;
  return Status::success();
}

//===- RunGrouped.cpp - `gemmgen run --groups FILE`: one grouped launch ----===//
//
// The problems of FILE (`M` or `M N K` per line) in buffers of their own,
// lines padded to 16 bytes, in the layouts --layout gives; fresh random A
// and B per problem, D poisoned (or holding C in place), one grouped launch
// of the spec compiled grouped under the watchdog, every problem verified
// against its fp32 reference with --verify, then --iters timed launches.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "GpuCommon.h"
#include "RunOptions.h"

#include "gemmgen/tune/Timing.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <random>

using namespace gemmgen;
using namespace gemmgen::cli;

void cli::runGrouped(const RunOptions &o) {
  using namespace gpu;
  if (o.batch != 1 || o.offset != 0 || o.lda || o.ldb || o.ldd || o.spec == "tuned" ||
      o.spec == "auto") {
    llvm::errs() << "gemmgen: error: run --groups takes each problem's shape from the file and "
                    "pads its lines itself; not with --batch, --offset, --lda/--ldb/--ldd or "
                    "`tuned`/`auto`\n";
    setExitCode(ExitFailure);
    return;
  }
  std::optional<DType> dtype, outDtype;
  LayoutOption layout;
  if (!parseDTypeOption(o.dtype, dtype) || !parseOutDTypeOption(o.outDtype, outDtype) ||
      !parseLayoutOption(o.layout, layout))
    return;
  std::optional<std::vector<std::array<long long, 3>>> shapes =
      readGroupsFile(o.groupsFile, o.n, o.k);
  if (!shapes)
    return;
  std::optional<CompiledSpec> compiled = compileSpecForGpu(
      o.spec, o.debugHangs, dtype, !o.noProtocolChecks, layout, outDtype, /*grouped=*/true);
  if (!compiled) {
    setExitCode(ExitSpecError);
    return;
  }
  Expected<LoadedKernel> loaded = openAndLoad(*compiled, o.debugHangs, !o.noCache);
  if (!loaded)
    return fail(loaded.status());
  const Runtime *rt = &loaded->rt;
  const Kernel *kernel = &loaded->kernel;
  const KernelInfo &ki = kernel->info();
  const DType t = ki.dtype, out = ki.outType;
  const size_t es = sizeOf(t), outEs = sizeOf(out);
  const long long outAlign = 16 / (long long)outEs;
  auto pad = [](long long n, long long m) { return (n + m - 1) / m * m; };

  // Every problem as GemmArgs of its own (lines padded to 16 bytes), then
  // the grouped arguments, checked before anything is allocated.
  std::vector<GemmArgs> problems;
  GemmArgs g;
  g.layoutA = layout.userA.value_or(ki.layoutA);
  g.layoutB = layout.userB.value_or(ki.layoutB);
  g.layoutD = layout.d;
  g.alpha = o.alpha, g.beta = o.beta;
  long long rows = 0, maxN = 0, maxK = 0;
  double flops = 0;
  for (const auto &s : *shapes) {
    GemmArgs a;
    a.M = s[0], a.N = s[1], a.K = s[2];
    a.layoutA = g.layoutA, a.layoutB = g.layoutB, a.layoutD = g.layoutD;
    a.alpha = o.alpha, a.beta = o.beta;
    a.lda = pad(std::max(1LL, storedShape(a, 'A').length), ki.ldAlignment);
    a.ldb = pad(std::max(1LL, storedShape(a, 'B').length), ki.ldAlignment);
    a.ldd = pad(std::max(1LL, storedShape(a, 'D').length), outAlign);
    a.ldc = a.ldd;
    problems.push_back(a);
    rows += a.M, maxN = std::max(maxN, a.N), maxK = std::max(maxK, a.K);
    flops += 2.0 * a.M * a.N * a.K;
  }
  {
    GemmArgs probe = g;
    for (const GemmArgs &a : problems)
      probe.problems.push_back({a.M, a.N, a.K, 256, 256, 256,
                                o.beta == 0.0f ? 0 : o.cInPlace ? 256 : CUdeviceptr(1) << 44,
                                a.lda, a.ldb, a.ldd, a.ldc});
    if (Status s = kernel->check(probe); !s)
      return fail(s);
  }
  const unsigned long long seed =
      o.seed ? *o.seed
             : ((unsigned long long)std::random_device{}() << 32) ^ std::random_device{}();
  Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return fail(stream.status());
  std::shared_ptr<void> streamGuard(nullptr, [&](void *) { (void)rt->destroyStream(*stream); });
  Expected<GemmVerifier> ver = GemmVerifier::create(*rt);
  if (!ver)
    return fail(ver.status());

  DeviceBuffers bufs(*rt);
  std::vector<CUdeviceptr> refs, cSources;
  for (size_t i = 0; i < problems.size(); ++i) {
    GemmArgs &a = problems[i];
    const StoredShape sA = storedShape(a, 'A'), sB = storedShape(a, 'B'),
                      sD = storedShape(a, 'D');
    const unsigned long long s = seed + 16 * i;
    auto alloc = [&](size_t bytes) -> Expected<CUdeviceptr> {
      return bufs.alloc(std::max<size_t>(bytes, 256));
    };
    Expected<CUdeviceptr> A = alloc(sA.lines * sA.ld * es), B = alloc(sB.lines * sB.ld * es),
                          D = alloc(sD.lines * sD.ld * outEs), R = alloc(a.M * a.N * 4),
                          C = alloc(o.beta != 0.0f ? sD.lines * sD.ld * outEs : 0);
    for (const Expected<CUdeviceptr> *p : {&A, &B, &D, &R, &C})
      if (!*p)
        return fail(p->status());
    a.A = *A, a.B = *B, a.D = *D;
    refs.push_back(*R);
    cSources.push_back(*C);
    if (Status st = ver->fillNormal2D(a.A, sA.lines, sA.length, sA.ld, t, s + 1, *stream); !st)
      return fail(st);
    if (Status st = ver->fillNormal2D(a.B, sB.lines, sB.length, sB.ld, t, s + 2, *stream); !st)
      return fail(st);
    // D poisoned (NaN in every 16-bit half); in place it holds C.
    if (Status st = rt->fill16Async(a.D, GemmVerifier::kPoison, sD.lines * sD.ld * outEs / 2,
                                    *stream);
        !st)
      return fail(st);
    if (o.beta != 0.0f) {
      for (CUdeviceptr c : {*C, o.cInPlace ? a.D : CUdeviceptr(0)})
        if (c)
          if (Status st = ver->fillNormal2D(c, sD.lines, sD.length, sD.ld, out, s + 3, *stream);
              !st)
            return fail(st);
      a.C = o.cInPlace ? a.D : *C;
    }
    if (o.verify && a.M > 0 && a.N > 0) {
      GemmArgs r = a;
      r.C = *C; // pristine: in place, the launch overwrites D
      if (Status st = ver->reference(r, t, *R, *stream, out); !st)
        return fail(st);
    }
    g.problems.push_back({a.M, a.N, a.K, a.A, a.B, a.D, a.C, a.lda, a.ldb, a.ldd, a.ldc});
  }
  g.workspaceBytes = kernel->workspaceBytes(g);
  if (Expected<CUdeviceptr> ws = bufs.alloc(g.workspaceBytes); ws)
    g.workspace = *ws;
  else
    return fail(ws.status());
  if (Status s = rt->wait(*stream, 60); !s)
    return fail(s);
  Expected<PreparedLaunch> prep = kernel->prepare(g);
  if (!prep)
    return fail(prep.status());
  const double budget = o.timeout > 0 ? o.timeout : watchdogSeconds(rows, maxN, maxK);
  if (Status s = kernel->launch(*prep, *stream); !s)
    return fail(s);
  if (Status s = rt->wait(*stream, budget); !s)
    return fail(s);

  // Every problem against its reference: the worst error, all unwritten.
  double worst = 0, maxAbs = 0;
  long long nonFinite = 0, count = 0;
  if (o.verify)
    for (size_t i = 0; i < problems.size(); ++i) {
      if (problems[i].M == 0 || problems[i].N == 0)
        continue;
      Expected<GemmVerifier::Comparison> c =
          ver->compare(problems[i], t, refs[i], false, *stream, out);
      if (!c)
        return fail(c.status());
      worst = std::max(worst, c->relFrobenius), maxAbs = std::max(maxAbs, c->maxAbsError);
      nonFinite += c->nonFinite, count += c->count;
    }
  const bool pass = !o.verify || (nonFinite == 0 && worst <= o.tolerance);

  Expected<std::vector<double>> timed = timeLaunches(
      *rt, *stream, o.warmup, o.iters, budget, [&] { return kernel->launch(*prep, *stream); });
  if (!timed)
    return fail(timed.status());
  const std::vector<double> &ms = *timed;
  const double med = tune::Spread::of(ms).median;
  const double tflops = med > 0 ? flops / (med * 1e-3) / 1e12 : 0;
  long long empty = 0;
  for (const GemmArgs &a : problems)
    empty += a.M == 0 || a.N == 0;
  if (o.json) {
    llvm::json::Array shapesJson;
    for (const GemmArgs &a : problems)
      shapesJson.push_back(llvm::json::Array{a.M, a.N, a.K});
    llvm::json::Object j{{"spec", o.spec},
                         {"kernel", ki.name},
                         {"dtype", toString(t)},
                         {"out_dtype", toString(out)},
                         {"gpu", rt->device().name},
                         {"problems", std::move(shapesJson)},
                         {"layout_a", toString(g.layoutA)},
                         {"layout_b", toString(g.layoutB)},
                         {"layout_d", toString(g.layoutD)},
                         {"alpha", g.alpha},
                         {"beta", g.beta},
                         {"path", prep->path},
                         {"workspace_bytes", (int64_t)g.workspaceBytes},
                         {"grid", (int64_t)prep->gridX},
                         {"seed", std::to_string(seed)},
                         {"iters", o.iters},
                         {"time_ms", med},
                         {"tflops", tflops}};
    if (o.verify)
      j["verify"] = llvm::json::Object{{"worst_rel_frobenius", worst},
                                       {"max_abs_error", maxAbs},
                                       {"non_finite", nonFinite},
                                       {"tolerance", o.tolerance},
                                       {"pass", pass}};
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(j))) << "\n";
  } else {
    llvm::outs() << "kernel  " << ki.name << " (" << ki.target << ", " << toString(t)
                 << (out != t ? std::string(" -> ") + toString(out) : std::string())
                 << ", grouped) on " << rt->device().name << "\n"
                 << "problems " << problems.size() << " (" << empty << " empty), sum M " << rows
                 << ", N up to " << maxN << ", K up to " << maxK << " (A "
                 << toString(g.layoutA) << "-major, B " << toString(g.layoutB) << "-major, D "
                 << toString(g.layoutD) << "-major), path " << prep->path << ", grid "
                 << prep->gridX << " CTAs, seed " << seed << "\n";
    if (o.verify)
      llvm::outs() << llvm::formatv("verify  worst rel. Frobenius error {0:e2} (tolerance "
                                    "{1:e0}), max |err| {2:e2}, unwritten/NaN {3} of {4}: {5}\n",
                                    worst, o.tolerance, maxAbs, nonFinite, count,
                                    pass ? "PASS" : "FAIL");
    if (!ms.empty())
      llvm::outs() << llvm::formatv("time    median {0:f4} ms over {1} iters: {2:f1} TFLOP/s\n",
                                    med, o.iters, tflops);
  }
  if (!pass) {
    llvm::errs() << "gemmgen: error: verification failed: " << nonFinite
                 << " output elements unwritten or NaN; worst relative error " << worst
                 << " (tolerance " << o.tolerance << ")\n";
    setExitCode(ExitFailure);
  }
}

//===- Workload.cpp - Inputs, verification and timing of one shape --------===//
//
// Entry points: Workload, benchAgainstCublas, measureCandidate (Workload.h).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/Workload.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace gemmgen;
using namespace gemmgen::tune;

Expected<std::unique_ptr<Workload>> Workload::create(const Runtime &rt, const GemmVerifier &ver,
                                                     CUstream stream, long long M, long long N,
                                                     long long K, DType t, int outputs,
                                                     std::uint64_t seed, Layout layoutA,
                                                     Layout layoutB, long long batch,
                                                     float alpha, float beta,
                                                     std::optional<DType> outType) {
  const DType out = outType.value_or(t);
  std::unique_ptr<Workload> w(new Workload(rt, ver, stream, t, out));
  w->M = M, w->N = N, w->K = K, w->batch = batch, w->beta = beta;
  const double e = (double)sizeOf(t);
  const double L = (double)batch;
  const int sets = inputSetCount(rt.device(),
                                 L * (e * (double)(M * K + N * K) +
                                      (double)sizeOf(out) * outputs * (double)(M * N)),
                                 4.0 * L * (double)(M * N));
  auto alloc = [&](long long elems, size_t elemBytes) -> Expected<CUdeviceptr> {
    Expected<CUdeviceptr> p = rt.alloc((size_t)elems * elemBytes);
    if (p)
      w->owned.push_back(*p);
    return p;
  };
  for (int i = 0; i < sets; ++i) {
    Expected<CUdeviceptr> A = alloc(batch * M * K, sizeOf(t)), B = alloc(batch * N * K, sizeOf(t));
    if (!A)
      return A.status();
    if (!B)
      return B.status();
    std::vector<GemmArgs> outs;
    for (int o = 0; o < outputs; ++o) {
      Expected<CUdeviceptr> D = alloc(batch * M * N, sizeOf(out));
      if (!D)
        return D.status();
      GemmArgs a{*A, *B, *D, M, N, K, 0, 0, N};
      a.layoutA = layoutA, a.layoutB = layoutB;
      a.lda = storedShape(a, 'A').ld; // packed, entries one after another
      a.ldb = storedShape(a, 'B').ld;
      a.batch = batch;
      a.strideA = M * K, a.strideB = N * K, a.strideD = M * N;
      a.alpha = alpha, a.beta = beta;
      if (beta != 0.0f) // in place, as cuBLAS computes it
        a.C = a.D, a.ldc = a.ldd, a.strideC = a.strideD;
      outs.push_back(a);
    }
    const StoredShape sA = storedShape(outs[0], 'A'), sB = storedShape(outs[0], 'B');
    w->args_.push_back(std::move(outs));
    if (Status s = ver.fillNormal2D(*A, batch * sA.lines, sA.length, sA.ld, t, seed * 1000 + 2 * i + 1, stream); !s)
      return s;
    if (Status s = ver.fillNormal2D(*B, batch * sB.lines, sB.length, sB.ld, t, seed * 1000 + 2 * i + 2, stream); !s)
      return s;
    if (beta != 0.0f) { // C of this set, kept for the reference
      Expected<CUdeviceptr> C = alloc(batch * M * N, sizeOf(out));
      if (!C)
        return C.status();
      w->cBuf.push_back(*C);
      w->cSeed.push_back(seed * 1000 + 500 + i);
      if (Status s = ver.fillNormal2D(*C, batch * M, N, N, out, w->cSeed.back(), stream); !s)
        return s;
    }
  }
  Expected<CUdeviceptr> ref = alloc(batch * M * N, 4);
  if (!ref)
    return ref.status();
  w->ref = *ref;
  return w;
}

Status Workload::attachWorkspace(int output, std::size_t bytes) {
  if (bytes == 0)
    return Status::success();
  for (std::vector<GemmArgs> &set : args_) {
    Expected<CUdeviceptr> ws = rt.alloc(bytes);
    if (!ws)
      return ws.status();
    owned.push_back(*ws);
    set[output].workspace = *ws;
    set[output].workspaceBytes = bytes;
  }
  return Status::success();
}

Expected<CUdeviceptr> Workload::own(std::size_t bytes) {
  Expected<CUdeviceptr> p = rt.alloc(bytes);
  if (p)
    owned.push_back(*p);
  return p;
}

Status Workload::attachKernelInputs(const KernelInfo &k, float scaleA, float scaleB,
                                    float scaleD, std::uint64_t seed) {
  epi = k.epilogue;
  blockwise = k.blockwiseScales;
  GemmVerifier::KernelInputValues values;
  values.scaleD = scaleD;
  values.scaleA = !blockwise && std::isnan(scaleA) ? 1.0f : scaleA;
  values.scaleB = !blockwise && std::isnan(scaleB) ? 1.0f : scaleB;
  for (std::size_t set = 0; set < args_.size(); ++set) {
    GemmArgs &first = args_[set][0];
    Expected<std::vector<CUdeviceptr>> got =
        ver.attachKernelInputs(k, first, values, seed * 1000 + 700 + 16 * set, stream);
    if (!got)
      return got.status();
    owned.insert(owned.end(), got->begin(), got->end());
    for (GemmArgs &a : args_[set]) {
      a.bias = first.bias, a.strideBias = first.strideBias, a.scaleD = first.scaleD;
      a.scaleA = first.scaleA, a.scaleB = first.scaleB;
      // An fp8 D: an amax per output, so each contender's can be checked.
      if (k.fp8Output && &a != &first) {
        Expected<CUdeviceptr> amax = own(sizeof(float));
        if (!amax)
          return amax.status();
        a.amaxD = *amax;
      }
    }
  }
  return Status::success();
}

Expected<double> Workload::amaxError(int output) {
  const GemmArgs &a = args(0, output);
  if (!a.amaxD)
    return (double)NAN;
  Expected<GemmVerifier::Comparison> c = compareWithReference(output);
  if (!c)
    return c.status();
  float got = 0;
  if (Status s = rt.copyToHost(&got, a.amaxD, sizeof got); !s)
    return s;
  const double want = c->refAbsMax;
  return want > 0 ? std::fabs(got - want) / want : std::fabs((double)got);
}

Workload::~Workload() {
  for (CUdeviceptr p : owned)
    (void)rt.free(p);
}

Status Workload::runPoisoned(int output, const std::function<Status(const GemmArgs &)> &launch) {
  const GemmArgs &a = args(0, output);
  // NaN in every element (GemmVerifier::poison), or C in place.
  if (Status s = beta != 0.0f ? ver.fillNormal2D(a.D, batch * M, N, N, out, cSeed[0], stream)
                              : ver.poison(a.D, (std::size_t)(batch * M * N), out, stream);
      !s)
    return s;
  if (Status s = launch(a); !s)
    return s;
  return rt.wait(stream, launchSeconds());
}

Expected<GemmVerifier::Comparison> Workload::compareWithReference(int output) {
  if (!refReady) {
    GemmArgs r = args(0, output);
    if (beta != 0.0f)
      r.C = cBuf[0]; // the pristine C (D was overwritten)
    // What the kernel computes: these types, chain and scales (per tensor or blockwise).
    KernelInfo k;
    k.dtype = k.dtypeB = t, k.outType = out, k.epilogue = epi, k.blockwiseScales = blockwise;
    if (Status s = ver.reference(r, k, ref, stream); !s)
      return s;
    refReady = true;
  }
  return ver.compare(args(0, output), t, ref, /*refIs16Bit=*/false, stream, out);
}

Expected<GemmVerifier::Comparison> Workload::compareOutputs(int a, int b) {
  // The other output is D's type: 16-bit, or f32 (compare reads it as f32).
  return ver.compare(args(0, a), t, args(0, b).D, /*refIs16Bit=*/true, stream, out);
}

/// The kernel's pre-launch checks on the shape alone (placeholder pointers),
/// before anything is allocated.
Status tune::checkShape(const Kernel &k, long long M, long long N, long long K,
                         long long batch, float alpha, float beta) {
  GemmArgs a{256, 256, 256, M, N, K, 0, 0, N};
  a.layoutA = k.info().layoutA, a.layoutB = k.info().layoutB;
  a.batch = batch, a.strideA = M * K, a.strideB = N * K, a.strideD = M * N;
  a.alpha = alpha, a.beta = beta;
  if (beta != 0.0f)
    a.C = a.D, a.ldc = N, a.strideC = a.strideD;
  if (k.info().epilogue.bias)
    a.bias = 256;
  if (k.info().blockwiseScales) // its scale arrays (attachKernelInputs) come later
    a.scaleA = a.scaleB = 512;
  return k.check(a);
}

/// One prepared launch per input set.
Expected<std::vector<PreparedLaunch>> tune::prepareAll(const Kernel &k, const Workload &w,
                                                        int output) {
  std::vector<PreparedLaunch> out;
  for (int i = 0; i < w.sets(); ++i) {
    Expected<PreparedLaunch> p = k.prepare(w.args(i, output));
    if (!p)
      return p.status();
    out.push_back(*p);
  }
  return out;
}

Status tune::benchAgainstCublas(const Runtime &rt, const Kernel &kernel, const Cublas &cublas,
                                const GemmVerifier &ver, CUstream stream,
                                const BenchSettings &o, BenchResult &r) {
  const DType t = kernel.info().dtype, out = kernel.info().outType;
  if (Status s = checkShape(kernel, r.M, r.N, r.K, r.batch, r.alpha, r.beta); !s)
    return s;
  Expected<std::unique_ptr<Workload>> w =
      Workload::create(rt, ver, stream, r.M, r.N, r.K, t, /*outputs=*/2, o.seed,
                       kernel.info().layoutA, kernel.info().layoutB, r.batch, r.alpha, r.beta,
                       out);
  if (!w)
    return w.status();
  Workload &wl = **w;
  r.sets = wl.sets();
  if (Status s = wl.attachWorkspace(0, kernel.workspaceBytes(wl.args(0, 0))); !s)
    return s;
  Expected<std::vector<PreparedLaunch>> prep = prepareAll(kernel, wl, 0);
  if (!prep)
    return prep.status();

  // Both verified on set 0: against the reference and against each other.
  if (Status s = wl.runPoisoned(0, [&](const GemmArgs &) { return kernel.launch((*prep)[0], stream); }); !s)
    return s;
  if (Status s = wl.runPoisoned(1, [&](const GemmArgs &a) { return cublas.gemm(a, t, stream, out); }); !s)
    return s;
  Expected<GemmVerifier::Comparison> eg = wl.compareWithReference(0);
  if (!eg)
    return eg.status();
  Expected<GemmVerifier::Comparison> ec = wl.compareWithReference(1);
  if (!ec)
    return ec.status();
  Expected<GemmVerifier::Comparison> egc = wl.compareOutputs(0, 1);
  if (!egc)
    return egc.status();
  r.errG = eg->relFrobenius, r.errC = ec->relFrobenius, r.errGC = egc->relFrobenius;
  r.unwrittenG = eg->nonFinite, r.unwrittenC = ec->nonFinite;
  const double tol = GemmVerifier::kTolerance;
  r.pass = eg->nonFinite == 0 && ec->nonFinite == 0 && r.errG <= tol && r.errC <= tol &&
           r.errGC <= 2 * tol;

  std::vector<Contender> contenders = {
      {"gemmgen", [&](int set) { return kernel.launch((*prep)[set], stream); }},
      {"cublas", [&](int set) { return cublas.gemm(wl.args(set, 1), t, stream, out); }}};
  ProtocolOptions po;
  po.warmup = o.warmup, po.rounds = o.rounds, po.sets = wl.sets();
  po.launchSeconds = wl.launchSeconds();
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

Status tune::measureCandidate(const Runtime &rt, const Kernel &cand, const Kernel *base,
                              const MeasureSettings &o, MeasureResult &r) {
  if (Status s = checkShape(cand, o.M, o.N, o.K); !s)
    return s;
  if (base)
    if (Status s = checkShape(*base, o.M, o.N, o.K); !s)
      return s;
  Expected<CUstream> stream = rt.createStream();
  if (!stream)
    return stream.status();
  // Not after a watchdog timeout: the hung kernel owns the context.
  std::shared_ptr<void> streamGuard(nullptr, [&](void *) {
    if (!rt.timedOut())
      (void)rt.destroyStream(*stream);
  });
  Expected<GemmVerifier> ver = GemmVerifier::create(rt);
  if (!ver)
    return ver.status();
  Expected<std::unique_ptr<Workload>> w =
      Workload::create(rt, *ver, *stream, o.M, o.N, o.K, o.dtype, /*outputs=*/1, o.seed,
                       cand.info().layoutA, cand.info().layoutB);
  if (!w)
    return w.status();
  Workload &wl = **w;
  r.sets = wl.sets();
  Expected<std::vector<PreparedLaunch>> pc = prepareAll(cand, wl, 0);
  if (!pc)
    return pc.status();
  std::optional<std::vector<PreparedLaunch>> pb;
  if (base) {
    Expected<std::vector<PreparedLaunch>> p = prepareAll(*base, wl, 0);
    if (!p)
      return p.status();
    pb = *p;
  }

  // Correctness first: poisoned D, one launch, compared with the reference.
  if (Status s = wl.runPoisoned(0, [&](const GemmArgs &) { return cand.launch((*pc)[0], *stream); }); !s)
    return s;
  Expected<GemmVerifier::Comparison> cmp = wl.compareWithReference(0);
  if (!cmp)
    return cmp.status();
  r.relErr = std::isfinite(cmp->relFrobenius) ? cmp->relFrobenius : 1e30;
  r.nonFinite = cmp->nonFinite;
  if (cmp->nonFinite != 0 || !(cmp->relFrobenius <= o.tolerance))
    return Status::error(ErrorCode::VerificationFailed,
                         llvm::formatv("verification failed: relative error {0:e2} (tolerance "
                                       "{1:e0}), {2} elements unwritten or NaN",
                                       cmp->relFrobenius, o.tolerance, cmp->nonFinite)
                             .str());

  std::vector<Contender> contenders = {
      {"candidate", [&](int set) { return cand.launch((*pc)[set], *stream); }}};
  if (base)
    contenders.push_back({"base", [&](int set) { return base->launch((*pb)[set], *stream); }});
  ProtocolOptions po;
  po.warmup = o.warmup, po.rounds = o.rounds, po.sets = wl.sets();
  po.launchSeconds = wl.launchSeconds();
  std::unique_ptr<TimingDevice> dev = streamTiming(rt, *stream);
  Expected<ProtocolResult> timed = timeInterleaved(*dev, contenders, po);
  if (!timed)
    return timed.status();
  r.candidate = timed->ms[0];
  r.baselineMs = base ? timed->ms[1].median : 0;
  r.registers = cand.info().usage.registers;
  r.reps = timed->reps;
  r.rounds = timed->rounds;
  return Status::success();
}

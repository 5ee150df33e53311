//===- LtBench.cpp - bench of chain and fp8 kernels against cuBLASLt ------===//
#include "gemmgen/tune/LtBench.h"

#include "gemmgen/tune/ChainPass.h"

#include <cmath>
#include <memory>
#include <optional>

using namespace gemmgen;
using namespace gemmgen::tune;

static std::string typesText(const KernelInfo &ki) {
  return std::string(toString(ki.dtype)) + " x " + toString(ki.dtypeB) + " -> " +
         toString(ki.outType);
}

/// B's block scales of `a` (our [nb][kb] layout) as cuBLASLt's BLK128x128
/// reads them: the same array when the layouts agree (LtBlockScales::
/// sameAsOurs), else a padded copy made here once, before any timing, and
/// appended to `owned`. A's 1x128 scales are cuBLASLt's VEC128 layout as they are.
static Expected<CUdeviceptr> cublasLtBlockScalesB(const Runtime &rt, const GemmArgs &a,
                                                 CUstream stream,
                                                 std::vector<CUdeviceptr> &owned) {
  const LtBlockScales layout{a.N, a.K};
  if (layout.sameAsOurs())
    return a.scaleB;
  if (Status s = rt.wait(stream, 60); !s) // the scales are filled on the stream
    return s;
  std::vector<float> ours((size_t)(layout.nBlocks() * layout.kBlocks()));
  if (Status s = rt.copyToHost(ours.data(), a.scaleB, ours.size() * sizeof(float)); !s)
    return s;
  const std::vector<float> lt = layout.toCublasLt(ours);
  Expected<CUdeviceptr> p = rt.alloc(lt.size() * sizeof(float));
  if (!p)
    return p.status();
  owned.push_back(*p);
  if (Status s = rt.copyToDevice(*p, lt.data(), lt.size() * sizeof(float)); !s)
    return s;
  return *p;
}

LtBenchPlan tune::planLtBench(const KernelInfo &ki, const GemmArgs &args) {
  LtBenchPlan p;
  const bool fp8 = isFp8(ki.dtype) || isFp8(ki.dtypeB);
  Expected<LtMatmulDesc> fused = describeLtMatmul(args, ki);
  p.fused = fused.ok();
  if (fused) {
    const std::string scales =
        ki.blockwiseScales ? std::string(", blockwise scales ") +
                                 ltScaleModeName(fused->scaleModeA) + " x " +
                                 ltScaleModeName(fused->scaleModeB) + ", promoted accumulation"
                           : ", per-tensor scales, fast accumulation";
    p.fusedName = std::string("cublasLtMatmul ") + ltEpilogueName(fused->epilogue) +
                  (fp8 ? " (" + typesText(ki) + scales + ")" : "");
  } else {
    p.fusedNote = fused.status().message();
  }
  if (ki.epilogue.empty())
    return p; // nothing to apply after a plain GEMM: no unfused contender
  if (isFp8(ki.outType)) {
    p.unfusedNote = "the chain pass reads a 16-bit or f32 D, not " +
                    std::string(toString(ki.outType)) + " (the chain must run before the "
                    "conversion)";
    return p;
  }
  if (Status s = ChainPass::supports(ki.epilogue); !s) {
    p.unfusedNote = s.message();
    return p;
  }
  if (fp8) { // no cublasGemmEx for fp8: cuBLASLt's plain matmul
    Expected<LtMatmulDesc> plain = describeLtMatmul(args, ki.dtype, ki.dtypeB, ki.outType,
                                                    EpilogueInfo(), ki.blockwiseScales);
    if (!plain) {
      p.unfusedNote = plain.status().message();
      return p;
    }
    p.unfusedName = "cublasLtMatmul DEFAULT + chain pass";
  } else {
    p.unfusedName = "cublasGemmEx + chain pass";
  }
  p.unfused = true;
  return p;
}

Status tune::benchAgainstCublasLt(const Runtime &rt, const Kernel &kernel, const CublasLt &lt,
                                  const Cublas &cublas, const GemmVerifier &ver, CUstream stream,
                                  const BenchSettings &o, BenchResult &r) {
  const KernelInfo &ki = kernel.info();
  const DType t = ki.dtype, out = ki.outType;
  const EpilogueInfo &epi = ki.epilogue;
  if (ki.dtypeB != t)
    return Status::error(ErrorCode::Unsupported,
                         std::string("bench fills A and B with one type; this kernel mixes ") +
                             typesText(ki) + " (time it with `gemmgen run`)");
  if (Status s = checkShape(kernel, r.M, r.N, r.K, r.batch, r.alpha, r.beta); !s)
    return s;
  // Outputs: 0 gemmgen, 1 cuBLASLt fused, 2 unfused.
  Expected<std::unique_ptr<Workload>> w =
      Workload::create(rt, ver, stream, r.M, r.N, r.K, t, /*outputs=*/3, o.seed, ki.layoutA,
                       ki.layoutB, r.batch, r.alpha, r.beta, out);
  if (!w)
    return w.status();
  Workload &wl = **w;
  r.sets = wl.sets();
  if (Status s = wl.attachWorkspace(0, kernel.workspaceBytes(wl.args(0, 0))); !s)
    return s;
  if (Status s = wl.attachKernelInputs(ki, o.scaleA, o.scaleB, o.scaleD, o.seed); !s)
    return s;

  LtBenchPlan plan = planLtBench(ki, wl.args(0, 1));
  r.lt = true;
  r.epilogue = epi.chain;
  r.fused = plan.fused, r.cublasName = plan.fused ? plan.fusedName : "cublasLtMatmul";
  r.fusedNote = plan.fusedNote;
  r.hasUnfused = plan.unfused, r.unfusedName = plan.unfusedName;
  r.unfusedNote = plan.unfusedNote;
  // Where neither cuBLASLt contender can run, gemmgen is still verified and
  // timed alone, the row saying why (fusedNote, unfusedNote).
  Expected<CUdeviceptr> ltWs = rt.alloc(CublasLt::kWorkspaceBytes);
  if (!ltWs)
    return ltWs.status();
  std::vector<CUdeviceptr> ltScales; // cuBLASLt's own copies of B's block scales
  std::shared_ptr<void> wsGuard(nullptr, [&](void *) {
    if (!rt.timedOut()) {
      (void)rt.free(*ltWs);
      for (CUdeviceptr p : ltScales)
        (void)rt.free(p);
    }
  });
  // Per set: cuBLASLt's calls (fused on output 1, fp8's plain GEMM on 2).
  const bool fp8 = isFp8(t);
  std::vector<LtMatmulDesc> fused, plain;
  for (int set = 0; set < wl.sets() && (plan.fused || plan.unfused); ++set) {
    GemmArgs a1 = wl.args(set, 1), a2 = wl.args(set, 2);
    if (ki.blockwiseScales) { // the same values, in cuBLASLt's layout (CublasLt.h)
      Expected<CUdeviceptr> lb = cublasLtBlockScalesB(rt, a1, stream, ltScales);
      if (!lb)
        return lb.status();
      a1.scaleB = a2.scaleB = *lb;
    }
    if (plan.fused)
      fused.push_back(*describeLtMatmul(a1, ki));
    if (plan.unfused && fp8)
      plain.push_back(*describeLtMatmul(a2, t, ki.dtypeB, out, EpilogueInfo(), ki.blockwiseScales));
  }
  std::optional<ChainPass> pass;
  if (plan.unfused) {
    Expected<ChainPass> p = ChainPass::create(rt);
    if (!p)
      return p.status();
    pass.emplace(p.take());
  }
  Expected<std::vector<PreparedLaunch>> prep = prepareAll(kernel, wl, 0);
  if (!prep)
    return prep.status();
  auto gemmgenLaunch = [&](int set) { return kernel.launch((*prep)[set], stream); };
  auto fusedLaunch = [&](int set) {
    return lt.matmul(fused[set], *ltWs, CublasLt::kWorkspaceBytes, stream);
  };
  auto unfusedLaunch = [&](int set) {
    const GemmArgs &a = wl.args(set, 2);
    Status s = fp8 ? lt.matmul(plain[set], *ltWs, CublasLt::kWorkspaceBytes, stream)
                   : cublas.gemm(a, t, stream, out);
    return s ? pass->apply(a, out, epi, stream) : s;
  };

  // Every contender verified on set 0: against the reference and gemmgen.
  const double tol = GemmVerifier::kTolerance;
  if (Status s = wl.runPoisoned(0, [&](const GemmArgs &) { return gemmgenLaunch(0); }); !s)
    return s;
  Expected<GemmVerifier::Comparison> eg = wl.compareWithReference(0);
  if (!eg)
    return eg.status();
  r.errG = eg->relFrobenius, r.unwrittenG = eg->nonFinite;
  r.pass = eg->nonFinite == 0 && r.errG <= tol;
  // An fp8 D's amax, each contender's own (Workload gives every output one).
  auto checkAmax = [&](int output, double &err) -> Status {
    Expected<double> e = wl.amaxError(output);
    if (!e)
      return e.status();
    err = *e;
    r.pass &= std::isnan(err) || err <= tol;
    return Status::success();
  };
  if (Status s = checkAmax(0, r.amaxErrG); !s)
    return s;
  auto verify = [&](int output, const std::function<Status(int)> &launch, double &err,
                    double &errVsG, long long &unwritten) -> Status {
    if (Status s = wl.runPoisoned(output, [&](const GemmArgs &) { return launch(0); }); !s)
      return s;
    Expected<GemmVerifier::Comparison> e = wl.compareWithReference(output);
    if (!e)
      return e.status();
    Expected<GemmVerifier::Comparison> eo = wl.compareOutputs(0, output);
    if (!eo)
      return eo.status();
    err = e->relFrobenius, errVsG = eo->relFrobenius, unwritten = e->nonFinite;
    r.pass &= e->nonFinite == 0 && err <= tol && errVsG <= 2 * tol;
    return output == 1 ? checkAmax(1, r.amaxErrC) : Status::success();
  };
  std::vector<Contender> contenders = {{"gemmgen", gemmgenLaunch}};
  // cuBLASLt may refuse only now (its heuristic finds no algorithm for the
  // scale modes, say): that contender drops out with the reason, the rest run.
  auto refused = [&](const Status &s, bool &on, std::string &note, const std::string &name) {
    if (s.code() != ErrorCode::Unsupported)
      return false;
    on = false;
    note = name + ": " + s.message();
    return true;
  };
  if (plan.fused) {
    if (Status s = verify(1, fusedLaunch, r.errC, r.errGC, r.unwrittenC); !s) {
      if (!refused(s, plan.fused, r.fusedNote, plan.fusedName))
        return s;
      r.fused = false, r.cublasName = "cublasLtMatmul";
    } else {
      contenders.push_back({"cublaslt", fusedLaunch});
    }
  }
  if (plan.unfused) {
    if (Status s = verify(2, unfusedLaunch, r.errU, r.errGU, r.unwrittenU); !s) {
      if (!refused(s, plan.unfused, r.unfusedNote, plan.unfusedName))
        return s;
      r.hasUnfused = false;
    } else {
      contenders.push_back({"unfused", unfusedLaunch});
    }
  }

  ProtocolOptions po;
  po.warmup = o.warmup, po.rounds = o.rounds, po.sets = wl.sets();
  po.launchSeconds = wl.launchSeconds();
  std::unique_ptr<TimingDevice> dev = streamTiming(rt, stream);
  Expected<ProtocolResult> timed = timeInterleaved(*dev, contenders, po);
  if (!timed)
    return timed.status();
  r.gemmgen = timed->ms[0];
  int next = 1;
  if (plan.fused)
    r.cublas = timed->ms[next++];
  if (plan.unfused)
    r.unfused = timed->ms[next++];
  r.reps = timed->reps, r.rounds = timed->rounds;
  const double g = r.gemmgen.median;
  r.ratio = plan.fused && g > 0 ? r.cublas.median / g : 0;
  r.ratioUnfused = plan.unfused && g > 0 ? r.unfused.median / g : 0;
  return Status::success();
}

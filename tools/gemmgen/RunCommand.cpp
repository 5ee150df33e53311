//===- RunCommand.cpp - `gemmgen run`: JIT-compile, launch, verify, time ---===//
//
//   gemmgen run SPEC --m M --n N --k K [--dtype f16|bf16|e4m3|e5m2 [--scaling S]] [--layout A,B] [--batch L]
//               [--alpha A --beta B [--c-in-place]] [--verify] [--iters I]
//               [--seed S] [--debug-hangs] [--json]
//
// Compiles the spec (NVRTC, disk cache), fills A and B with fresh N(0,1)
// values on the device (seeded; the seed is printed), poisons D with NaN,
// launches once under the watchdog, optionally verifies against an
// fp32-accumulate reference (relative Frobenius error and "every element
// written"), then times `iters` launches with CUDA events (median).
//
// Exit codes: 0 ok, 1 spec errors, 2 no CUDA driver/GPU, 3 other failures
// (NVRTC, pre-launch checks, launch, verification), 4 watchdog timeout.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "GpuCommon.h"
#include "OptionChecks.h"
#include "RunOptions.h"

#include "gemmgen/tune/Timing.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <tuple>
#include <cmath>
#include <memory>
#include <random>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {


void runRun(const RunOptions &o) {
  using namespace gpu;
  if (!o.groupsFile.empty())
    return runGrouped(o);
  std::optional<DType> dtype;
  if (!parseDTypeOption(o.dtype, dtype))
    return;
  std::optional<DType> outDtype;
  if (!parseOutDTypeOption(o.outDtype, outDtype, o.spec, dtype))
    return;
  LayoutOption layout;
  if (!parseLayoutOption(o.layout, layout))
    return;
  bool blockwise = false;
  if (!parseScalingOption(o.scaling, o.spec, dtype, blockwise))
    return;
  // Sizes no GPU is needed to reject (the device-dependent checks run at launch).
  if (o.offset < 0 || o.offset > (1 << 20)) {
    llvm::errs() << "gemmgen: error: --offset must be between 0 and " << (1 << 20)
                 << " elements (got " << o.offset << ")\n";
    setExitCode(ExitFailure);
    return;
  }
  if (o.batch < 1) {
    llvm::errs() << "gemmgen: error: --batch must be at least 1 (got " << o.batch << ")\n";
    setExitCode(ExitFailure);
    return;
  }
  if (o.m <= 0 || o.n <= 0 || o.k < 0) {
    llvm::errs() << "gemmgen: error: M and N must be positive and K non-negative (got M=" << o.m
                 << " N=" << o.n << " K=" << o.k << ")\n";
    setExitCode(ExitFailure);
    return;
  }
  // `run tuned` / `run auto` choose a spec for --dtype (f16 without it), in
  // the row-major problem's frame (N×M for a column-major D).
  ChoiceProblem asked = choiceProblemFor(layout, o.m, o.n, o.k, outDtype);
  const Runtime opened = runtimeForChoice(o.spec); // run uses the default GPU
  takeChoiceGpu(asked.options, opened);
  std::string specPath = resolveSpecArg(o.spec, asked.M, asked.N, asked.K,
                                        dtype.value_or(DType::F16), blockwise, outDtype,
                                        asked.options);
  std::optional<CompiledSpec> compiled =
      specPath.empty() ? std::nullopt
                       : compileSpecForGpu(specPath, o.debugHangs, dtype, !o.noProtocolChecks,
                                                          layout, outDtype);
  if (!compiled) {
    setExitCode(ExitSpecError);
    return;
  }
  if (!useEditedSource(*compiled, o.sourceFile))
    return;
  Expected<LoadedKernel> loaded = openAndLoad(*compiled, o.debugHangs, !o.noCache, opened);
  if (!loaded)
    return fail(loaded.status());
  const Runtime *rt = &loaded->rt;
  const Kernel *kernel = &loaded->kernel;
  const KernelInfo &ki = kernel->info();
  const DType t = ki.dtype, tB = ki.dtypeB, out = ki.outType;
  const size_t es = sizeOf(t), outEs = sizeOf(out);

  GemmArgs args;
  args.M = o.m, args.N = o.n, args.K = o.k;
  args.layoutA = layout.userA.value_or(ki.layoutA);
  args.layoutB = layout.userB.value_or(ki.layoutB);
  args.layoutD = layout.d;
  // A's and B's lines, like D's rows, are padded to 16 bytes by default, so
  // any M (column-major A) or N (row-major B) runs.
  auto padded = [&](long long length) {
    return (length + ki.ldAlignment - 1) / ki.ldAlignment * ki.ldAlignment;
  };
  // D's (and C's) rows: 16 bytes, 8 16-bit or 4 f32 elements.
  const long long outAlign = 16 / (long long)outEs;
  auto paddedOut = [&](long long length) { return (length + outAlign - 1) / outAlign * outAlign; };
  args.lda = o.lda ? o.lda : padded(storedShape(args, 'A').length);
  args.ldb = o.ldb ? o.ldb : padded(storedShape(args, 'B').length);
  // D's rows must start 16-byte aligned (TMA): by default pad ldd to a
  // multiple of the kernel's ldAlignment, so any N runs (e.g. N = 257).
  args.ldd = o.ldd ? o.ldd : paddedOut(storedShape(args, 'D').length);
  // --batch L: L entries packed one after another (stride = one entry).
  args.batch = o.batch;
  args.strideA = storedShape(args, 'A').lines * storedShape(args, 'A').ld;
  args.strideB = storedShape(args, 'B').lines * storedShape(args, 'B').ld;
  args.strideD = storedShape(args, 'D').lines * args.ldd;
  // --beta: C random, stored like D with D's leading dimension; in place it
  // is D itself (D holds C before the launch).
  args.alpha = o.alpha, args.beta = o.beta;
  if (o.beta != 0.0f)
    args.ldc = args.ldd, args.strideC = args.strideD;
  // Sizes and strides are checked before anything is allocated (pointers
  // come later: a placeholder aligned address stands in for them here).
  {
    GemmArgs probe = args;
    probe.A = probe.B = probe.D = 256;
    if (o.beta != 0.0f) // in place, or far from D
      probe.C = o.cInPlace ? probe.D : CUdeviceptr(1) << 44;
    if (kernel->info().epilogue.bias)
      probe.bias = 256;
    if (kernel->info().blockwiseScales)
      probe.scaleA = probe.scaleB = 512;
    if (Status s = kernel->check(probe); !s)
      return fail(s);
  }
  const unsigned long long seed =
      o.seed ? *o.seed
             : ((unsigned long long)std::random_device{}() << 32) ^ std::random_device{}();

  DeviceBuffers bufs(*rt);
  auto allocOr = [&](size_t bytes, CUdeviceptr &p) {
    Expected<CUdeviceptr> e = bufs.alloc(bytes);
    if (!e) {
      fail(e.status());
      return false;
    }
    p = *e;
    return true;
  };
  CUdeviceptr ref = 0;
  // K = 0 (D = 0): A and B are not read and stay null. Every operand holds
  // `batch` packed entries: as one matrix, batch times its lines. --offset
  // moves each operand's pointer by that many elements (off 16 bytes: the
  // staging path).
  const size_t L = (size_t)args.batch;
  const StoredShape sA = storedShape(args, 'A'), sB = storedShape(args, 'B');
  const long long dLines = storedShape(args, 'D').lines * args.batch;
  auto allocAt = [&](size_t bytes, size_t elem, CUdeviceptr &p) {
    if (!allocOr(bytes + (size_t)o.offset * elem, p))
      return false;
    p += (CUdeviceptr)(o.offset * elem);
    return true;
  };
  if ((args.K > 0 && (!allocAt(L * sA.lines * sA.ld * es, es, args.A) ||
                      !allocAt(L * sB.lines * sB.ld * es, es, args.B))) ||
      !allocAt((size_t)dLines * args.ldd * outEs, outEs, args.D) ||
      (o.verify && !allocOr(L * args.M * args.N * 4, ref)))
    return;
  // The reference reads a pristine C: a buffer of its own even in place (the
  // kernel overwrites D).
  CUdeviceptr cSource = 0;
  if (o.beta != 0.0f && !allocAt((size_t)dLines * args.ldd * outEs, outEs, cSource))
    return;
  // Operands TMA cannot address (unaligned pointers or line strides) go
  // through a workspace: allocated once here for every launch.
  if (const std::size_t ws = kernel->workspaceBytes(args); ws > 0) {
    if (!allocOr(ws, args.workspace))
      return;
    args.workspaceBytes = ws;
  }
  args.C = o.beta == 0.0f ? 0 : o.cInPlace ? args.D : cSource;
  Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return fail(stream.status());
  std::shared_ptr<void> streamGuard(nullptr, [&](void *) { (void)rt->destroyStream(*stream); });
  Expected<GemmVerifier> ver = GemmVerifier::create(*rt);
  if (!ver)
    return fail(ver.status());

  // Fresh random inputs, poisoned output.
  if (Status s = ver->fillNormal2D(args.A, sA.lines * args.batch, sA.length, sA.ld, t, seed * 2 + 1,
                                   *stream);
      !s)
    return fail(s);
  if (Status s = ver->fillNormal2D(args.B, sB.lines * args.batch, sB.length, sB.ld, tB, seed * 2 + 2,
                                   *stream);
      !s)
    return fail(s);
  // D poisoned; in place D holds C (the same seed as C's own buffer).
  const unsigned long long cSeed = seed * 2 + 3;
  if (Status s = o.beta != 0.0f && o.cInPlace
                     ? ver->fillNormal2D(args.D, dLines, storedShape(args, 'D').length, args.ldd,
                                         out, cSeed, *stream)
                     // 0x7fff in every 16-bit half: NaN in f16, bf16 and f32 alike
                     : rt->fill16Async(args.D, GemmVerifier::kPoison,
                                       (size_t)dLines * args.ldd * outEs / 2, *stream);
      !s)
    return fail(s);
  if (cSource)
    if (Status s = ver->fillNormal2D(cSource, dLines, storedShape(args, 'D').length, args.ldd, out,
                                     cSeed, *stream);
        !s)
      return fail(s);
  // The chain's bias (random, one vector per batch entry) and --scale-d;
  // --scale-a / --scale-b: device f32 scalars (fp8 kernels read them once
  // per CTA); a blockwise kernel's arrays hold that value in every block, or
  // N(0,1) values without it.
  const EpilogueInfo &epi = kernel->info().epilogue;
  GemmVerifier::KernelInputValues values;
  values.scaleA = o.scaleA, values.scaleB = o.scaleB, values.scaleD = o.scaleD;
  Expected<std::vector<CUdeviceptr>> inputs =
      ver->attachKernelInputs(kernel->info(), args, values, seed, *stream);
  if (!inputs)
    return fail(inputs.status());
  bufs.ptrs.insert(bufs.ptrs.end(), inputs->begin(), inputs->end());
  // The reference first: in place, the launch overwrites C.
  if (o.verify) {
    GemmArgs r = args;
    r.C = cSource;
    if (Status s = ver->reference(r, kernel->info(), ref, *stream); !s)
      return fail(s);
  }
  if (Status s = rt->wait(*stream, 60); !s)
    return fail(s);

  Expected<PreparedLaunch> prep = kernel->prepare(args);
  if (!prep)
    return fail(prep.status());
  const double budget =
      o.timeout > 0 ? o.timeout : watchdogSeconds(args.M * args.batch, args.N, args.K);

  // First launch on the poisoned output, under the watchdog.
  if (Status s = kernel->launch(*prep, *stream); !s)
    return fail(s);
  if (Status s = rt->wait(*stream, budget); !s)
    return fail(s);

  std::optional<GemmVerifier::Comparison> cmp;
  bool pass = true;
  if (o.verify) {
    Expected<GemmVerifier::Comparison> c = ver->compare(args, t, ref, false, *stream, out);
    if (!c)
      return fail(c.status());
    cmp = *c;
    pass = c->nonFinite == 0 && c->relFrobenius <= o.tolerance;
  }
  // An 8-bit D's amax (the kernel's red.max over every element) against the
  // reference's max |v|, within the same relative tolerance.
  std::optional<std::pair<float, double>> amax; // kernel's, relative error
  if (cmp && kernel->info().fp8Output && args.amaxD) {
    float got = 0;
    if (Status s = rt->copyToHost(&got, args.amaxD, sizeof got); !s)
      return fail(s);
    const double want = cmp->refAbsMax;
    const double err = want > 0 ? std::fabs(got - want) / want : std::fabs(got);
    amax.emplace(got, err);
    pass = pass && err <= o.tolerance;
  }

  // Timing: warm-up, then `iters` launches each between two events.
  Expected<std::vector<double>> timed = timeLaunches(
      *rt, *stream, o.warmup, o.iters, budget, [&] { return kernel->launch(*prep, *stream); });
  if (!timed)
    return fail(timed.status());
  const std::vector<double> &ms = *timed;
  const double med = tune::Spread::of(ms).median;
  const double mn = ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
  const double mx = ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
  const DeviceInfo &dev = rt->device();

  if (o.json) {
    llvm::json::Object j{
        {"spec", o.spec},
        {"kernel", ki.name},
        {"target", ki.target},
        {"dtype", toString(t)},
        {"out_dtype", toString(out)},
        {"gpu", dev.name},
        {"arch", dev.archName()},
        {"driver_version", dev.driverVersion},
        {"M", args.M}, {"N", args.N}, {"K", args.K},
        {"lda", args.lda}, {"ldb", args.ldb}, {"ldd", args.ldd},
        {"layout_a", toString(args.layoutA)}, {"layout_b", toString(args.layoutB)},
        {"layout_d", toString(args.layoutD)},
        {"batch", args.batch},
        {"alpha", args.alpha}, {"beta", args.beta},
        {"c", args.beta == 0.0f ? "none" : o.cInPlace ? "in_place" : "separate"},
        {"epilogue", epi.chain},
        {"stride_a", args.strideA}, {"stride_b", args.strideB}, {"stride_d", args.strideD},
        // How each operand reaches the kernel (TMA needs 16-byte aligned
        // strides and pointers; the checks refuse what it cannot take).
        {"path", prep->path},
        {"workspace_bytes", (int64_t)args.workspaceBytes},
        {"grid", (int64_t)prep->gridX},
        // D's last N % 8 columns are stored by a SIMT kernel (a TMA store
        // would write past column N-1): 0 when N is a multiple of 8.
        {"tail_columns", (int64_t)prep->tailColumns},
        {"threads", (int64_t)ki.threads},
        {"smem_bytes", (int64_t)ki.smemBytes},
        {"cluster_m", (int64_t)ki.clusterM},
        {"registers", ki.usage.registers},
        {"spill_bytes", ki.usage.spillStoreBytes + ki.usage.spillLoadBytes},
        {"from_cache", ki.fromCache},
        {"seed", std::to_string(seed)},
        {"iters", o.iters},
        {"time_ms", llvm::json::Object{{"median", med}, {"min", mn}, {"max", mx}}},
        {"tflops", tune::tflops(args.M * args.batch, args.N, args.K, med)},
    };
    if (cmp)
      j["verify"] = llvm::json::Object{{"rel_frobenius", cmp->relFrobenius},
                                       {"max_abs_error", cmp->maxAbsError},
                                       {"non_finite", cmp->nonFinite},
                                       {"tolerance", o.tolerance},
                                       {"pass", pass}};
    if (amax)
      j["amax"] = llvm::json::Object{{"kernel", amax->first},
                                     {"reference", cmp->refAbsMax},
                                     {"rel_error", amax->second}};
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(j))) << "\n";
  } else {
    llvm::outs() << "kernel  " << ki.name << " (" << ki.target << ", " << toString(t)
                 << (out != t ? std::string(" -> ") + toString(out) : std::string()) << ") on "
                 << dev.name << " (" << dev.archName() << ", " << dev.smCount << " SMs)\n"
                 << "        " << ki.threads << " threads, " << ki.smemBytes
                 << " B dynamic smem, cluster " << ki.clusterM << "x" << ki.clusterN << ", tile "
                 << ki.tileM << "x" << ki.tileN << "x" << ki.tileK << ", "
                 << ki.usage.registers << " registers, spills "
                 << ki.usage.spillStoreBytes + ki.usage.spillLoadBytes << " B"
                 << (ki.fromCache ? " (cubin from cache)" : "") << "\n"
                 << "problem M=" << args.M << " N=" << args.N << " K=" << args.K << " (A "
                 << toString(args.layoutA) << "-major, lda " << args.lda << "; B "
                 << toString(args.layoutB) << "-major, ldb " << args.ldb << "; D "
                 << toString(args.layoutD) << "-major, ldd " << args.ldd << ")"
                 << (args.batch > 1 ? ", batch " + std::to_string(args.batch) + " (packed)"
                                    : std::string())
                 << (args.alpha != 1.0f || args.beta != 0.0f
                         ? llvm::formatv(", D = {0}·A·B + {1}·C{2}", args.alpha, args.beta,
                                         args.beta == 0.0f ? ""
                                         : o.cInPlace      ? " (C = D, in place)"
                                                           : " (C separate)")
                               .str()
                         : std::string())
                 << ", grid "
                 << prep->gridX << " CTAs, seed " << seed << "\n";
    if (!epi.empty())
      llvm::outs() << "epilogue " << epi.chain
                   << (epi.scale ? llvm::formatv(" (scale_d {0})", o.scaleD).str() : std::string())
                   << "\n";
    if (prep->path.find("staged") != std::string::npos)
      llvm::outs() << "        path " << prep->path << ": the named operands are copied through a "
                   << args.workspaceBytes
                   << "-byte aligned workspace (TMA cannot address them; ^T: an 8-bit operand "
                      "copied K-major)\n";
    else if (prep->path != "tma")
      llvm::outs() << "        path " << prep->path << " (a " << args.workspaceBytes
                   << "-byte workspace)\n";
    if (prep->tailColumns)
      llvm::outs() << "        last " << prep->tailColumns
                   << " columns of D by the SIMT tail kernel (N is not a multiple of 8)\n";
    if (cmp)
      llvm::outs() << llvm::formatv(
          "verify  rel. Frobenius error {0:e2} (tolerance {1:e0}), max |err| {2:e2}, "
          "unwritten/NaN {3} of {4}: {5}\n",
          cmp->relFrobenius, o.tolerance, cmp->maxAbsError, cmp->nonFinite, cmp->count,
          pass ? "PASS" : "FAIL");
    if (amax)
      llvm::outs() << llvm::formatv("amax    {0:e4} (reference max |v| {1:e4}, rel. error {2:e2}; "
                                    "D = {3}(scale_d {4} * v))\n",
                                    amax->first, cmp->refAbsMax, amax->second, toString(out),
                                    o.scaleD);
    if (!ms.empty())
      llvm::outs() << llvm::formatv("time    median {0:f4} ms over {1} iters (min {2:f4}, max "
                                    "{3:f4}): {4:f1} TFLOP/s\n",
                                    med, o.iters, mn, mx,
                                    tune::tflops(args.M * args.batch, args.N, args.K, med));
  }
  if (!pass) {
    llvm::errs() << "gemmgen: error: verification failed: "
                 << (cmp->nonFinite ? std::to_string(cmp->nonFinite) +
                                          " output elements unwritten or NaN; "
                                    : std::string())
                 << "relative error " << cmp->relFrobenius << " (tolerance " << o.tolerance
                 << ")\n";
    setExitCode(ExitFailure);
  }
}

} // namespace

void cli::addTypeOptions(CLI::App *cmd, std::string &dtype, std::string &scaling) {
  cmd->add_option("--dtype", dtype,
                  "f16, bf16, e4m3 or e5m2: overrides the spec's a/b (and a 16-bit spec's d) "
                  "types; with `auto`/`tuned`, the type the kernel is chosen for");
  cmd->add_option("--scaling", scaling,
                  "per_tensor or blockwise: the scales of the fp8 kernel `auto` chooses "
                  "(with --dtype e4m3|e5m2; default per_tensor)");
}

void cli::registerRunCommand(CLI::App &app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App *cmd = app.add_subcommand(
      "run", "JIT-compile a spec, run it on random inputs on the GPU, verify and time it\n"
             "(exit 2 when there is no CUDA driver/GPU, 4 when the watchdog fires)");
  cmd->add_option("spec", o->spec,
                  "Kernel spec (YAML); `tuned`: the spec tuned for the shape and --dtype, "
                  "else the cost model's choice; `auto`: the cost model's choice")
      ->required();
  cmd->add_option("--m", o->m, "Rows of A and D")->capture_default_str();
  cmd->add_option("--n", o->n, "Rows of B, columns of D")->capture_default_str();
  cmd->add_option("--k", o->k, "Columns of A and B (multiple of 8; 0 gives D = 0)")
      ->capture_default_str();
  addTypeOptions(cmd, o->dtype, o->scaling);
  cmd->add_option("--scale-a", o->scaleA,
                  "fp8 kernels: A's per-tensor scale (a device f32; left out: null = 1)");
  cmd->add_option("--scale-b", o->scaleB, "fp8 kernels: B's per-tensor scale");
  cmd->add_option("--out-dtype", o->outDtype,
                  "f32: D (and C) in f32 (the spec's epilogue.chunk_n keeps its bytes); the fp8 "
                  "kernel `auto` chooses also takes bf16 (its default), f16, e4m3 or e5m2");
  cmd->add_option("--layout", o->layout,
                  "Operand layouts A,B[,D] (each row or col): row,col (the default: A M×K "
                  "row-major, B stored N×K, D row-major), col,col, row,row, col,row; a third "
                  "`col` stores D column-major (computed as D^T = B^T·A^T); overrides the spec's "
                  "layout (an fp8 spec stays K-major: the launch copies an M- or N-major A or B "
                  "transposed)");
  cmd->add_option("--lda", o->lda,
                  "Leading dimension of A in elements (default K, or M for a column-major A, "
                  "rounded up to a multiple of 8)");
  cmd->add_option("--ldb", o->ldb,
                  "Leading dimension of B in elements (default K, or N for a row-major B, "
                  "rounded up to a multiple of 8)");
  cmd->add_option("--ldd", o->ldd,
                  "Leading dimension of D in elements (default N rounded up to a multiple of 8)");
  cmd->add_option("--alpha", o->alpha, "D = alpha·A·B + beta·C: alpha")
      ->check(finiteNumber())
      ->capture_default_str();
  cmd->add_option("--beta", o->beta,
                  "beta; non-zero reads C (random, stored like D with D's leading dimension)")
      ->check(finiteNumber())
      ->capture_default_str();
  cmd->add_flag("--c-in-place", o->cInPlace, "C is D itself (D holds C before the launch)");
  cmd->add_option("--scale-d", o->scaleD,
                  "The value of GemmArgs::scaleD: the epilogue chain's scale step, or an 8-bit D's output scale")
      ->capture_default_str();
  cmd->add_option("--offset", o->offset,
                  "Move every operand's pointer by this many elements (e.g. 1: not 16-byte "
                  "aligned, so the operands take the staging path)")
      ->capture_default_str();
  cmd->add_option("--groups", o->groupsFile,
                  "Grouped GEMM: FILE lists the problems of one launch, one per line (`M` or `M "
                  "N K`; N and K default to --n/--k), each in buffers of its own; the spec is "
                  "compiled grouped (path tma+grouped)");
  cmd->add_option("--batch", o->batch,
                  "Strided batched GEMM: this many entries of M×N×K in one launch, each "
                  "operand's entries packed one after another")
      ->capture_default_str();
  cmd->add_flag("--verify", o->verify,
                "Compare with an fp32-accumulate reference GEMM and check every element "
                "was written");
  cmd->add_option("--tolerance", o->tolerance, "Relative Frobenius error allowed")
      ->capture_default_str();
  cmd->add_option("--iters", o->iters, "Timed launches (0: no timing)")
      ->check(countFrom(0))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed launches before timing")
      ->check(countFrom(0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "RNG seed for A and B (default: random, printed)");
  cmd->add_flag("--no-protocol-checks", o->noProtocolChecks,
                "Emit a declared barrier protocol even where the checks say it deadlocks or "
                "races (to watch it fail on the GPU, with --debug-hangs)");
  cmd->add_flag("--debug-hangs", o->debugHangs,
                "Bound every barrier wait in the kernel; a stuck wait reports role, barrier, "
                "slot and phase, then traps");
  cmd->add_option("--timeout", o->timeout,
                  "Watchdog seconds per launch (default 10 + 2MNK/1e12)");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--no-cache", o->noCache, "Bypass the kernel cache");
  cmd->add_option("--source", o->sourceFile,
                  "Run FILE, a hand-edited copy of `gemmgen emit` of a spec with the types and "
                  "layouts run, in place of the emitted kernel (the spec's launch contract)");
  cmd->callback([o] { runRun(*o); });
}

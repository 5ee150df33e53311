//===- BenchCommand.cpp - `gemmgen bench`: side by side with cuBLAS --------===//
//
//   gemmgen bench SPEC [--m M --n N --k K | --shapes 4096x4096x4096,...]
//                 [--dtype f16|bf16] [--rounds R] [--json FILE] [--csv FILE]
//
// DESIGN.md §10: cuBLAS (cublasGemmEx, CUBLAS_COMPUTE_32F, default algo;
// libcublas.so.13 is dlopen'ed, never linked) and the gemmgen kernel in one
// process on the same inputs: random normal data, several input sets
// rotated so that their total is several times the L2, both verified first
// (each against an fp32 reference and against each other), warm-up, then
// interleaved rounds (the order alternates each round) timed with CUDA
// events, median and spread (min, max, IQR). Headline: ratio = cuBLAS time
// ÷ gemmgen time (≥ 1.00: gemmgen at least as fast).
//
// D[M,N] = A[M,K]·B[N,K]^T row-major is, in cuBLAS's column-major terms,
// D^T (N×M, ld ldd) = op(B)·A with op = T on B (stored K×N col-major, ldb)
// and N on A (stored K×M col-major, lda): cublasGemmEx(T, N, N, M, K, ...).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "GpuCommon.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <dlfcn.h>
#include <library_types.h>
#include <nvrtc.h>

#include <cmath>
#include <ctime>
#include <memory>
#include <random>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {

//===----------------------------------------------------------------------===//
// cuBLAS, loaded at run time
//===----------------------------------------------------------------------===//

// cublas_api.h values (stable ABI): cublasOperation_t, cublasComputeType_t,
// cublasGemmAlgo_t.
constexpr int kCublasOpN = 0, kCublasOpT = 1;
constexpr int kCublasCompute32F = 68;
constexpr int kCublasGemmDefault = -1;

struct Cublas {
  void *handle = nullptr;
  int version = 0;
  std::string path;
  int (*create)(void **) = nullptr;
  int (*destroy)(void *) = nullptr;
  int (*setStream)(void *, CUstream) = nullptr;
  int (*getVersion)(void *, int *) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int) = nullptr;

  static Expected<std::unique_ptr<Cublas>> load() {
    std::vector<std::string> candidates;
    if (const char *e = getenv("GEMMGEN_CUBLAS"); e && *e)
      candidates.push_back(e);
    // Next to the NVRTC we were linked with (the toolkit's lib64).
    Dl_info info;
    std::string nvrtcDir;
    if (dladdr(reinterpret_cast<void *>(&nvrtcVersion), &info) && info.dli_fname)
      nvrtcDir = std::string(llvm::sys::path::parent_path(info.dli_fname));
    for (const char *name : {"libcublas.so.13", "libcublas.so.12"}) {
      if (!nvrtcDir.empty())
        candidates.push_back(nvrtcDir + "/" + name);
      candidates.push_back(name);
      candidates.push_back(std::string("/usr/local/cuda/lib64/") + name);
    }
    std::string tried;
    for (const std::string &c : candidates) {
      // libcublas needs libcublasLt of the same version: load it first from
      // the same directory so that the dependency resolves.
      std::string dir = std::string(llvm::sys::path::parent_path(c));
      std::string lt = c;
      size_t pos = lt.rfind("libcublas.so");
      if (pos != std::string::npos)
        lt.replace(pos, 12, "libcublasLt.so");
      dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL);
      void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        tried += (tried.empty() ? "" : ", ") + c;
        continue;
      }
      auto cb = std::make_unique<Cublas>();
      cb->path = c;
      cb->create = reinterpret_cast<decltype(cb->create)>(dlsym(lib, "cublasCreate_v2"));
      cb->destroy = reinterpret_cast<decltype(cb->destroy)>(dlsym(lib, "cublasDestroy_v2"));
      cb->setStream = reinterpret_cast<decltype(cb->setStream)>(dlsym(lib, "cublasSetStream_v2"));
      cb->getVersion = reinterpret_cast<decltype(cb->getVersion)>(dlsym(lib, "cublasGetVersion_v2"));
      cb->gemmEx = reinterpret_cast<decltype(cb->gemmEx)>(dlsym(lib, "cublasGemmEx"));
      if (!cb->create || !cb->destroy || !cb->setStream || !cb->gemmEx)
        return Status::error(ErrorCode::Unsupported, c + " lacks cublasCreate_v2/cublasGemmEx");
      if (int st = cb->create(&cb->handle))
        return Status::error(ErrorCode::CudaError,
                             "cublasCreate failed (status " + std::to_string(st) + ")");
      if (cb->getVersion)
        cb->getVersion(cb->handle, &cb->version);
      return cb;
    }
    return Status::error(ErrorCode::Unsupported,
                         "cuBLAS not found (tried " + tried +
                             "); set GEMMGEN_CUBLAS to the path of libcublas.so.13");
  }

  Status gemm(const GemmArgs &a, DType t, CUstream s) const {
    const float alpha = 1.f, beta = 0.f;
    const int type = t == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
    if (int st = setStream(handle, s))
      return Status::error(ErrorCode::CudaError, "cublasSetStream failed (" + std::to_string(st) + ")");
    int st = gemmEx(handle, kCublasOpT, kCublasOpN, (int)a.N, (int)a.M, (int)a.K, &alpha,
                    reinterpret_cast<const void *>(a.B), type, (int)(a.ldb ? a.ldb : a.K),
                    reinterpret_cast<const void *>(a.A), type, (int)(a.lda ? a.lda : a.K),
                    &beta, reinterpret_cast<void *>(a.D), type, (int)(a.ldd ? a.ldd : a.N),
                    kCublasCompute32F, kCublasGemmDefault);
    if (st)
      return Status::error(ErrorCode::CudaError, "cublasGemmEx failed (status " +
                                                     std::to_string(st) + ")");
    return Status::success();
  }

  ~Cublas() {
    if (handle && destroy)
      destroy(handle);
  }
};

//===----------------------------------------------------------------------===//
// The benchmark
//===----------------------------------------------------------------------===//

struct BenchOptions {
  std::string spec;
  long long m = 0, n = 0, k = 0;
  std::string shapes;
  std::string dtype;
  std::string jsonFile, csvFile;
  int rounds = 30;
  int warmup = 5;
  unsigned long long seed = 0;
  bool seedGiven = false;
};

struct Stats {
  double median = 0, min = 0, max = 0, p25 = 0, p75 = 0;
  static Stats of(const std::vector<double> &v) {
    Stats s;
    if (v.empty())
      return s;
    s.median = gpu::median(v);
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    s.p25 = gpu::percentile(v, 0.25);
    s.p75 = gpu::percentile(v, 0.75);
    return s;
  }
  llvm::json::Object json() const {
    return llvm::json::Object{
        {"median", median}, {"min", min}, {"max", max}, {"p25", p25}, {"p75", p75}};
  }
};

struct ShapeResult {
  long long M = 0, N = 0, K = 0;
  std::string error;
  Stats g, c;
  double ratio = 0;
  double errG = 0, errC = 0, errGC = 0;
  long long unwrittenG = 0, unwrittenC = 0;
  bool pass = false;
  int sets = 0, reps = 0, rounds = 0;
};

std::optional<std::vector<std::array<long long, 3>>> parseShapes(const std::string &s) {
  std::vector<std::array<long long, 3>> out;
  llvm::SmallVector<llvm::StringRef, 8> items;
  llvm::StringRef(s).split(items, ',', -1, false);
  for (llvm::StringRef item : items) {
    llvm::SmallVector<llvm::StringRef, 3> dims;
    item.trim().split(dims, 'x');
    if (dims.size() != 3)
      return std::nullopt;
    std::array<long long, 3> shape;
    for (int i = 0; i < 3; ++i)
      if (dims[i].trim().getAsInteger(10, shape[i]))
        return std::nullopt;
    out.push_back(shape);
  }
  return out;
}

Status benchShape(const Runtime &rt, const Kernel &kernel, const Cublas &cublas,
                  const GemmVerifier &ver, CUstream stream, const BenchOptions &o,
                  unsigned long long seed, ShapeResult &r) {
  using namespace gpu;
  const DType t = kernel.info().dtype;
  const long long M = r.M, N = r.N, K = r.K;
  GemmArgs probe{256, 256, 256, M, N, K, K, K, N};
  if (Status s = kernel.check(probe); !s)
    return s;
  const DeviceInfo &dev = rt.device();
  const double setBytes = 2.0 * (double)(M * K + N * K + 2 * M * N);
  const double target = std::max(4.0 * dev.l2Bytes, 200e6); // several times the L2
  int sets = (int)std::clamp(std::ceil(target / setBytes), 2.0, 16.0);
  while (sets > 1 && sets * setBytes + 4.0 * M * N > 0.6 * (double)dev.totalMemBytes)
    --sets;
  r.sets = sets;

  DeviceBuffers bufs(rt);
  std::vector<GemmArgs> g(sets), c(sets);
  for (int i = 0; i < sets; ++i) {
    Expected<CUdeviceptr> A = bufs.alloc(M * K * 2), B = bufs.alloc(N * K * 2),
                          Dg = bufs.alloc(M * N * 2), Dc = bufs.alloc(M * N * 2);
    for (auto *e : {&A, &B, &Dg, &Dc})
      if (!*e)
        return e->status();
    g[i] = GemmArgs{*A, *B, *Dg, M, N, K, K, K, N};
    c[i] = GemmArgs{*A, *B, *Dc, M, N, K, K, K, N};
    if (Status s = ver.fillNormal2D(*A, M, K, K, t, seed + 1000 * i + 1, stream); !s)
      return s;
    if (Status s = ver.fillNormal2D(*B, N, K, K, t, seed + 1000 * i + 2, stream); !s)
      return s;
  }
  Expected<CUdeviceptr> ref = bufs.alloc(M * N * 4);
  if (!ref)
    return ref.status();
  std::vector<PreparedLaunch> prep;
  for (int i = 0; i < sets; ++i) {
    Expected<PreparedLaunch> p = kernel.prepare(g[i]);
    if (!p)
      return p.status();
    prep.push_back(*p);
  }
  const double budget = watchdogSeconds(M, N, K);

  // Verify both on set 0 (outputs poisoned first).
  if (Status s = rt.fill16Async(g[0].D, GemmVerifier::kPoison, M * N, stream); !s)
    return s;
  if (Status s = rt.fill16Async(c[0].D, GemmVerifier::kPoison, M * N, stream); !s)
    return s;
  if (Status s = kernel.launch(prep[0], stream); !s)
    return s;
  if (Status s = rt.wait(stream, budget); !s)
    return s;
  if (Status s = cublas.gemm(c[0], t, stream); !s)
    return s;
  if (Status s = ver.reference(g[0], t, *ref, stream); !s)
    return s;
  Expected<GemmVerifier::Comparison> eg = ver.compare(g[0], t, *ref, false, stream);
  if (!eg)
    return eg.status();
  Expected<GemmVerifier::Comparison> ec = ver.compare(c[0], t, *ref, false, stream);
  if (!ec)
    return ec.status();
  Expected<GemmVerifier::Comparison> egc = ver.compare(g[0], t, c[0].D, true, stream);
  if (!egc)
    return egc.status();
  r.errG = eg->relFrobenius, r.errC = ec->relFrobenius, r.errGC = egc->relFrobenius;
  r.unwrittenG = eg->nonFinite, r.unwrittenC = ec->nonFinite;
  const double tol = GemmVerifier::kTolerance;
  r.pass = eg->nonFinite == 0 && ec->nonFinite == 0 && r.errG <= tol && r.errC <= tol &&
           r.errGC <= 2 * tol;

  // Warm-up (every set, both), and a per-launch estimate to size a sample.
  for (int w = 0; w < o.warmup; ++w)
    for (int i = 0; i < sets; ++i) {
      if (Status s = kernel.launch(prep[i], stream); !s)
        return s;
      if (Status s = cublas.gemm(c[i], t, stream); !s)
        return s;
    }
  if (Status s = rt.wait(stream, budget * 2 * o.warmup * sets + 10); !s)
    return s;
  double estimate;
  {
    Expected<Runtime::Timer> tm = rt.createTimer();
    if (!tm)
      return tm.status();
    (void)tm->start(stream);
    for (int i = 0; i < sets; ++i)
      if (Status s = kernel.launch(prep[i], stream); !s)
        return s;
    (void)tm->stop(stream);
    if (Status s = rt.wait(stream, budget * sets); !s)
      return s;
    Expected<float> ms = tm->elapsedMs();
    if (!ms)
      return ms.status();
    estimate = std::max(1e-3, (double)*ms / sets);
  }
  // A sample is `reps` back-to-back launches (≥ ~1 ms) so that tiny shapes
  // are not dominated by event resolution.
  const int reps = (int)std::clamp(std::ceil(1.0 / estimate), 1.0, 200.0);
  r.reps = reps;
  r.rounds = o.rounds;

  std::vector<Runtime::Timer> tg, tc;
  for (int i = 0; i < o.rounds; ++i) {
    Expected<Runtime::Timer> a = rt.createTimer(), b = rt.createTimer();
    if (!a)
      return a.status();
    if (!b)
      return b.status();
    tg.push_back(a.take());
    tc.push_back(b.take());
  }
  int ig = 0, ic = 0;
  for (int round = 0; round < o.rounds; ++round) {
    for (int which = 0; which < 2; ++which) {
      bool gemmgenNow = (which == 0) == (round % 2 == 0); // alternate who goes first
      Runtime::Timer &tm = gemmgenNow ? tg[round] : tc[round];
      if (Status s = tm.start(stream); !s)
        return s;
      for (int j = 0; j < reps; ++j) {
        Status s = gemmgenNow ? kernel.launch(prep[ig++ % sets], stream)
                              : cublas.gemm(c[ic++ % sets], t, stream);
        if (!s)
          return s;
      }
      if (Status s = tm.stop(stream); !s)
        return s;
    }
    if (round % 8 == 7) // keep the queue short; watchdog on each batch
      if (Status s = rt.wait(stream, budget * 16 * reps + 10); !s)
        return s;
  }
  if (Status s = rt.wait(stream, budget * 16 * reps + 10); !s)
    return s;
  std::vector<double> msG, msC;
  for (int i = 0; i < o.rounds; ++i) {
    Expected<float> a = tg[i].elapsedMs(), b = tc[i].elapsedMs();
    if (!a)
      return a.status();
    if (!b)
      return b.status();
    msG.push_back(*a / reps);
    msC.push_back(*b / reps);
  }
  r.g = Stats::of(msG);
  r.c = Stats::of(msC);
  r.ratio = r.g.median > 0 ? r.c.median / r.g.median : 0;
  return Status::success();
}

std::string isoDate() {
  char buf[64];
  time_t now = time(nullptr);
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  return buf;
}

void runBench(BenchOptions o) {
  using namespace gpu;
  std::optional<DType> dtype;
  if (!o.dtype.empty()) {
    dtype = parseDType(o.dtype);
    if (!dtype) {
      llvm::errs() << "gemmgen: error: --dtype must be f16 or bf16 (got '" << o.dtype << "')\n";
      setExitCode(ExitFailure);
      return;
    }
  }
  std::vector<std::array<long long, 3>> shapes;
  if (!o.shapes.empty()) {
    auto parsed = parseShapes(o.shapes);
    if (!parsed || parsed->empty()) {
      llvm::errs() << "gemmgen: error: --shapes wants MxNxK[,MxNxK...] (got '" << o.shapes
                   << "')\n";
      setExitCode(ExitFailure);
      return;
    }
    shapes = *parsed;
  }
  if (o.m || o.n || o.k)
    shapes.push_back({o.m ? o.m : 4096, o.n ? o.n : 4096, o.k ? o.k : 4096});
  if (shapes.empty())
    shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};

  std::string specPath = o.spec;
  if (o.spec == "tuned") {
    if (shapes.size() != 1) {
      llvm::errs() << "gemmgen: error: spec `tuned` picks one spec per shape: give one shape "
                      "(--m/--n/--k or a single --shapes entry)\n";
      setExitCode(ExitFailure);
      return;
    }
    specPath = resolveSpecArg(o.spec, shapes[0][0], shapes[0][1], shapes[0][2],
                              dtype && *dtype == DType::BF16 ? "bf16" : "f16");
  }
  std::optional<CompiledSpec> compiled =
      specPath.empty() ? std::nullopt : compileSpecForGpu(specPath, false, dtype);
  if (!compiled) {
    setExitCode(ExitSpecError);
    return;
  }
  Expected<Runtime> rt = Runtime::open();
  if (!rt)
    return fail(rt.status());
  Expected<Kernel> kernel = rt->loadKernel(compiled->source, compiled->abi);
  if (!kernel)
    return fail(kernel.status());
  Expected<std::unique_ptr<Cublas>> cublas = Cublas::load();
  if (!cublas)
    return fail(cublas.status());
  Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return fail(stream.status());
  std::shared_ptr<void> streamGuard(nullptr, [&](void *) { (void)rt->destroyStream(*stream); });
  Expected<GemmVerifier> ver = GemmVerifier::create(*rt);
  if (!ver)
    return fail(ver.status());
  const unsigned long long seed =
      o.seedGiven ? o.seed : ((unsigned long long)std::random_device{}() << 32) ^ std::random_device{}();

  const DeviceInfo &dev = rt->device();
  const KernelInfo &ki = kernel->info();
  const std::string commit = gitCommit(), date = isoDate();
  llvm::outs() << "gemmgen bench  " << o.spec << "  kernel " << ki.name << " (" << ki.target
               << ", " << toString(ki.dtype) << ")  commit " << commit << "  " << date << "\n"
               << "GPU " << dev.name << " (" << dev.archName() << ", " << dev.smCount
               << " SMs, max SM clock " << dev.smClockKHz / 1000 << " MHz, memory clock "
               << dev.memClockKHz / 1000 << " MHz, L2 " << dev.l2Bytes / (1 << 20)
               << " MiB), driver " << dev.driverVersion / 1000 << "."
               << dev.driverVersion % 1000 / 10 << ", NVRTC " << nvrtcVersionString()
               << ", cuBLAS " << (*cublas)->version << " (" << (*cublas)->path << ")\n"
               << "protocol: " << o.warmup << " warm-up passes, " << o.rounds
               << " interleaved rounds, CUDA events, rotating input sets; ratio = cuBLAS "
                  "time / gemmgen time (>= 1.00: gemmgen at least as fast)\n\n";
  llvm::outs() << llvm::formatv("{0,-20} {1,-5} {2,-24} {3,-24} {4,6}  {5}\n", "shape", "dtype",
                                "gemmgen ms (TFLOP/s)", "cuBLAS ms (TFLOP/s)", "ratio",
                                "rel.err g/c/g-c, spread (g IQR, c IQR)");
  llvm::outs().flush();

  std::vector<ShapeResult> results;
  bool allOk = true;
  for (auto &sh : shapes) {
    ShapeResult r;
    r.M = sh[0], r.N = sh[1], r.K = sh[2];
    Status s = benchShape(*rt, *kernel, **cublas, *ver, *stream, o, seed, r);
    std::string shape = llvm::formatv("{0}x{1}x{2}", r.M, r.N, r.K);
    if (!s) {
      if (s.code() == ErrorCode::Timeout)
        return fail(s);
      r.error = s.message();
      allOk = false;
      llvm::outs() << llvm::formatv("{0,-20} {1,-5} error: {2}\n", shape, toString(ki.dtype),
                                    r.error);
    } else {
      allOk &= r.pass;
      std::string gs = llvm::formatv("{0:f4} ({1:f1})", r.g.median, tflops(r.M, r.N, r.K, r.g.median));
      std::string cs = llvm::formatv("{0:f4} ({1:f1})", r.c.median, tflops(r.M, r.N, r.K, r.c.median));
      llvm::outs() << llvm::formatv(
          "{0,-20} {1,-5} {2,-24} {3,-24} {4,6:f3}  {5:e1}/{6:e1}/{7:e1}{8}, ({9:f4}-{10:f4}, "
          "{11:f4}-{12:f4})\n",
          shape, toString(ki.dtype), gs, cs, r.ratio, r.errG, r.errC, r.errGC,
          r.pass ? "" : " FAIL", r.g.p25, r.g.p75, r.c.p25, r.c.p75);
    }
    llvm::outs().flush();
    results.push_back(r);
  }

  if (!o.jsonFile.empty()) {
    llvm::json::Array rows;
    for (const ShapeResult &r : results) {
      llvm::json::Object row{{"M", r.M}, {"N", r.N}, {"K", r.K}, {"dtype", toString(ki.dtype)}};
      if (!r.error.empty()) {
        row["error"] = r.error;
      } else {
        row["gemmgen_ms"] = r.g.json();
        row["cublas_ms"] = r.c.json();
        row["gemmgen_tflops"] = tflops(r.M, r.N, r.K, r.g.median);
        row["cublas_tflops"] = tflops(r.M, r.N, r.K, r.c.median);
        row["ratio_cublas_over_gemmgen"] = r.ratio;
        row["rel_err_gemmgen_vs_ref"] = r.errG;
        row["rel_err_cublas_vs_ref"] = r.errC;
        row["rel_err_gemmgen_vs_cublas"] = r.errGC;
        row["verified"] = r.pass;
        row["input_sets"] = r.sets;
        row["launches_per_sample"] = r.reps;
        row["rounds"] = r.rounds;
      }
      rows.push_back(std::move(row));
    }
    llvm::json::Object doc{
        {"spec", o.spec},
        {"kernel", ki.name},
        {"target", ki.target},
        {"commit", commit},
        {"date", date},
        {"gpu", dev.name},
        {"arch", dev.archName()},
        {"sm_count", dev.smCount},
        {"sm_clock_max_khz", dev.smClockKHz},
        {"mem_clock_khz", dev.memClockKHz},
        {"driver_version", dev.driverVersion},
        {"nvrtc", nvrtcVersionString()},
        {"cublas_version", (*cublas)->version},
        {"protocol", llvm::json::Object{{"warmup", o.warmup},
                                        {"rounds", o.rounds},
                                        {"timing", "cuda events, median of rounds"},
                                        {"order", "interleaved, alternating"},
                                        {"inputs", "random normal, rotating sets > 4x L2"}}},
        {"results", std::move(rows)},
    };
    std::error_code ec;
    llvm::raw_fd_ostream f(o.jsonFile, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      llvm::errs() << "gemmgen: error: cannot write '" << o.jsonFile << "': " << ec.message() << "\n";
      setExitCode(ExitFailure);
      return;
    }
    f << llvm::formatv("{0:2}", llvm::json::Value(std::move(doc))) << "\n";
  }
  if (!o.csvFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream f(o.csvFile, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      llvm::errs() << "gemmgen: error: cannot write '" << o.csvFile << "': " << ec.message() << "\n";
      setExitCode(ExitFailure);
      return;
    }
    f << "spec,kernel,gpu,commit,date,M,N,K,dtype,gemmgen_ms_median,gemmgen_ms_min,"
         "gemmgen_ms_max,cublas_ms_median,cublas_ms_min,cublas_ms_max,gemmgen_tflops,"
         "cublas_tflops,ratio,rel_err_g,rel_err_c,rel_err_gc,verified,error\n";
    for (const ShapeResult &r : results)
      f << llvm::formatv("{0},{1},\"{2}\",{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},"
                         "{15},{16},{17},{18},{19},{20},{21},\"{22}\"\n",
                         o.spec, ki.name, dev.name, commit, date, r.M, r.N, r.K,
                         toString(ki.dtype), r.g.median, r.g.min, r.g.max, r.c.median, r.c.min,
                         r.c.max, tflops(r.M, r.N, r.K, r.g.median),
                         tflops(r.M, r.N, r.K, r.c.median), r.ratio, r.errG, r.errC, r.errGC,
                         r.pass ? 1 : 0, r.error);
  }
  if (!allOk)
    setExitCode(ExitFailure);
}

} // namespace

void cli::registerBenchCommand(CLI::App &app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App *cmd = app.add_subcommand(
      "bench", "Benchmark a spec side by side with cuBLAS on the same inputs (DESIGN.md §10)");
  cmd->add_option("spec", o->spec,
                  "Kernel spec (YAML), or `tuned`: the best spec known for the (single) shape "
                  "and --dtype (specs/tuned/defaults.yaml)")
      ->required();
  cmd->add_option("--m", o->m, "M of a single shape");
  cmd->add_option("--n", o->n, "N of a single shape");
  cmd->add_option("--k", o->k, "K of a single shape");
  cmd->add_option("--shapes", o->shapes,
                  "Comma-separated MxNxK list (default 4096x4096x4096,8192x8192x8192)");
  cmd->add_option("--dtype", o->dtype, "f16 or bf16: overrides the spec's a/b/d types");
  cmd->add_option("--rounds", o->rounds, "Timed interleaved rounds")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Warm-up passes over all input sets")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "RNG seed (default random)")
      ->each([o](const std::string &) { o->seedGiven = true; });
  cmd->add_option("--json", o->jsonFile, "Write results as JSON to FILE");
  cmd->add_option("--csv", o->csvFile, "Write results as CSV to FILE");
  cmd->callback([o] { runBench(*o); });
}

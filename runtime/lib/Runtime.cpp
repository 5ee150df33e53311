//===- Runtime.cpp - Device, primary context, modules, memory, watchdog ----===//
//
// gemmgen::Runtime: loads the driver (DriverLoader.cpp), retains device N's
// primary context, compiles and loads kernels (spec -> compiler library ->
// NVRTC -> cuModuleLoadData), and offers the few memory/stream/event helpers
// the tools and tests need. Runtime::wait is the watchdog.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

using namespace gemmgen;

#define GG_TRY_CU(call, what)                                                                    \
  do {                                                                                           \
    CUresult gg_r = (call);                                                                      \
    if (gg_r != CUDA_SUCCESS)                                                                    \
      return drv.fail(gg_r, what);                                                               \
  } while (0)

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

const char *gemmgen::targetArch(Target t) { return t == Target::SM100a ? "sm_100a" : "sm_90a"; }
int gemmgen::targetComputeCapability(Target t) { return t == Target::SM100a ? 100 : 90; }

std::string DeviceInfo::archName() const {
  return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
}

const char *gemmgen::toString(DType t) {
  switch (t) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::E4M3: return "e4m3";
  case DType::E5M2: return "e5m2";
  }
  return "?";
}

const char *gemmgen::toString(ErrorCode c) {
  switch (c) {
  case ErrorCode::Ok: return "ok";
  case ErrorCode::NoDriver: return "no driver";
  case ErrorCode::InvalidArgument: return "invalid argument";
  case ErrorCode::Unsupported: return "unsupported";
  case ErrorCode::SpecError: return "spec error";
  case ErrorCode::CompileError: return "compile error";
  case ErrorCode::CudaError: return "CUDA error";
  case ErrorCode::Timeout: return "timeout";
  case ErrorCode::Io: return "I/O error";
  case ErrorCode::VerificationFailed: return "verification failed";
  }
  return "unknown error";
}

Status gemmgen::checkTargetRunsOn(Target t, const DeviceInfo &dev) {
  int cc = dev.ccMajor * 10 + dev.ccMinor;
  if (cc == targetComputeCapability(t))
    return Status::success();
  if (t == Target::SM100a)
    return Status::error(ErrorCode::Unsupported,
                         "this kernel targets sm_100a (Blackwell); this GPU is " +
                             dev.archName() +
                             " — sm_100a code is compile-verified and simulated here, not run");
  return Status::error(ErrorCode::Unsupported,
                       "this kernel targets sm_90a (Hopper); this GPU is " + dev.archName() +
                           " — sm_90a code (wgmma, setmaxnreg) runs only on compute capability "
                           "9.0 GPUs (H100, H200)");
}

double gemmgen::watchdogSeconds(long long M, long long N, long long K) {
  double flops = 2.0 * (double)std::max(M, 0LL) * (double)std::max(N, 0LL) *
                 (double)std::max(K, 0LL);
  return 10.0 + flops / 1e12;
}

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

Runtime::Impl::~Impl() {
  if (drv && ctx && !timedOut.load())
    drv->cuDevicePrimaryCtxRelease(device);
}

Status Runtime::Impl::checkUsable() const {
  if (timedOut.load())
    return Status::error(ErrorCode::Timeout,
                         "the CUDA context is unusable after a watchdog timeout (a kernel is "
                         "still running); restart the process");
  return Status::success();
}

Expected<Runtime> Runtime::open(int ordinal) {
  Expected<const DriverApi *> loaded = loadDriver();
  if (!loaded)
    return loaded.status();
  const DriverApi &drv = **loaded;
  CUresult r = drv.cuInit(0);
  if (r != CUDA_SUCCESS)
    return Status::error(ErrorCode::NoDriver,
                         "no CUDA driver/GPU found (cuInit: " + drv.errorString(r) + ")");
  int count = 0;
  r = drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0)
    return Status::error(ErrorCode::NoDriver, "no CUDA driver/GPU found (no CUDA device)");
  if (ordinal < 0 || ordinal >= count)
    return Status::error(ErrorCode::InvalidArgument,
                         "device " + std::to_string(ordinal) + " does not exist (" +
                             std::to_string(count) + " device(s))");
  auto impl = std::make_shared<Impl>();
  impl->drv = &drv;
  GG_TRY_CU(drv.cuDeviceGet(&impl->device, ordinal), "cuDeviceGet");
  DeviceInfo &info = impl->info;
  info.ordinal = ordinal;
  char name[256] = {};
  GG_TRY_CU(drv.cuDeviceGetName(name, sizeof name, impl->device), "cuDeviceGetName");
  info.name = name;
  auto attr = [&](CUdevice_attribute a, int &out) {
    return drv.cuDeviceGetAttribute(&out, a, impl->device);
  };
  GG_TRY_CU(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.ccMajor), "cuDeviceGetAttribute");
  GG_TRY_CU(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.ccMinor), "cuDeviceGetAttribute");
  GG_TRY_CU(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info.smCount), "cuDeviceGetAttribute");
  GG_TRY_CU(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, info.maxSmemOptinBytes),
            "cuDeviceGetAttribute");
  (void)attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, info.smClockKHz);
  (void)attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, info.memClockKHz);
  (void)attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, info.l2Bytes);
  size_t mem = 0;
  if (drv.cuDeviceTotalMem(&mem, impl->device) == CUDA_SUCCESS)
    info.totalMemBytes = mem;
  info.driverVersion = drv.driverVersion;
  GG_TRY_CU(drv.cuDevicePrimaryCtxRetain(&impl->ctx, impl->device), "cuDevicePrimaryCtxRetain");
  GG_TRY_CU(drv.cuCtxSetCurrent(impl->ctx), "cuCtxSetCurrent");
  return Runtime(impl);
}

static Status emptyRuntime() { return emptyHandle("Runtime", "Runtime::open()"); }

/// One driver call in `rt`'s context after the checks every such call makes
/// (an empty handle; a context lost to a watchdog timeout). `call` gets the
/// driver table and returns its CUresult; `what` names it in the error.
template <class Call>
static Status callInContext(const std::shared_ptr<Runtime::Impl> &rt, const std::string &what,
                            Call &&call) {
  if (!rt)
    return emptyRuntime();
  if (Status s = rt->checkUsable(); !s)
    return s;
  const DriverApi &drv = *rt->drv;
  GG_CONTEXT_SCOPE(*rt);
  GG_TRY_CU(call(drv), what);
  return Status::success();
}

const DeviceInfo &Runtime::device() const {
  static const DeviceInfo none;
  return impl_ ? impl_->info : none;
}
bool Runtime::timedOut() const { return impl_ && impl_->timedOut.load(); }
std::string Runtime::errorString(CUresult r) const {
  return impl_ ? impl_->drv->errorString(r) : "CUresult " + std::to_string((int)r);
}

Status Runtime::makeCurrent() const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  GG_TRY_CU(drv.cuCtxSetCurrent(impl_->ctx), "cuCtxSetCurrent");
  return Status::success();
}

ContextScope::ContextScope(const Runtime::Impl &rt) : drv_(rt.drv) {
  CUcontext current = nullptr;
  if (drv_->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == rt.ctx)
    return;
  restore_ = current;
  result_ = drv_->cuCtxSetCurrent(rt.ctx);
  if (result_ != CUDA_SUCCESS)
    restore_ = nullptr;
}

ContextScope::~ContextScope() {
  if (restore_)
    drv_->cuCtxSetCurrent(restore_);
}

Status gemmgen::emptyHandle(const char *type, const char *howToFill) {
  return Status::error(ErrorCode::InvalidArgument,
                       std::string("this ") + type +
                           " is empty (default-constructed or moved from): assign it the "
                           "result of " + howToFill + " first");
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

Module::Impl::~Impl() {
  if (module && rt && !rt->timedOut.load()) {
    ContextScope scope(*rt);
    rt->drv->cuModuleUnload(module);
  }
}

Expected<CUfunction> Module::function(const std::string &name) const {
  if (!impl_)
    return emptyHandle("Module", "Runtime::loadModule");
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt);
  CUfunction f = nullptr;
  GG_TRY_CU(drv.cuModuleGetFunction(&f, impl_->module, name.c_str()),
            "cuModuleGetFunction(" + name + ")");
  return f;
}

static Expected<std::shared_ptr<Module::Impl>>
loadCubin(const std::shared_ptr<Runtime::Impl> &rt, const std::vector<char> &cubin) {
  const DriverApi &drv = *rt->drv;
  if (Status s = rt->checkUsable(); !s)
    return s;
  GG_CONTEXT_SCOPE(*rt);
  auto m = std::make_shared<Module::Impl>();
  m->rt = rt;
  GG_TRY_CU(drv.cuModuleLoadData(&m->module, cubin.data()), "cuModuleLoadData");
  return m;
}

/// compileCudaSource + loadCubin; a cached cubin the driver refuses is
/// compiled afresh (and the entry overwritten) instead of failing.
static Expected<std::shared_ptr<Module::Impl>>
compileAndLoad(const std::shared_ptr<Runtime::Impl> &rt, const std::string &source,
               const std::string &name, const std::string &arch, const std::string &entry,
               const CompileOptions &options, CubinResult &cubinOut) {
  Expected<CubinResult> cubin = compileCudaSource(source, name, arch, entry, options);
  if (!cubin)
    return cubin.status();
  auto m = loadCubin(rt, cubin->cubin);
  if (!m && cubin->fromCache && rt->checkUsable().ok()) {
    CompileOptions fresh = options;
    fresh.refreshCache = true;
    cubin = compileCudaSource(source, name, arch, entry, fresh);
    if (!cubin)
      return cubin.status();
    m = loadCubin(rt, cubin->cubin);
  }
  if (m)
    cubinOut = cubin.take();
  return m;
}

Expected<std::shared_ptr<Module::Impl>>
gemmgen::compileAndLoadModule(const std::shared_ptr<Runtime::Impl> &rt, const std::string &source,
                              const std::string &name, const CompileOptions &options) {
  CubinResult cubin;
  return compileAndLoad(rt, source, name, rt->info.archName(), "", options, cubin);
}

Expected<Module> Runtime::loadModule(const std::string &source, const std::string &name,
                                     const CompileOptions &options) const {
  if (!impl_)
    return emptyRuntime();
  CubinResult cubin;
  auto m = compileAndLoad(impl_, source, name, impl_->info.archName(), "", options, cubin);
  if (!m)
    return m.status();
  return Module(*m);
}

/// The entry point's name reaches NVRTC, the driver and the ptxas report:
/// a C identifier of bounded length (a 100,000-character name overflows a
/// buffer inside NVRTC).
static Status checkKernelName(const std::string &name) {
  constexpr size_t kMaxName = 1024;
  if (name.size() > kMaxName)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel name '" + name.substr(0, 32) + "...' has " +
                             std::to_string(name.size()) + " characters; at most " +
                             std::to_string(kMaxName) + " are allowed");
  bool ident = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name)
    ident = ident && (std::isalnum((unsigned char)c) || c == '_');
  if (!ident)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel name '" + name + "' is not a C identifier (letters, digits "
                         "and '_', not starting with a digit)");
  return Status::success();
}

Expected<Kernel> Runtime::loadKernel(const std::string &source, const KernelABI &abi,
                                     const CompileOptions &options) const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  if (Status s = checkTargetRunsOn(abi.target, impl_->info); !s)
    return s;
  const bool fp8 = isFp8(abi.aType) && isFp8(abi.bType);
  if (!fp8 && (abi.aType != abi.bType || abi.aType == ScalarType::F32 || isFp8(abi.aType) ||
               (abi.dType != abi.aType && abi.dType != ScalarType::F32)))
    return Status::error(ErrorCode::Unsupported,
                         std::string("the runtime launches kernels whose A and B share one "
                                     "16-bit type (f16 or bf16) and whose D has that type or "
                                     "f32, or fp8 A and B (e4m3, e5m2) with a bf16, f16, f32, "
                                     "e4m3 or e5m2 D; this one has a: ") +
                             toString(abi.aType) + ", b: " + toString(abi.bType) +
                             ", d: " + toString(abi.dType));
  if (abi.clusterN != 1)
    return Status::error(ErrorCode::Unsupported,
                         "cluster.n = " + std::to_string(abi.clusterN) +
                             ": the runtime launches clusters along M only (cluster.n = 1)");
  if (Status s = checkKernelName(abi.kernelName); !s)
    return s;
  if (abi.threadsPerBlock == 0 || abi.tileM == 0 || abi.tileN == 0 || abi.unitRows == 0 ||
      abi.unitCols == 0 || abi.ctasPerUnit == 0)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel ABI of '" + abi.kernelName +
                             "' is incomplete (threads, tile or schedule unit is 0); take it "
                             "from deriveKernelABI()");
  if (Status s = checkSharedMemoryFits(abi, impl_->info); !s)
    return s;

  CubinResult compiled;
  auto m = compileAndLoad(impl_, source, abi.kernelName + ".cu", targetArch(abi.target),
                          abi.kernelName, options, compiled);
  const CubinResult *cubin = &compiled;
  if (!m)
    return m.status();

  auto k = std::make_shared<Kernel::Impl>();
  k->rt = impl_;
  k->module = *m;
  k->abi = abi;
  k->source = source;
  k->options = options;
  GG_TRY_CU(drv.cuModuleGetFunction(&k->fn, k->module->module, abi.kernelName.c_str()),
            "cuModuleGetFunction(" + abi.kernelName + ")");
  GG_TRY_CU(drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   (int)abi.sharedMemBytes),
            "cuFuncSetAttribute(max dynamic shared memory = " +
                std::to_string(abi.sharedMemBytes) + ")");
  unsigned cluster = abi.clusterM * abi.clusterN;
  if (cluster > 8)
    GG_TRY_CU(drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              "cuFuncSetAttribute(non-portable cluster size)");
  // How many clusters can be resident at once (bounds the persistent grid).
  {
    CUlaunchConfig cfg = {};
    CUlaunchAttribute attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = abi.clusterM;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    cfg.gridDimX = abi.clusterM * (unsigned)impl_->info.smCount;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = abi.threadsPerBlock;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = abi.sharedMemBytes;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (drv.cuOccupancyMaxActiveClusters(&n, k->fn, &cfg) == CUDA_SUCCESS)
      k->maxActiveClusters = n;
    if (k->maxActiveClusters == 0) {
      // Not even one cluster fits: say so now rather than at launch.
      return Status::error(ErrorCode::InvalidArgument,
                           "kernel '" + abi.kernelName + "' cannot be resident on this GPU (" +
                               std::to_string(abi.threadsPerBlock) + " threads, " +
                               std::to_string(abi.sharedMemBytes) + " bytes shared memory, " +
                               std::to_string(cubin->usage.registers) +
                               " registers/thread, cluster " + std::to_string(abi.clusterM) +
                               ")");
    }
  }
  KernelInfo &info = k->info;
  info.name = abi.kernelName;
  info.target = targetArch(abi.target);
  info.dtype = toDType(abi.aType);
  info.dtypeB = toDType(abi.bType);
  info.outType = toDType(abi.dType);
  info.splitK = abi.splitK;
  if (abi.splitK > 1) // the kernel's D is f32; the reduction writes the spec's type
    info.outType = toDType(abi.splitOut);
  info.threads = abi.threadsPerBlock;
  info.smemBytes = abi.sharedMemBytes;
  info.clusterM = abi.clusterM;
  info.clusterN = abi.clusterN;
  info.tileM = abi.tileM;
  info.tileN = abi.tileN;
  info.tileK = abi.tileK;
  info.persistent = abi.persistent;
  info.kAlignment = abi.kAlignment;
  info.ldAlignment = abi.ldAlignment;
  info.layoutA = toLayout(abi.layoutA);
  info.layoutB = toLayout(abi.layoutB);
  info.layoutD = toLayout(abi.layoutD);
  info.batched = abi.batched;
  info.alphaBeta = abi.alphaBeta;
  info.perTensorScales = abi.perTensorScales;
  info.fp8Output = abi.fp8Output;
  info.streamK = abi.streamK;
  info.blockwiseScales = abi.blockwiseScales;
  info.grouped = abi.grouped;
  info.epilogue = epilogueInfo(abi.epilogueChain);
  info.usage = cubin->usage;
  info.fromCache = cubin->fromCache;
  info.compileSeconds = cubin->compileSeconds;
  return Kernel(k);
}

static EmitOptions emitOptionsFor(const CompileOptions &options) {
  EmitOptions emit;
  emit.debugHangs = options.debugHangs;
  if (options.spec.layoutA)
    emit.layoutA = toMatrixLayout(*options.spec.layoutA);
  if (options.spec.layoutB)
    emit.layoutB = toMatrixLayout(*options.spec.layoutB);
  emit.grouped = options.spec.grouped;
  return emit;
}

static Expected<Kernel> loadCompiled(const Runtime &rt, std::optional<CompiledSpec> compiled,
                                     const std::string &diagText, const std::string &name,
                                     const CompileOptions &options) {
  if (!compiled)
    return Status::error(ErrorCode::SpecError,
                         "spec '" + name + "' has errors:\n" + diagText);
  return rt.loadKernel(compiled->source, compiled->abi, options);
}

Expected<Kernel> Runtime::compileFile(const std::string &specPath,
                                      const CompileOptions &options) const {
  if (!impl_)
    return emptyRuntime();
  std::string diagText;
  llvm::raw_string_ostream os(diagText);
  DiagnosticEngine diags(&os);
  EmitOptions emit = emitOptionsFor(options);
  std::optional<CompiledSpec> c = compileSpecFile(specPath, emit, diags);
  os.flush();
  return loadCompiled(*this, std::move(c), diagText, specPath, options);
}

Expected<Kernel> Runtime::compileString(const std::string &yaml, const std::string &name,
                                        const CompileOptions &options) const {
  if (!impl_)
    return emptyRuntime();
  std::string diagText;
  llvm::raw_string_ostream os(diagText);
  DiagnosticEngine diags(&os);
  EmitOptions emit = emitOptionsFor(options);
  std::optional<CompiledSpec> c = compileSpecText(yaml, name, emit, diags);
  os.flush();
  return loadCompiled(*this, std::move(c), diagText, name, options);
}

Status Runtime::launchRaw(CUfunction f, unsigned gridX, unsigned gridY, unsigned blockX,
                          unsigned smemBytes, CUstream stream, void **params) const {
  return callInContext(impl_, "cuLaunchKernel", [&](const DriverApi &drv) {
    return drv.cuLaunchKernel(f, gridX, gridY, 1, blockX, 1, 1, smemBytes, stream, params,
                              nullptr);
  });
}

//===----------------------------------------------------------------------===//
// Memory, streams
//===----------------------------------------------------------------------===//

Expected<CUdeviceptr> Runtime::alloc(std::size_t bytes) const {
  CUdeviceptr p = 0;
  if (Status s = callInContext(impl_, "cuMemAlloc(" + std::to_string(bytes) + " bytes)",
                               [&](const DriverApi &drv) { return drv.cuMemAlloc(&p, bytes); });
      !s)
    return s;
  return p;
}

Status Runtime::free(CUdeviceptr p) const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  if (!p || impl_->timedOut.load())
    return Status::success();
  GG_CONTEXT_SCOPE(*impl_);
  GG_TRY_CU(drv.cuMemFree(p), "cuMemFree");
  return Status::success();
}

Status Runtime::copyToDevice(CUdeviceptr dst, const void *src, std::size_t bytes) const {
  return callInContext(impl_, "cuMemcpyHtoD",
                       [&](const DriverApi &drv) { return drv.cuMemcpyHtoD(dst, src, bytes); });
}

Status Runtime::copyToHost(void *dst, CUdeviceptr src, std::size_t bytes) const {
  return callInContext(impl_, "cuMemcpyDtoH",
                       [&](const DriverApi &drv) { return drv.cuMemcpyDtoH(dst, src, bytes); });
}

Status Runtime::fill16Async(CUdeviceptr dst, std::uint16_t value, std::size_t count,
                            CUstream s) const {
  return callInContext(impl_, "cuMemsetD16Async", [&](const DriverApi &drv) {
    return drv.cuMemsetD16Async(dst, value, count, s);
  });
}

Status Runtime::fill8Async(CUdeviceptr dst, std::uint8_t value, std::size_t count,
                           CUstream s) const {
  return callInContext(impl_, "cuMemsetD8Async", [&](const DriverApi &drv) {
    return drv.cuMemsetD8Async(dst, value, count, s);
  });
}

Expected<CUstream> Runtime::createStream() const {
  CUstream s = nullptr;
  if (Status st = callInContext(impl_, "cuStreamCreate",
                                [&](const DriverApi &drv) {
                                  return drv.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
                                });
      !st)
    return st;
  return s;
}

Status Runtime::destroyStream(CUstream s) const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  if (!s || impl_->timedOut.load())
    return Status::success();
  GG_CONTEXT_SCOPE(*impl_);
  GG_TRY_CU(drv.cuStreamDestroy(s), "cuStreamDestroy");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The watchdog
//===----------------------------------------------------------------------===//

Status Runtime::wait(CUstream stream, double timeoutSeconds) const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  if (Status st = impl_->checkUsable(); !st)
    return st;
  GG_CONTEXT_SCOPE(*impl_);
  auto start = std::chrono::steady_clock::now();
  auto sleep = std::chrono::microseconds(20);
  for (;;) {
    CUresult r = drv.cuStreamQuery(stream);
    if (r == CUDA_SUCCESS)
      return Status::success();
    if (r != CUDA_ERROR_NOT_READY) {
      std::string hint;
      if (r == CUDA_ERROR_LAUNCH_FAILED || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
          r == CUDA_ERROR_ASSERT)
        hint = " (a kernel trapped; with --debug-hangs a bounded barrier wait prints role, "
               "barrier, slot and phase before trapping)";
      return Status::error(ErrorCode::CudaError,
                           "kernel failed: " + drv.errorString(r) + hint);
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > timeoutSeconds) {
      impl_->timedOut.store(true);
      char secs[32];
      snprintf(secs, sizeof secs, "%.0f", std::ceil(timeoutSeconds));
      return Status::error(ErrorCode::Timeout,
                           std::string("kernel did not finish within ") + secs +
                               " s: likely a barrier deadlock; rerun with --debug-hangs");
    }
    std::this_thread::sleep_for(sleep);
    if (sleep < std::chrono::milliseconds(2))
      sleep *= 2;
  }
}

//===----------------------------------------------------------------------===//
// Timers
//===----------------------------------------------------------------------===//

struct Runtime::Timer::Impl {
  std::shared_ptr<Runtime::Impl> rt;
  CUevent start = nullptr, stop = nullptr;
};

Expected<Runtime::Timer> Runtime::createTimer() const {
  if (!impl_)
    return emptyRuntime();
  const DriverApi &drv = *impl_->drv;
  if (Status st = impl_->checkUsable(); !st)
    return st;
  GG_CONTEXT_SCOPE(*impl_);
  auto *t = new Timer::Impl();
  t->rt = impl_;
  CUresult r1 = drv.cuEventCreate(&t->start, CU_EVENT_DEFAULT);
  CUresult r2 = drv.cuEventCreate(&t->stop, CU_EVENT_DEFAULT);
  Timer timer(t); // destroys what was created on failure
  GG_TRY_CU(r1, "cuEventCreate");
  GG_TRY_CU(r2, "cuEventCreate");
  return timer;
}

Runtime::Timer::Timer(Timer &&o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }

Runtime::Timer::~Timer() {
  if (!impl_)
    return;
  if (!impl_->rt->timedOut.load()) {
    ContextScope scope(*impl_->rt);
    if (impl_->start)
      impl_->rt->drv->cuEventDestroy(impl_->start);
    if (impl_->stop)
      impl_->rt->drv->cuEventDestroy(impl_->stop);
  }
  delete impl_;
}

static Status emptyTimer() { return emptyHandle("Timer", "Runtime::createTimer()"); }

Status Runtime::Timer::start(CUstream s) {
  if (!impl_)
    return emptyTimer();
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt);
  GG_TRY_CU(drv.cuEventRecord(impl_->start, s), "cuEventRecord");
  return Status::success();
}

Status Runtime::Timer::stop(CUstream s) {
  if (!impl_)
    return emptyTimer();
  const DriverApi &drv = *impl_->rt->drv;
  GG_CONTEXT_SCOPE(*impl_->rt);
  GG_TRY_CU(drv.cuEventRecord(impl_->stop, s), "cuEventRecord");
  return Status::success();
}

Expected<float> Runtime::Timer::elapsedMs() const {
  if (!impl_)
    return emptyTimer();
  const DriverApi &drv = *impl_->rt->drv;
  if (Status st = impl_->rt->checkUsable(); !st)
    return st;
  GG_CONTEXT_SCOPE(*impl_->rt);
  GG_TRY_CU(drv.cuEventSynchronize(impl_->stop), "cuEventSynchronize");
  float ms = 0;
  GG_TRY_CU(drv.cuEventElapsedTime(&ms, impl_->start, impl_->stop), "cuEventElapsedTime");
  return ms;
}

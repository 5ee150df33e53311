//===- FakeCuda.cpp - A stand-in libcuda for CPU tests of the launch path -===//
//
// Loaded by the runtime through GEMMGEN_LIBCUDA (tests/fake/FakeDriverTest.cpp).
// It serves every entry point gemmgen resolves through cuGetProcAddress_v2,
// models the one thing the real driver does that these tests need — a
// per-thread current context: every call that needs one fails with
// CUDA_ERROR_INVALID_CONTEXT unless the device's primary context is current
// on the calling thread, as cuTensorMapEncodeTiled did on the H200 — and
// logs tensor-map encodes and launches so tests can check what the runtime
// asked for. Nothing runs: memory is fake addresses, streams are always done.
//
// For the multi-GPU tune test (tests/cli/tune_gpus.sh) the environment
// shapes the host: GEMMGEN_FAKE_CUDA_DEVICES (device count, default 1),
// GEMMGEN_FAKE_CUDA_NAMES (comma-separated names by ordinal, default "Fake
// H200" for all), GEMMGEN_FAKE_CUDA_SLOW_MS (opening device d sleeps
// (count - d) times this long: lower ordinals finish later, so a child's
// completion order differs from the order the parent started them in).
// For the CLI's `auto` (tests/cli/run_auto_gpu.sh): GEMMGEN_FAKE_CUDA_L2_MIB
// (the L2 each device reports, default 60: the H200's),
// GEMMGEN_FAKE_CUDA_SMS (its multiprocessors, default 132) and
// GEMMGEN_FAKE_CUDA_RETAIN_LOG (a file each primary-context retain appends a
// line to: how often a command opened the GPU).
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include "gemmgen/device/epilogue_ops.cuh"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <deque>
#include <map>
#include <set>
#include <mutex>
#include <string>

namespace {
int primaryCtxObject;
const CUcontext kPrimary = reinterpret_cast<CUcontext>(&primaryCtxObject);
std::mutex mu;
// The calling thread's current context. Static TLS (initial-exec), not the
// dynamic TLS a dlopened library gets by default: LeakSanitizer's scan of a
// dlopened library's dynamic TLS crashed at exit on this machine (a bogus
// DTLS range, "Tracer caught signal 11") in the sanitizer build's CLI tests.
__attribute__((tls_model("initial-exec"))) thread_local CUcontext current = nullptr;
CUcontext currentContext() { return current; }
void setCurrentContext(CUcontext c) { current = c; }
std::string eventLog;
// Set by cuMemcpyHtoDAsync (the runtime's copy of a grouped launch's table),
// taken by the next launch: it has the grouped kernel ABI.
std::atomic<bool> tableCopied{false};
unsigned long long nextAddress = 0x10000000;

// Handles point into these (stable addresses, freed at exit, no leaks).
std::set<std::string> functionNames;
std::deque<int> handleObjects;
template <typename T> T newHandle() {
  std::lock_guard<std::mutex> lock(mu);
  handleObjects.push_back(0);
  return reinterpret_cast<T>(&handleObjects.back());
}

// printf into the end of `out` (whatever the length: a log line is built by
// appending fields, so no buffer size bounds it).
__attribute__((format(printf, 2, 3))) void appendf(std::string &out, const char *fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + (std::size_t)n + 1);
    std::vsnprintf(&out[at], (std::size_t)n + 1, fmt, again);
    out.resize(at + (std::size_t)n);
  }
  va_end(again);
}
void logLine(const std::string &line) {
  std::lock_guard<std::mutex> lock(mu);
  eventLog += line + "\n";
}
CUresult needContext() { return currentContext() == kPrimary ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }
const char *nameOf(CUfunction f) { return reinterpret_cast<const std::string *>(f)->c_str(); }

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
} // namespace

namespace fake {
CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { *v = CUDA_VERSION; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_ERROR_INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == CUDA_ERROR_INVALID_CONTEXT ? "invalid device context" : "fake error";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) { *n = envInt("GEMMGEN_FAKE_CUDA_DEVICES", 1); return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int o) { *d = o; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  std::string names = std::getenv("GEMMGEN_FAKE_CUDA_NAMES") ? std::getenv("GEMMGEN_FAKE_CUDA_NAMES") : "";
  std::string n = "Fake H200";
  for (int i = 0, start = 0; start <= (int)names.size() && !names.empty(); ++i) {
    size_t end = names.find(',', start);
    if (end == std::string::npos)
      end = names.size();
    if (i == d)
      n = names.substr(start, end - start);
    start = (int)end + 1;
  }
  std::snprintf(name, (size_t)len, "%s", n.c_str());
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = envInt("GEMMGEN_FAKE_CUDA_SMS", 132);
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = envInt("GEMMGEN_FAKE_CUDA_L2_MIB", 60) << 20; break;
  default: *v = 1; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *b, CUdevice) { *b = 141ull << 30; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  if (int ms = envInt("GEMMGEN_FAKE_CUDA_SLOW_MS", 0); ms > 0)
    std::this_thread::sleep_for(
        std::chrono::milliseconds(ms * (envInt("GEMMGEN_FAKE_CUDA_DEVICES", 1) - d)));
  if (const char *path = std::getenv("GEMMGEN_FAKE_CUDA_RETAIN_LOG"))
    if (FILE *f = std::fopen(path, "a")) {
      std::fprintf(f, "retain %d\n", (int)d);
      std::fclose(f);
    }
  *c = kPrimary;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { setCurrentContext(c); return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = currentContext(); return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return needContext(); }
CUresult cuModuleLoadData(CUmodule *m, const void *) {
  *m = newHandle<CUmodule>();
  return needContext();
}
CUresult cuModuleUnload(CUmodule) { return needContext(); }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule, const char *name) {
  std::lock_guard<std::mutex> lock(mu);
  *f = reinterpret_cast<CUfunction>(const_cast<std::string *>(&*functionNames.insert(name).first));
  return needContext();
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return needContext(); }
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute, CUfunction) { *v = 0; return needContext(); }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned, unsigned, unsigned,
                        unsigned, unsigned, CUstream, void **p, void **) {
  if (CUresult r = needContext(); r != CUDA_SUCCESS)
    return r;
  std::string line;
  // The tail kernel and the narrow ones (gg_narrow_*) take the same parameters.
  const std::string name = nameOf(f);
  if (name == "gg_tail_columns" || name.rfind("gg_narrow_", 0) == 0) {
    appendf(line, "launch %s grid=%u M=%d K=%d a=%lld,%lld b=%lld,%lld ldd=%lld n0=%d cols=%d",
            name.c_str(), gx, *(int *)p[3], *(int *)p[4], *(long long *)p[5], *(long long *)p[6],
            *(long long *)p[7], *(long long *)p[8], *(long long *)p[9], *(int *)p[11],
            *(int *)p[12]);
    // D's column stride where it is not 1 (the narrow path writing D^T).
    if (*(long long *)p[10] != 1)
      appendf(line, " d_cs=%lld", *(long long *)p[10]);
    // Batched: the entries (grid y) and the three batch strides.
    if (*(int *)p[14] > 1)
      appendf(line, " batch=%d grid_y=%u strides=%lld,%lld,%lld", *(int *)p[14], gy,
              *(long long *)p[15], *(long long *)p[16], *(long long *)p[17]);
    // alpha, beta, then C, ldc and C's column stride (C read only when beta != 0).
    if (*(float *)p[18] != 1.0f || *(float *)p[19] != 0.0f)
      appendf(line, " alpha=%g beta=%g c=0x%llx ldc=%lld", *(float *)p[18], *(float *)p[19],
              *(unsigned long long *)p[20], *(long long *)p[21]);
    if (*(long long *)p[22] != 1)
      appendf(line, " c_cs=%lld", *(long long *)p[22]);
    // An f32 D.
    if (*(int *)p[24])
      appendf(line, " out=f32");
    // The epilogue chain's op codes (epilogue_ops.cuh) and its bias vector.
    const auto &chain = *(const gemmgen::epilogue::Chain *)p[25];
    for (int s = 0; s < chain.steps; ++s)
      appendf(line, "%s%d", s ? "," : " chain=", chain.op[s]);
    if (chain.bias)
      appendf(line, " bias=%p", chain.bias);
  } else if (name == "gg_transpose2d") {
    // The stored lines x length, their pitch, the copy's pitch, element bytes.
    appendf(line, "launch gg_transpose2d grid=%u lines=%lld length=%lld sl=%lld dl=%lld elem=%d",
            gx, *(long long *)p[4], *(long long *)p[5], *(long long *)p[1], *(long long *)p[3],
            *(int *)p[9]);
    if (*(long long *)p[6] > 1)
      appendf(line, " batch=%lld strides=%lld,%lld", *(long long *)p[6], *(long long *)p[7],
              *(long long *)p[8]);
  } else
    appendf(line, "launch %s grid=%u", nameOf(f), gx);
  logLine(line);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **p, void **) {
  if (CUresult r = needContext(); r != CUDA_SUCCESS)
    return r;
  std::string line;
  // A grouped kernel takes the problems' table, its count, the walk's
  // slots, alpha and beta; the runtime copies the table just before it.
  if (tableCopied.exchange(false)) {
    appendf(line, "launchEx %s grid=%u problems=%d slots=%d alpha=%g beta=%g", nameOf(f),
            cfg->gridDimX, *(int *)p[1], *(int *)p[2], *(float *)p[3], *(float *)p[4]);
    logLine(line);
    return CUDA_SUCCESS;
  }
  // The runtime's helper kernels (split-K's reduction): the name, the grid
  // and whether it is a programmatic dependent of the kernel before it.
  if (std::string(nameOf(f)).rfind("gg_", 0) == 0) {
    bool pdl = false;
    for (unsigned i = 0; i < cfg->numAttrs; ++i)
      pdl |= cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
             cfg->attrs[i].value.programmaticStreamSerializationAllowed != 0;
    appendf(line, "launchEx %s grid=%u%s", nameOf(f), cfg->gridDimX, pdl ? " programmatic" : "");
    logLine(line);
    return CUDA_SUCCESS;
  }
  // Every other kernel the fake H200 runs is sm_90a, whose ABI has `batch`
  // after K, then tmC, alpha and beta (logged when they are not 1 and 0).
  appendf(line, "launchEx %s grid=%u M=%d N=%d K=%d batch=%d", nameOf(f), cfg->gridDimX,
          *(int *)p[3], *(int *)p[4], *(int *)p[5], *(int *)p[6]);
  const float alpha = *(float *)p[8], beta = *(float *)p[9];
  if (alpha != 1.0f || beta != 0.0f)
    appendf(line, " alpha=%g beta=%g", alpha, beta);
  logLine(line);
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction, const CUlaunchConfig *) {
  *n = 66;
  return needContext();
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *, CUtensorMapDataType, cuuint32_t rank, void *,
                                const cuuint64_t *dims, const cuuint64_t *strides,
                                const cuuint32_t *box, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion l2,
                                CUtensorMapFloatOOBfill) {
  if (CUresult r = needContext(); r != CUDA_SUCCESS)
    return r;
  if (rank < 2 || rank > 3 || (rank == 3 && box[2] != 1))
    return CUDA_ERROR_INVALID_VALUE;
  // A rank-3 map (batched kernels) logs its batch dimension when it has
  // more than one entry; one entry reads as the 2-D map it stands for.
  std::string line;
  appendf(line, "encode rows=%llu cols=%llu stride=%llu", (unsigned long long)dims[1],
          (unsigned long long)dims[0], (unsigned long long)strides[0]);
  if (rank == 3 && dims[2] > 1)
    appendf(line, " batch=%llu bstride=%llu", (unsigned long long)dims[2],
            (unsigned long long)strides[1]);
  // The L2 promotion only where it is not what rows of this stride get by
  // default (256 B on 128-byte lines, else 128 B): a kernel's own.
  const CUtensorMapL2promotion byRows = strides[0] % 128 == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                                              : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  if (l2 != byRows)
    appendf(line, " l2=%s",
            l2 == CU_TENSOR_MAP_L2_PROMOTION_NONE      ? "none"
            : l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_64B  ? "64"
            : l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_128B ? "128"
                                                       : "256");
  logLine(line);
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  if (CUresult r = needContext(); r != CUDA_SUCCESS)
    return r;
  std::lock_guard<std::mutex> lock(mu);
  *p = nextAddress;
  nextAddress += (bytes + 4095) / 4096 * 4096 + 4096;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr) { return needContext(); }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream) {
  if (CUresult r = cuMemAlloc(p, bytes); r != CUDA_SUCCESS)
    return r;
  std::string line;
  appendf(line, "allocAsync bytes=%zu", bytes);
  logLine(line);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr, CUstream) {
  logLine("freeAsync");
  return needContext();
}
CUresult cuMemcpyHtoD(CUdeviceptr, const void *, size_t) { return needContext(); }
CUresult cuMemcpyHtoDAsync(CUdeviceptr, const void *, size_t n, CUstream) {
  tableCopied = true;
  std::string line;
  appendf(line, "copyHtoDAsync bytes=%zu", n);
  logLine(line);
  return needContext();
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr, size_t n) {
  std::memset(dst, 0, n);
  return needContext();
}
CUresult cuMemsetD8Async(CUdeviceptr, unsigned char, size_t, CUstream) { return needContext(); }
CUresult cuMemsetD16Async(CUdeviceptr, unsigned short, size_t, CUstream) { return needContext(); }
// Logged: the runtime's one use in a launch is zeroing an 8-bit D's amax.
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream) {
  if (CUresult r = needContext(); r != CUDA_SUCCESS)
    return r;
  std::string line;
  appendf(line, "memsetD32 0x%llx value=%u count=%zu", (unsigned long long)p, v, n);
  logLine(line);
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *s, unsigned) {
  *s = newHandle<CUstream>();
  return needContext();
}
CUresult cuStreamDestroy(CUstream) { return needContext(); }
CUresult cuStreamQuery(CUstream) { return needContext(); }
CUresult cuStreamSynchronize(CUstream) { return needContext(); }
CUresult cuEventCreate(CUevent *e, unsigned) {
  *e = newHandle<CUevent>();
  return needContext();
}
CUresult cuEventDestroy(CUevent) { return needContext(); }
CUresult cuEventRecord(CUevent, CUstream) { return needContext(); }
CUresult cuEventQuery(CUevent) { return needContext(); }
CUresult cuEventSynchronize(CUevent) { return needContext(); }
CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) { *ms = 1; return needContext(); }
} // namespace fake

// The static_casts check each fake's signature against cuda.h's declaration.
#define FAKE_ENTRY(name) {#name, reinterpret_cast<void *>(static_cast<decltype(&::name)>(&fake::name))},
static const std::map<std::string, void *> kEntries = {
    FAKE_ENTRY(cuInit) FAKE_ENTRY(cuDriverGetVersion) FAKE_ENTRY(cuGetErrorName)
    FAKE_ENTRY(cuGetErrorString) FAKE_ENTRY(cuDeviceGetCount) FAKE_ENTRY(cuDeviceGet)
    FAKE_ENTRY(cuDeviceGetName) FAKE_ENTRY(cuDeviceGetAttribute) FAKE_ENTRY(cuDeviceTotalMem)
    FAKE_ENTRY(cuDevicePrimaryCtxRetain) FAKE_ENTRY(cuDevicePrimaryCtxRelease)
    FAKE_ENTRY(cuCtxSetCurrent) FAKE_ENTRY(cuCtxGetCurrent) FAKE_ENTRY(cuCtxSynchronize)
    FAKE_ENTRY(cuModuleLoadData) FAKE_ENTRY(cuModuleUnload) FAKE_ENTRY(cuModuleGetFunction)
    FAKE_ENTRY(cuFuncSetAttribute) FAKE_ENTRY(cuFuncGetAttribute) FAKE_ENTRY(cuLaunchKernel)
    FAKE_ENTRY(cuLaunchKernelEx) FAKE_ENTRY(cuOccupancyMaxActiveClusters)
    FAKE_ENTRY(cuTensorMapEncodeTiled) FAKE_ENTRY(cuMemAlloc) FAKE_ENTRY(cuMemFree)
    FAKE_ENTRY(cuMemAllocAsync) FAKE_ENTRY(cuMemFreeAsync)
    FAKE_ENTRY(cuMemcpyHtoD) FAKE_ENTRY(cuMemcpyHtoDAsync) FAKE_ENTRY(cuMemcpyDtoH) FAKE_ENTRY(cuMemsetD8Async)
    FAKE_ENTRY(cuMemsetD16Async)
    FAKE_ENTRY(cuMemsetD32Async) FAKE_ENTRY(cuStreamCreate) FAKE_ENTRY(cuStreamDestroy)
    FAKE_ENTRY(cuStreamQuery) FAKE_ENTRY(cuStreamSynchronize) FAKE_ENTRY(cuEventCreate)
    FAKE_ENTRY(cuEventDestroy) FAKE_ENTRY(cuEventRecord) FAKE_ENTRY(cuEventQuery)
    FAKE_ENTRY(cuEventSynchronize) FAKE_ENTRY(cuEventElapsedTime)};

extern "C" {
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult *status) {
  auto it = kEntries.find(symbol);
  *pfn = it == kEntries.end() ? nullptr : it->second;
  if (status)
    *status = it == kEntries.end() ? CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND : CU_GET_PROC_ADDRESS_SUCCESS;
  return it == kEntries.end() ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS;
}
// The loader dlsyms this one by name too.
CUresult cuDriverGetVersion(int *v) { return fake::cuDriverGetVersion(v); }

// For the tests (dlsym): the log since the last clear, the primary context,
// and the calling thread's current context.
const char *fakecuda_log() {
  // A copy the caller reads after the lock is gone (tests call it from one thread).
  static std::string copy;
  std::lock_guard<std::mutex> lock(mu);
  copy = eventLog;
  return copy.c_str();
}
void fakecuda_clear() {
  std::lock_guard<std::mutex> lock(mu);
  eventLog.clear();
}
CUcontext fakecuda_primary() { return kPrimary; }
CUcontext fakecuda_current() { return currentContext(); }
void fakecuda_set_current(CUcontext c) { setCurrentContext(c); }
}

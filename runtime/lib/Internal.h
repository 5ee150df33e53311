//===- Internal.h - Runtime-private declarations ----------------*- C++ -*-===//
//
// Shared by the runtime's .cpp files only (not installed): the lazily loaded
// driver entry points and the private state behind the public handles.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_RUNTIME_INTERNAL_H
#define GEMMGEN_RUNTIME_INTERNAL_H

#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"

#include <atomic>
#include <cuda.h>
#include <mutex>
#include <string>

namespace gemmgen {

// Every driver entry point the runtime uses. Names are the cuda.h API names
// (some are macros for versioned symbols, e.g. cuMemAlloc -> cuMemAlloc_v2;
// the pointer types follow the macro, and cuGetProcAddress resolves the
// plain name for the CUDA version we were built against).
#define GEMMGEN_DRIVER_FUNCTIONS(X)                                                              \
  X(cuInit)                                                                                      \
  X(cuDriverGetVersion)                                                                          \
  X(cuGetErrorName)                                                                              \
  X(cuGetErrorString)                                                                            \
  X(cuDeviceGetCount)                                                                            \
  X(cuDeviceGet)                                                                                 \
  X(cuDeviceGetName)                                                                             \
  X(cuDeviceGetAttribute)                                                                        \
  X(cuDeviceTotalMem)                                                                            \
  X(cuDevicePrimaryCtxRetain)                                                                    \
  X(cuDevicePrimaryCtxRelease)                                                                   \
  X(cuCtxSetCurrent)                                                                             \
  X(cuCtxGetCurrent)                                                                             \
  X(cuCtxSynchronize)                                                                            \
  X(cuModuleLoadData)                                                                            \
  X(cuModuleUnload)                                                                              \
  X(cuModuleGetFunction)                                                                         \
  X(cuFuncSetAttribute)                                                                          \
  X(cuFuncGetAttribute)                                                                          \
  X(cuLaunchKernel)                                                                              \
  X(cuLaunchKernelEx)                                                                            \
  X(cuOccupancyMaxActiveClusters)                                                                \
  X(cuTensorMapEncodeTiled)                                                                      \
  X(cuMemAlloc)                                                                                  \
  X(cuMemFree)                                                                                   \
  X(cuMemcpyHtoD)                                                                                \
  X(cuMemcpyDtoH)                                                                                \
  X(cuMemsetD16Async)                                                                            \
  X(cuMemsetD32Async)                                                                            \
  X(cuStreamCreate)                                                                              \
  X(cuStreamDestroy)                                                                             \
  X(cuStreamQuery)                                                                               \
  X(cuStreamSynchronize)                                                                         \
  X(cuEventCreate)                                                                               \
  X(cuEventDestroy)                                                                              \
  X(cuEventRecord)                                                                               \
  X(cuEventQuery)                                                                                \
  X(cuEventSynchronize)                                                                          \
  X(cuEventElapsedTime)

/// The driver's entry points, loaded once per process by loadDriver().
struct DriverApi {
#define GEMMGEN_DECLARE_PFN(name) decltype(&::name) name = nullptr;
  GEMMGEN_DRIVER_FUNCTIONS(GEMMGEN_DECLARE_PFN)
#undef GEMMGEN_DECLARE_PFN
  int driverVersion = 0;

  /// "CUDA_ERROR_X: description" for a result.
  std::string errorString(CUresult r) const;
  /// Status::error(CudaError, "<what>: CUDA_ERROR_X: description").
  Status fail(CUresult r, const std::string &what) const;
};

/// Loads libcuda.so.1 and every entry point (once; thread-safe). On failure
/// returns ErrorCode::NoDriver with "no CUDA driver/GPU found (...)".
/// `libraryOverride` (tests) dlopens another file instead, uncached.
Expected<const DriverApi *> loadDriver();
Expected<const DriverApi *> loadDriverFrom(const std::string &library);

struct Runtime::Impl {
  const DriverApi *drv = nullptr;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  DeviceInfo info;
  std::atomic<bool> timedOut{false};
  ~Impl();
  /// Error for calls after a watchdog timeout.
  Status checkUsable() const;
};

struct Module::Impl {
  std::shared_ptr<Runtime::Impl> rt;
  CUmodule module = nullptr;
  ~Impl();
};

struct Kernel::Impl {
  std::shared_ptr<Runtime::Impl> rt;
  std::shared_ptr<Module::Impl> module;
  CUfunction fn = nullptr;
  KernelABI abi;
  KernelInfo info;
  std::string source;
  int maxActiveClusters = 0; ///< co-resident clusters (0: unknown)
};

/// "sm_90a" for an ABI target.
const char *targetArch(Target t);
/// Compute capability a target needs (90, 100).
int targetComputeCapability(Target t);
/// The pre-launch compatibility check (capability vs target).
Status checkTargetRunsOn(Target t, const DeviceInfo &dev);

/// Builds a 2-D row-major tensor map (rows × cols, ld elements, 16-bit).
Status encodeTensorMap2D(const DriverApi &drv, void *out, CUdeviceptr base, DType t,
                         long long rows, long long cols, long long ld, const TmaBox &box,
                         const char *operand);

} // namespace gemmgen

#endif // GEMMGEN_RUNTIME_INTERNAL_H

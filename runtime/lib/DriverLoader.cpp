//===- DriverLoader.cpp - Lazy loading of the CUDA driver ------------------===//
//
// dlopen("libcuda.so.1") on first use, then cuGetProcAddress for every entry
// point in GEMMGEN_DRIVER_FUNCTIONS (Internal.h), asking for the ABI of the
// CUDA version this library was built against (so "cuMemAlloc" resolves to
// the 64-bit cuMemAlloc_v2, as cuda.h's macros would). Nothing links
// libcuda: without a driver the program still starts, and GPU work reports
// "no CUDA driver/GPU found (...)".
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>

using namespace gemmgen;

static const char *kNoDriver = "no CUDA driver/GPU found";

std::string DriverApi::errorString(CUresult r) const {
  const char *name = nullptr, *desc = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(r, &name);
  if (cuGetErrorString)
    cuGetErrorString(r, &desc);
  std::string s = name ? name : ("CUDA error " + std::to_string((int)r));
  if (desc)
    s += std::string(": ") + desc;
  return s;
}

Status DriverApi::fail(CUresult r, const std::string &what) const {
  return Status::error(ErrorCode::CudaError, what + ": " + errorString(r));
}

Expected<const DriverApi *> gemmgen::loadDriverFrom(const std::string &library) {
  void *lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return Status::error(ErrorCode::NoDriver,
                         std::string(kNoDriver) + " (" + library + " could not be loaded)");
  using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
  auto getProc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  auto getVersion = reinterpret_cast<CUresult (*)(int *)>(dlsym(lib, "cuDriverGetVersion"));
  if (!getProc || !getVersion) {
    dlclose(lib);
    return Status::error(ErrorCode::NoDriver,
                         std::string(kNoDriver) + " (" + library +
                             " has no cuGetProcAddress_v2: driver older than CUDA 12; "
                             "update the NVIDIA driver)");
  }
  auto *api = new DriverApi(); // lives as long as the process (the library stays loaded)
  if (getVersion(&api->driverVersion) != CUDA_SUCCESS)
    api->driverVersion = 0;
  // Ask for the ABI we were compiled against, or the driver's if older.
  int version = std::min(CUDA_VERSION, api->driverVersion ? api->driverVersion : CUDA_VERSION);
  std::string missing;
#define GEMMGEN_LOAD_PFN(name)                                                                   \
  {                                                                                              \
    void *p = nullptr;                                                                           \
    CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                     \
    if (getProc(#name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || !p)      \
      missing += (missing.empty() ? "" : ", ") + std::string(#name);                             \
    api->name = reinterpret_cast<decltype(api->name)>(p);                                        \
  }
  GEMMGEN_DRIVER_FUNCTIONS(GEMMGEN_LOAD_PFN)
#undef GEMMGEN_LOAD_PFN
  if (!missing.empty()) {
    std::string msg = "the CUDA driver (version " + std::to_string(api->driverVersion / 1000) +
                      "." + std::to_string(api->driverVersion % 1000 / 10) +
                      ") lacks entry points gemmgen needs: " + missing +
                      "; gemmgen needs a CUDA 12.0+ driver (cuLaunchKernelEx, "
                      "cuTensorMapEncodeTiled)";
    delete api;
    dlclose(lib);
    return Status::error(ErrorCode::NoDriver, msg);
  }
  return static_cast<const DriverApi *>(api);
}

Expected<const DriverApi *> gemmgen::loadDriver() {
  static std::once_flag once;
  static std::optional<Expected<const DriverApi *>> result;
  std::call_once(once, [] {
    const char *override = getenv("GEMMGEN_LIBCUDA"); // for tests: a library that is not there
    result.emplace(loadDriverFrom(override && *override ? override : "libcuda.so.1"));
  });
  return *result;
}

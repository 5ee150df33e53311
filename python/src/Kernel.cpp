//===- Kernel.cpp - Loading and launching a compiled kernel ----------------===//
#include "Kernel.h"
#include "Errors.h"

#include <map>

using namespace gemmgen;
using namespace gemmgen::python;

const Runtime &python::runtimeFor(int device) {
  // Callers hold the GIL: no other thread touches the map meanwhile.
  static std::map<int, Runtime> runtimes;
  auto it = runtimes.find(device);
  if (it == runtimes.end())
    it = runtimes.emplace(device, unwrap(Runtime::open(device))).first;
  return it->second;
}

const Kernel &PyKernel::loaded(int device) {
  if (device < 0)
    throw PyFacingError("ArgumentError",
                        "device ordinal " + std::to_string(device) + " is negative");
  if ((size_t)device >= loaded_.size())
    loaded_.resize(device + 1);
  if (!loaded_[device])
    loaded_[device] = unwrap(runtimeFor(device).loadKernel(source_, abi_, options_));
  return *loaded_[device];
}

static bool sameArgs(const GemmArgs &x, const GemmArgs &y) {
  return x.A == y.A && x.B == y.B && x.D == y.D && x.M == y.M && x.N == y.N && x.K == y.K &&
         x.lda == y.lda && x.ldb == y.ldb && x.ldd == y.ldd;
}

void PyKernel::launch(int device, std::uintptr_t stream, const MatrixView &a,
                      const MatrixView &b, const MatrixView &out) {
  GemmArgs args = unwrap(gemmArgsFor(a, b, out));
  CUstream s = reinterpret_cast<CUstream>(stream);
  const Kernel &k = loaded(device);
  if (args.M == 0 || args.N == 0)
    return;
  if (args.K == 0) {
    // D = A·Bᵀ over an empty K is all zeros (as torch.matmul gives).
    const Runtime &rt = runtimeFor(device);
    if (args.ldd == args.N)
      return check(rt.fill16Async(args.D, 0, (size_t)(args.M * args.N), s));
    for (long long r = 0; r < args.M; ++r)
      check(rt.fill16Async(args.D + (CUdeviceptr)(r * args.ldd * 2), 0, (size_t)args.N, s));
    return;
  }
  if (!last_ || last_->device != device || !sameArgs(last_->args, args))
    last_ = Prepared{device, args, unwrap(k.prepare(args))};
  check(k.launch(last_->launch, s));
}

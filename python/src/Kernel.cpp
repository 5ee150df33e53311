//===- Kernel.cpp - Loading and launching a compiled kernel ----------------===//
#include "Kernel.h"
#include "Errors.h"

#include <climits>
#include <tuple>
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

static Layout hostLayout(MatrixLayout l) { return l == MatrixLayout::Row ? Layout::Row : Layout::Col; }

Layout PyKernel::layoutA() const { return hostLayout(abi_.layoutA); }
Layout PyKernel::layoutB() const { return hostLayout(abi_.layoutB); }
Layout PyKernel::layoutD() const { return hostLayout(abi_.layoutD); }

std::pair<Layout, Layout> PyKernel::layoutsFor(Layout d) const {
  GemmArgs own;
  own.layoutA = layoutA(), own.layoutB = layoutB(), own.layoutD = layoutD();
  const GemmArgs t = kernelProblem(own, d); // the transpose is its own inverse
  return {t.layoutA, t.layoutB};
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

Status PyKernel::checkArguments(const GemmArgs &args) const {
  // A GPU of the kernel's target with room for its shared memory: only the
  // arguments can fail (the real GPU's target and limit are checked at load
  // and launch).
  DeviceInfo device;
  device.ccMajor = abi_.target == Target::SM100a ? 10 : 9;
  device.ccMinor = 0;
  device.maxSmemOptinBytes = INT_MAX;
  Status s = checkGemmArgs(abi_, device, args);
  if (s.ok())
    return s;
  // kernelLayouts names the row-major problem's layouts (what compile's
  // `layout` takes): compare the kernel's in that problem's terms.
  const std::pair<Layout, Layout> need = kernelLayouts(args);
  const bool mismatch = need != layoutsFor(Layout::Row);
  if (!mismatch || s.message().find("was compiled for") == std::string::npos)
    return s;
  return Status::error(s.code(), s.message() + "; from Python: gemmgen.compile(spec, layout=(\"" +
                                     toString(need.first) + "\", \"" + toString(need.second) +
                                     "\")), or gemmgen.matmul, which compiles for the arrays' "
                                     "layouts");
}

GemmArgs PyKernel::argsFor(const MatrixView &a, const MatrixView &b, const MatrixView &out,
                           const CallExtras &extras) const {
  GemmArgs args = unwrap(gemmArgsFor(a, b, out));
  if (args.K == 0) {
    // A and B are not read (D = beta·C, then the chain): give them the
    // layouts the kernel runs, which an empty array cannot tell.
    std::tie(args.layoutA, args.layoutB) = layoutsFor(args.layoutD);
  }
  args.alpha = extras.alpha;
  args.beta = extras.beta;
  if (extras.c)
    check(attachC(args, *extras.c));
  args.bias = extras.bias;
  args.scaleA = extras.scaleA;
  args.scaleB = extras.scaleB;
  args.scaleD = extras.scaleD;
  args.amaxD = extras.amaxD;
  return args;
}

GemmArgs PyKernel::plan(const MatrixView &a, const MatrixView &b, const MatrixView &out,
                        const CallExtras &extras) const {
  GemmArgs args = argsFor(a, b, out, extras);
  if (args.M > 0 && args.N > 0)
    check(checkArguments(args));
  return args;
}

// Every field a call sets: a prepared launch holds them all.
static bool sameArgs(const GemmArgs &x, const GemmArgs &y) {
  return x.A == y.A && x.B == y.B && x.D == y.D && x.M == y.M && x.N == y.N && x.K == y.K &&
         x.lda == y.lda && x.ldb == y.ldb && x.ldd == y.ldd && x.layoutA == y.layoutA &&
         x.layoutB == y.layoutB && x.layoutD == y.layoutD && x.alpha == y.alpha &&
         x.beta == y.beta && x.C == y.C && x.ldc == y.ldc && x.bias == y.bias &&
         x.scaleA == y.scaleA && x.scaleB == y.scaleB && x.scaleD == y.scaleD &&
         x.amaxD == y.amaxD;
}

void PyKernel::launch(int device, std::uintptr_t stream, const MatrixView &a,
                      const MatrixView &b, const MatrixView &out, const CallExtras &extras) {
  GemmArgs args = argsFor(a, b, out, extras);
  CUstream s = reinterpret_cast<CUstream>(stream);
  bool fresh = !last_ || last_->device != device || !sameArgs(last_->args, args);
  // Wrong arguments are reported before a GPU is opened (and the same way
  // without one); repeated arguments passed these checks already.
  if (fresh && args.M > 0 && args.N > 0)
    check(checkArguments(args));
  const Kernel &k = loaded(device);
  if (args.M == 0 || args.N == 0)
    return;
  // Arrays TMA cannot address (a pointer or row stride off 16 bytes) go
  // through a workspace the runtime allocates on the stream for this call,
  // as do a split-K kernel's partial sums and stream-K's flags.
  if (k.workspaceBytes(args) > 0)
    return check(k.launch(args, s));
  if (fresh)
    last_ = Prepared{device, args, unwrap(k.prepare(args))};
  check(k.launch(last_->launch, s));
}

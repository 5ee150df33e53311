//===- Kernel.h - A compiled kernel as Python sees it -------------*- C++ -*-===//
//
// gemmgen.compile() returns one of these: the spec taken through the
// compiler and NVRTC (no GPU needed), loaded onto a device the first time it
// is launched there (Runtime::loadKernel; the cubin comes from the disk
// cache). A launch maps the arrays' strides onto GemmArgs (Layout.h), checks
// them against the kernel's launch contract (the runtime's checkGemmArgs:
// layouts, K, leading dimensions, pointers) before touching a GPU, reuses
// the tensor maps when the arguments repeat, and enqueues on the caller's
// stream.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PYTHON_KERNEL_H
#define GEMMGEN_PYTHON_KERNEL_H

#include "Layout.h"

#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen::python {

/// What a call passes besides a, b and out: GemmArgs' alpha, beta and C,
/// the chain's bias and scale, fp8 scales and an 8-bit D's amax (device
/// pointers, 0 = none). Their lengths and dtypes were checked in Python.
struct CallExtras {
  float alpha = 1.0f, beta = 0.0f;
  std::optional<MatrixView> c;
  std::uint64_t bias = 0, scaleA = 0, scaleB = 0, scaleD = 0, amaxD = 0;
};

class PyKernel {
public:
  PyKernel(std::string specName, std::string source, KernelABI abi, CompileOptions options,
           CubinResult cubin)
      : specName_(std::move(specName)), source_(std::move(source)), abi_(std::move(abi)),
        epilogue_(epilogueInfo(abi_)), options_(std::move(options)), cubin_(std::move(cubin)) {}

  const std::string &specName() const { return specName_; }
  const std::string &source() const { return source_; }
  const KernelABI &abi() const { return abi_; }
  /// The chain's facts as the runtime derives them (gemmgen::epilogueInfo).
  const EpilogueInfo &epilogue() const { return epilogue_; }
  const CubinResult &cubin() const { return cubin_; }
  /// The layouts of A and B the kernel was compiled for (KernelInfo's).
  Layout layoutA() const;
  Layout layoutB() const;
  /// How the kernel stores D (the spec's layout.d): an out stored the other
  /// way is computed as out^T = b^T · a^T.
  Layout layoutD() const;
  /// A's and B's layouts in a problem whose D is stored `d`-major, as this
  /// kernel runs it: its own, or its transposed problem's (kernelProblem)
  /// when `d` is the other way from the kernel's D.
  std::pair<Layout, Layout> layoutsFor(Layout d) const;
  /// D's element type as a call sees it (a split-K kernel's reduction
  /// writes the spec's type; the kernel itself writes f32 partial sums).
  ScalarType outType() const { return abi_.splitK > 1 ? abi_.splitOut : abi_.dType; }

  /// The arguments a launch on these arrays would use, after the checks
  /// that need no GPU (checkArguments); M or N of 0 skip the checks, as a
  /// launch does (K = 0 is checked and launched: D = beta·C, then the chain).
  GemmArgs plan(const MatrixView &a, const MatrixView &b, const MatrixView &out,
               const CallExtras &extras) const;

  /// The runtime's pre-launch checks of `args` against this kernel
  /// (checkGemmArgs) on a device of the kernel's target with room for its
  /// shared memory: what is wrong with the arguments, whichever GPU runs
  /// them. A layout mismatch's message also says how to compile for the
  /// arrays' layouts from Python.
  Status checkArguments(const GemmArgs &args) const;

  /// out = alpha·a @ b + beta·c, then the kernel's chain, on `device`'s
  /// `stream` (asynchronous). M or N of 0 launches nothing; K of 0 runs the
  /// kernel, which computes the product as zero.
  void launch(int device, std::uintptr_t stream, const MatrixView &a, const MatrixView &b,
              const MatrixView &out, const CallExtras &extras);

  /// The kernel loaded on `device` (opens the device and loads on first use).
  const Kernel &loaded(int device);

private:
  /// The runtime's arguments for a call (the array mapping, C and extras).
  GemmArgs argsFor(const MatrixView &a, const MatrixView &b, const MatrixView &out,
                   const CallExtras &extras) const;

  std::string specName_, source_;
  KernelABI abi_;
  EpilogueInfo epilogue_; ///< of abi_ (declared after it: initialised from it)
  CompileOptions options_;
  CubinResult cubin_;
  std::vector<std::optional<Kernel>> loaded_; ///< by device ordinal
  /// The last launch's arguments and tensor maps: a loop over the same
  /// buffers skips re-encoding them.
  struct Prepared {
    int device = -1;
    GemmArgs args;
    PreparedLaunch launch;
  };
  std::optional<Prepared> last_;
};

/// The process's Runtime for a device ordinal (opened on first use).
const Runtime &runtimeFor(int device);

} // namespace gemmgen::python

#endif // GEMMGEN_PYTHON_KERNEL_H

//===- Names.h - Which names a spec may give --------------------*- C++ -*-===//
//
// The kernel's name becomes an `extern "C" __global__` function at global
// scope of the generated source, next to NVRTC's built-in declarations,
// the device header's and the generated code's own. A name that is a C++
// keyword, a reserved identifier, one of those declarations or that the
// generated code uses would make NVRTC fail after `check` said ok, so it is
// refused with a located error instead:
//   - syntax, length, keywords, reserved and CUDA's names: kernelNameProblem()
//     (parse stage),
//   - names the emitted code or its device header use: countIdentifier() over
//     the emitted text (Pipeline.cpp, once the code exists: the printers stay
//     the one source of the names they write).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_NAMES_H
#define GEMMGEN_NAMES_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace gemmgen {

/// Kernel, role and barrier names are at most this long (NVRTC and ptxas
/// handle far longer symbols badly; no one types more).
constexpr size_t kMaxNameLength = 200;

/// A C identifier: a letter or '_', then letters, digits and '_'.
bool isIdentifier(llvm::StringRef s);
/// `my-gemm v2` -> `my_gemm_v2`; a leading digit gets a `k_` prefix.
std::string toIdentifier(llvm::StringRef s);

/// Why `name` cannot be the kernel's name (too long, a C++ keyword, a
/// reserved identifier, a name CUDA declares for device code), or an empty
/// string when it can. `name` is an identifier.
std::string kernelNameProblem(llvm::StringRef name);

/// A name close to `name` that kernelNameProblem() accepts (for messages).
std::string suggestKernelName(llvm::StringRef name);

/// How often `name` occurs as an identifier in C++ `source` (outside
/// comments, string and character literals; inside macro bodies too).
unsigned countIdentifier(llvm::StringRef source, llvm::StringRef name);

} // namespace gemmgen

#endif // GEMMGEN_NAMES_H

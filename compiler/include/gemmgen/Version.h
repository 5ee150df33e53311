//===- Version.h - The project's version ------------------------*- C++ -*-===//
//
// One place for the version: CMake's project() sets GEMMGEN_VERSION (a
// compile definition of the compiler library), and the generated sources'
// banners, the runtime's versionString() and `gemmgen --version` read it here.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_VERSION_H
#define GEMMGEN_VERSION_H

#ifndef GEMMGEN_VERSION
#error "GEMMGEN_VERSION is set by the build (compiler/CMakeLists.txt)"
#endif

namespace gemmgen {
inline constexpr const char *kVersion = GEMMGEN_VERSION;
} // namespace gemmgen

#endif

//===- Version.cpp - The library's version string --------------------------===//
#include "gemmgen/Version.h"
#include "gemmgen/gemmgen.h"

namespace gemmgen {
const char *versionString() { return kVersion; }
} // namespace gemmgen

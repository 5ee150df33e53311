//===- BuildInfo.h - The commit this gemmgen was built from -----*- C++ -*-===//
//
// Recorded with every measurement (bench JSON/CSV, tune records) so that a
// figure can be traced to the code that produced it. Baked in at build
// time (tune/BuildInfo.cmake), not looked up where the binary runs.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_BUILDINFO_H
#define GEMMGEN_TUNE_BUILDINFO_H

namespace gemmgen::tune {

/// The short git hash of the source tree that was built, with "-dirty" when
/// tracked files had changes; "unknown" when it was not a git checkout.
const char *buildCommit();

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_BUILDINFO_H

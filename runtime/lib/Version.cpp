//===- Version.cpp - The library's version string --------------------------===//
namespace gemmgen {
/// Version of the gemmgen libraries and CLI.
const char *versionString() { return "0.1.0"; }
} // namespace gemmgen

//===- SpecText.h - Shipped specs as text, and one edit of them -*- C++ -*-===//
//
// Tests that need a variant of a shipped spec read it whole (specText, or
// fileText for a path of their own, e.g. the GPU tests' specsDir()) and
// replace one substring of it (withEdit). Both throw std::runtime_error
// rather than hand back an empty or unedited text: gtest reports the
// exception and fails the test, saying which file or which anchor, where a
// test would otherwise go on with a spec other than the one it means.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TESTS_SPECTEXT_H
#define GEMMGEN_TESTS_SPECTEXT_H

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gemmgen::testing {

/// The file at `path`, whole. Throws std::runtime_error naming the path where
/// it is missing or unreadable (a test would otherwise parse an empty spec).
inline std::string fileText(const std::filesystem::path &path) {
  std::ifstream in(path);
  if (!in || std::filesystem::is_directory(path))
    throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// specs/`relative` under the source tree (GEMMGEN_SOURCE_DIR), whole.
inline std::string specText(const std::string &relative) {
  return fileText(std::filesystem::path(GEMMGEN_SOURCE_DIR) / "specs" / relative);
}

/// `text` with the first occurrence of `anchor` replaced by `with`. Throws
/// std::runtime_error where there is none: the spec changed under the test,
/// which would otherwise test the unedited spec (std::string::replace at npos
/// throws an out_of_range that names neither).
inline std::string withEdit(std::string text, std::string_view anchor, std::string_view with) {
  const size_t at = text.find(anchor);
  if (at == std::string::npos)
    throw std::runtime_error("spec text has no '" + std::string(anchor) + "'");
  text.replace(at, anchor.size(), with);
  return text;
}

} // namespace gemmgen::testing

#endif // GEMMGEN_TESTS_SPECTEXT_H

//===- BadSpecTableTest.cpp - tests/bad_specs/*.yaml with their diagnostics ===//
//
// Each file in tests/bad_specs/ is a small spec whose leading comment lines
// carry the expected diagnostics, one per line, in order:
//
//   # expect: 7:10: error: unknown key 'tiel' in the spec; did you mean 'tile'?
//
// The test parses the file, runs check -> lower -> emit when it parsed (as
// `gemmgen check` does: the kernel's name is checked against the emitted
// code), and requires
// exactly those diagnostics (errors, warnings and notes): nothing missing,
// nothing more, same order.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Parser.h"
#include "gemmgen/Pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace gemmgen;
namespace fs = std::filesystem;

namespace {

fs::path badSpecDir() { return fs::path(GEMMGEN_SOURCE_DIR) / "tests" / "bad_specs"; }

std::vector<std::string> badSpecFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(badSpecDir(), ec))
    if (entry.path().extension() == ".yaml")
      files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> expectations(const fs::path &path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  const std::string tag = "# expect: ";
  while (std::getline(in, line))
    if (line.rfind(tag, 0) == 0)
      out.push_back(line.substr(tag.size()));
  return out;
}

class BadSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSpec, ReportsExactlyTheExpectedDiagnostics) {
  fs::path path = badSpecDir() / GetParam();
  std::vector<std::string> want = expectations(path);
  ASSERT_FALSE(want.empty()) << path << " has no '# expect:' line";

  DiagnosticEngine engine(nullptr);
  auto spec = parseSpecFile(path.string(), engine);
  if (spec)
    compileParsedSpec(*spec, EmitOptions(), engine);

  std::vector<std::string> got;
  for (const Diagnostic &d : engine.diagnostics()) {
    const char *sev = d.severity == Severity::Error     ? "error"
                      : d.severity == Severity::Warning ? "warning"
                                                        : "note";
    got.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + sev + ": " +
                  d.message);
  }
  EXPECT_EQ(got, want) << "in " << path;
  // Every diagnostic points into the file.
  for (const Diagnostic &d : engine.diagnostics())
    EXPECT_EQ(d.file, path.string());
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = fs::path(info.param).stem().string();
  for (char &c : name)
    if (!std::isalnum((unsigned char)c))
      c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Table, BadSpec, ::testing::ValuesIn(badSpecFiles()), testName);

TEST(BadSpecTable, HasAtLeastThirtyCases) { EXPECT_GE(badSpecFiles().size(), 30u); }

} // namespace

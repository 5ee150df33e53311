//===- GoldenTest.cpp - Emitted code and IR match the golden files --------===//
//
// For every spec under specs/, the emitted .cu and the printed IR must equal
// tests/golden/<dir>/<stem>.cu / .ir byte for byte, and emitting twice must
// give the same bytes. Golden files are rewritten only by
// scripts/update-golden.sh, which CI never runs: a diff here means the
// generated code changed, and the commit that changes it says why.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace gemmgen;

namespace {

/// Spec paths relative to the source root ("specs/sm90/01_....yaml"), as the
/// update script passes them: the generated banner names the spec by path.
std::vector<std::string> allSpecs() {
  std::vector<std::string> specs;
  std::error_code ec = llvm::sys::fs::set_current_path(GEMMGEN_SOURCE_DIR);
  if (ec)
    return specs;
  std::string root = "specs";
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec)) {
    // specs/tuned/ is written by `gemmgen tune-db defaults` (variants of the
    // ladder's specs); SpecCompileTest and the simulator test cover it.
    if (llvm::sys::path::extension(it->path()) == ".yaml" &&
        !llvm::StringRef(it->path()).startswith("specs/tuned/"))
      specs.push_back(it->path());
  }
  std::sort(specs.begin(), specs.end());
  return specs;
}

/// tests/golden/<dir under specs>/<stem><ext>
std::string goldenPath(const std::string &spec, const char *ext) {
  std::string rel = spec.substr(std::string("specs/").size());
  llvm::SmallString<256> path(std::string(GEMMGEN_SOURCE_DIR) + "/tests/golden/" + rel);
  llvm::sys::path::replace_extension(path, ext);
  return std::string(path);
}

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string("<missing golden file " + path + ">");
}

std::optional<CompiledSpec> compile(const std::string &spec) {
  EXPECT_FALSE(llvm::sys::fs::set_current_path(GEMMGEN_SOURCE_DIR));
  DiagnosticEngine diags;
  return compileSpecFile(spec, EmitOptions{}, diags);
}

std::string irText(const ir::Kernel &k) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printIR(k, os);
  return os.str();
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, EmittedSourceMatchesGolden) {
  auto compiled = compile(GetParam());
  ASSERT_TRUE(compiled) << GetParam() << " has errors";
  EXPECT_EQ(compiled->source, readFile(goldenPath(GetParam(), ".cu")))
      << "emitted code changed; if intended run scripts/update-golden.sh";
}

TEST_P(GoldenTest, PrintedIRMatchesGolden) {
  auto compiled = compile(GetParam());
  ASSERT_TRUE(compiled);
  EXPECT_EQ(irText(compiled->kernel), readFile(goldenPath(GetParam(), ".ir")))
      << "IR changed; if intended run scripts/update-golden.sh";
}

TEST_P(GoldenTest, EmissionIsDeterministic) {
  auto first = compile(GetParam());
  auto second = compile(GetParam());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->source, second->source);
  EXPECT_EQ(irText(first->kernel), irText(second->kernel));
}

std::string specName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = llvm::sys::path::stem(info.param).str();
  std::replace_if(name.begin(), name.end(), [](char c) { return !isalnum(c); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Specs, GoldenTest, ::testing::ValuesIn(allSpecs()), specName);

TEST(GoldenTest, SpecsLadderIsNotEmpty) { EXPECT_GE(allSpecs().size(), 3u); }

} // namespace

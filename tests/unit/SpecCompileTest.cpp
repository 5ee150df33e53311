//===- SpecCompileTest.cpp - Every spec compiles with NVRTC, without spills ===//
//
// For each spec under specs/ whose target this toolkit compiles: the emitted
// source goes through NVRTC for the spec's target (no GPU needed), and the
// ptxas report shows no spill stores/loads and no local memory, the
// registers at entry fit the launch bounds, and no ptxas warning (C7508
// "setmaxnreg ignored", C7511 "wgmma serialized") appears.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace gemmgen;

namespace {

/// Every .yaml under GEMMGEN_SOURCE_DIR/`dir`, sorted, but files named `skip`.
std::vector<std::string> yamlFilesUnder(const std::string &dir, llvm::StringRef skip = "") {
  std::vector<std::string> specs;
  std::error_code ec;
  std::string root = std::string(GEMMGEN_SOURCE_DIR) + "/" + dir;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".yaml" &&
        llvm::sys::path::filename(it->path()) != skip)
      specs.push_back(it->path());
  std::sort(specs.begin(), specs.end());
  return specs;
}

std::vector<std::string> specFiles() {
  return yamlFilesUnder("specs", "defaults.yaml"); // (the tuned-defaults map)
}

/// NVRTC on the emitted source now, not from the disk cache: the tests are
/// about what NVRTC says.
Expected<CubinResult> freshCubin(const CompiledSpec &c) {
  CompileOptions opts;
  opts.useCache = false;
  return compileCudaSource(c.source, c.abi.kernelName + ".cu", toString(c.abi.target),
                           c.abi.kernelName, opts);
}

class SpecCompileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecCompileTest, NvrtcCompilesWithoutSpills) {
  DiagnosticEngine diags;
  auto compiled = compileSpecFile(GetParam(), EmitOptions{}, diags);
  ASSERT_TRUE(compiled) << GetParam() << " has errors";
  auto cubin = freshCubin(*compiled);
  ASSERT_TRUE(cubin) << cubin.status().message();
  EXPECT_FALSE(cubin->cubin.empty());
  const ResourceUsage &u = cubin->usage;
  ASSERT_TRUE(u.valid) << "no ptxas report in the NVRTC log:\n" << cubin->log;
  EXPECT_EQ(u.spillStoreBytes, 0) << cubin->log;
  EXPECT_EQ(u.spillLoadBytes, 0) << cubin->log;
  EXPECT_EQ(u.localBytes, 0) << cubin->log;
  EXPECT_EQ(u.stackFrameBytes, 0) << cubin->log;
  EXPECT_GT(u.registers, 0);
  EXPECT_LE(u.registers * (int)compiled->abi.threadsPerBlock, 65536)
      << "registers at entry exceed the SM's register file for one CTA";
  EXPECT_TRUE(u.warnings.empty()) << "ptxas warnings:\n" << cubin->log;
  // The launch size is the plan's layout; ptxas sees only static shared
  // memory, which the plan does not count: there must be none, and the two
  // together must fit the block.
  const KernelPlan &plan = compiled->kernel.plan;
  EXPECT_EQ(compiled->abi.sharedMemBytes, plan.sharedMemBytes);
  EXPECT_EQ(u.staticSmemBytes, 0) << cubin->log;
  EXPECT_LE(plan.sharedMemBytes + u.staticSmemBytes, kMaxSharedBytesPerBlock);
}

// `gemmgen run SPEC --out-dtype f32` (EmitOptions::outType, chunk_n halved to
// keep its bytes) for the fp8 specs whose f32 outputs record the accumulation
// error, per tensor (13) and blockwise (15): the checks pass, D is f32, no spills.
TEST(SpecCompileF32Out, Fp8SpecsCompileWithAnF32D) {
  for (const char *name : {"13_fast_e4m3.yaml", "15_blockwise_e4m3.yaml"}) {
    const std::string path = std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + name;
    EmitOptions emit;
    emit.outType = ScalarType::F32;
    DiagnosticEngine diags;
    auto compiled = compileSpecFile(path, emit, diags);
    ASSERT_TRUE(compiled) << name << " with an f32 D has errors";
    EXPECT_EQ(compiled->spec.types.d.value, ScalarType::F32) << name;
    // Half the 16-bit chunk (13: 128 columns; 15: 64, beside its scale slots).
    EXPECT_EQ(compiled->spec.epilogue.chunkN.value,
              std::string(name) == "13_fast_e4m3.yaml" ? 64u : 32u)
        << name;
    auto cubin = freshCubin(*compiled);
    ASSERT_TRUE(cubin) << name << ": " << cubin.status().message();
    EXPECT_FALSE(cubin->usage.hasSpills()) << name << ":\n" << cubin->log;
    EXPECT_TRUE(cubin->usage.warnings.empty()) << name << ":\n" << cubin->log;
  }
}

std::string specName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = llvm::sys::path::stem(info.param).str();
  std::replace_if(name.begin(), name.end(), [](char c) { return !isalnum(c); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Specs, SpecCompileTest, ::testing::ValuesIn(specFiles()), specName);

// The benchmark's variant and family specs (bench/*-variants, bench/families,
// bench/variants, bench/decode-swap, bench/decode-col, bench/decode-occ2, bench/wave-fit,
// bench/cluster-fit, bench/narrow-n): what a measurement compares must compile as the shipped
// specs do, without spills and without ptxas performance notes, or the
// figure measures something else (the two-partials blockwise variant was
// measured for a day with every wgmma serialised). A variant known to draw a
// note is listed with it, and must still draw it.
std::vector<std::string> benchSpecFiles() {
  std::vector<std::string> specs;
  for (const char *dir : {"chain-variants", "cluster-fit", "decode-col", "decode-occ2",
                          "decode-swap", "epilogue-variants", "families", "narrow-n",
                          "pingpong-variants", "splitk-variants", "variants", "wave-fit"})
    for (std::string &f : yamlFilesUnder(std::string("bench/") + dir))
      specs.push_back(std::move(f));
  return specs;
}

class BenchSpecCompileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BenchSpecCompileTest, CompilesWithoutSpillsOrSerialisedWgmma) {
  // A variant measured for its serialised wgmmas would be listed here with
  // its note (none is now: the blockwise two-buffer form that ptxas
  // serialised became the pairs of k-blocks, docs/PERF.md).
  const std::map<std::string, std::string> expectedNotes = {};
  DiagnosticEngine diags(nullptr);
  auto compiled = compileSpecFile(GetParam(), EmitOptions{}, diags);
  ASSERT_TRUE(compiled) << GetParam() << " has errors";
  auto cubin = freshCubin(*compiled);
  ASSERT_TRUE(cubin) << cubin.status().message();
  const ResourceUsage &u = cubin->usage;
  ASSERT_TRUE(u.valid) << cubin->log;
  EXPECT_FALSE(u.hasSpills()) << cubin->log;
  auto known = expectedNotes.find(std::string(llvm::sys::path::filename(GetParam())));
  if (known == expectedNotes.end()) {
    EXPECT_TRUE(u.warnings.empty()) << "ptxas:\n" << cubin->log;
  } else {
    ASSERT_EQ(u.warnings.size(), 1u) << cubin->log;
    EXPECT_NE(u.warnings[0].find(known->second), std::string::npos)
        << "the listed note is gone: take " << known->first << " off the list\n" << cubin->log;
  }
}

// Named by the path under bench/ (two variants share a file name).
std::string benchSpecName(const ::testing::TestParamInfo<std::string> &info) {
  std::string path = info.param.substr(info.param.find("/bench/") + 7);
  path = path.substr(0, path.size() - 5); // ".yaml"
  std::replace_if(path.begin(), path.end(), [](char c) { return !isalnum(c); }, '_');
  return path;
}

INSTANTIATE_TEST_SUITE_P(Bench, BenchSpecCompileTest, ::testing::ValuesIn(benchSpecFiles()),
                         benchSpecName);

} // namespace

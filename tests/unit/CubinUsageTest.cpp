//===- CubinUsageTest.cpp - Registers and stack frame read from a cubin ---===//
//
// usageFromCubin stands in for the ptxas report when NVRTC's log lacks it
// (torch's bundled libnvrtc on the H200): on real cubins it must agree with
// the report, and on damaged bytes it must say "invalid" without a crash.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <random>

using namespace gemmgen;

namespace {
Expected<CubinResult> compiled(const std::string &spec, std::string &entry) {
  DiagnosticEngine diags;
  auto c = compileSpecFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + spec, EmitOptions{},
                           diags);
  if (!c)
    return Status::error(ErrorCode::SpecError, spec + " has errors");
  entry = c->abi.kernelName;
  CompileOptions opts;
  opts.useCache = false;
  return compileCudaSource(c->source, entry + ".cu", toString(c->abi.target), entry, opts);
}
} // namespace

TEST(CubinUsage, AgreesWithThePtxasReport) {
  for (const char *spec : {"05_fast_f16.yaml", "12_splitk_f16.yaml", "15_blockwise_e4m3.yaml"}) {
    std::string entry;
    Expected<CubinResult> c = compiled(spec, entry);
    ASSERT_TRUE(c.ok()) << c.status().message();
    const ResourceUsage &report = c->usage;
    ASSERT_TRUE(report.valid && !report.fromCubin) << spec << ": this NVRTC prints the report";
    ResourceUsage u = usageFromCubin(c->cubin, entry);
    ASSERT_TRUE(u.valid) << spec;
    EXPECT_TRUE(u.fromCubin);
    EXPECT_EQ(u.function, entry);
    EXPECT_EQ(u.registers, report.registers) << spec;
    EXPECT_GT(u.registers, 0) << spec;
    EXPECT_EQ(u.stackFrameBytes, report.stackFrameBytes) << spec;
    EXPECT_FALSE(u.hasSpills()) << spec;
    EXPECT_FALSE(usageFromCubin(c->cubin, entry + "_other").valid) << "another entry's name";
  }
}

TEST(CubinUsage, DamagedBytesAreInvalidNotACrash) {
  EXPECT_FALSE(usageFromCubin({}, "k").valid);
  std::string text = "not an ELF file at all, but long enough to have a header and then some";
  EXPECT_FALSE(usageFromCubin(std::vector<char>(text.begin(), text.end()), "k").valid);
  std::string entry;
  Expected<CubinResult> c = compiled("05_fast_f16.yaml", entry);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::vector<char> &good = c->cubin;
  for (size_t cut : {size_t(16), size_t(64), good.size() / 2, good.size() - 1}) {
    std::vector<char> truncated(good.begin(), good.begin() + cut);
    ResourceUsage u = usageFromCubin(truncated, entry);
    if (u.valid) { // a cut after every record it reads may still parse: then it must agree
      EXPECT_EQ(u.registers, c->usage.registers) << cut;
    }
  }
  // Random byte flips: any answer but a crash (run under the sanitizers in CI).
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<char> bad = good;
    for (int f = 0; f < 8; ++f)
      bad[rng() % bad.size()] ^= char(1 + rng() % 255);
    (void)usageFromCubin(bad, entry);
  }
}

//===- PtxasReportTest.cpp - The ptxas report scanner on hostile logs -----===//
//
// Long function names (the regex it replaced overflowed the stack on a
// 30,000-character name), numbers no int holds, truncated and odd lines:
// never a crash or an exception; out-of-range numbers make the report
// invalid rather than wrapped or clamped.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

using namespace gemmgen;

namespace {
std::string report(const std::string &name, const std::string &regs,
                   const std::string &frame = "0 bytes stack frame, 0 bytes spill stores, 0 bytes "
                                              "spill loads") {
  return "ptxas info    : Compiling entry function '" + name + "' for 'sm_90a'\n"
         "ptxas info    : Function properties for " + name + "\n    " + frame +
         "\nptxas info    : Used " + regs + " registers, used 1 barriers, 1536 bytes smem, 400 "
         "bytes cmem[0]\n";
}
} // namespace

TEST(PtxasReport, LongFunctionNames) {
  for (size_t n : {30000u, 100000u, 1000000u}) {
    std::string name(n, 'k');
    ResourceUsage u = parsePtxasReport(report(name, "40"), name);
    ASSERT_TRUE(u.valid) << n;
    EXPECT_EQ(u.function.size(), n);
    EXPECT_EQ(u.registers, 40);
    EXPECT_EQ(u.barriers, 1);
    EXPECT_EQ(u.staticSmemBytes, 1536);
    // A long line of digits or quotes is not a report.
    EXPECT_FALSE(parsePtxasReport(std::string(n, '9')).valid);
    EXPECT_FALSE(parsePtxasReport("Compiling entry function '" + std::string(n, '\'')).valid);
  }
}

TEST(PtxasReport, NumbersOutOfRangeMakeTheReportInvalid) {
  for (const char *regs : {"99999999999999999999", "2147483648",
                           "9999999999999999999999999999999999999999"}) {
    SCOPED_TRACE(regs);
    ResourceUsage u = parsePtxasReport(report("k", regs), "k");
    EXPECT_FALSE(u.valid);
    EXPECT_EQ(u.function, "k");
    ASSERT_FALSE(u.warnings.empty());
    EXPECT_EQ(u.warnings.back(), "gemmgen: ptxas report for 'k' has a number out of range; ignored");
  }
  ResourceUsage big = parsePtxasReport(report("k", "2147483647"), "k");
  EXPECT_TRUE(big.valid);
  EXPECT_EQ(big.registers, 2147483647);
  ResourceUsage spill = parsePtxasReport(
      report("k", "40",
             "0 bytes stack frame, 99999999999999999999 bytes spill stores, 0 bytes spill loads"),
      "k");
  EXPECT_FALSE(spill.valid);
  // The other entries of the same log are unaffected.
  std::string log = report("bad", "99999999999999999999") + report("good", "64");
  EXPECT_FALSE(parsePtxasReport(log, "bad").valid);
  ResourceUsage good = parsePtxasReport(log, "good");
  EXPECT_TRUE(good.valid);
  EXPECT_EQ(good.registers, 64);
}

TEST(PtxasReport, OddLines) {
  // Missing closing quote, missing arch, a "Used" line without a number, lines
  // before any entry, no trailing newline, CRLF line ends.
  EXPECT_FALSE(parsePtxasReport("ptxas info    : Compiling entry function 'k").valid);
  EXPECT_FALSE(parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90a").valid);
  EXPECT_FALSE(parsePtxasReport("ptxas info    : Used 12 registers\n").valid);
  EXPECT_FALSE(
      parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90a'\nUsed registers")
          .valid);
  ResourceUsage crlf = parsePtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\r\nptxas info    : Used 7 "
      "registers\r\n",
      "k");
  EXPECT_TRUE(crlf.valid);
  EXPECT_EQ(crlf.registers, 7);
  EXPECT_EQ(crlf.arch, "sm_90a");
  ResourceUsage noNewline = parsePtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_100a'\nptxas info    : Used 9 "
      "registers, 16 bytes lmem",
      "k");
  EXPECT_TRUE(noNewline.valid);
  EXPECT_EQ(noNewline.registers, 9);
  EXPECT_EQ(noNewline.localBytes, 16);
  EXPECT_EQ(noNewline.arch, "sm_100a");
}

// ptxas reports serialised wgmmas as info lines ahead of the entry's report;
// they are the kernel's warnings (SpecCompileTest asserts every shipped spec
// has none: stream-K ran every wgmma one at a time before they were checked).
TEST(PtxasReport, SerialisedWgmmaIsAWarningOfItsFunction) {
  const std::string note =
      "ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized due to program dependence on compiler-inserted WG.DP in divergent path in "
      "the function 'gemm_a'\n";
  const std::string injected =
      "ptxas info    : (C7517) warpgroup.wait is injected in around line 1291 by compiler to "
      "allow use of registers defined by GMMA in function 'gemm_b'\n";
  const std::string log = note + injected + report("gemm_a", "168") + report("gemm_b", "90");
  ResourceUsage a = parsePtxasReport(log, "gemm_a");
  ASSERT_TRUE(a.valid);
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("C7518"), std::string::npos);
  ResourceUsage b = parsePtxasReport(log, "gemm_b");
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("C7517"), std::string::npos);
  // Without a function name the note belongs to no entry: a warning of every result.
  ResourceUsage c = parsePtxasReport("ptxas info    : (C7514) Potential Performance Loss: "
                                     "wgmma serialized\n" + report("gemm_c", "40"), "gemm_c");
  ASSERT_EQ(c.warnings.size(), 1u);
  // An ordinary info line is not a warning.
  EXPECT_TRUE(parsePtxasReport("ptxas info    : 0 bytes gmem\n" + report("gemm_d", "40"))
                  .warnings.empty());
}

//===- KernelChoiceTest.cpp - chooseKernel: the cost model and its specs --===//
//
// The model computes what bench/model/fit_cost_model.py computes (values
// printed by that script with the constants in KernelChoice.cpp); the
// choices on the sweep's shape classes; every spec it can return passes the
// checks and compiles; the default family is spec 05's kernel.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <regex>
#include <sstream>

using namespace gemmgen;

namespace {

TEST(KernelChoice, ModelMatchesTheFittingScript) {
  struct Point {
    const char *family;
    int split;
    long long M, N, K;
    double us; // python3 bench/model/fit_cost_model.py's predict()
  } points[] = {{"large", 1, 4096, 4096, 4096, 184.7986},
                {"small", 4, 1, 2112, 7168, 17.6308},
                {"medium", 2, 4096, 2112, 7168, 235.5748}, // a workspace past the L2
                {"large", 1, 1, 57344, 8192, 260.5553},
                {"small", 8, 16, 8192, 28672, 130.7885},
                {"wide", 1, 768, 3072, 3072, 28.9621}};
  for (const Point &p : points)
    EXPECT_NEAR(predictKernelMicros(p.family, p.split, p.M, p.N, p.K), p.us, 0.01 * p.us)
        << p.family << " split " << p.split << " " << p.M << "x" << p.N << "x" << p.K;
  EXPECT_LT(predictKernelMicros("huge", 1, 64, 64, 64), 0);
  EXPECT_LT(predictKernelMicros("large", 0, 64, 64, 64), 0);
}

TEST(KernelChoice, ChoicesByShapeClass) {
  struct Case {
    long long M, N, K;
    const char *family;
    int minSplit, maxSplit;
  } cases[] = {
      {4096, 4096, 4096, "large", 1, 1},     // the headline: the tuned default
      {8192, 8192, 8192, "large", 1, 1},
      {16384, 28672, 4096, "large", 1, 1},   // large shapes keep the default
      {1, 2112, 7168, "small", 2, 8},        // decode: few tiles, K split
      {1, 4096, 14336, "small", 2, 8},
      {128, 8192, 8192, "small", 1, 1},      // one row of 128x256 tiles is 32 SMs
      {512, 4096, 7168, "medium", 1, 1},     // 64 large tiles for 132 SMs
      {512, 512, 512, "small", 1, 1},
      {768, 3072, 3072, "wide", 1, 1},       // 72 large tiles, 96 wide ones, 132 SMs
      {4096, 2112, 7168, "wide", 1, 1},      // 288 large tiles: 2.2 waves
      {8, 14336, 4096, "small", 1, 1},       // not a 128-row tile for 8 rows
      {48, 15360, 5120, "small", 1, 1},      // (measured slower than 64 rows on the H200)
      // Decode with enough tiles that the model ties the default: the
      // 128-row tile is mostly padding (measured 16% and 9% slower).
      {1, 57344, 8192, "small", 1, 1},
      {4, 28672, 4096, "small", 1, 2},
  };
  for (const Case &c : cases) {
    Expected<KernelChoice> k = chooseKernel(c.M, c.N, c.K, DType::F16);
    ASSERT_TRUE(k) << k.status().message();
    const std::string shape =
        std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K);
    EXPECT_EQ(k->family, c.family) << shape << ": " << k->reason;
    EXPECT_GE(k->splitK, c.minSplit) << shape << ": " << k->reason;
    EXPECT_LE(k->splitK, c.maxSplit) << shape << ": " << k->reason;
    const bool defaultIsPadding = c.M < 64;
    if (!defaultIsPadding) {
      EXPECT_LE(k->predictedUs, k->defaultUs) << shape;
    }
    if (k->family != "large" && !defaultIsPadding) {
      EXPECT_LE(k->predictedUs * 1.10, k->defaultUs) << shape << ": left the default for less";
    }
    EXPECT_NE(k->reason.find(shape), std::string::npos) << k->reason;
  }
}

TEST(KernelChoice, RefusesWhatItCannotChoose) {
  struct Bad {
    long long M, N, K;
    DType t;
    const char *says;
  } bad[] = {{0, 64, 64, DType::F16, "at least 1"},
             {64, -1, 64, DType::BF16, "at least 1"},
             {64, 64, 0, DType::F16, "at least 1"},
             {64, 64, 64, DType::E4M3, "give a spec file"},
             {64, 64, 64, DType::F32, "give a spec file"}};
  for (const Bad &b : bad) {
    Expected<KernelChoice> k = chooseKernel(b.M, b.N, b.K, b.t);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(k.status().message().find(b.says), std::string::npos) << k.status().message();
  }
}

// Every spec the chooser can return: the three families, each split it
// tries, both types. Shapes are picked so that each combination wins.
TEST(KernelChoice, EveryChoiceCompilesThroughTheChecks) {
  int distinct = 0;
  std::set<std::string> seen;
  for (DType t : {DType::F16, DType::BF16})
    for (long long M : {1LL, 16LL, 128LL, 512LL, 1024LL, 4096LL})
      for (long long N : {512LL, 2112LL, 4096LL, 28672LL})
        for (long long K : {512LL, 4096LL, 18432LL}) {
          Expected<KernelChoice> k = chooseKernel(M, N, K, t);
          ASSERT_TRUE(k) << k.status().message();
          if (!seen.insert(k->name).second)
            continue;
          ++distinct;
          DiagnosticEngine diags;
          auto compiled = compileSpecText(k->specYaml, k->name + ".yaml", EmitOptions{}, diags);
          ASSERT_TRUE(compiled) << k->name << ":\n" << k->specYaml;
          EXPECT_EQ(compiled->abi.kernelName, k->name);
          EXPECT_EQ((int)compiled->spec.scheduler.splitK.value, k->splitK) << k->name;
        }
  EXPECT_GE(distinct, 6) << "the shapes should reach several families and splits";
}

// The runtime cuts K into equal slices of whole k-blocks only (SplitK.cpp):
// a split the chooser returns is one the launch runs as asked.
TEST(KernelChoice, SplitsAreOnesTheRuntimeRuns) {
  for (long long K : {3000LL, 4104LL, 4096LL, 7168LL, 8192LL, 14336LL})
    for (long long M : {1LL, 16LL, 64LL})
      for (long long N : {1000LL, 2112LL, 6144LL}) {
        Expected<KernelChoice> k = chooseKernel(M, N, K, DType::F16);
        ASSERT_TRUE(k);
        if (k->splitK > 1) {
          EXPECT_EQ(K % 64, 0) << k->reason;
          EXPECT_EQ((K / 64) % k->splitK, 0) << k->reason;
        }
      }
  Expected<KernelChoice> odd = chooseKernel(3, 1000, 3000, DType::BF16); // 46.9 k-blocks
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->splitK, 1) << odd->reason;
}

// A family's spec is the spec file it was measured as: the same CUDA source
// but for the kernel's name (the default: spec 05 and 06).
void expectSameKernelAs(long long M, long long N, long long K, DType t, const char *family,
                        const std::string &file) {
  Expected<KernelChoice> k = chooseKernel(M, N, K, t);
  ASSERT_TRUE(k);
  ASSERT_EQ(k->family, family);
  DiagnosticEngine d1, d2;
  auto chosen = compileSpecText(k->specYaml, k->name + ".yaml", EmitOptions{}, d1);
  auto measured = compileSpecFile(std::string(GEMMGEN_SOURCE_DIR) + "/" + file, EmitOptions{}, d2);
  ASSERT_TRUE(chosen && measured) << file;
  std::string renamed =
      std::regex_replace(chosen->source, std::regex(k->name), measured->abi.kernelName);
  // Comment lines (the description) and the indentation the name's length
  // moves are not the kernel.
  auto code = [](const std::string &s) {
    std::istringstream in(s);
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("//", 0) != 0)
        out += std::regex_replace(line, std::regex("^ +"), "") + "\n";
    return out;
  };
  EXPECT_TRUE(code(renamed) == code(measured->source))
      << file << ": the chooser's " << family << " family is no longer this spec's kernel";
}

TEST(KernelChoice, FamiliesAreTheMeasuredSpecs) {
  expectSameKernelAs(4096, 4096, 4096, DType::F16, "large", "specs/sm90/05_fast_f16.yaml");
  expectSameKernelAs(4096, 4096, 4096, DType::BF16, "large", "specs/sm90/06_fast_bf16.yaml");
  expectSameKernelAs(768, 3072, 3072, DType::F16, "wide", "bench/families/wide_d5_c64.yaml");
}

} // namespace

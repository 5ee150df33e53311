//===- RuntimeInternalTest.cpp - Runtime-private pieces without a GPU -----===//
//
// The split of D's columns between the GEMM kernel's TMA store (whole
// 16-byte chunks) and the SIMT tail kernel, and the tail kernel compiling
// with NVRTC for the H200's architecture without spills. Its results are
// checked on the GPU (tests/gpu/GpuBoundsThreadsTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "gemmgen/EpilogueChain.h"

#include <gtest/gtest.h>

using namespace gemmgen;

TEST(TailColumns, TheStoreKeepsWholeSixteenByteChunks) {
  struct {
    long long N, stored;
  } cases[] = {{1, 0}, {5, 0}, {7, 0}, {8, 8}, {9, 8}, {250, 248}, {256, 256}, {257, 256},
               {4099, 4096}, {50257, 50256}};
  for (auto c : cases) {
    EXPECT_EQ(tmaStoreColumns(c.N, DType::F16), c.stored) << "N=" << c.N;
    EXPECT_EQ(tmaStoreColumns(c.N, DType::BF16), c.stored) << "N=" << c.N;
  }
}

TEST(StagingCopy, WordsFormAndGridFollowTheAlignment) {
  // copyLaunchOf: the widest word every address, pitch, run and batch stride
  // is a whole number of; a block per line from 64 words a line, else a word
  // per thread; never more than kCopyMaxBlocks blocks.
  struct {
    const char *what;
    PreparedLaunch::Copy c;
    int word;
    long long run;
    bool perLine;
    unsigned blocks;
  } cases[] = {
      {"1000 f16 rows of 1001 (2002 bytes)", {0x10000, 0x20000, 1000, 1001, 1001, 1008, 2}, 2,
       1001, true, 1000},
      {"aligned rows of 4104 f16", {0x10000, 0x20000, 4096, 4104, 4104, 4104, 2}, 16, 513, true,
       4096},
      {"rows of 2050 f16 (4100 bytes)", {0x10000, 0x20000, 2048, 2050, 2050, 2056, 2}, 4, 1025,
       true, 2048},
      {"a source one byte off", {0x10001, 0x20000, 64, 4096, 4096, 4096, 1}, 1, 4096, true, 64},
      {"8 f16 columns: one 16-byte word a line", {0x10000, 0x20000, 129, 8, 8, 8, 2}, 16, 1, false,
       1},
      {"200-byte rows: 25 words of 8", {0x10000, 0x20000, 257, 100, 100, 104, 2}, 8, 25, false, 26},
      {"20000 lines, capped", {0x10000, 0x20000, 20000, 1024, 1024, 1024, 2}, 16, 128, true,
       (unsigned)kCopyMaxBlocks},
      {"batch entries 4 bytes apart", {0x10000, 0x20000, 8, 64, 64, 64, 2, 3, 8 * 64 + 2, 8 * 64},
       4, 32, false, 3},
  };
  for (const auto &t : cases) {
    SCOPED_TRACE(t.what);
    const CopyLaunch l = copyLaunchOf(t.c);
    EXPECT_EQ(l.wordBytes, t.word);
    EXPECT_EQ(l.run, t.run);
    EXPECT_EQ(l.srcLd * l.wordBytes, t.c.srcLd * t.c.elemBytes);
    EXPECT_EQ(l.dstLd * l.wordBytes, t.c.dstLd * t.c.elemBytes);
    EXPECT_EQ(l.srcStride * l.wordBytes, t.c.srcStride * t.c.elemBytes);
    EXPECT_EQ(l.linePerBlock, t.perLine);
    EXPECT_EQ(l.blocks, t.blocks);
  }
}

TEST(TailColumns, KernelCompilesForSm90WithoutSpills) {
  CompileOptions opts;
  opts.useCache = false;
  // The tail kernel, and narrow kernels within the registers that keep the
  // blocks per SM their launch bound names (narrowCtasPerSm: 65536 registers
  // an SM, allocated 8 a thread at a time); every name ensureHelperModule
  // looks up must be there.
  struct Narrow {
    DType t;
    unsigned cols;
    bool mn;
    NarrowGrid grid;
    bool realigned;
    bool chain = false;
  };
  const NarrowGrid one{1, 1}, two{2, 1}, split2{1, 2}, split4{1, 4};
  std::vector<std::pair<std::string, unsigned>> entries = {{"gg_tail_columns", 255}};
  for (const Narrow &n : {Narrow{DType::F16, 1, false, one, false},
                          Narrow{DType::BF16, 2, false, one, false},
                          Narrow{DType::F16, 4, false, one, false},
                          Narrow{DType::F16, 2, true, one, false},
                          Narrow{DType::BF16, 4, true, one, false},
                          Narrow{DType::F16, 1, false, two, false},
                          Narrow{DType::BF16, 2, false, two, false},
                          Narrow{DType::BF16, 2, true, two, false},
                          Narrow{DType::F16, 1, false, split2, false},
                          Narrow{DType::BF16, 2, false, split4, false},
                          Narrow{DType::F16, 3, false, split2, false},
                          Narrow{DType::BF16, 4, false, split2, false},
                          Narrow{DType::BF16, 1, false, one, true},
                          Narrow{DType::F16, 2, false, one, true},
                          Narrow{DType::F16, 1, false, split2, true},
                          Narrow{DType::BF16, 2, false, split2, true},
                          Narrow{DType::BF16, 1, false, split4, true},
                          Narrow{DType::F16, 2, false, split4, true},
                          Narrow{DType::F16, 1, false, one, false, true},
                          Narrow{DType::BF16, 1, false, one, false, true},
                          Narrow{DType::BF16, 2, true, one, false, true},
                          Narrow{DType::BF16, 2, false, one, false, true},
                          Narrow{DType::F16, 4, false, one, false, true},
                          Narrow{DType::F16, 2, false, two, false, true},
                          Narrow{DType::F16, 1, false, two, false, true},
                          Narrow{DType::BF16, 2, true, two, false, true},
                          Narrow{DType::BF16, 1, false, split2, false, true},
                          Narrow{DType::F16, 2, false, split2, false, true},
                          Narrow{DType::F16, 1, false, split4, false, true},
                          Narrow{DType::BF16, 2, false, split4, false, true},
                          Narrow{DType::F16, 1, false, one, true, true},
                          Narrow{DType::BF16, 2, false, one, true, true},
                          Narrow{DType::BF16, 1, false, split2, true, true},
                          Narrow{DType::F16, 2, false, split4, true, true}}) {
    const NarrowForm form{n.cols, n.realigned, n.mn, n.chain};
    const unsigned ctas = narrowCtasPerSm(form, n.grid);
    ASSERT_GT(ctas, 0u);
    entries.emplace_back(narrowKernelName(n.t, form, n.grid),
                         65536 / (256 * ctas) / 8 * 8);
  }
  // One compile of each helper module (without the chain's kernels and with
  // them); each entry's ptxas report read from its module's log.
  Expected<CubinResult> r[2] = {
      compileCudaSource(helperModuleSource(false), "helpers.cu", "sm_90", "gg_tail_columns", opts),
      compileCudaSource(helperModuleSource(true), "helpers.cu", "sm_90", "gg_tail_columns", opts)};
  for (const Expected<CubinResult> &m : r)
    ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_FALSE(parsePtxasReport(r[0]->log, "gg_narrow_none").valid); // an entry's own report
  EXPECT_FALSE(parsePtxasReport(r[0]->log, "gg_narrow_f16_1_c").valid); // not in the plain one
  EXPECT_FALSE(parsePtxasReport(r[1]->log, "gg_narrow_f16_1").valid);   // nor the reverse
  for (const auto &[entry, maxRegisters] : entries) {
    SCOPED_TRACE(entry);
    const std::string &log = r[entry.size() > 2 && entry.substr(entry.size() - 2) == "_c"]->log;
    const ResourceUsage usage = parsePtxasReport(log, entry);
    ASSERT_TRUE(usage.valid) << log;
    EXPECT_FALSE(usage.hasSpills()) << log;
    EXPECT_LE(usage.registers, maxRegisters) << log;
  }
  EXPECT_TRUE(parsePtxasReport(r[1]->log, "gg_tail_columns").valid); // both have the tail kernel
}

// The narrow kernels' grid: two rows a warp where one a warp takes more than
// one wave of blocks and two fit in one; a row shared by 4 or 2 warps where
// that many still fit one wave; past one wave where two rows a warp do not
// fit it, a row shared by 2 warps where that fills the last wave by more
// than 5 points more (132 SMs; one column: 8 blocks of 8 warps an SM at one
// row a warp or a shared row, 6 at two rows; two columns 6, 5, 6; three and
// four 4 at one row a warp or 2 warps a row; realigned rows one a warp or
// shared, 6 blocks an SM of one column, 4 of two; packed MN-major tokens one
// or two rows a warp). 28672 rows of one column: 3.39 waves of one row a
// warp (a last wave 39% full), 6.79 of half rows (79%).
TEST(NarrowPath, GridFillsOneWaveOfWarps) {
  struct Case {
    long long rows;
    unsigned cols;
    bool realigned;
    unsigned rowsPerWarp, warpsPerRow;
  } cases[] = {{2112, 1, false, 1, 4},  {2113, 1, false, 1, 2},  {4096, 1, false, 1, 2},
               {4224, 1, false, 1, 2},  {4225, 1, false, 1, 1},  {6144, 1, false, 1, 1},
               {8448, 1, false, 1, 1},  {8449, 1, false, 2, 1},  {11008, 1, false, 2, 1},
               {12672, 1, false, 2, 1}, {12673, 1, false, 1, 1}, {57344, 1, false, 1, 1},
               {1584, 2, false, 1, 4},  {3000, 2, false, 1, 2},  {3169, 2, false, 1, 1},
               {6336, 2, false, 1, 1},  {6337, 2, false, 2, 1},  {10560, 2, false, 2, 1},
               {10561, 2, false, 1, 1}, {14336, 2, false, 1, 2}, {1000, 3, false, 1, 2},
               {11008, 4, false, 1, 1}, {1000, 2, true, 1, 4},   {1057, 2, true, 1, 2},
               {28672, 1, false, 1, 2}, {14336, 4, false, 1, 2}, {12672, 4, false, 1, 1},
               {28672, 4, false, 1, 1}, {4225, 3, false, 1, 2},  {2112, 4, false, 1, 2},
               {2113, 4, false, 1, 1},  {2113, 2, true, 1, 1},   {1584, 1, true, 1, 4},
               {1585, 1, true, 1, 2},   {3168, 1, true, 1, 2},   {3169, 1, true, 1, 1},
               {57344, 1, true, 1, 1}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " rows, " + std::to_string(c.cols) + " columns, " +
                 (c.realigned ? "realigned" : "aligned"));
    const NarrowGrid g = narrowGrid(c.rows, NarrowForm{c.cols, c.realigned}, 132);
    EXPECT_EQ(g.rowsPerWarp, c.rowsPerWarp);
    EXPECT_EQ(g.warpsPerRow, c.warpsPerRow);
    EXPECT_EQ(g.rowsPerBlock(), 8 * c.rowsPerWarp / c.warpsPerRow);
  }
  const NarrowGrid unknown = narrowGrid(11008, NarrowForm{}, 0); // SM count unknown: one row
  EXPECT_EQ(unknown.rowsPerWarp, 1u);
  EXPECT_EQ(unknown.warpsPerRow, 1u);
  // Packed MN-major tokens: two rows a warp, never a shared row (no such kernels).
  const NarrowGrid packedFew = narrowGrid(3000, NarrowForm{2, false, true}, 132),
                   packedMany = narrowGrid(9000, NarrowForm{2, false, true}, 132);
  EXPECT_EQ(packedFew.warpsPerRow, 1u);
  EXPECT_EQ(packedFew.rowsPerWarp, 1u);
  EXPECT_EQ(packedMany.rowsPerWarp, 2u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{2, false, true}, NarrowGrid{1, 2}), 0u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{2, false, true}, NarrowGrid{2, 1}), 5u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{3}, NarrowGrid{2, 1}), 0u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{5}), 0u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{3, true}), 0u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{1, true}), 6u); // realigned rows: 40 registers
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{2, true}, NarrowGrid{1, 4}), 4u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{1, true}, NarrowGrid{2, 1}), 0u);
  // With an epilogue chain: one column one row a warp at six blocks an SM
  // (6336 warps a wave on 132 SMs), a shared row at eight (8448), so its own
  // edges: one row a warp from 4225 rows, two rows a warp from 6337 to
  // 12672, 2 warps a row past that where their last wave is fuller.
  const struct {
    long long rows;
    unsigned rowsPerWarp, warpsPerRow;
  } chained[] = {{2112, 1, 4},  {2113, 1, 2},  {3169, 1, 2},  {4224, 1, 2},
                 {4225, 1, 1},  {6336, 1, 1},  {6337, 2, 1},  {11008, 2, 1},
                 {12672, 2, 1}, {12673, 1, 2}, {57344, 1, 2}, {19008, 1, 1}};
  for (const auto &c : chained) {
    const NarrowGrid g = narrowGrid(c.rows, NarrowForm{1, false, false, true}, 132);
    EXPECT_EQ(g.rowsPerWarp, c.rowsPerWarp) << c.rows << " rows, chained";
    EXPECT_EQ(g.warpsPerRow, c.warpsPerRow) << c.rows << " rows, chained";
  }
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{1, false, false, true}), 6u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{1, false, false, true}, NarrowGrid{1, 4}), 8u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{2, false, true, true}), 6u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{1, true, false, true}), 6u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{2, true, false, true}, NarrowGrid{1, 2}), 4u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{3, true, false, true}), 0u);
  EXPECT_EQ(narrowCtasPerSm(NarrowForm{3, false, false, true}, NarrowGrid{2, 1}), 0u);
}

// The chain as the runtime hands it to the tail kernel and the reference
// (chainData, from KernelInfo::epilogue) is the chain as the compiler and
// the simulator read it (toChainData, from the spec's steps): op codes,
// clamp bounds and the bias type's code, for each bias type.
TEST(EpilogueChainData, RuntimeAndCompilerAgree) {
  for (ScalarType bias : {ScalarType::F16, ScalarType::BF16, ScalarType::F32}) {
    std::vector<EpilogueStep> steps(3);
    steps[0].kind = EpilogueOpKind::Bias, steps[0].axis = BiasAxis::Row, steps[0].biasType = bias;
    steps[1].kind = EpilogueOpKind::GeluTanh;
    steps[2].kind = EpilogueOpKind::Clamp, steps[2].lo = -2.0f, steps[2].hi = 3.0f;
    const epilogue::Chain want = toChainData(steps);
    GemmArgs a;
    a.bias = 0x1000, a.strideBias = 7, a.scaleD = 0x2000;
    const epilogue::Chain got = chainData(epilogueInfo(steps), a);
    ASSERT_EQ(got.steps, want.steps);
    for (int s = 0; s < want.steps; ++s) {
      EXPECT_EQ(got.op[s], want.op[s]) << s;
      EXPECT_EQ(got.lo[s], want.lo[s]) << s;
      EXPECT_EQ(got.hi[s], want.hi[s]) << s;
    }
    EXPECT_EQ(got.bias_type, want.bias_type) << describe(steps[0]);
    EXPECT_EQ(got.bias_stride, 7);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got.bias), 0x1000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got.scale_d), 0x2000u);
  }
}

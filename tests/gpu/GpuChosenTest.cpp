//===- GpuChosenTest.cpp - Chosen kernels, narrow path, split-K, stream-K -===//
//
// The kernels the runtime picks or adds on the GPU: chooseKernel's choice
// for shapes of every family it reaches, the SIMT narrow path
// (scheduler.simt_narrow: prepare's path and every element, with the launches
// it does not take), split-K's dependent reduction reading only finished
// slices, and stream-K launched again and again. Fresh random inputs, D
// poisoned, every element against the reference, D's padding checked
// untouched. (ctest label gpu; every test skips without a GPU.)
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>

using namespace gemmgen;
using namespace gemmgen::gputest;
using gemmgen::testing::fileText;
using gemmgen::testing::withEdit;

/// What chooseKernel returns for a shape (and `gemmgen run/bench auto`
/// compiles), run on that shape: every family and split the sweep's shape
/// classes reach, both types, verified and bounds-checked like every spec.
struct ChosenCase {
  long long M, N, K;
  DType t;
};
const ChosenCase kChosenCases[] = {
    {1, 2112, 7168, DType::F16},    {16, 4096, 4096, DType::BF16}, {1, 4096, 14336, DType::F16},
    {512, 4096, 7168, DType::BF16}, {512, 512, 512, DType::F16},   {1024, 1024, 1024, DType::BF16},
    {128, 8192, 8192, DType::F16},  {4096, 2112, 7168, DType::F16}, {3, 1000, 3000, DType::BF16},
    {4096, 4096, 4096, DType::BF16}, {768, 3072, 3072, DType::F16}, {1536, 1536, 1536, DType::BF16},
    {2304, 4608, 4608, DType::F16},
    // The wave-filling widths (fit112, fit160) and the multicast default
    // on packed rows that straddle 32-byte sectors (large_c2, no copy).
    {256, 7168, 7168, DType::F16},  {3072, 768, 3072, DType::BF16}, {4096, 4096, 4104, DType::F16},
    {1000, 3000, 2056, DType::BF16}, {512, 7168, 2048, DType::BF16}, // fit224
    // Decode with D column-major (16x4096x4096 and 1x4096x14336 above too):
    // 4100 weights, not whole 16-byte chunks of the kernel's M, staged; with
    // K split (1x2112x7168 above too): 1601 weights in 4 slices.
    {7, 4100, 1000, DType::BF16}, {32, 4096, 4096, DType::F16}, {21, 6000, 520, DType::BF16},
    {5, 1601, 2048, DType::BF16}, {16, 4096, 9216, DType::F16},
    // 64-95 tiles at K > 8192, unsplit since bench/h200-decode-deep.sh: 71
    // tiles (4500 weights, D staged), K not whole k-blocks.
    {3, 4500, 9000, DType::F16},
    // 33-64 tokens (decode64): 64 tokens, and 37 of 3000 weights (a residue
    // in both).
    {64, 4096, 4096, DType::F16}, {37, 3000, 4100, DType::BF16},
    // 1-16 tokens of >= 96 tiles: two CTAs per SM (decode, unsplit); 7000
    // weights: a residue.
    {1, 6144, 4096, DType::F16}, {9, 7000, 1000, DType::BF16},
    // Short K on many tiles: ping-pong consumers (spec 20's kernel); residues
    // in M and N.
    {4096, 4096, 512, DType::F16}, {4100, 4000, 960, DType::BF16},
    // 152-column tiles on ping-pong consumers, their last epilogue chunk
    // overlapping the one before; a residue in M.
    {3000, 5000, 2048, DType::F16}, {2000, 5000, 2048, DType::BF16},
    // Many rows, at most 64 columns: the decode families' row-major twins
    // (two CTAs per SM, 16 stages, 64x32, 64x64, K in 4 slices); residues
    // in M, N and K.
    {8200, 13, 520, DType::F16}, {6080, 16, 1000, DType::BF16}, {4096, 1, 4100, DType::F16},
    {4100, 30, 1000, DType::BF16}, {3000, 50, 2000, DType::F16}, {1601, 8, 2048, DType::BF16},
    // Few tiles, long K: the small family's split in one launch (its stream-K
    // kernel, each tile's K in 2 aligned shares); residues in M.
    {100, 4096, 11008, DType::F16}, {200, 2048, 7168, DType::BF16}};

class ChosenKernel : public ::testing::TestWithParam<ChosenCase> {};

TEST_P(ChosenKernel, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const ChosenCase &c = GetParam();
  Expected<KernelChoice> choice = chooseKernel(c.M, c.N, c.K, c.t);
  ASSERT_TRUE(choice) << choice.status().message();
  auto it = gpu.kernels.find(choice->name);
  if (it == gpu.kernels.end())
    it = gpu.kernels.emplace(choice->name, gpu.rt->compileString(choice->specYaml, choice->name))
             .first;
  ASSERT_TRUE(it->second.ok()) << it->second.status().message();
  const Kernel &k = *it->second;
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  a.ldd = roundUp(a.N, 8);
  expectMatchesReference(choice->name + " (" + choice->reason + ")", k, a);
}

INSTANTIATE_TEST_SUITE_P(Sm90, ChosenKernel, ::testing::ValuesIn(kChosenCases),
                         [](const ::testing::TestParamInfo<ChosenCase> &info) {
                           const ChosenCase &c = info.param;
                           return std::to_string(c.M) + "x" + std::to_string(c.N) + "x" +
                                  std::to_string(c.K) + "_" + toString(c.t);
                         });

/// scheduler.simt_narrow: a launch whose D has at most 2 rows (or columns),
/// K-major operands, runs on the SIMT path — prepare's path says so — and
/// every element matches the reference with D's padding untouched: both
/// orientations, 1 and 2 rows, bf16, an f32 D, alpha/beta with C separate
/// and in place, a strided batch with gaps, a column-major D; the short
/// operand packed MN-major (column-major A and B with a column-major D, B
/// row-major), 1-4 columns; two rows a warp; rows not 16-byte aligned
/// (realigned); the spec's epilogue chain (bias along either axis of D,
/// whichever operand's rows the warps stream, activations, residual, clamp,
/// scale); launches it does not take (3 rows, the long operand MN-major,
/// packed tokens against rows not 16-byte aligned) run on the spec's kernel
/// and match too. Fresh inputs each.
struct NarrowCase {
  const char *spec; ///< a specs/sm90 file, compiled with simt_narrow: `narrow` added
  long long M, N, K;
  CMode c;
  long long batch;
  Layout d;
  long long offset; ///< elements every pointer is moved by
  bool taken;
  Layout a = Layout::Row, b = Layout::Col; ///< as the user stores A and B (packed)
  int narrow = 2;
  bool pair = false; ///< two rows a warp (narrowGrid) on a GPU of 132 SMs
  const char *chain = nullptr; ///< an epilogue.chain (YAML flow list) added to the spec
};
class NarrowPath : public ::testing::TestWithParam<NarrowCase> {};

TEST_P(NarrowPath, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const NarrowCase &c = GetParam();
  const std::string kind = "scheduler: { kind: persistent,";
  std::string yaml = withEdit(fileText(specsDir() / c.spec), kind,
                              kind + " simt_narrow: " + std::to_string(c.narrow) + ",");
  if (c.chain)
    yaml =
        withEdit(yaml, "overlap: true }", "overlap: true, chain: " + std::string(c.chain) + " }");
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K, a.layoutD = c.d, a.batch = c.batch;
  a.layoutA = c.a, a.layoutB = c.b;
  // The kernel's layouts: those of the problem with D row-major.
  const GemmArgs rm = rowMajorProblem(a);
  CompileOptions options;
  options.spec.layoutA = rm.layoutA, options.spec.layoutB = rm.layoutB;
  const std::string name = std::string("narrow_") + std::string(c.spec).substr(0, 2) + "_" +
                           toString(rm.layoutA) + "_" + toString(rm.layoutB) + "_" +
                           std::to_string(c.narrow) +
                           (c.chain ? "_chain" + std::to_string(std::hash<std::string>{}(c.chain))
                                    : std::string());
  auto it = gpu.kernels.find(name);
  if (it == gpu.kernels.end())
    it = gpu.kernels.emplace(name, gpu.rt->compileString(yaml, name, options)).first;
  ASSERT_TRUE(it->second.ok()) << it->second.status().message();
  const Kernel &k = *it->second;
  a.lda = storedShape(a, 'A').length, a.ldb = storedShape(a, 'B').length;
  a.ldd = roundUp(storedShape(a, 'D').length, 8) + 8;
  if (c.batch > 1) {
    a.strideA = storedShape(a, 'A').lines * a.lda + 16;
    a.strideB = storedShape(a, 'B').lines * a.ldb + 8;
    a.strideD = storedShape(a, 'D').lines * a.ldd + 24;
  }
  if (c.c != CMode::None)
    a.alpha = 0.5f, a.beta = -1.5f;
  FreeAll freeAll{*gpu.rt, {}};
  ProblemOnGpu p{a, c.c};
  setUpProblem(k, p, c.offset, freeAll.bufs);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const std::size_t wsBytes = k.workspaceBytes(p.a);
  if (c.taken) {
    EXPECT_EQ(wsBytes, 0u) << "the SIMT path copies nothing";
  }
  if (wsBytes) {
    Expected<CUdeviceptr> ws = gpu.rt->alloc(wsBytes);
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    freeAll.bufs.push_back(*ws);
    p.a.workspace = *ws, p.a.workspaceBytes = wsBytes;
  }
  Expected<PreparedLaunch> prep = k.prepare(p.a);
  ASSERT_TRUE(prep.ok()) << prep.status().message();
  EXPECT_EQ(prep->path.rfind("simt_narrow", 0) == 0, c.taken) << prep->path;
  if (gpu.rt->device().smCount == 132) {
    EXPECT_EQ(prep->path.find("two a warp") != std::string::npos, c.pair) << prep->path;
  }
  ASSERT_TRUE(k.launch(*prep, gpu.stream).ok());
  waitOrExit(watchdogSeconds(a.M * a.batch, a.N, a.K));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  verifyProblem(name + " [" + prep->path + "]", k, p);
}

const NarrowCase kNarrowCases[] = {
    {"05_fast_f16.yaml", 1, 4096, 4096, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 2, 3000, 1000, CMode::Separate, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1000, 1, 520, CMode::InPlace, 1, Layout::Row, 0, true}, // rows of A
    {"05_fast_f16.yaml", 4000, 2, 2056, CMode::None, 1, Layout::Col, 0, true},   // D^T: 2 rows
    {"06_fast_bf16.yaml", 2, 5000, 2048, CMode::Separate, 3, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 777, 1, 136, CMode::None, 4, Layout::Row, 0, true},
    {"10_fast_f16_out_f32.yaml", 1, 4096, 1024, CMode::Separate, 1, Layout::Row, 0, true},
    {"25_decode_two_ctas_f16.yaml", 1, 6144, 4096, CMode::InPlace, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 2112, 7168, CMode::None, 1, Layout::Row, 0, true},
    // The short operand packed MN-major: column-major A, B and D (D^T = B^T·A^T,
    // the tokens its N-major B), or B row-major; one column is K-major.
    {"05_fast_f16.yaml", 2, 4096, 4096, CMode::None, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col},
    {"05_fast_f16.yaml", 1, 4096, 14336, CMode::Separate, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col},
    {"06_fast_bf16.yaml", 4096, 2, 2048, CMode::InPlace, 3, Layout::Row, 0, true, Layout::Row,
     Layout::Row},
    {"05_fast_f16.yaml", 3000, 3, 1024, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row, 4},
    {"06_fast_bf16.yaml", 3000, 2, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row}, // few rows of packed tokens: one row a warp (no shared-row _mn kernel)
    {"06_fast_bf16.yaml", 4, 5000, 512, CMode::Separate, 2, Layout::Col, 0, true, Layout::Col,
     Layout::Col, 4},
    {"10_fast_f16_out_f32.yaml", 2000, 4, 1024, CMode::None, 1, Layout::Row, 0, true,
     Layout::Row, Layout::Row, 4},
    // Two rows a warp (1.30-1.42 waves of one a warp), an odd count: the last
    // warp's second row is past D.
    {"05_fast_f16.yaml", 1, 11001, 1024, CMode::InPlace, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true},
    {"06_fast_bf16.yaml", 9001, 2, 520, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true},
    {"06_fast_bf16.yaml", 4501, 2, 520, CMode::InPlace, 2, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true}, // two batch entries' rows: 1.42 waves of one a warp
    {"05_fast_f16.yaml", 2, 9003, 264, CMode::None, 1, Layout::Col, 0, true, Layout::Col,
     Layout::Col, 2, true},
    // A row shared by 2 warps: 3-4 columns under half a wave; 2-4 columns
    // past one wave where half rows fill the last wave better (132 SMs).
    {"05_fast_f16.yaml", 3, 2000, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    {"06_fast_bf16.yaml", 4, 1500, 520, CMode::InPlace, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    {"05_fast_f16.yaml", 2, 14336, 264, CMode::None, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 4, 14336, 256, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 4},
    // Rows not 16-byte aligned, realigned: 8-byte rows (K = 4100, 1004), K
    // odd, every pointer one element off.
    {"05_fast_f16.yaml", 4096, 1, 4100, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 2, 1000, 1004, CMode::Separate, 3, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 4096, 4099, CMode::InPlace, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 3001, 2, 1001, CMode::None, 2, Layout::Col, 0, true},
    {"05_fast_f16.yaml", 1, 4096, 1024, CMode::None, 1, Layout::Row, 1, true},
    {"10_fast_f16_out_f32.yaml", 2, 777, 515, CMode::Separate, 1, Layout::Row, 0, true},
    // Realigned rows: a row shared by 2 or 4 warps, K from 1 (edges only) to
    // 20001, every shift of A's rows (K odd) against B's, two columns.
    {"05_fast_f16.yaml", 1, 3000, 1001, CMode::None, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 1000, 4097, CMode::Separate, 1, Layout::Row, 3, true},
    {"05_fast_f16.yaml", 2, 1000, 777, CMode::InPlace, 1, Layout::Row, 1, true},
    {"06_fast_bf16.yaml", 2, 2000, 4099, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 4096, 1, CMode::Separate, 1, Layout::Row, 0, true},
    {"06_fast_bf16.yaml", 1, 300, 7, CMode::None, 1, Layout::Row, 5, true},
    {"05_fast_f16.yaml", 2, 300, 15, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 300, 23, CMode::InPlace, 1, Layout::Row, 2, true},
    {"06_fast_bf16.yaml", 2, 500, 24, CMode::None, 1, Layout::Row, 1, true},
    {"05_fast_f16.yaml", 1, 300, 31, CMode::None, 1, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 300, 33, CMode::Separate, 1, Layout::Row, 3, true},
    {"06_fast_bf16.yaml", 2, 200, 47, CMode::None, 2, Layout::Row, 0, true},
    {"05_fast_f16.yaml", 1, 600, 20001, CMode::None, 1, Layout::Row, 7, true},
    {"10_fast_f16_out_f32.yaml", 3001, 1, 1001, CMode::Separate, 1, Layout::Col, 1, true},
    // Not taken: the spec's kernel.
    {"05_fast_f16.yaml", 2, 4096, 1024, CMode::None, 1, Layout::Row, 0, false, Layout::Row,
     Layout::Row}, // B's rows are the long ones, and N-major
    {"05_fast_f16.yaml", 3, 4096, 1024, CMode::None, 1, Layout::Row, 0, false},
    {"06_fast_bf16.yaml", 4096, 2, 4100, CMode::None, 1, Layout::Row, 0, false, Layout::Row,
     Layout::Row}, // packed tokens need 16-byte rows of A
    // The spec's epilogue chain: D^T for rows of B (D's column bias its row
    // bias), rows of A (4 warps a row), a batch with a bias per entry (two
    // rows a warp) and C in place as the residual, 2 warps a row, an f32 D, 3
    // packed columns; rows not 16-byte aligned (realigned).
    {"06_fast_bf16.yaml", 1, 4096, 4096, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column, type: bf16}}, gelu_tanh]"},
    {"05_fast_f16.yaml", 1000, 2, 520, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row, type: f32}}, relu]"},
    {"05_fast_f16.yaml", 2, 3000, 1000, CMode::InPlace, 3, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, true, "[{bias: {per: row}}, silu, residual]"},
    {"06_fast_bf16.yaml", 1, 2112, 2048, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column, type: bf16}}, relu]"},
    {"10_fast_f16_out_f32.yaml", 1, 4096, 1024, CMode::Separate, 1, Layout::Row, 0, true,
     Layout::Row, Layout::Col, 2, false, "[gelu_erf, {clamp: {min: -0.25, max: 2}}, scale]"},
    {"06_fast_bf16.yaml", 3000, 3, 1024, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Row, 4, false, "[{bias: {per: column, type: f32}}, gelu_tanh, residual]"},
    {"05_fast_f16.yaml", 1, 4096, 1001, CMode::None, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: column}}, relu]"},
    {"06_fast_bf16.yaml", 4096, 1, 4100, CMode::Separate, 1, Layout::Row, 0, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row, type: bf16}}, gelu_tanh]"},
    {"05_fast_f16.yaml", 2, 1000, 777, CMode::InPlace, 1, Layout::Row, 1, true, Layout::Row,
     Layout::Col, 2, false, "[{bias: {per: row}}, silu, residual]"},
    {"10_fast_f16_out_f32.yaml", 1, 3000, 33, CMode::Separate, 1, Layout::Row, 3, true,
     Layout::Row, Layout::Col, 2, false, "[{bias: {per: column, type: f32}}, gelu_erf]"},
};

INSTANTIATE_TEST_SUITE_P(Sm90, NarrowPath, ::testing::ValuesIn(kNarrowCases),
                         [](const ::testing::TestParamInfo<NarrowCase> &info) {
                           const NarrowCase &c = info.param;
                           return std::string(c.spec).substr(0, 2) + "_" + std::to_string(c.M) +
                                  "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + "_" +
                                  std::to_string(info.index);
                         });

/// Split-K's reduction is a programmatic dependent launch: scheduled while
/// the slices still run, it must read W only after the split kernel has
/// finished (griddepcontrol.wait). One workspace kept across rounds, so a
/// reduction that read W early would sum the previous round's slices (other
/// inputs: a wrong D); each round on fresh inputs, one launch verified, then
/// 20 back-to-back launches of the same problem verified again.
TEST(SplitK, DependentReductionReadsFinishedSlices) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("12_splitk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_EQ(k->info().splitK, 8u);
  struct Shape {
    long long M, N, K;
    CMode c;
  } shapes[] = {{16, 4096, 4096, CMode::None}, {1, 2112, 7168, CMode::None},
                {100, 1000, 2048, CMode::Separate}};
  for (const Shape &s : shapes) {
    FreeAll freeAll{*gpu.rt, {}};
    GemmArgs shape;
    shape.M = s.M, shape.N = s.N, shape.K = s.K;
    shape.lda = s.K, shape.ldb = s.K, shape.ldd = (s.N + 7) / 8 * 8;
    if (s.c != CMode::None)
      shape.alpha = 0.5f, shape.beta = 2.0f;
    const std::size_t wsBytes = k->workspaceBytes(shape);
    Expected<CUdeviceptr> ws = gpu.rt->alloc(wsBytes);
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    freeAll.bufs.push_back(*ws);
    for (int round = 0; round < 3; ++round) {
      ProblemOnGpu p{shape, s.c};
      setUpProblem(*k, p, 0, freeAll.bufs);
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      p.a.workspace = *ws, p.a.workspaceBytes = wsBytes;
      Expected<PreparedLaunch> prep = k->prepare(p.a);
      ASSERT_TRUE(prep.ok()) << prep.status().message();
      const std::string name = "12_splitk_f16.yaml " + std::to_string(s.M) + "x" +
                               std::to_string(s.N) + "x" + std::to_string(s.K) + " round " +
                               std::to_string(round);
      ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
      waitOrExit(watchdogSeconds(s.M * 20, s.N, s.K));
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      verifyProblem(name + ", one launch", *k, p);
      for (int i = 0; i < 20; ++i) // C separate: every launch gives the same D
        ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
      waitOrExit(watchdogSeconds(s.M * 20 * 20, s.N, s.K));
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      verifyProblem(name + ", 20 launches", *k, p);
    }
  }
}

/// Stream-K (spec 18) launched again and again: every launch must start from
/// zeroed flags, or a finishing CTA would take a previous launch's flag for
/// this one's partial sum (a stale or half-written sum: a wrong D, or a hang
/// where a flag is never raised). One prepared launch repeated on a fixed
/// workspace (only its first launch zeroes the flags; each launch's takers
/// reset them; the partial sums poisoned before each launch), then launches
/// that allocate theirs on the stream (whatever the memory held), each time
/// on fresh inputs and verified. Two shapes:
/// 72 tiles of 48 k-blocks over the resident CTAs (most tiles split at
/// staggered k-blocks), and 16 tiles of 32 k-blocks, whose shares the launch
/// aligns (8 a tile on a GPU of 128-170 resident CTAs: split-K in one launch).
TEST(StreamK, RepeatedLaunchesStayRight) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("18_streamk_f16.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().streamK);
  struct Shape {
    long long m, n, k;
  };
  for (const Shape s : {Shape{768, 3072, 3072}, Shape{512, 1024, 2048}}) {
    const std::string name = "18_streamk_f16.yaml at " + std::to_string(s.m) + "x" +
                             std::to_string(s.n) + "x" + std::to_string(s.k);
    for (int round = 0; round < 3; ++round) {
      FreeAll freeAll{*gpu.rt, {}};
      GemmArgs a;
      a.M = s.m, a.N = s.n, a.K = s.k;
      a.lda = a.K, a.ldb = a.K, a.ldd = a.N;
      ProblemOnGpu p{a, CMode::None};
      setUpProblem(*k, p, 0, freeAll.bufs);
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      if (round == 0) {
        Expected<CUdeviceptr> ws = gpu.rt->alloc(k->workspaceBytes(p.a));
        ASSERT_TRUE(ws.ok()) << ws.status().message();
        freeAll.bufs.push_back(*ws);
        p.a.workspace = *ws, p.a.workspaceBytes = k->workspaceBytes(p.a);
        Expected<PreparedLaunch> prep = k->prepare(p.a);
        ASSERT_TRUE(prep.ok()) << prep.status().message();
        const int sms = gpu.rt->device().smCount;
        if (s.m == 512 && sms >= 128 && sms <= 170) {
          EXPECT_EQ(prep->path, "tma+stream_k(128 CTAs, K in 8 aligned shares a unit)");
        }
        // Only the first of these launches zeroes the flags (each leaves them
        // zero). The partial sums are poisoned before each: a flag left at 1
        // would let a finishing CTA add NaN before its later share wrote.
        const std::size_t partialFloats = (prep->skFlags - prep->skPartials) / 4;
        for (int i = 0; i < 20; ++i) {
          ASSERT_TRUE(gpu.ver->poison(prep->skPartials, partialFloats, DType::F32, gpu.stream).ok());
          ASSERT_TRUE(k->launch(*prep, gpu.stream).ok());
          EXPECT_TRUE(prep->skFlagsZero);
        }
      } else {
        for (int i = 0; i < 5; ++i)
          ASSERT_TRUE(k->launch(p.a, gpu.stream).ok());
      }
      waitOrExit(watchdogSeconds(a.M * 20, a.N, a.K));
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
      verifyProblem(name + " repeated (round " + std::to_string(round) + ")", *k, p);
    }
  }
}

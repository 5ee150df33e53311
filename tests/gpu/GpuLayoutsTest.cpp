//===- GpuLayoutsTest.cpp - Layouts, batches, alpha/beta on the GPU -------===//
//
// Storage that the plain shape test (GpuGemmTest.cpp) does not reach, on the
// sm_90a specs: a column-major D (a kernel for D^T, or one that stores D
// column-major; also `auto`'s choice), strided batches (gaps, a broadcast B,
// many entries, K = 0), D = alpha·A·B + beta·C (C separate or D itself),
// operands TMA cannot address (staged: odd leading dimensions, pointers off
// 16 bytes), and grouped GEMM (one launch over problems of their own sizes,
// empty ones among them). Fresh random inputs, D poisoned, every element
// against the reference, D's padding and gaps checked untouched.
// (ctest label gpu; every test skips without a GPU.)
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::gputest;
using gemmgen::testing::fileText;
using gemmgen::testing::withEdit;

/// D column-major: computed as D^T = B^T·A^T by a kernel compiled for that
/// problem's layouts (kernelProblem), or directly by a kernel that stores D
/// column-major (spec 23). Each case names the spec whose
/// layouts serve the user's A and B: fresh inputs, D (with padding) poisoned,
/// every element compared with the reference through the column-major index.
struct ColumnMajorDCase {
  const char *spec;
  Layout a, b; ///< as the user stores A and B
};
class ColumnMajorD : public ::testing::TestWithParam<std::tuple<ColumnMajorDCase, Shape>> {};

TEST_P(ColumnMajorD, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[c, shape] = GetParam();
  const Expected<Kernel> &k = gpu.kernel(c.spec);
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a;
  a.M = shape.M, a.N = shape.N, a.K = shape.K;
  a.layoutA = c.a, a.layoutB = c.b, a.layoutD = Layout::Col;
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(storedShape(a, 'D').length, 8);
  EXPECT_EQ(storedShape(a, 'D').lines, a.N); // N columns of M
  expectMatchesReference(c.spec, *k, a);
}

const ColumnMajorDCase kColumnMajorD[] = {
    {"05_fast_f16.yaml", Layout::Row, Layout::Col},        // D^T: A row, B col again
    {"07_fast_f16_a_col.yaml", Layout::Row, Layout::Row},  // D^T: A col, B col
    {"08_fast_f16_b_row.yaml", Layout::Col, Layout::Col},  // D^T: A row, B row
    {"09_fast_bf16_a_col_b_row.yaml", Layout::Col, Layout::Row},
    {"23_decode_col_d_f16.yaml", Layout::Row, Layout::Col}, // stores D column-major itself
    {"24_decode_col_d_split_f16.yaml", Layout::Row, Layout::Col}, // its reduction does
    {"25_decode_two_ctas_f16.yaml", Layout::Row, Layout::Col},    // two CTAs per SM
};
const Shape kColumnMajorDShapes[] = {{129, 257, 72}, {1000, 1001, 520}, {4096, 4096, 4096}};

INSTANTIATE_TEST_SUITE_P(
    Sm90, ColumnMajorD,
    ::testing::Combine(::testing::ValuesIn(kColumnMajorD), ::testing::ValuesIn(kColumnMajorDShapes)),
    [](const ::testing::TestParamInfo<ColumnMajorD::ParamType> &info) {
      std::string n = std::get<0>(info.param).spec;
      n = n.substr(0, n.find('.'));
      const Shape &s = std::get<1>(info.param);
      return n + "_" + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
    });

/// Stream-K on a kernel that stores D column-major: spec 23's decode tile with
/// `kind: stream_k` (the fix-up adds the later shares' partial sums in
/// registers, then the transposed store). 33 tiles of 64 rows x 112 k-blocks
/// (on 132 SMs: 4 aligned shares a tile), residues, and beta with C separate.
TEST(ColumnMajorD, StreamKStoresColumnMajor) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const std::string yaml = withEdit(fileText(specsDir() / "23_decode_col_d_f16.yaml"),
                                    "kind: persistent", "kind: stream_k");
  Expected<Kernel> k = gpu.rt->compileString(yaml, "23_decode_col_d_f16 with stream_k");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().streamK);
  struct Case {
    Shape shape;
    CMode c;
  } cases[] = {{{2112, 8, 7168}, CMode::None},
               {{129, 257, 520}, CMode::None},
               {{1000, 5, 1024}, CMode::Separate}};
  for (const Case &c : cases) {
    GemmArgs a;
    a.M = c.shape.M, a.N = c.shape.N, a.K = c.shape.K;
    a.layoutA = Layout::Row, a.layoutB = Layout::Col, a.layoutD = Layout::Col;
    a.lda = roundUp(storedShape(a, 'A').length, 8);
    a.ldb = roundUp(storedShape(a, 'B').length, 8);
    a.ldd = roundUp(storedShape(a, 'D').length, 8);
    if (c.c != CMode::None)
      a.alpha = 0.5f, a.beta = 2.0f;
    expectMatchesReference("23 with stream_k at " + std::to_string(a.M) + "x" +
                               std::to_string(a.N) + "x" + std::to_string(a.K),
                           *k, a, c.c);
  }
}

/// `auto` with a column-major D: the kernel chosen for choiceProblem (the
/// problem with D row-major: N×M and its layouts), compiled with those
/// layouts, on the user's column-major D — run transposed (a row-major-D
/// family: the tall twins) or not (a column-major-D one), as its D says.
/// Fresh inputs, D and its padding poisoned, every element against the
/// reference through the column-major index.
struct ChosenColumnMajorDCase {
  long long M, N, K;
  Layout a, b; ///< as the user stores A and B
  DType t;
};
class ChosenKernelColumnMajorD : public ::testing::TestWithParam<ChosenColumnMajorDCase> {};

TEST_P(ChosenKernelColumnMajorD, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const ChosenColumnMajorDCase &c = GetParam();
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  a.layoutA = c.a, a.layoutB = c.b, a.layoutD = Layout::Col;
  const ChoiceProblem asked = choiceProblem(a);
  Expected<KernelChoice> choice = chooseKernel(asked.M, asked.N, asked.K, c.t, asked.options);
  ASSERT_TRUE(choice) << choice.status().message();
  CompileOptions options;
  options.spec.layoutA = asked.options.a, options.spec.layoutB = asked.options.b;
  Expected<Kernel> k = gpu.rt->compileString(choice->specYaml, choice->name, options);
  ASSERT_TRUE(k.ok()) << k.status().message();
  a.lda = roundUp(storedShape(a, 'A').length, 8);
  a.ldb = roundUp(storedShape(a, 'B').length, 8);
  a.ldd = roundUp(storedShape(a, 'D').length, 8);
  expectMatchesReference(choice->name + " (" + choice->reason + ")", *k, a);
}

const ChosenColumnMajorDCase kChosenColumnMajorD[] = {
    {16, 4096, 4096, Layout::Row, Layout::Col, DType::F16},   // tall_d16, transposed
    {8, 14336, 4096, Layout::Row, Layout::Col, DType::BF16},  // tall (two CTAs per SM)
    {32, 4096, 4100, Layout::Row, Layout::Col, DType::F16},   // tall32, a K residue
    {64, 3000, 1000, Layout::Row, Layout::Col, DType::BF16},  // tall64, residues
    {3, 4500, 9000, Layout::Row, Layout::Col, DType::F16},    // 3 rows: D staged
    {16, 4096, 4096, Layout::Col, Layout::Col, DType::F16},   // tall_d16: B N-major, 32-byte box
    {1, 2112, 7168, Layout::Col, Layout::Col, DType::BF16},   // tall split 4, one column (padded)
    {8, 14336, 4096, Layout::Col, Layout::Col, DType::F16},   // tall, B N-major in 16 columns
    {32, 4096, 4096, Layout::Col, Layout::Col, DType::BF16},  // tall32, a 64-byte box
    {3, 4500, 9000, Layout::Col, Layout::Col, DType::F16},    // 3 columns of 16, residues
    {24, 6000, 4104, Layout::Col, Layout::Col, DType::BF16},  // tall32 at 24 columns, residues
    {40, 6000, 4100, Layout::Col, Layout::Col, DType::F16},   // tall64, residues
    {16, 4096, 4096, Layout::Row, Layout::Row, DType::BF16},  // kernel layouts col,col
    {1000, 1001, 520, Layout::Row, Layout::Col, DType::F16},  // no decode: transposed as ever
};

INSTANTIATE_TEST_SUITE_P(Sm90, ChosenKernelColumnMajorD, ::testing::ValuesIn(kChosenColumnMajorD),
                         [](const ::testing::TestParamInfo<ChosenColumnMajorDCase> &info) {
                           const ChosenColumnMajorDCase &c = info.param;
                           return std::to_string(c.M) + "x" + std::to_string(c.N) + "x" +
                                  std::to_string(c.K) + "_" + toString(c.a) + "_" +
                                  toString(c.b) + "_" + toString(c.t);
                         });

/// Test names of a (spec, case) suite: the spec's file name without its
/// extension, letters and digits only, then the case's label.
template <typename Param>
std::string specCaseName(const ::testing::TestParamInfo<Param> &info) {
  std::string n = std::get<0>(info.param);
  n = n.substr(0, n.find('.'));
  for (char &ch : n)
    if (!isalnum((unsigned char)ch))
      ch = '_';
  return n + "_" + std::get<1>(info.param).label;
}

/// Strided batched GEMM: every sm_90a spec, entries packed, with gaps
/// between them, with one B for all entries (stride 0), many small entries,
/// K = 0, and a column-major D; the gaps and D's padding are checked
/// untouched by expectMatchesReference.
struct BatchCase {
  const char *label;
  long long M, N, K, batch;
  long long gapA, gapB, gapD; ///< elements between entries (-1: stride 0, broadcast)
  Layout layoutD;
};
class Batched : public ::testing::TestWithParam<std::tuple<std::string, BatchCase>> {};

TEST_P(Batched, EveryEntryMatchesReference) {
  REQUIRE_GPU();
  const auto &[name, c] = GetParam();
  SM90_KERNEL_OR_SKIP(k, name);
  if (!k->info().batched)
    GTEST_SKIP() << name << " computes one problem per launch (no batch parameter)";
  if (k->info().splitK > 1)
    GTEST_SKIP() << name << " splits K of one problem (its batch entries are the K slices; "
                            "FakeDriver.SplitKSlicesIntoTheWorkspaceThenReduces)";
  if (c.layoutD == Layout::Col && k->info().epilogue.bias)
    GTEST_SKIP() << name << "'s bias indexes D's rows or columns as the kernel computes them "
                            "(a column-major D is refused: EpilogueLaunchChecks)";
  if (c.layoutD == Layout::Col && k->info().blockwiseScales)
    GTEST_SKIP() << name << ": D^T would swap the 1x128 and 128x128 scale blocks (a "
                            "column-major D is refused)";
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, c.layoutD);
  auto stride = [](const StoredShape &s, long long gap) {
    return gap < 0 ? 0 : s.lines * s.ld + gap;
  };
  a.batch = c.batch;
  a.strideA = stride(storedShape(a, 'A'), c.gapA);
  a.strideB = stride(storedShape(a, 'B'), c.gapB);
  a.strideD = stride(storedShape(a, 'D'), c.gapD);
  expectMatchesReference(name, *k, a);
}

const BatchCase kBatchCases[] = {
    {"packed", 1000, 1001, 520, 2, 0, 0, 0, Layout::Row},
    {"gaps", 129, 257, 72, 3, 8, 16, 64, Layout::Row},
    {"broadcastB", 256, 256, 128, 4, 0, -1, 0, Layout::Row},
    {"many", 128, 128, 64, 512, 0, 0, 0, Layout::Row},
    {"zeroK", 129, 257, 0, 3, 0, 0, 8, Layout::Row},
    {"colD", 300, 200, 136, 3, 0, 8, 8, Layout::Col},
    // Strides off the 16-byte grid: A and D staged entry by entry in one copy each.
    {"oddGaps", 129, 257, 72, 3, 3, 0, 5, Layout::Row},
    {"oddGapsBroadcast", 200, 136, 100, 4, 1, -1, 1, Layout::Row},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Batched,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()), ::testing::ValuesIn(kBatchCases)),
    specCaseName<Batched::ParamType>);

/// D = alpha·A·B + beta·C on every sm_90a spec: a separate C, C = D in
/// place, alpha alone (C null, never read), K = 0 (D = beta·C), a batch with
/// gaps, and a column-major D and C. Every element compared with the
/// reference; D's padding and gaps (and C's, when separate) poison.
struct AlphaBetaCase {
  const char *label;
  long long M, N, K, batch;
  float alpha, beta;
  CMode c;
  Layout layoutD;
};
class AlphaBeta : public ::testing::TestWithParam<std::tuple<std::string, AlphaBetaCase>> {};

TEST_P(AlphaBeta, MatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  const Expected<Kernel> &k = gpu.kernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  if (!k->info().alphaBeta || !k->info().batched)
    GTEST_SKIP() << name << " computes D = A·B only";
  if (c.batch > 1 && k->info().splitK > 1)
    GTEST_SKIP() << name << " splits K of one problem per launch (no strided batch)";
  if (c.layoutD == Layout::Col && k->info().epilogue.bias)
    GTEST_SKIP() << name << "'s bias indexes D's rows or columns as the kernel computes them "
                            "(a column-major D is refused: EpilogueLaunchChecks)";
  if (c.layoutD == Layout::Col && k->info().blockwiseScales)
    GTEST_SKIP() << name << ": D^T would swap the 1x128 and 128x128 scale blocks (a "
                            "column-major D is refused)";
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, c.layoutD);
  a.batch = c.batch;
  if (c.batch > 1) { // gaps of 8 elements between entries
    a.strideA = storedShape(a, 'A').lines * a.lda + 8;
    a.strideB = storedShape(a, 'B').lines * a.ldb + 8;
    a.strideD = storedShape(a, 'D').lines * a.ldd + 8;
  }
  a.alpha = c.alpha, a.beta = c.beta;
  expectMatchesReference(name, *k, a, c.c);
}

const AlphaBetaCase kAlphaBetaCases[] = {
    {"separateC", 129, 257, 72, 1, 0.5f, 2.0f, CMode::Separate, Layout::Row},
    {"inPlace", 1000, 1001, 520, 1, 1.0f, 1.0f, CMode::InPlace, Layout::Row},
    {"alphaOnly", 256, 256, 128, 1, -1.5f, 0.0f, CMode::None, Layout::Row},
    {"zeroK", 129, 257, 0, 1, 1.0f, 0.5f, CMode::Separate, Layout::Row},
    {"batchGaps", 129, 257, 72, 3, 0.25f, -1.0f, CMode::InPlace, Layout::Row},
    {"colD", 300, 200, 136, 1, 2.0f, 0.5f, CMode::Separate, Layout::Col},
    {"large", 4096, 4096, 4096, 1, 1.0f, 0.5f, CMode::InPlace, Layout::Row},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, AlphaBeta,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()),
                       ::testing::ValuesIn(kAlphaBetaCases)),
    specCaseName<AlphaBeta::ParamType>);

/// Operands TMA cannot address, one problem: every sm_90a spec through the
/// staging path (aligned copies in a workspace that Kernel::launch allocates
/// on the stream): packed odd K and N, an odd ldd, pointers one element off,
/// C = D in place with odd rows. D's padding checked untouched.
struct StagedCase {
  const char *label;
  long long M, N, K;
  long long pad;      ///< elements added to every leading dimension (0: packed)
  long long offset;   ///< elements every pointer is moved by
  float beta;
  CMode c;
};
class Staged : public ::testing::TestWithParam<std::tuple<std::string, StagedCase>> {};

TEST_P(Staged, MatchesReference) {
  REQUIRE_GPU();
  const auto &[name, c] = GetParam();
  SM90_KERNEL_OR_SKIP(k, name);
  if (c.beta != 0.0f && !k->info().alphaBeta)
    GTEST_SKIP() << name << " computes D = A·B only";
  GemmArgs a;
  a.M = c.M, a.N = c.N, a.K = c.K;
  setUserLayouts(a, k->info());
  a.lda = storedShape(a, 'A').length + c.pad;
  a.ldb = storedShape(a, 'B').length + c.pad;
  a.ldd = storedShape(a, 'D').length + c.pad;
  a.beta = c.beta;
  expectMatchesReference(name, *k, a, c.c, c.offset);
}

const StagedCase kStagedCases[] = {
    {"packedOddK", 129, 257, 100, 0, 0, 0.0f, CMode::None},
    {"oddLd", 300, 200, 136, 1, 0, 0.0f, CMode::None},
    {"offsetPointers", 256, 264, 128, 8, 1, 0.0f, CMode::None},
    {"inPlaceOddN", 129, 257, 72, 0, 0, 1.0f, CMode::InPlace},
    {"separateCOffset", 200, 136, 72, 0, 3, 0.5f, CMode::Separate},
    {"packed1000", 1000, 1001, 520, 0, 0, 0.0f, CMode::None},
    {"K4100", 512, 512, 4100, 0, 0, 0.0f, CMode::None},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Staged,
    ::testing::Combine(::testing::ValuesIn(kernelsUnderTest()), ::testing::ValuesIn(kStagedCases)),
    specCaseName<Staged::ParamType>);

/// Grouped GEMM: every generated spec compiled grouped (scheduler.grouped),
/// each case one launch over a list of problems with their own M (and N, K),
/// empty problems among them; every problem's operands in buffers of their
/// own with padded lines, fresh random inputs, D poisoned, every element of
/// every problem compared with its reference and D's padding checked.
struct GroupedCase {
  const char *label;
  std::vector<Shape> problems;
  float alpha, beta;
  CMode c;
  Layout layoutD;
  bool packed = false; ///< lines not padded: odd K or N leave rows TMA cannot address (staged)
};
class Grouped : public ::testing::TestWithParam<std::tuple<std::string, GroupedCase>> {};

TEST_P(Grouped, EveryProblemMatchesReference) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const auto &[name, c] = GetParam();
  ASSERT_NE(name, "(no specs found)") << "no specs in " << specsDir();
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().splitK > 1)
    GTEST_SKIP() << name << " splits K: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().streamK)
    GTEST_SKIP() << name << " is stream-K: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && !plain->info().epilogue.empty())
    GTEST_SKIP() << name << " has an epilogue chain: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name); plain.ok() && plain->info().perTensorScales)
    GTEST_SKIP() << name << " has fp8 operands: not compiled grouped (a located spec error)";
  if (const Expected<Kernel> &plain = gpu.kernel(name);
      plain.ok() && plain->info().layoutD == Layout::Col)
    GTEST_SKIP() << name << " stores D column-major: not compiled grouped (a located spec error)";
  const Expected<Kernel> &k = gpu.groupedKernel(name);
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_TRUE(k->info().grouped);
  FreeAll freeAll{*gpu.rt, {}};
  std::vector<ProblemOnGpu> problems;
  for (const Shape &s : c.problems) {
    ProblemOnGpu p{paddedArgsFor(k->info(), s.M, s.N, s.K, c.layoutD), c.c};
    p.a.alpha = c.alpha, p.a.beta = c.beta;
    if (c.packed)
      p.a.lda = p.a.ldb = p.a.ldd = 0;
    setUpProblem(*k, p, 0, freeAll.bufs);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    problems.push_back(p);
  }
  GemmArgs g;
  g.layoutA = problems[0].a.layoutA, g.layoutB = problems[0].a.layoutB;
  g.layoutD = c.layoutD, g.alpha = c.alpha, g.beta = c.beta;
  for (const ProblemOnGpu &p : problems) {
    const GemmArgs &a = p.a;
    g.problems.push_back({a.M, a.N, a.K, a.A, a.B, a.D, a.C, a.lda, a.ldb, a.ldd, a.ldc});
  }
  Status s = k->launch(g, gpu.stream);
  ASSERT_TRUE(s.ok()) << s.message();
  long long rows = 0, n = 0, kk = 0;
  for (const Shape &p : c.problems)
    rows += p.M, n = std::max(n, p.N), kk = std::max(kk, p.K);
  waitOrExit(watchdogSeconds(rows, n, kk));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  for (size_t i = 0; i < problems.size(); ++i) {
    SCOPED_TRACE("problem " + std::to_string(i));
    verifyProblem(name + " [grouped " + std::to_string(i) + "/" +
                      std::to_string(problems.size()) + "]",
                  *k, problems[i]);
  }
}

/// 64 problems of M in 0..511 (a fixed draw; every 8th empty), N 256, K 128.
std::vector<Shape> manySmallProblems() {
  std::mt19937 rng(20261201);
  std::vector<Shape> out;
  for (int i = 0; i < 64; ++i)
    out.push_back({i % 8 == 3 ? 0 : (long long)(rng() % 512), 256, 128});
  return out;
}

const GroupedCase kGroupedCases[] = {
    {"moe", {{300, 512, 256}, {0, 512, 256}, {1, 512, 256}, {128, 512, 256}, {513, 512, 256},
             {37, 512, 256}, {0, 512, 256}, {64, 512, 256}},
     1.0f, 0.0f, CMode::None, Layout::Row},
    {"mixedNK", {{129, 264, 72}, {256, 128, 0}, {64, 512, 520}, {0, 256, 64}, {300, 136, 136}},
     1.0f, 0.0f, CMode::None, Layout::Row},
    {"betaInPlace", {{200, 256, 128}, {129, 264, 0}, {64, 128, 64}}, 2.0f, 0.5f, CMode::InPlace,
     Layout::Row},
    {"separateC", {{300, 136, 72}, {0, 64, 64}, {128, 256, 256}}, 0.5f, -1.0f, CMode::Separate,
     Layout::Row},
    {"colD", {{256, 200, 136}, {8, 129, 72}, {0, 64, 64}, {136, 300, 64}}, 1.0f, 0.0f,
     CMode::None, Layout::Col},
    {"many", manySmallProblems(), 1.0f, 0.0f, CMode::None, Layout::Row},
    {"large", {{4096, 4096, 4096}, {1024, 4096, 4096}}, 1.0f, 0.0f, CMode::None, Layout::Row},
    // D's rows not whole 16-byte chunks (N = 250, 257; padded lines): D staged per problem.
    {"oddN", {{129, 250, 72}, {300, 257, 136}, {64, 256, 64}, {0, 250, 64}}, 1.0f, 0.5f,
     CMode::InPlace, Layout::Row},
    // Packed lines with odd K and N: A, B and D staged where their rows are not 16-byte multiples.
    {"packedOdd", {{129, 257, 100}, {256, 256, 64}, {300, 200, 4100}, {37, 129, 0}}, 1.0f, 0.0f,
     CMode::None, Layout::Row, true},
};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Grouped,
    ::testing::Combine(::testing::ValuesIn(generatedKernelsUnderTest()),
                       ::testing::ValuesIn(kGroupedCases)),
    specCaseName<Grouped::ParamType>);

//===- GpuEpilogueTest.cpp - Epilogue chains on the GPU -------------------===//
//
// Epilogue chains (bias, activations, residual, clamp, scale) on specs
// edited to carry them, epilogue chunks that do not divide tile.n (the last
// one overlapping the one before), each against the reference that applies
// the same chain in f32; and the launch checks a chain adds (a bias pointer
// given and aligned, D row-major). (ctest label gpu; every test skips
// without a GPU.)
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

using namespace gemmgen;
using namespace gemmgen::gputest;
using gemmgen::testing::fileText;

/// Spec `base` with its last `from` replaced by `to`, compiled once per text
/// (the Epilogue and OverlappingChunks cases' kernels). Empty when `from` is absent.
const Expected<Kernel> *editedSpecKernel(const char *base, const std::string &from,
                                         const std::string &to, const std::string &label) {
  std::string yaml = fileText(specsDir() / base);
  const size_t at = yaml.rfind(from);
  if (at == std::string::npos)
    return nullptr;
  yaml.replace(at, from.size(), to);
  static std::map<std::string, Expected<Kernel>> kernels;
  auto it = kernels.find(yaml);
  if (it == kernels.end())
    it = kernels.emplace(yaml, Gpu::get().rt->compileString(yaml, label + ".yaml")).first;
  return &it->second;
}

/// Epilogue chains: every op, bias axes and types, the residual's place, a
/// scale, 16-bit and f32 output, batches with a bias per entry, tail columns
/// (N % 8 != 0), each against the reference that applies the same chain
/// (epilogue_ops.cuh's apply_chain) in f32 on the same inputs.
struct EpilogueCase {
  const char *label;
  const char *base;  ///< spec whose epilogue line gets the chain
  const char *chain; ///< the YAML flow list
  long long M, N, K, batch;
  float alpha, beta;
  CMode c;
};
class Epilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(Epilogue, MatchesReference) {
  REQUIRE_GPU();
  const EpilogueCase &c = GetParam();
  const std::string line = "overlap: true }";
  const Expected<Kernel> *kp =
      editedSpecKernel(c.base, line, "overlap: true, chain: " + std::string(c.chain) + " }", c.label);
  ASSERT_NE(kp, nullptr) << c.base << " has no '" << line << "' epilogue line";
  const Expected<Kernel> &k = *kp;
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_FALSE(k->info().epilogue.empty());
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, Layout::Row);
  a.batch = c.batch;
  if (c.batch > 1) {
    a.strideA = storedShape(a, 'A').lines * a.lda;
    a.strideB = storedShape(a, 'B').lines * a.ldb;
    a.strideD = storedShape(a, 'D').lines * a.ldd;
  }
  a.alpha = c.alpha, a.beta = c.beta;
  printf("[ chain  ] %s: %s\n", c.label, k->info().epilogue.chain.c_str());
  expectMatchesReference(c.label, *k, a, c.c);
}

const EpilogueCase kEpilogueCases[] = {
    {"biasColBf16GeluTanh", "06_fast_bf16.yaml", "[{bias: {per: column, type: bf16}}, gelu_tanh]",
     129, 257, 72, 1, 1.0f, 0.0f, CMode::None},
    {"biasRowF32Relu", "05_fast_f16.yaml", "[{bias: {per: row, type: f32}}, relu]", 1000, 1001,
     520, 1, 0.5f, 0.0f, CMode::None},
    {"geluErfClamp", "05_fast_f16.yaml", "[gelu_erf, {clamp: {min: -0.25, max: 2}}]", 1000, 1001,
     520, 1, 1.0f, 0.5f, CMode::Separate},
    {"siluScale", "06_fast_bf16.yaml", "[silu, scale]", 256, 384, 200, 1, 1.0f, 0.0f, CMode::None},
    {"biasGeluResidual", "05_fast_f16.yaml",
     "[{bias: {per: column, type: f16}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 1.0f,
     CMode::Separate},
    {"residualInPlaceBatch", "06_fast_bf16.yaml", "[{bias: {per: row}}, silu, residual]", 129,
     257, 72, 3, 1.0f, -0.5f, CMode::InPlace},
    {"f32OutBiasSiluResidual", "10_fast_f16_out_f32.yaml",
     "[{bias: {per: column, type: f32}}, silu, residual, {clamp: {max: 1.5}}]", 1000, 1001, 520,
     1, 1.0f, 0.5f, CMode::Separate},
    {"f32OutGeluTanh", "10_fast_f16_out_f32.yaml", "[gelu_tanh, scale]", 129, 257, 72, 2, 1.0f,
     0.0f, CMode::None},
    {"fp8BiasGelu", "13_fast_e4m3.yaml", "[{bias: {per: column, type: bf16}}, gelu_tanh]", 1000,
     1001, 528, 1, 1.0f, 0.0f, CMode::None},
    {"largeBiasGelu", "06_fast_bf16.yaml", "[{bias: {per: column}}, gelu_tanh]", 4096, 4096, 4096,
     1, 1.0f, 0.0f, CMode::None},
    // An 8-bit D: the chain, then the output scale and amax (bias bf16 by default).
    {"fp8OutBiasGeluResidual", "16_fast_e4m3_out_e4m3.yaml",
     "[{bias: {per: column}}, gelu_tanh, residual, {clamp: {min: -4}}]", 1000, 1001, 528, 2, 1.0f,
     0.5f, CMode::Separate},
    {"fp8OutRowBiasRelu", "16_fast_e4m3_out_e4m3.yaml", "[{bias: {per: row, type: f32}}, relu]",
     129, 257, 160, 1, 1.0f, 0.0f, CMode::None},
    // 256x152 (spec 26): the chain on five chunks of 32, the last overlapping
    // the fourth by 8 columns, C read back from the staging tile; in place, the
    // shared columns take the fourth chunk's values (C there is already D).
    {"n152BiasGeluResidual", "26_wave_fit_n152_f16.yaml",
     "[{bias: {per: column, type: f32}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 0.5f,
     CMode::Separate},
    {"n152BiasGeluResidualInPlace", "26_wave_fit_n152_f16.yaml",
     "[{bias: {per: column, type: f32}}, gelu_tanh, residual]", 1000, 1001, 520, 1, 1.0f, 0.5f,
     CMode::InPlace},
    {"n152RowBiasSiluBatch", "26_wave_fit_n152_f16.yaml", "[{bias: {per: row}}, silu]", 300, 457,
     136, 2, 0.5f, 0.0f, CMode::None},
};

INSTANTIATE_TEST_SUITE_P(Sm90, Epilogue, ::testing::ValuesIn(kEpilogueCases),
                         [](const ::testing::TestParamInfo<EpilogueCase> &info) {
                           return std::string(info.param.label);
                         });

/// Epilogue chunks that do not divide tile.n (the last one ends at the
/// tile's edge, overlapping the one before): a spec with its chunk_n
/// replaced, against the reference with beta != 0 (C separate and in place:
/// then the columns the last two chunks share must keep the first one's
/// values, C there being D already) and without.
struct OverlapChunkCase {
  const char *label;
  const char *base;    ///< spec whose "chunk_n: <from>" is replaced
  const char *from, *to;
  long long M, N, K;
  float alpha, beta;
  CMode c;
};
class OverlappingChunks : public ::testing::TestWithParam<OverlapChunkCase> {};

TEST_P(OverlappingChunks, MatchesReference) {
  REQUIRE_GPU();
  const OverlapChunkCase &c = GetParam();
  const Expected<Kernel> *kp = editedSpecKernel(c.base, c.from, c.to, c.label);
  ASSERT_NE(kp, nullptr) << c.base << " has no '" << c.from << "'";
  const Expected<Kernel> &k = *kp;
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = paddedArgsFor(k->info(), c.M, c.N, c.K, Layout::Row);
  a.alpha = c.alpha, a.beta = c.beta;
  expectMatchesReference(c.label, *k, a, c.c);
}

const OverlapChunkCase kOverlapChunkCases[] = {
    // 128x256 in chunks of 48 (the sixth at column 208, sharing 32 with the
    // fifth): 32-byte slabs, no odd n8 block.
    {"n256c48", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 1000, 1001, 520, 1.0f, 0.5f,
     CMode::Separate},
    {"n256c48InPlace", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 1000, 1001, 520, 1.0f,
     0.5f, CMode::InPlace},
    {"n256c48large", "05_fast_f16.yaml", "chunk_n: 128", "chunk_n: 48", 4096, 4096, 4096, 1.0f,
     0.0f, CMode::None},
    // 128x256 in chunks of 40 (the seventh at 216, sharing 24): one unswizzled
    // 80-byte slab per chunk, each with an odd n8 block, bf16, C in place.
    {"n256c40bf16", "06_fast_bf16.yaml", "chunk_n: 128", "chunk_n: 40", 129, 257, 72, 2.0f, -1.0f,
     CMode::InPlace},
    // 256x152 in chunks of 40 (the fourth at 112, sharing 8: the odd n8 block
    // of the third and the first of the fourth's pairs), C in place.
    {"n152c40", "26_wave_fit_n152_f16.yaml", "chunk_n: 32", "chunk_n: 40", 3000, 5000, 2048, 1.0f,
     1.0f, CMode::InPlace},
    {"n152c24", "26_wave_fit_n152_f16.yaml", "chunk_n: 32", "chunk_n: 24", 1000, 1001, 520, 1.0f,
     0.5f, CMode::InPlace},
};

INSTANTIATE_TEST_SUITE_P(Sm90, OverlappingChunks, ::testing::ValuesIn(kOverlapChunkCases),
                         [](const ::testing::TestParamInfo<OverlapChunkCase> &info) {
                           return std::string(info.param.label);
                         });

/// The launch checks a chain adds, on a real kernel.
TEST(EpilogueLaunchChecks, BiasRequiredAndRowMajorD) {
  REQUIRE_GPU();
  Gpu &gpu = Gpu::get();
  const Expected<Kernel> &k = gpu.kernel("14_fast_bf16_bias_gelu.yaml");
  ASSERT_TRUE(k.ok()) << k.status().message();
  GemmArgs a = paddedArgsFor(k->info(), 256, 256, 64, Layout::Row);
  a.A = a.B = a.D = 256;
  Status s = k->check(a);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("GemmArgs::bias is null; give it a device vector of N bf16 values"),
            std::string::npos)
      << s.message();
  a.bias = 257;
  s = k->check(a);
  EXPECT_NE(s.message().find("is not 2-byte aligned"), std::string::npos) << s.message();
  a.bias = 512;
  EXPECT_TRUE(k->check(a).ok()) << k->check(a).message();
  GemmArgs col = paddedArgsFor(k->info(), 256, 256, 64, Layout::Col);
  col.A = col.B = col.D = 256;
  col.bias = 512;
  s = k->check(col);
  EXPECT_NE(s.message().find("D is column-major"), std::string::npos) << s.message();
}

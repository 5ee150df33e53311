//===- EpilogueChainTest.cpp - epilogue.chain from spec to simulator ------===//
//
// The ops of gemmgen/device/epilogue_ops.cuh on the host (their values and
// the chain's order), the parsed chain, what the IR and the sm_90a printer
// make of it, the runtime's view (KernelInfo::epilogue through the ABI),
// and the simulator running chained kernels to the right D.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/EpilogueChain.h"
#include "gemmgen/IRPrinter.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"
#include "gemmgen/device/epilogue_ops.cuh"
#include "gemmgen/gemmgen.h"

#include "llvm/Support/raw_ostream.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>

using namespace gemmgen;
using gemmgen::testing::specText;
using gemmgen::testing::withEdit;
namespace epi = gemmgen::epilogue;

namespace {

const char *kBase = R"(kernel: chained
types: { a: f16, b: f16, d: f16, accumulate: f32 }
tile: { m: 128, n: 256, k: 64 }
consumers: 2
roles:
  producer: { warps: 1, registers: 40, does: tma_load }
  consumer: { warpgroups: 2, registers: 232, does: [mma, epilogue] }
)";

std::optional<CompiledSpec> compileWithEpilogue(const std::string &epilogue,
                                                const std::string &extra = "") {
  DiagnosticEngine diags(nullptr);
  return compileSpecText(std::string(kBase) + extra + epilogue, "chain.yaml", EmitOptions{},
                         diags);
}

TEST(EpilogueOps, ValuesOfEachActivation) {
  // Reference values of the textbook definitions (tanh and erf GELU differ
  // in the fourth digit at 1).
  EXPECT_NEAR(epi::gelu_tanh(1.0f), 0.841192f, 2e-6f);
  EXPECT_NEAR(epi::gelu_erf(1.0f), 0.841345f, 2e-6f);
  EXPECT_NEAR(epi::gelu_tanh(-3.0f), -0.003637f, 2e-6f);
  EXPECT_NEAR(epi::gelu_erf(-3.0f), -0.004050f, 2e-6f);
  EXPECT_NEAR(epi::silu(1.0f), 0.731059f, 2e-6f);
  EXPECT_NEAR(epi::silu(-2.0f), -0.238406f, 2e-6f);
  EXPECT_EQ(epi::relu(-0.5f), 0.0f);
  EXPECT_EQ(epi::relu(0.5f), 0.5f);
  EXPECT_EQ(epi::clamp(3.0f, -1.0f, 2.0f), 2.0f);
  EXPECT_EQ(epi::clamp(-3.0f, -1.0f, 2.0f), -1.0f);
}

TEST(EpilogueOps, BiasTypesDecode) {
  const unsigned short f16[] = {0x3c00, 0xc000, 0x0001, 0x7bff}; // 1, -2, 2^-24, 65504
  EXPECT_EQ(epi::load_bias(f16, epi::BIAS_F16, 0), 1.0f);
  EXPECT_EQ(epi::load_bias(f16, epi::BIAS_F16, 1), -2.0f);
  EXPECT_EQ(epi::load_bias(f16, epi::BIAS_F16, 2), std::ldexp(1.0f, -24));
  EXPECT_EQ(epi::load_bias(f16, epi::BIAS_F16, 3), 65504.0f);
  const unsigned short bf16[] = {0x3f80, 0xc040}; // 1, -3
  EXPECT_EQ(epi::load_bias(bf16, epi::BIAS_BF16, 0), 1.0f);
  EXPECT_EQ(epi::load_bias(bf16, epi::BIAS_BF16, 1), -3.0f);
  const float f32[] = {0.25f, 7.0f};
  EXPECT_EQ(epi::load_bias(f32, epi::BIAS_F32, 1), 7.0f);
}

TEST(EpilogueOps, ChainOrderBiasAxesAndResidualPlace) {
  const float bias[] = {1.0f, 2.0f, 3.0f, 10.0f, 20.0f, 30.0f}; // two entries, stride 3
  const float scale = 0.5f;
  epi::Chain c;
  c.steps = 2;
  c.op[0] = epi::OP_BIAS_COLUMN;
  c.op[1] = epi::OP_RELU;
  c.bias = bias;
  c.bias_stride = 3;
  // relu(-4 + beta·C 1 + bias[col 2] 3) = 0; entry 1: relu(-4 + 1 + 30) = 27
  EXPECT_EQ(epi::apply_chain(c, -4.0f, 1.0f, 0, 2, 0), 0.0f);
  EXPECT_EQ(epi::apply_chain(c, -4.0f, 1.0f, 0, 2, 1), 27.0f);
  c.op[0] = epi::OP_BIAS_ROW; // row 1 of entry 0: 2
  EXPECT_EQ(epi::apply_chain(c, -1.0f, 0.0f, 1, 2, 0), 1.0f);
  // A residual step adds beta·C after the relu, not before it.
  c.steps = 3;
  c.op[2] = epi::OP_RESIDUAL;
  EXPECT_EQ(epi::apply_chain(c, -10.0f, 5.0f, 0, 0, 0), 5.0f); // relu(-10 + 1) + 5
  c.steps = 4;
  c.op[3] = epi::OP_SCALE;
  c.scale_d = &scale;
  EXPECT_EQ(epi::apply_chain(c, -10.0f, 5.0f, 0, 0, 0), 2.5f);
  c.scale_d = nullptr; // null scale: 1
  EXPECT_EQ(epi::apply_chain(c, -10.0f, 5.0f, 0, 0, 0), 5.0f);
  // No chain: alpha·acc + beta·C.
  epi::Chain none;
  EXPECT_EQ(epi::apply_chain(none, 1.5f, 2.0f, 7, 7, 3), 3.5f);
}

TEST(EpilogueChainSpec, ParsedStepsAndDefaults) {
  auto c = compileWithEpilogue(R"(epilogue:
  chunk_n: 128
  chain:
    - bias
    - bias_unused_placeholder
)");
  EXPECT_FALSE(c); // an unknown op
  c = compileWithEpilogue(R"(epilogue:
  chunk_n: 128
  chain:
    - bias: { per: row, type: f32 }
    - gelu_erf
    - residual
    - clamp: { max: 1.5 }
    - scale
)");
  ASSERT_TRUE(c);
  const std::vector<EpilogueStep> &chain = c->kernel.epilogueChain;
  ASSERT_EQ(chain.size(), 5u);
  EXPECT_EQ(chain[0].kind, EpilogueOpKind::Bias);
  EXPECT_EQ(chain[0].axis, BiasAxis::Row);
  EXPECT_EQ(chain[0].biasType, ScalarType::F32);
  EXPECT_EQ(chain[3].kind, EpilogueOpKind::Clamp);
  EXPECT_EQ(chain[3].hi, 1.5f);
  EXPECT_LT(chain[3].lo, -1e38f); // min not given: unbounded below
  EXPECT_EQ(describeChain(chain),
            "bias(row, f32) -> gelu_erf -> residual -> clamp(-3e+38, 1.5) -> scale");
  // bias without a type takes D's.
  c = compileWithEpilogue("epilogue: { chunk_n: 128, chain: [bias] }\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kernel.epilogueChain[0].biasType, ScalarType::F16);
  EXPECT_EQ(c->kernel.epilogueChain[0].axis, BiasAxis::Column);
}

TEST(EpilogueChainSpec, IRAndABIAndPrinterCarryTheChain) {
  auto c = compileWithEpilogue("epilogue: { chunk_n: 128, chain: [{bias: {type: bf16}}, "
                               "gelu_tanh, {clamp: {min: -1, max: 1}}] }\n");
  ASSERT_TRUE(c);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  printIR(c->kernel, os);
  os.flush();
  EXPECT_NE(ir.find("  epilogue chain bias(column, bf16) -> gelu_tanh -> clamp(-1, 1)\n"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("store_acc acc -> smemD chain=[bias(column, bf16) -> gelu_tanh -> "
                    "clamp(-1, 1)]"),
            std::string::npos)
      << ir;
  EXPECT_EQ(c->abi.epilogueChain, c->kernel.epilogueChain);
  const std::string &src = c->source;
  EXPECT_NE(src.find("#include \"gemmgen/device/epilogue_ops.cuh\""), std::string::npos);
  EXPECT_NE(src.find("const void* __restrict__ bias, long long bias_stride, const float* "
                     "__restrict__ scale_d)"),
            std::string::npos);
  // The bias leads into a gelu_tanh: loaded halved, added in alpha's FMA (EpilogueChainEntry).
  EXPECT_NE(src.find("bias_v[jj][0] = col < N ? 0.5f * epi::load_bias(bias, epi::BIAS_BF16, at) : "
                     "0.f;"),
            std::string::npos);
  EXPECT_NE(src.find("v0 = epi::gelu_tanh_half_fast(v0);"), std::string::npos);
  EXPECT_NE(src.find("epi::clamp(v0, -1.0f, 1.0f)"), std::string::npos);
  EXPECT_NE(src.find("apply_epilogue_chain(v[2 * q], v[2 * q + 1]"), std::string::npos);
  // A kernel without a chain is the kernel it was: no header, no parameters.
  auto plain = compileWithEpilogue("epilogue: { chunk_n: 128 }\n");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->source.find("epilogue_ops.cuh"), std::string::npos);
  EXPECT_EQ(plain->source.find("apply_epilogue_chain"), std::string::npos);
}

TEST(EpilogueChainSpec, ChainDataMatchesTheSteps) {
  auto c = compileWithEpilogue("epilogue: { chunk_n: 128, chain: [{bias: {per: row, type: "
                               "bf16}}, silu, {clamp: {min: -2}}, residual, scale] }\n");
  ASSERT_TRUE(c);
  const epi::Chain d = toChainData(c->kernel.epilogueChain);
  ASSERT_EQ(d.steps, 5);
  EXPECT_EQ(d.op[0], epi::OP_BIAS_ROW);
  EXPECT_EQ(d.bias_type, epi::BIAS_BF16);
  EXPECT_EQ(d.op[1], epi::OP_SILU);
  EXPECT_EQ(d.op[2], epi::OP_CLAMP);
  EXPECT_EQ(d.lo[2], -2.0f);
  EXPECT_EQ(d.op[3], epi::OP_RESIDUAL);
  EXPECT_EQ(d.op[4], epi::OP_SCALE);
}

/// The simulator applies the chain where store_acc writes the staging tile
/// (D's row and column of every element, per batch entry) and compares
/// with its reference: bias rows/columns misplaced by one would be a wrong D.
TEST(EpilogueChainSim, ChainedKernelsSimulateCleanWithBetaAndBatches) {
  const char *chains[] = {
      "[{bias: {per: row, type: f32}}, relu]",
      "[{bias: {per: column}}, gelu_tanh, residual]",
      "[silu, {clamp: {min: -0.5, max: 0.75}}, scale]",
      "[gelu_erf, {bias: {per: column, type: bf16}}, residual, relu]",
  };
  for (const char *chain : chains)
    for (float beta : {0.0f, 0.5f}) {
      auto c = compileWithEpilogue(std::string("epilogue: { chunk_n: 128, chain: ") + chain +
                                   " }\n");
      ASSERT_TRUE(c) << chain;
      SimulationOptions o;
      o.m = 200, o.n = 300, o.k = 130, o.batch = 2, o.beta = beta, o.alpha = 0.5f;
      o.seeds = 3;
      SimulationResult r = simulate(c->kernel, o);
      for (const auto &run : r.runs)
        EXPECT_EQ(run.verdict, SimVerdict::Ok) << chain << " beta " << beta << ": " << run.message;
    }
}

} // namespace

namespace {

/// Removes the first mma_wait directly followed by an op of kind `next`
/// anywhere in the kernel's programs (a seeded protocol bug); false if none.
bool dropMmaWaitBefore(ir::Kernel &k, ir::OpKind next) {
  std::function<bool(std::vector<ir::Op> &)> drop = [&](std::vector<ir::Op> &body) {
    for (size_t i = 0; i + 1 < body.size(); ++i)
      if (body[i].kind == ir::OpKind::MmaWait && body[i + 1].kind == next) {
        body.erase(body.begin() + long(i));
        return true;
      }
    for (ir::Op &op : body)
      if (drop(op.body))
        return true;
    return false;
  };
  for (ir::Role &r : k.roles)
    if (drop(r.body))
      return true;
  return false;
}

/// Spec 15's text, with `from` replaced by `to` (empty: as written).
std::string spec15Text(const std::string &from = "", const std::string &to = "") {
  std::string text = specText("sm90/15_blockwise_e4m3.yaml");
  return from.empty() ? text : withEdit(text, from, to);
}

/// Drops the first mma_wait inside the first op of kind `container`.
bool dropMmaWaitIn(ir::Kernel &k, ir::OpKind container) {
  std::function<bool(std::vector<ir::Op> &)> drop = [&](std::vector<ir::Op> &body) {
    for (ir::Op &op : body) {
      if (op.kind == container)
        for (size_t i = 0; i < op.body.size(); ++i)
          if (op.body[i].kind == ir::OpKind::MmaWait) {
            op.body.erase(op.body.begin() + long(i));
            return true;
          }
      if (drop(op.body))
        return true;
    }
    return false;
  };
  for (ir::Role &r : k.roles)
    if (drop(r.body))
      return true;
  return false;
}

bool caughtRace(const ir::Kernel &k, unsigned kDepth) {
  SimulationOptions o;
  o.m = 200, o.n = 300, o.k = kDepth, o.seeds = 16;
  bool caught = false;
  for (const auto &run : simulate(k, o).runs)
    caught |= run.verdict == SimVerdict::Race &&
              run.message.find("promotes the k-block's partial sum") != std::string::npos;
  return caught;
}

/// fp8 blockwise scaling with one partial sum (mma_in_flight 0): each
/// k-block's sum promoted with its scales after its own wgmmas. The simulator
/// runs it to the right D (its scales powers of two, so the reference is
/// exact), and catches a promotion that reads the partial sum before the
/// k-block's MMAs are done.
TEST(BlockwiseScalingSim, OnePartialCleanAndCatchesAPromotionBeforeTheMmaWait) {
  DiagnosticEngine diags(nullptr);
  auto c = compileSpecText(
      spec15Text("depth: 6, mma_in_flight: 1", "depth: 6, mma_in_flight: 0"), "one.yaml",
      EmitOptions{}, diags);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->kernel.plan.blockwiseScales);
  EXPECT_EQ(c->kernel.plan.partialBuffers, 1u);
  EXPECT_TRUE(c->abi.blockwiseScales);
  SimulationOptions o;
  o.m = 200, o.n = 300, o.k = 300, o.seeds = 4, o.beta = 0.5f;
  for (const auto &run : simulate(c->kernel, o).runs)
    EXPECT_EQ(run.verdict, SimVerdict::Ok) << run.message;
  // Drop the mma_wait before promote_acc in the consumer's k-loop.
  ir::Kernel broken = c->kernel;
  ASSERT_TRUE(dropMmaWaitBefore(broken, ir::OpKind::PromoteAcc));
  EXPECT_TRUE(caughtRace(broken, 300));
}

/// Spec 15 as shipped: two partial sums (mma_in_flight 1), the k-blocks in
/// pairs. Clean on one, two, an odd number of and no k-blocks; without
/// either wait (the second k-block's pending<=1 before the first one's sum is
/// promoted, the pair's last pending<=0 before its own) the promotion reads
/// a sum still being written.
TEST(BlockwiseScalingSim, PairsCleanAndCatchEitherMissingWait) {
  DiagnosticEngine diags(nullptr);
  auto c = compileSpecText(spec15Text(), "15.yaml", EmitOptions{}, diags);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kernel.plan.partialBuffers, 2u);
  EXPECT_NE(c->source.find("for (int kb_pair = 0; kb_pair < k_blocks; kb_pair += 2)"),
            std::string::npos);
  EXPECT_NE(c->source.find("WgmmaF8<BN, A_ELEM, B_ELEM>::mma(part1[m]"), std::string::npos);
  for (unsigned k : {100u, 256u, 640u, 0u}) {
    SimulationOptions o;
    o.m = 200, o.n = 300, o.k = k, o.seeds = 4, o.beta = 0.5f;
    for (const auto &run : simulate(c->kernel, o).runs)
      EXPECT_EQ(run.verdict, SimVerdict::Ok) << "K " << k << ": " << run.message;
  }
  for (ir::OpKind branch : {ir::OpKind::IfSecondOfPair, ir::OpKind::IfPairEnds}) {
    ir::Kernel broken = c->kernel;
    ASSERT_TRUE(dropMmaWaitIn(broken, branch)) << ir::toString(branch);
    EXPECT_TRUE(caughtRace(broken, 640)) << ir::toString(branch);
  }
}

/// Spec 15's scales come through shared memory: the producer copies each
/// k-block's into the stage's smemScales on its full barrier (counted in its
/// tx bytes), and the MMA's issue reads them there. Without the copy (and its
/// bytes) the simulator finds the consumer reading scales no load wrote.
TEST(BlockwiseScalingSim, ScalesThroughSharedMemoryAndCaughtWithoutTheirCopy) {
  DiagnosticEngine diags(nullptr);
  auto c = compileSpecText(spec15Text(), "15.yaml", EmitOptions{}, diags);
  ASSERT_TRUE(c);
  const KernelPlan &plan = c->kernel.plan;
  ASSERT_TRUE(plan.scalesInSmem);
  const ir::Buffer *scales = c->kernel.findBuffer("smemScales");
  ASSERT_NE(scales, nullptr);
  EXPECT_EQ(scales->stages, plan.depth);
  EXPECT_EQ(scales->bytesPerStage(), (plan.tileM + 4 + 4 * plan.scaleBlocksN) * 4);
  EXPECT_EQ(plan.scaleTxBytes, scales->bytesPerStage());
  // B's scales start after A's rows and the 4 floats an aligned copy spans beyond; the kernel
  // reads the plan's figure, and the slot ends with B's 16 bytes per block.
  EXPECT_EQ(plan.scaleBOffsetBytes, (plan.tileM + 4) * 4);
  EXPECT_EQ(plan.scaleBOffsetBytes + 16 * plan.scaleBlocksN, scales->bytesPerStage());
  EXPECT_NE(c->source.find("constexpr u32 SCALES_B_OFFSET = " + std::to_string(plan.scaleBOffsetBytes) + ";"),
            std::string::npos);
  EXPECT_EQ(c->kernel.barriers[0].txBytes,
            (plan.tileM + plan.tileN) * plan.tileK + plan.scaleTxBytes);
  EXPECT_NE(c->source.find("bulk_load_g2s(scales_to"), std::string::npos);
  // Four producer warps (spec 15): each arrives with its own bytes.
  EXPECT_NE(c->source.find("STAGE_TX_BYTES - B_STAGE_BYTES"), std::string::npos);
  EXPECT_NE(c->source.find("mbar_arrive_expect_tx(full_bar + 8 * load.stage, sa_bytes)"),
            std::string::npos);
  EXPECT_NE(c->source.find("constexpr u32 FULL_ARRIVALS = 4;"), std::string::npos);
  EXPECT_NE(c->source.find("ld_shared_f32(sa_at + sa_off[m][0])"), std::string::npos);
  EXPECT_EQ(c->source.find("__ldg(sa_p"), std::string::npos); // no A scale from global memory

  ir::Kernel broken = c->kernel;
  bool dropped = false;
  std::function<void(std::vector<ir::Op> &)> drop = [&](std::vector<ir::Op> &body) {
    for (size_t i = 0; i < body.size(); ++i) {
      ir::Op &op = body[i];
      if (op.kind == ir::OpKind::ArriveExpectTx)
        op.txBytes -= plan.scaleTxBytes;
      if (op.kind == ir::OpKind::TmaLoad && op.operand == ir::Operand::Scales) {
        body.erase(body.begin() + long(i--));
        dropped = true;
        continue;
      }
      drop(op.body);
    }
  };
  for (ir::Role &r : broken.roles)
    drop(r.body);
  broken.barriers[0].txBytes -= plan.scaleTxBytes;
  ASSERT_TRUE(dropped);
  SimulationOptions o;
  o.m = 200, o.n = 300, o.k = 640, o.seeds = 4;
  bool caught = false;
  for (const auto &run : simulate(broken, o).runs)
    caught |= run.verdict == SimVerdict::Race &&
              run.message.find("smemScales") != std::string::npos;
  EXPECT_TRUE(caught);
}

} // namespace

namespace {
// The kernels' fast forms compute the same functions (on the host they fall
// back to the precise ones, so any difference here is in the rearrangement).
TEST(EpilogueOps, FastFormsAreTheSameFunctions) {
  for (float x : {-6.0f, -2.5f, -1.0f, -0.1f, 0.0f, 0.3f, 1.0f, 2.0f, 5.0f}) {
    EXPECT_NEAR(epi::gelu_tanh_fast(x), epi::gelu_tanh(x), 1e-6f * (1.0f + std::fabs(x))) << x;
    EXPECT_NEAR(epi::silu_fast(x), epi::silu(x), 1e-6f) << x;
  }
}
} // namespace

namespace {

std::string sm100WithChain(const std::string &chain) {
  return withEdit(specText("sm100/09_two_consumers.yaml"),
                  "epilogue: { store: tma, chunk_n: 64, overlap: false }",
                  "epilogue: { store: tma, chunk_n: 64, overlap: false, chain: " + chain + " }");
}

/// sm_100a: the writeback applies the chain to each thread's row after
/// tcgen05.ld. Compile-verified with NVRTC (no Blackwell GPU here) and
/// simulated: the bias's columns and rows land where the reference puts them.
TEST(EpilogueChainSm100, CompilesWithoutSpillsAndSimulatesClean) {
  for (const char *chain : {"[{bias: {per: column, type: bf16}}, gelu_tanh]",
                            "[{bias: {per: row, type: f32}}, silu, {clamp: {min: -1}}, scale]",
                            "[relu, residual]", "[{bias: {type: f16}}, residual, gelu_erf]"}) {
    DiagnosticEngine diags(nullptr);
    auto c = compileSpecText(sm100WithChain(chain), "sm100_chain.yaml", EmitOptions{}, diags);
    ASSERT_TRUE(c) << chain;
    ASSERT_EQ(c->kernel.target, Target::SM100a);
    ASSERT_FALSE(c->kernel.epilogueChain.empty());
    EXPECT_NE(c->source.find("apply_epilogue_chain(acc[8 * c16 + 2 * p]"), std::string::npos);
    Expected<CubinResult> cubin = compileCudaSource(c->source, "sm100_chain.cu", "sm_100a",
                                                    c->abi.kernelName);
    ASSERT_TRUE(cubin.ok()) << chain << ": " << cubin.status().message();
    EXPECT_FALSE(cubin->usage.hasSpills()) << chain;
    // β = 0 (C not read: a residual adds nothing) and β ≠ 0 (C's chunk
    // through the staging tile; a residual step adds it where it stands).
    for (float beta : {0.0f, 0.5f}) {
      SimulationOptions o;
      o.m = 520, o.n = 300, o.k = 200, o.seeds = 3, o.alpha = 1.5f, o.beta = beta;
      for (const auto &run : simulate(c->kernel, o).runs)
        EXPECT_EQ(run.verdict, SimVerdict::Ok) << chain << ", beta " << beta << ": " << run.message;
    }
  }
}

} // namespace

namespace {

// The chain's entry (KernelPlan::chainEntry): which chains fold a leading
// bias into alpha's FMA and feed a gelu_tanh its value halved, and what
// carries the 1/2. Each row fails when the plan folds where it must not (a
// clamp or another activation before the gelu, beta·C joining after it).
struct EntryCase {
  const char *chain;
  bool biasInAlpha;
  int halfGeluStep;
  bool halvesBias, halvesC;
};
const EntryCase kEntryCases[] = {
    {"[{bias: {type: bf16}}, gelu_tanh]", true, 1, true, true},
    {"[gelu_tanh]", false, 0, false, true},
    {"[{bias: {type: f32}}, relu]", true, -1, false, false},
    {"[gelu_tanh, {bias: {type: f32}}]", false, 0, false, true},
    {"[{bias: {type: f32}}, gelu_tanh, residual]", true, 1, true, false},
    {"[residual, scale, gelu_tanh]", false, 2, false, true},
    {"[relu, gelu_tanh]", false, -1, false, false},
    {"[{clamp: {max: 2}}, gelu_tanh]", false, -1, false, false},
    {"[{bias: {type: f32}}, silu, gelu_tanh]", true, -1, false, false},
    {"[gelu_erf]", false, -1, false, false},
};

TEST(EpilogueChainEntry, PlanFoldsALeadingBiasAndHalvesIntoGeluTanh) {
  for (const EntryCase &c : kEntryCases) {
    auto k = compileWithEpilogue(std::string("epilogue: { chunk_n: 128, chain: ") + c.chain + " }\n");
    ASSERT_TRUE(k) << c.chain;
    const ChainEntryPlan &e = k->kernel.plan.chainEntry;
    EXPECT_EQ(e.biasInAlpha, c.biasInAlpha) << c.chain;
    EXPECT_EQ(e.halfGeluStep, c.halfGeluStep) << c.chain;
    EXPECT_EQ(e.halvesBias, c.halvesBias) << c.chain;
    EXPECT_EQ(e.halvesC, c.halvesC) << c.chain;
  }
  // sm_100a applies the chain as written.
  DiagnosticEngine diags(nullptr);
  auto sm100 = compileSpecText(sm100WithChain("[{bias: {per: column, type: bf16}}, gelu_tanh]"),
                               "sm100_chain.yaml", EmitOptions{}, diags);
  ASSERT_TRUE(sm100);
  EXPECT_FALSE(sm100->kernel.plan.chainEntry.biasInAlpha);
  EXPECT_FALSE(sm100->kernel.plan.chainEntry.halved());
  EXPECT_NE(sm100->source.find("v0 += b0; v1 += b1;"), std::string::npos);
  EXPECT_EQ(sm100->source.find("gelu_tanh_half_fast"), std::string::npos);
}

// What the sm_90a printer makes of the entry: the halved names where the
// plan says, and nowhere else (a residual after the gelu takes beta whole).
TEST(EpilogueChainEntry, PrinterTakesThePlansEntry) {
  auto src = [](const char *chain) {
    auto k = compileWithEpilogue(std::string("epilogue: { chunk_n: 128, chain: ") + chain + " }\n");
    EXPECT_TRUE(k) << chain;
    return k ? k->source : std::string();
  };
  auto has = [](const std::string &s, const char *what) { return s.find(what) != std::string::npos; };

  const std::string biasGeluResidual = src("[{bias: {type: f32}}, gelu_tanh, residual]");
  EXPECT_TRUE(has(biasGeluResidual, "const float chain_alpha = 0.5f * alpha;"));
  EXPECT_FALSE(has(biasGeluResidual, "chain_beta"));
  EXPECT_TRUE(has(biasGeluResidual, "c[2 * q] = beta * unpack_lo<ELEM>(cr[q])"));
  EXPECT_TRUE(has(biasGeluResidual, "v[2 * q] = fmaf(chain_alpha, acc[m][4 * j + 2 * q], "
                                    "bias_v[2 * j2 + q / 2][0]);"));
  EXPECT_TRUE(has(biasGeluResidual, "0.5f * epi::load_bias(bias, epi::BIAS_F32, at)"));
  EXPECT_TRUE(has(biasGeluResidual, "v0 = epi::gelu_tanh_half_fast(v0);"));
  EXPECT_FALSE(has(biasGeluResidual, "v0 += b0;"));
  EXPECT_TRUE(has(biasGeluResidual, "v0 += c0;"));

  const std::string residualGelu = src("[residual, gelu_tanh]");
  EXPECT_TRUE(has(residualGelu, "const float chain_beta = 0.5f * beta;"));
  EXPECT_TRUE(has(residualGelu, "c[2 * q] = chain_beta * unpack_lo<ELEM>(cr[q])"));
  EXPECT_TRUE(has(residualGelu, "v[q] = chain_alpha * acc[m][4 * j + q];"));

  const std::string geluBias = src("[gelu_tanh, {bias: {type: f32}}]");
  EXPECT_TRUE(has(geluBias, "v0 = epi::gelu_tanh_half_fast(v0);"));
  EXPECT_TRUE(has(geluBias, "v0 += b0;"));
  EXPECT_FALSE(has(geluBias, "0.5f * epi::load_bias"));
  EXPECT_TRUE(has(geluBias, "fmaf(chain_beta, unpack_lo<ELEM>(cr[q]), v[2 * q])"));

  const std::string reluGelu = src("[relu, gelu_tanh]");
  EXPECT_FALSE(has(reluGelu, "chain_alpha"));
  EXPECT_FALSE(has(reluGelu, "gelu_tanh_half_fast"));
  EXPECT_TRUE(has(reluGelu, "v[q] = alpha * acc[m][4 * j + q];"));

  const std::string biasRelu = src("[{bias: {type: f32}}, relu]");
  EXPECT_TRUE(has(biasRelu, "fmaf(alpha, acc[m][4 * j + 2 * q], bias_v[2 * j2 + q / 2][0])"));
  EXPECT_FALSE(has(biasRelu, "v0 += b0;"));
  EXPECT_FALSE(has(biasRelu, "chain_alpha"));
}

// The halved gelu is the same function bit for bit on normal values: its
// constants are the full form's times powers of two, so every rounding is the
// same one scaled (on the host both use tanhf; the device's tanh.approx takes
// the same argument u in both).
TEST(EpilogueChainEntry, HalvedGeluIsTheSameFunctionBitForBit) {
  int checked = 0;
  for (float mag = 1e-6f; mag < 40.f; mag *= 1.0137f)
    for (float x : {mag, -mag}) {
      const float full = epi::gelu_tanh_fast(x), half = epi::gelu_tanh_half_fast(0.5f * x);
      ASSERT_EQ(std::memcmp(&full, &half, sizeof full), 0)
          << x << ": " << full << " vs " << half;
      ++checked;
    }
  EXPECT_GT(checked, 2000);
  // And the entry value: fmaf(alpha/2, acc, bias/2) is fmaf(alpha, acc, bias) halved.
  for (float acc : {-3.75f, 0.1f, 17.0f, 1234.5f})
    for (float bias : {-0.3f, 0.0f, 2.5f}) {
      const float alpha = 0.7f;
      EXPECT_EQ(std::fmaf(0.5f * alpha, acc, 0.5f * bias), 0.5f * std::fmaf(alpha, acc, bias));
    }
}

// The folded forms compile for sm_90a without spills (NVRTC; the GPU tests
// run them against the reference: Sm90/Epilogue.MatchesReference).
TEST(EpilogueChainEntry, FoldedChainsCompileWithoutSpills) {
  for (const char *chain : {"[{bias: {type: f32}}, gelu_tanh, residual]", "[residual, gelu_tanh]"}) {
    auto c = compileWithEpilogue(std::string("epilogue: { chunk_n: 128, chain: ") + chain + " }\n");
    ASSERT_TRUE(c) << chain;
    Expected<CubinResult> cubin =
        compileCudaSource(c->source, "chain_entry.cu", "sm_90a", c->abi.kernelName);
    ASSERT_TRUE(cubin.ok()) << chain << ": " << cubin.status().message();
    EXPECT_FALSE(cubin->usage.hasSpills()) << chain;
  }
}

} // namespace

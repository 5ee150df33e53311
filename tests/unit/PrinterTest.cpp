//===- PrinterTest.cpp - Printers refuse what they cannot print -----------===//
//
// An op with no form on the printer's target is an error value with a
// message, not an assertion; so is a kernel of the other target's shape.
// Assertions stay for the compiler's own invariants, and the tests run with
// them compiled in.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/IR.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Sm100Printer.h"
#include "gemmgen/Sm90Printer.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

using namespace gemmgen;

namespace {

ir::Kernel lowered(const std::string &rel) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpecFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/" + rel, engine);
  EXPECT_TRUE(spec.has_value()) << rel;
  return spec ? lowerToIR(*spec) : ir::Kernel();
}

KernelSpec parsedSpec(const std::string &rel) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpecFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/" + rel, engine);
  EXPECT_TRUE(spec.has_value()) << rel;
  return spec ? *spec : KernelSpec();
}

ir::Op op(ir::OpKind kind) {
  ir::Op o;
  o.kind = kind;
  return o;
}

template <typename Emit> std::string emitError(const ir::Kernel &k, Emit emit) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::Error err = emit(k, EmitOptions{}, os);
  return err ? llvm::toString(std::move(err)) : std::string("no error");
}

TEST(Printer, Sm90PrintsItsOwnKernel) {
  EXPECT_EQ(emitError(lowered("sm90/01_ws_1consumer.yaml"), emitSm90), "no error");
  EXPECT_EQ(emitError(lowered("sm100/07_ws_tcgen05.yaml"), emitSm100), "no error");
}

TEST(Printer, Sm90RefusesAnSm100Op) {
  ir::Kernel k = lowered("sm90/01_ws_1consumer.yaml");
  k.roles[1].body[0].body.push_back(op(ir::OpKind::LoadAcc));
  EXPECT_EQ(emitError(k, emitSm90),
            "kernel 'gemm_sm90_ws_1consumer': op 'load_acc' is an sm_100a op (tcgen05, tensor "
            "memory) and has no sm_90a form; lower the spec for its own target");
  ir::Kernel f = lowered("sm90/01_ws_1consumer.yaml");
  ir::Op fence = op(ir::OpKind::Fence);
  fence.fence = ir::FenceKind::TcgenAfterSync;
  // the producer's k-block (its body: early_loads, then the tile loop)
  std::vector<ir::Op> &kBody = f.roles[0].body.back().body[0].body;
  kBody.insert(kBody.begin() + 1, fence);
  EXPECT_EQ(emitError(f, emitSm90),
            "kernel 'gemm_sm90_ws_1consumer': op 'fence tcgen05_after_thread_sync' is a tcgen05 "
            "fence (sm_100a) and has no sm_90a form; lower the spec for its own target");
}

TEST(Printer, Sm100RefusesAWgmmaOpAndAnSm90Kernel) {
  ir::Kernel k = lowered("sm100/07_ws_tcgen05.yaml");
  k.roles[1].body.push_back(op(ir::OpKind::MmaWait));
  EXPECT_EQ(emitError(k, emitSm100),
            "kernel '" + k.name + "': op 'mma_wait' is a wgmma group op (sm_90a) and has no "
            "sm_100a form; lower the spec for its own target");
  EXPECT_EQ(emitError(lowered("sm90/01_ws_1consumer.yaml"), emitSm100),
            "kernel 'gemm_sm90_ws_1consumer' is not an sm_100a lowering (it has 2 roles and 4 "
            "barriers; the sm_100a printer expects the producer, MMA and writeback roles and "
            "six barriers of lowerToIRSm100)");
}

TEST(Build, AssertionsAreCompiledIn) {
#ifdef NDEBUG
  FAIL() << "the tests are built with NDEBUG: configure with -DGEMMGEN_ENABLE_ASSERTIONS=ON";
#endif
  // And in the library: lowering an sm_90a spec as sm_100a trips its assert.
  KernelSpec spec = parsedSpec("sm90/01_ws_1consumer.yaml");
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(lowerToIRSm100(spec), "SM100a");
}

} // namespace

TEST(Printer, Sm90CursorsHaveTheIRsDepth) {
  // The simulator runs the IR's cursors; the printer maps each onto C++:
  // a PipelineState (a ring of STAGES slots) or a PhaseBit (one slot). A
  // one-slot cursor printed as a PipelineState waited on a stale phase on
  // the H200 (cload, beta != 0) where the simulator saw nothing wrong; this
  // ties every printed cursor to the depth the IR gives it.
  for (const char *rel : {"sm90/01_ws_1consumer.yaml", "sm90/03_ws_2consumers.yaml",
                          "sm90/05_fast_f16.yaml", "sm90/10_fast_f16_out_f32.yaml"}) {
    SCOPED_TRACE(rel);
    ir::Kernel k = lowered(rel);
    std::string out;
    llvm::raw_string_ostream os(out);
    ASSERT_FALSE(bool(emitSm90(k, EmitOptions{}, os)));
    os.flush();
    unsigned oneSlot = 0;
    for (const ir::Role &r : k.roles)
      for (const ir::PipelineState &s : r.states) {
        ASSERT_TRUE(s.depth == 1 || s.depth == k.depth) << s.name << " depth " << s.depth;
        const std::string decl =
            (s.depth == 1 ? "PhaseBit " : "PipelineState ") + s.name + "{";
        EXPECT_NE(out.find(decl), std::string::npos) << "missing: " << decl;
        oneSlot += s.depth == 1;
      }
    EXPECT_GE(oneSlot, 1u) << "the cload cursor is one slot deep";
  }
}

namespace {

/// The sm_90a CUDA source of a shipped spec (`rel` under specs/), emitted
/// with the default options.
std::string emittedSm90(const char *rel) {
  ir::Kernel k = lowered(rel);
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_FALSE(bool(emitSm90(k, EmitOptions{}, os))) << rel;
  os.flush();
  return out;
}

/// The K = 0 branch zeroes the accumulators with zero_acc_reg (volatile), so
/// that it stays a branch: a plain `acc = 0.f` there became one FSEL per
/// accumulator register on every tile (128 per consumer thread of spec 05,
/// bench/results/2026-12-04_zero_acc_sass). Blockwise kernels also zero at
/// each tile's start, unconditionally: that one stays plain.
TEST(Printer, Sm90ZeroesTheAccumulatorsOfAnEmptyTileUnderItsBranch) {
  for (const char *rel : {"sm90/05_fast_f16.yaml", "sm90/20_pingpong_f16.yaml",
                          "sm90/18_streamk_f16.yaml", "sm90/15_blockwise_e4m3.yaml"}) {
    SCOPED_TRACE(rel);
    const std::string out = emittedSm90(rel);
    const size_t branch = out.find("K = 0: no wgmma ran");
    ASSERT_NE(branch, std::string::npos);
    const size_t zero = out.find("zero_acc_reg(acc[m][i]);", branch);
    ASSERT_NE(zero, std::string::npos);
    EXPECT_LT(zero, out.find("} // K = 0", branch));
  }
  const std::string blockwise = emittedSm90("sm90/15_blockwise_e4m3.yaml");
  EXPECT_NE(blockwise.find("for (int i = 0; i < BN / 2; ++i) acc[m][i] = 0.f;"), std::string::npos);
  EXPECT_EQ(emittedSm90("sm90/05_fast_f16.yaml").find("acc[m][i] = 0.f;"), std::string::npos);
}

} // namespace

namespace {

/// What a chunk stores in a kernel without a chain, tested once per chunk:
/// D = acc (alpha 1, beta 0: convert and store, no multiply), alpha·acc
/// (beta 0: C not read), or alpha·acc + beta·C (C read, no test of beta per
/// 8 values). A chain keeps its one path (it has its own entry, above).
TEST(Printer, Sm90ChoosesTheStoreFormOncePerChunk) {
  auto between = [](const std::string &s, size_t from, size_t to) {
    return from == std::string::npos || to == std::string::npos ? std::string()
                                                                 : s.substr(from, to - from);
  };
  for (const char *rel : {"sm90/05_fast_f16.yaml", "sm90/20_pingpong_f16.yaml",
                          "sm90/26_wave_fit_n152_f16.yaml", "sm90/23_decode_col_d_f16.yaml",
                          "sm90/10_fast_f16_out_f32.yaml", "sm90/13_fast_e4m3.yaml"}) {
    SCOPED_TRACE(rel);
    const std::string out = emittedSm90(rel);
    const size_t plain = out.find("if (alpha == 1.f && beta == 0.f) {");
    const size_t scaled = out.find("else if (beta == 0.f) {", plain);
    const size_t general = out.find("else {", scaled);
    const size_t end = out.find("} // D = alpha * acc + beta * C", general);
    ASSERT_NE(end, std::string::npos);
    const std::string plainPath = between(out, plain, scaled);
    const std::string scaledPath = between(out, scaled, general);
    const std::string generalPath = between(out, general, end);
    EXPECT_EQ(plainPath.find("alpha *"), std::string::npos) << plainPath;
    EXPECT_EQ(plainPath.rfind("beta"), plainPath.find("beta == 0.f")) << "C is not read there";
    EXPECT_NE(scaledPath.find("alpha * acc"), std::string::npos) << scaledPath;
    EXPECT_EQ(scaledPath.find("ldmatrix"), std::string::npos);
    EXPECT_EQ(scaledPath.find("ld_shared_f32x2"), std::string::npos);
    EXPECT_EQ(scaledPath.rfind("beta"), scaledPath.find("beta == 0.f")) << "nor here";
    EXPECT_NE(generalPath.find("beta"), std::string::npos);
    EXPECT_TRUE(generalPath.find("ldmatrix") != std::string::npos ||
                generalPath.find("ld_shared_f32x2") != std::string::npos)
        << generalPath;
  }
  // The 16-bit general form reads C without testing beta per 8 values.
  const std::string spec05 = emittedSm90("sm90/05_fast_f16.yaml");
  const size_t general = spec05.find("else {", spec05.find("else if (beta == 0.f) {"));
  EXPECT_EQ(between(spec05, general, spec05.find("} // D = alpha * acc", general)).find("if (beta"),
            std::string::npos);
  EXPECT_EQ(emittedSm90("sm90/14_fast_bf16_bias_gelu.yaml").find("alpha == 1.f"), std::string::npos);
  EXPECT_EQ(emittedSm90("sm90/21_pingpong_bf16_bias_gelu.yaml").find("alpha == 1.f"), std::string::npos);
}

} // namespace

namespace {

/// KernelPlan::earlyLoads: where one producer thread of a one-CTA cluster
/// walks plain tiles, the initialising thread issues the first tile's first
/// early_blocks k-blocks before the CTA's barrier (their loads, not the
/// empty-slot wait), and the producer's cursor and first k-block start after
/// them; stream-K the same from its walk's first step (a whole unit or the
/// start of its share); a cluster (multicast into peers not yet past their
/// barrier inits), blockwise scales (several producer warps) and a grouped
/// table keep the plain prologue.
TEST(Printer, Sm90IssuesTheFirstLoadsBeforeTheCtasBarrier) {
  for (const char *rel :
       {"sm90/05_fast_f16.yaml", "sm90/20_pingpong_f16.yaml", "sm90/12_splitk_f16.yaml",
        "sm90/09_fast_bf16_a_col_b_row.yaml", "sm90/23_decode_col_d_f16.yaml"}) {
    SCOPED_TRACE(rel);
    EXPECT_TRUE(derivePlan(parsedSpec(rel)).schedule.earlyLoads);
    const std::string out = emittedSm90(rel);
    const size_t early = out.find("for (int kb = 0; kb < early_blocks; ++kb) {");
    const size_t barrier = out.find("__syncthreads();");
    const size_t producer = out.find("==== role producer");
    ASSERT_NE(early, std::string::npos);
    ASSERT_LT(early, barrier);
    const std::string issued = out.substr(early, out.find("} // early k-block", early) - early);
    EXPECT_NE(issued.find("mbar_arrive_expect_tx(full_bar"), std::string::npos) << issued;
    EXPECT_NE(issued.find("tma_load_3d(smem + SMEM_A"), std::string::npos) << issued;
    EXPECT_NE(issued.find("tma_load_3d(smem + SMEM_B"), std::string::npos) << issued;
    EXPECT_EQ(issued.find("mbar_wait"), std::string::npos) << issued;
    EXPECT_LT(out.find("int early_blocks = 0"), early) << "computed before it is used";
    EXPECT_GT(out.find("for (int i = 0; i < early_blocks; ++i) load.advance();"), producer);
    EXPECT_GT(out.find("for (int kb = slot == cluster_id ? early_blocks : 0; kb < k_blocks;"),
              producer);
  }
  {
    const char *rel = "sm90/18_streamk_f16.yaml";
    SCOPED_TRACE(rel);
    EXPECT_TRUE(derivePlan(parsedSpec(rel)).schedule.earlyLoads);
    const std::string out = emittedSm90(rel);
    const size_t first = out.find("if (sk_next(first_walk, gridDim.x, k_blocks, slot, kb_begin, "
                                  "kb_end)) {");
    const size_t early = out.find("for (int kb = early_kb; kb < early_kb + early_blocks; ++kb) {");
    const size_t barrier = out.find("__syncthreads();");
    const size_t producer = out.find("==== role producer");
    ASSERT_NE(first, std::string::npos);
    ASSERT_NE(early, std::string::npos);
    EXPECT_LT(first, early);
    ASSERT_LT(early, barrier);
    EXPECT_GT(out.find("for (int i = 0; i < early_blocks; ++i) load.advance();"), producer);
    EXPECT_GT(out.find("for (int kb = slot == early_slot ? kb_begin + early_blocks : kb_begin; "
                       "kb < kb_end;"),
              producer);
  }
  for (const char *rel : {"sm90/02_ws_cluster2.yaml", "sm90/15_blockwise_e4m3.yaml"}) {
    SCOPED_TRACE(rel);
    EXPECT_FALSE(derivePlan(parsedSpec(rel)).schedule.earlyLoads);
    EXPECT_EQ(emittedSm90(rel).find("early_blocks"), std::string::npos);
  }
  KernelSpec grouped = parsedSpec("sm90/05_fast_f16.yaml");
  grouped.scheduler.grouped.value = true;
  EXPECT_FALSE(derivePlan(grouped).schedule.earlyLoads);
  // An empty barrier declared at phase 0: the producer's first waits would
  // not pass at once, so none is skipped (that spec's hang stays a hang).
  DiagnosticEngine engine(nullptr);
  auto phase0 = parseSpecFile(
      std::string(GEMMGEN_SOURCE_DIR) + "/tests/sim_bugs/same_phase_empty.yaml", engine);
  ASSERT_TRUE(phase0.has_value());
  EXPECT_FALSE(derivePlan(*phase0).schedule.earlyLoads);
  EXPECT_TRUE(derivePlan(parsedSpec("sm90/01_ws_1consumer.yaml")).schedule.earlyLoads);
}

} // namespace

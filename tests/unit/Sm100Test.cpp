//===- Sm100Test.cpp - The sm_100a target: IR shape, emitted code, checks --===//
//
// The three Blackwell specs (the seed's steps 7, 8, 9) lower to the seed's
// protocol (barrier kinds, slots, arrival counts, cta masks, roles on the
// seed's warps), the printer emits the expected tcgen05 operations, and the
// sm_100a checks reject wrong specs with located errors. (The code is
// compile-verified and simulated, never run: no Blackwell GPU here.)
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/IR.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"
#include "gemmgen/gemmgen.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::ir;
using gemmgen::testing::specText;
using gemmgen::testing::withEdit;

namespace {

std::string specPath(const char *name) {
  return std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm100/" + name + ".yaml";
}

std::optional<CompiledSpec> compileStep(const char *name) {
  DiagnosticEngine diags(nullptr);
  auto c = compileSpecFile(specPath(name), EmitOptions{}, diags);
  EXPECT_TRUE(c) << name << " has errors";
  EXPECT_EQ(diags.warningCount(), 0u) << name;
  return c;
}

const Op *findOp(const std::vector<Op> &ops, const std::function<bool(const Op &)> &pred) {
  for (const Op &op : ops) {
    if (pred(op))
      return &op;
    if (const Op *inner = findOp(op.body, pred))
      return inner;
  }
  return nullptr;
}

unsigned countOps(const std::vector<Op> &ops, OpKind kind) {
  unsigned n = 0;
  for (const Op &op : ops)
    n += (op.kind == kind) + countOps(op.body, kind);
  return n;
}

struct Expected {
  const char *spec;
  unsigned ctaGroup, consumers, depth, tileN, chunkN, tmemCols, tmemPerConsumer;
  unsigned producerWarp, mmaWarp, threads, txBytes, ctaMask;
};

const Expected kSteps[] = {
    // spec              G  C  depth tile.n EPI_N tmem per  P   MMA thr   tx     mask
    {"07_ws_tcgen05", 1, 1, 2, 128, 128, 512, 512, 7, 4, 256, 32768, 0},
    {"08_cta_pair", 2, 1, 4, 256, 128, 512, 512, 7, 4, 256, 65536, 3},
    {"09_two_consumers", 2, 2, 4, 256, 64, 512, 256, 11, 8, 384, 98304, 3},
};

class Sm100Step : public ::testing::TestWithParam<Expected> {};

TEST_P(Sm100Step, LowersToTheSeedsProtocol) {
  const Expected &x = GetParam();
  auto c = compileStep(x.spec);
  ASSERT_TRUE(c);
  const ir::Kernel &k = c->kernel;
  EXPECT_EQ(k.target, Target::SM100a);
  EXPECT_EQ(k.ctaGroup, x.ctaGroup);
  EXPECT_EQ(k.consumers, x.consumers);
  EXPECT_EQ(k.depth, x.depth);
  EXPECT_EQ(k.tileM, 128u);
  EXPECT_EQ(k.tileN, x.tileN);
  EXPECT_EQ(k.mmaM, 128u * x.ctaGroup);
  EXPECT_EQ(k.mmaN, x.tileN);
  EXPECT_EQ(k.epilogueChunkN, x.chunkN);
  EXPECT_EQ(k.tmemColumns, x.tmemCols);
  EXPECT_EQ(k.tmemColumnsPerConsumer, x.tmemPerConsumer);
  EXPECT_EQ(k.threadsPerBlock(), x.threads);
  EXPECT_EQ(k.schedule.group, 8u);

  // The four barriers with the seed's kinds, slots and arrival counts.
  const Barrier *tma2mma = k.findBarrier("tma2mma"), *mma2tma = k.findBarrier("mma2tma"),
                *mma2ld = k.findBarrier("mma2ld"), *ld2mma = k.findBarrier("ld2mma"),
                *epi = k.findBarrier("epilogue");
  ASSERT_TRUE(tma2mma && mma2tma && mma2ld && ld2mma && epi);
  EXPECT_EQ(tma2mma->kind, BarrierKind::Tma);
  EXPECT_EQ(tma2mma->slots, x.depth);
  EXPECT_EQ(tma2mma->arriveCount, 1u);
  EXPECT_EQ(tma2mma->txBytes, x.txBytes);
  EXPECT_EQ(mma2tma->kind, BarrierKind::Commit);
  EXPECT_EQ(mma2tma->slots, x.depth);
  EXPECT_EQ(mma2tma->arriveCount, x.consumers);
  EXPECT_EQ(mma2ld->kind, BarrierKind::Commit);
  EXPECT_EQ(mma2ld->slots, x.consumers);
  EXPECT_EQ(mma2ld->arriveCount, 1u);
  EXPECT_EQ(ld2mma->kind, BarrierKind::Mbarrier);
  EXPECT_EQ(ld2mma->slots, x.consumers);
  EXPECT_EQ(ld2mma->arriveCount, 128u * x.ctaGroup);
  EXPECT_EQ(epi->kind, BarrierKind::Named);
  EXPECT_EQ(epi->namedId, 10u);
  EXPECT_EQ(epi->slots, x.consumers);

  // Roles on the seed's warps.
  ASSERT_EQ(k.roles.size(), 3u);
  const Role *producer = k.findRole("producer"), *mma = k.findRole("mma"),
             *writeback = k.findRole("writeback");
  ASSERT_TRUE(producer && mma && writeback);
  EXPECT_EQ(producer->firstWarp, x.producerWarp);
  EXPECT_EQ(producer->ownedWarps, 1u);
  EXPECT_EQ(mma->firstWarp, x.mmaWarp);
  EXPECT_EQ(mma->instances, x.consumers);
  EXPECT_EQ(mma->leaderCtaOnly, x.ctaGroup == 2);
  EXPECT_EQ(writeback->firstWarp, 0u);
  EXPECT_EQ(writeback->instances, x.consumers);
  EXPECT_EQ(writeback->warpsPerInstance, 4u);

  // Initial phases: producer and MMA (on ld2mma) start at 1, the waiters at 0.
  EXPECT_EQ(producer->states[0].initialPhase, 1u);
  EXPECT_EQ(mma->states[0].initialPhase, 0u);
  EXPECT_EQ(mma->states[1].initialPhase, 1u);
  EXPECT_EQ(writeback->states[0].initialPhase, 0u);

  // One A load per consumer and one B load per stage, completing on the
  // leader's barrier with the pair.
  EXPECT_EQ(countOps(producer->body, OpKind::TmaLoad), x.consumers + 1);
  const Op *load = findOp(producer->body, [](const Op &op) { return op.kind == OpKind::TmaLoad; });
  ASSERT_TRUE(load);
  EXPECT_EQ(load->scope, x.ctaGroup == 2 ? CtaScope::Leader : CtaScope::Local);
  const Op *expect =
      findOp(producer->body, [](const Op &op) { return op.kind == OpKind::ArriveExpectTx; });
  ASSERT_TRUE(expect);
  EXPECT_EQ(expect->leaderCtaOnly, x.ctaGroup == 2);

  // Commits with the seed's cta masks; the per-consumer ones use slot = consumer.
  const Op *commitStage = findOp(mma->body, [](const Op &op) {
    return op.kind == OpKind::MmaCommitArrive && op.barrier == "mma2tma";
  });
  const Op *commitAcc = findOp(mma->body, [](const Op &op) {
    return op.kind == OpKind::MmaCommitArrive && op.barrier == "mma2ld";
  });
  ASSERT_TRUE(commitStage && commitAcc);
  EXPECT_EQ(commitStage->ctaMask, x.ctaMask);
  EXPECT_EQ(commitAcc->ctaMask, x.ctaMask);
  EXPECT_FALSE(commitStage->slotIsInstance);
  EXPECT_TRUE(commitAcc->slotIsInstance);

  // Writeback: every thread arrives on ld2mma, on the leader's with the pair;
  // EPI_N < tile.n gives a chunk loop.
  const Op *release = findOp(writeback->body, [](const Op &op) {
    return op.kind == OpKind::Arrive && op.barrier == "ld2mma";
  });
  ASSERT_TRUE(release);
  EXPECT_EQ(release->exec, Exec::All);
  EXPECT_EQ(release->scope, x.ctaGroup == 2 ? CtaScope::Leader : CtaScope::Local);
  EXPECT_EQ(countOps(writeback->body, OpKind::ForEachChunk), x.chunkN < x.tileN ? 1u : 0u);
  EXPECT_EQ(countOps(writeback->body, OpKind::LoadAcc), 1u);
}

TEST_P(Sm100Step, EmitsTheTcgen05Operations) {
  const Expected &x = GetParam();
  auto c = compileStep(x.spec);
  ASSERT_TRUE(c);
  const std::string &src = c->source;
  auto has = [&](const std::string &s) {
    EXPECT_NE(src.find(s), std::string::npos) << x.spec << " lacks: " << s;
  };
  has("#include \"gemmgen/device/sm100_ptx.cuh\"");
  has("compile-verified only (NVRTC/nvcc, sm_100a); never run");
  has("tmem_alloc<CTA_GROUP>(smem + SMEM_TMEM_SLOT, TMEM_COLS);");
  has("tmem_relinquish_alloc_permit<CTA_GROUP>();");
  has("tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);");
  has("tcgen05_mma_f16<CTA_GROUP>(acc_tmem, make_smem_desc_sw128(a_stage + ks * 32),");
  has("make_idesc_f16_f32(MMA_M, BN, ELEM)");
  has("tmem_ld_32x32b_x32(");
  has("tmem_wait_ld();");
  has("tcgen05_fence_after_thread_sync();");
  has("tcgen05_fence_before_thread_sync();");
  has("named_barrier_sync(EPILOGUE_BAR_ID + consumer, 128);");
  has("tma_store_2d(&tmD");
  has("constexpr int CTA_GROUP = " + std::to_string(x.ctaGroup) + ";");
  has("constexpr int EPI_N = " + std::to_string(x.chunkN) + ";");
  if (x.ctaGroup == 2) {
    has("tcgen05_commit_multicast<CTA_GROUP>(mma2tma_bar + 8 * mma_ps.stage, (u16)3);");
    has("tcgen05_commit_multicast<CTA_GROUP>(mma2ld_bar + 8 * consumer, (u16)3);");
    has("tma_load_2d_pair(");
    has("mapa_shared(tma2mma_bar, 0)");
    has("if (cta_rank == 0) mbar_arrive_expect_tx(");
    has("mbar_arrive_remote_release(ld2mma_bar + 8 * consumer, 0);");
    has("cluster_sync();");
  } else {
    has("tcgen05_commit<CTA_GROUP>(mma2tma_bar + 8 * mma_ps.stage);");
    has("tcgen05_commit<CTA_GROUP>(mma2ld_bar + 8 * consumer);");
    has("mbar_arrive(ld2mma_bar + 8 * consumer);");
    EXPECT_EQ(src.find("tma_load_2d_pair("), std::string::npos);
  }
  // Same spec, same bytes.
  auto again = compileStep(x.spec);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->source, src);
}

INSTANTIATE_TEST_SUITE_P(Seed, Sm100Step, ::testing::ValuesIn(kSteps),
                         [](const ::testing::TestParamInfo<Expected> &info) {
                           std::string n = info.param.spec;
                           return "step" + n.substr(1, 1);
                         });

TEST(Sm100, StandaloneInlinesTheSm100Header) {
  DiagnosticEngine diags(nullptr);
  EmitOptions opts;
  opts.standalone = true;
  auto c = compileSpecFile(specPath("09_two_consumers"), opts, diags);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->source.find("#include \"gemmgen/device/sm100_ptx.cuh\""), std::string::npos);
  EXPECT_NE(c->source.find("tcgen05.mma.cta_group::2.kind::f16"), std::string::npos);
  EXPECT_NE(c->source.find("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
                           ".multicast::cluster.b64"),
            std::string::npos);
  // The shared wrappers (common_ptx.cuh) are inlined once, ahead of the
  // target header, whose guarded #include then names no file.
  const size_t common = c->source.find("namespace ptx {");
  const size_t target = c->source.find("namespace sm100 {");
  ASSERT_NE(common, std::string::npos);
  ASSERT_NE(target, std::string::npos);
  EXPECT_LT(common, target);
  EXPECT_EQ(c->source.find("namespace ptx {", common + 1), std::string::npos);
  EXPECT_NE(c->source.find("mbarrier.arrive.release.cluster.shared::cluster.b64"),
            std::string::npos);
}

// Without --standalone the kernel names only the target header; that header
// includes common_ptx.cuh, which the runtime hands NVRTC with the others.
TEST(Sm100, CommonWrappersComeThroughTheTargetHeader) {
  DiagnosticEngine diags(nullptr);
  auto c = compileSpecFile(specPath("09_two_consumers"), EmitOptions{}, diags);
  ASSERT_TRUE(c);
  EXPECT_NE(c->source.find("#include \"gemmgen/device/sm100_ptx.cuh\""), std::string::npos);
  EXPECT_EQ(c->source.find("common_ptx.cuh"), std::string::npos);
  bool embedded = false;
  for (const DeviceHeader &h : deviceHeaders())
    embedded |= h.includeName == "gemmgen/device/common_ptx.cuh" && h.text == commonPtxDeviceHeader();
  EXPECT_TRUE(embedded);
  EXPECT_NE(sm100DeviceHeader().find("#include \"gemmgen/device/common_ptx.cuh\""),
            llvm::StringRef::npos);
  EXPECT_NE(sm90DeviceHeader().find("#include \"gemmgen/device/common_ptx.cuh\""),
            llvm::StringRef::npos);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

std::vector<std::string> check(const std::string &text) {
  DiagnosticEngine engine(nullptr);
  std::vector<std::string> out;
  auto spec = parseSpec(text, "t.yaml", engine);
  if (spec)
    checkSpec(*spec, engine);
  for (const Diagnostic &d : engine.diagnostics())
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
  return out;
}

const std::string kStep9Head = R"(kernel: k
target: sm_100a
tile: { m: 128, n: 256, k: 64 }
cluster: { m: 2, n: 1 }
cta_group: 2
consumers: 2
tmem_columns: 256
epilogue: { chunk_n: 64, overlap: false }
roles:
  producer:  { warps: 1, warp: 11, does: tma_load }
  mma:       { warps: 2, warp: 8, does: mma }
  writeback: { warpgroups: 2, warp: 0, does: epilogue }
)";

TEST(Sm100Checks, TheSeedsStep9Passes) { EXPECT_TRUE(check(kStep9Head).empty()); }

TEST(Sm100Checks, CtaGroup2WithoutCluster2) {
  auto d = check(withEdit(kStep9Head, "cluster: { m: 2, n: 1 }", "cluster: { m: 1, n: 1 }"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].substr(0, 5), "4:15:");
  EXPECT_NE(d[0].find("cta_group 2 needs cluster { m: 2, n: 1 }"), std::string::npos);
}

TEST(Sm100Checks, TmemColumnsMustBeAPowerOfTwoFrom32To512) {
  // The next power of two up is what the message suggests.
  for (auto [bad, fix] : {std::pair<const char *, const char *>{"48", "64"}, {"16", "32"}}) {
    auto d = check(withEdit(kStep9Head, "tmem_columns: 256", std::string("tmem_columns: ") + bad));
    ASSERT_EQ(d.size(), 1u) << bad;
    EXPECT_EQ(d[0], std::string("7:15: tmem_columns ") + bad +
                        " is not a TMEM allocation: tcgen05.alloc takes a power of two from 32 "
                        "to 512 columns; use " + fix);
  }
  // Past 512 the parser's range check speaks first.
  EXPECT_EQ(check(withEdit(kStep9Head, "tmem_columns: 256", "tmem_columns: 1000")),
            std::vector<std::string>{"7:15: tmem_columns must be between 0 and 512, got 1000"});
}

TEST(Sm100Checks, TmemColumnsTimesConsumersOver512) {
  auto d = check(withEdit(kStep9Head, "tmem_columns: 256", "tmem_columns: 512"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "7:15: 2 consumers × 512 TMEM columns = 1024 columns, more than the 512 of an "
                  "SM's tensor memory; use tmem_columns: 256");
}

TEST(Sm100Checks, Ld2mmaArrivalsMustBe128TimesCtaGroup) {
  auto d = check(kStep9Head + "barriers:\n  ld2mma: { arrivals: 128 }\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].substr(0, 6), "14:23:");
  EXPECT_NE(d[0].find("use arrivals: 256"), std::string::npos) << d[0];
  EXPECT_NE(d[0].find("(race)"), std::string::npos) << d[0];
  d = check(kStep9Head + "barriers:\n  ld2mma: { arrivals: 512 }\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("(deadlock)"), std::string::npos) << d[0];
}

TEST(Sm100Checks, Mma2tmaArrivalsAreTheConsumers) {
  auto d = check(kStep9Head + "barriers:\n  mma2tma: { arrivals: 1, cta_mask: 0b11 }\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("barriers.mma2tma.arrivals is 1"), std::string::npos) << d[0];
  EXPECT_NE(d[0].find("use arrivals: 2"), std::string::npos) << d[0];
}

TEST(Sm100Checks, CommitMaskMustReachThePair) {
  auto d = check(kStep9Head + "barriers:\n  mma2ld: { cta_mask: 1 }\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].substr(0, 6), "14:23:");
  EXPECT_NE(d[0].find("use cta_mask: 0b11"), std::string::npos) << d[0];
}

TEST(Sm100Checks, TxBytesCountBothCtas) {
  auto d = check(kStep9Head + "barriers:\n  tma2mma: { tx_bytes: 49152 }\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("use tx_bytes: 98304"), std::string::npos) << d[0];
}

TEST(Sm100Checks, ProtocolChecksOffLetsAWrongProtocolReachTheIR) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpec(kStep9Head + "barriers:\n  ld2mma: { arrivals: 128 }\n", "t.yaml", engine);
  ASSERT_TRUE(spec);
  CheckOptions off;
  off.protocol = false;
  EXPECT_TRUE(checkSpec(*spec, engine, off));
  ir::Kernel k = lowerToIR(*spec);
  ASSERT_TRUE(k.findBarrier("ld2mma"));
  EXPECT_EQ(k.findBarrier("ld2mma")->arriveCount, 128u);
}

TEST(Sm100Checks, OverlapAndDirectStoreAreNotSupportedYet) {
  auto d = check(withEdit(kStep9Head, "overlap: false", "overlap: true"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("epilogue.overlap: true is not supported on sm_100a"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// fp8 operands: tcgen05.mma kind::f8f6f4
//===----------------------------------------------------------------------===//

/// specs/sm100/10_cta_pair_e4m3.yaml with its types replaced.
std::string pairWithTypes(const std::string &types) {
  return withEdit(specText("sm100/10_cta_pair_e4m3.yaml"),
                  "types:  { a: e4m3, b: e4m3, d: bf16, accumulate: f32 }", "types: " + types);
}

// Each operand's format in the instruction descriptor, D in the writeback's
// type, the per-tensor scales after K and applied before the store (and
// before a chain); compile-verified with NVRTC (no Blackwell GPU here) and
// simulated.
TEST(Sm100Fp8, KindF8f6f4WithEachOperandsFormatCompilesAndSimulates) {
  struct Case {
    const char *types, *aFmt, *bFmt, *elem;
    bool chain;
  };
  const Case cases[] = {
      {"{ a: e4m3, b: e4m3, d: bf16 }", "0", "0", "ELEM_BF16", false},
      {"{ a: e5m2, b: e4m3, d: f16 }", "1", "0", "ELEM_F16", false},
      {"{ a: e4m3, b: e5m2, d: bf16 }", "0", "1", "ELEM_BF16", true},
  };
  for (const Case &x : cases) {
    std::string text = pairWithTypes(x.types);
    if (x.chain)
      text = withEdit(text, "epilogue: { store: tma, chunk_n: 128, overlap: false }",
                      "epilogue: { store: tma, chunk_n: 128, overlap: false, chain: "
                      "[{bias: {per: column, type: bf16}}, gelu_tanh] }");
    DiagnosticEngine diags(nullptr);
    auto c = compileSpecText(text, "sm100_fp8.yaml", EmitOptions{}, diags);
    ASSERT_TRUE(c) << x.types;
    const std::string &src = c->source;
    auto has = [&](const std::string &s) {
      EXPECT_NE(src.find(s), std::string::npos) << x.types << " lacks: " << s;
    };
    has("constexpr int A_FMT = " + std::string(x.aFmt) + ";");
    has("constexpr int B_FMT = " + std::string(x.bFmt) + ";");
    has("constexpr int ELEM = " + std::string(x.elem) + ";");
    has("constexpr int MMA_K = 32;");
    has("constexpr int OPERAND_BYTES = 1;");
    has("make_idesc_f8f6f4_f32(MMA_M, BN, A_FMT, B_FMT)");
    has("tcgen05_mma_f8f6f4<CTA_GROUP>(acc_tmem, make_smem_desc_sw128(a_stage + ks * 32),");
    has("int K,\n");
    has("const __grid_constant__ TensorMap tmC, float alpha, float beta,\n");
    has("const float* __restrict__ scale_a, const float* __restrict__ scale_b");
    has("const float acc_scale = alpha * (scale_a ? *scale_a : 1.f) * (scale_b ? *scale_b : 1.f);");
    EXPECT_EQ(src.find("tcgen05_mma_f16<"), std::string::npos);
    const size_t scaled = src.find("acc[8 * c16 + i] = fmaf(acc_scale, acc[8 * c16 + i], c[i]);");
    ASSERT_NE(scaled, std::string::npos);
    if (x.chain) {
      // The scales come first, then the chain (as on sm_90a: alpha·acc, then the steps).
      EXPECT_LT(scaled, src.find("apply_epilogue_chain(acc[8 * c16"));
      EXPECT_LT(src.find("const float* __restrict__ scale_b"), src.find("const void* __restrict__ bias"));
    }
    EXPECT_TRUE(c->abi.perTensorScales);
    EXPECT_TRUE(c->abi.alphaBeta); // tmC, alpha, beta before the scales
    EXPECT_EQ(c->abi.tileK, 128u);
    EXPECT_EQ(c->abi.boxA.inner, 128u); // 128 one-byte elements: one swizzled row
    gemmgen::Expected<CubinResult> cubin = compileCudaSource(src, "sm100_fp8.cu", "sm_100a",
                                                             c->abi.kernelName);
    ASSERT_TRUE(cubin.ok()) << x.types << ": " << cubin.status().message();
    EXPECT_FALSE(cubin->usage.hasSpills()) << x.types;
    EXPECT_TRUE(cubin->usage.warnings.empty()) << x.types << ":\n" << cubin->log;
    SimulationOptions o;
    o.m = 600, o.n = 700, o.k = 300, o.seeds = 3;
    for (const auto &run : simulate(c->kernel, o).runs)
      EXPECT_EQ(run.verdict, SimVerdict::Ok) << x.types << ": " << run.message;
  }
}

} // namespace

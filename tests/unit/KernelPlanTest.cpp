//===- KernelPlanTest.cpp - derivePlan: layout, protocol, schedule --------===//
//
// Expected numbers are worked out by hand from the kernels' structure (the
// comments show the arithmetic); the invariants run over every spec.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace gemmgen;
using gemmgen::testing::specText;
using gemmgen::testing::withEdit;

namespace {

std::string specPath(const std::string &rel) {
  return std::string(GEMMGEN_SOURCE_DIR) + "/specs/" + rel;
}

KernelSpec load(const std::string &path) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpecFile(path, engine);
  EXPECT_TRUE(spec.has_value()) << path;
  return spec ? *spec : KernelSpec();
}

KernelSpec parsed(const std::string &text) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpec(text, "t.yaml", engine);
  EXPECT_TRUE(spec.has_value()) << text;
  return spec ? *spec : KernelSpec();
}

std::vector<std::string> allSpecs() {
  std::vector<std::string> specs;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(specPath(""), ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".yaml" &&
        llvm::sys::path::filename(it->path()) != "defaults.yaml")
      specs.push_back(it->path());
  std::sort(specs.begin(), specs.end());
  return specs;
}

const std::string kRoles1 = R"(roles:
  producer: { warps: 1, registers: 40, does: tma_load }
  consumer: { warpgroups: 1, registers: 232, does: [mma, epilogue] }
)";

TEST(KernelPlan, Sm90FastF16Layout) {
  KernelPlan p = derivePlan(load(specPath("sm90/05_fast_f16.yaml")));
  const BufferPlan *a = p.findBuffer("smemA"), *b = p.findBuffer("smemB"),
                   *d = p.findBuffer("smemD"), *acc = p.findBuffer("acc");
  ASSERT_TRUE(a && b && d && acc);
  EXPECT_EQ(a->offset, 0u);
  EXPECT_EQ(a->totalBytes(), 4u * 128 * 64 * 2);        // 65536
  EXPECT_EQ(b->offset, 65536u);
  EXPECT_EQ(b->totalBytes(), 4u * 256 * 64 * 2);        // 131072
  EXPECT_EQ(d->offset, 196608u);
  EXPECT_EQ(d->rows, 64u);                              // 128 rows / 2 consumers
  EXPECT_EQ(d->cols, 128u);                             // epilogue.chunk_n
  EXPECT_EQ(d->totalBytes(), 2u * 64 * 128 * 2);        // 32768
  EXPECT_EQ(acc->space, MemSpace::Registers);
  EXPECT_EQ(p.barrierOffset, 229376u);
  EXPECT_EQ(p.barrierBytes, 128u);                      // (2 rings × 4 + 2 cload) × 8 = 80 -> 128
  EXPECT_EQ(p.sharedMemUsed, 229504u);
  EXPECT_EQ(p.sharedMemBytes, 230528u);                 // + 1024 alignment slack
  EXPECT_EQ(p.workspaceBytes, 0u);
}

TEST(KernelPlan, AColumnMajorDStagesOneM64BlockPerSlab) {
  // Spec 23: 64x16 tiles, layout.d col. The staging chunk is the same 64 x 16
  // x 2 = 2048 bytes; its slab is one m64 block, a 128-byte row (64 rows of
  // D) per output column, and the D box is 64 rows along M by 16 columns.
  KernelSpec spec = load(specPath("sm90/23_decode_col_d_f16.yaml"));
  KernelPlan p = derivePlan(spec);
  EXPECT_TRUE(p.dColMajor);
  EXPECT_EQ(p.dSlabBytes, 128u);
  const BufferPlan *d = p.findBuffer("smemD");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->totalBytes(), 64u * 16 * 2);
  KernelABI abi = deriveKernelABI(lowerToIR(spec));
  EXPECT_EQ(abi.layoutD, MatrixLayout::Col);
  EXPECT_EQ(abi.boxD.inner, 64u);
  EXPECT_EQ(abi.boxD.outer, 16u);
  EXPECT_EQ(abi.boxD.swizzleBytes, 128u);
  // The same tile stored row-major: 16-column slabs (32-byte rows), a box of
  // 16 columns by 64 rows.
  spec.layout.d.value = MatrixLayout::Row;
  KernelPlan rowPlan = derivePlan(spec);
  EXPECT_FALSE(rowPlan.dColMajor);
  EXPECT_EQ(rowPlan.dSlabBytes, 32u);
  KernelABI rowAbi = deriveKernelABI(lowerToIR(spec));
  EXPECT_EQ(rowAbi.layoutD, MatrixLayout::Row);
  EXPECT_EQ(rowAbi.boxD.inner, 16u);
  EXPECT_EQ(rowAbi.boxD.outer, 64u);
}

TEST(KernelPlan, ATileOfEightColumnsModSixteenOverlapsItsLastChunk) {
  // Spec 26: 256x152 in chunks of 32. The fifth chunk starts at column 120,
  // so that it ends at the tile's edge, and stores 8 columns of the fourth
  // again; every chunk is one 64-byte swizzled slab (a TMA box of 32 columns).
  KernelSpec spec = load(specPath("sm90/26_wave_fit_n152_f16.yaml"));
  EXPECT_TRUE(takesOddN8Blocks(spec));
  EXPECT_EQ(tileNStep(spec), 8u);
  EXPECT_TRUE(lastChunkOverlaps(spec));
  KernelPlan p = derivePlan(spec);
  EXPECT_TRUE(p.chunksOverlap);
  EXPECT_EQ(p.epilogueChunkN, 32u);
  EXPECT_EQ(p.epilogueChunks(), 5u);
  const unsigned firstColumns[] = {0, 32, 64, 96, 120};
  for (unsigned c = 0; c < 5; ++c)
    EXPECT_EQ(p.chunkFirstColumn(c), firstColumns[c]) << c;
  EXPECT_EQ(p.dSlabBytes, 64u);
  EXPECT_EQ(outputSlabSwizzleBytes(p.dSlabBytes), 64u);
  const BufferPlan *d = p.findBuffer("smemD");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->totalBytes(), 2u * 128 * 32 * 2);
  EXPECT_EQ(p.findBarrier(ProtocolBarrier::CLoad)->txBytes, 128u * 32 * 2);
  KernelABI abi = deriveKernelABI(lowerToIR(spec));
  EXPECT_EQ(abi.boxD.inner, 32u);
  EXPECT_EQ(abi.boxD.outer, 128u);
  EXPECT_EQ(abi.boxD.swizzleBytes, 64u);
  // Chunks of 40 (80 bytes: five 16-byte columns): one unswizzled slab each.
  spec.epilogue.chunkN.value = 40;
  p = derivePlan(spec);
  EXPECT_EQ(p.dSlabBytes, 80u);
  EXPECT_EQ(outputSlabSwizzleBytes(p.dSlabBytes), 0u);
  abi = deriveKernelABI(lowerToIR(spec));
  EXPECT_EQ(abi.boxD.inner, 40u);
  EXPECT_EQ(abi.boxD.swizzleBytes, 0u);
  // A chunk of 48 of a 128-column tile (48, 48, and 80-127): 32-byte slabs.
  spec.tile.n.value = 128;
  spec.epilogue.chunkN.value = 48;
  EXPECT_EQ(derivePlan(spec).dSlabBytes, 32u);
  EXPECT_TRUE(derivePlan(spec).chunksOverlap);
  EXPECT_EQ(derivePlan(spec).chunkFirstColumn(2), 80u);
  // Chunks that divide tile.n do not overlap.
  spec.epilogue.chunkN.value = 64;
  EXPECT_FALSE(derivePlan(spec).chunksOverlap);
  EXPECT_EQ(derivePlan(spec).epilogueChunks(), 2u);
  EXPECT_EQ(derivePlan(spec).chunkFirstColumn(1), 64u);
  EXPECT_EQ(derivePlan(spec).dSlabBytes, 128u);
}

TEST(KernelPlan, ABlockwiseProducerOfFourWarpsSpreadsTheStage) {
  // Spec 15: warp 0 the A tile, warps 1 and 2 the scales, warp 3 the B tile;
  // each arrives on the full barrier with its bytes (the plan's one arrival
  // is warp 0's, the simulator's producer).
  KernelSpec spec = load(specPath("sm90/15_blockwise_e4m3.yaml"));
  KernelPlan p = derivePlan(spec);
  EXPECT_EQ(p.scaleCopyWarps, 2u);
  EXPECT_EQ(p.producerBWarp, 3u);
  EXPECT_EQ(producerWarpArrivals(p), 3u);
  EXPECT_TRUE(spreadsProducer(p));
  EXPECT_EQ(producerIssuingWarps(p), kSpreadProducerWarps);
  EXPECT_EQ(p.findBarrier(ProtocolBarrier::Full)->arrivals, 1u);
  // One producer warp: one thread does it all.
  for (RoleSpec &r : spec.roles)
    if (r.name.value == "producer")
      r.warps.value = 1;
  KernelPlan one = derivePlan(spec);
  EXPECT_EQ(one.scaleCopyWarps, 0u);
  EXPECT_EQ(one.producerBWarp, 0u);
  EXPECT_EQ(producerWarpArrivals(one), 0u);
  EXPECT_FALSE(spreadsProducer(one));
  EXPECT_EQ(producerIssuingWarps(one), 1u);
  // Without blockwise scales nothing is spread.
  EXPECT_EQ(producerWarpArrivals(derivePlan(load(specPath("sm90/13_fast_e4m3.yaml")))), 0u);
}

TEST(KernelPlan, Sm90Protocol) {
  KernelPlan p = derivePlan(load(specPath("sm90/02_ws_cluster2.yaml")));
  ASSERT_EQ(p.barriers.size(), 4u);
  const BarrierPlan &full = p.barriers[0], &empty = p.barriers[1], &epi = p.barriers[2],
                    &cload = p.barriers[3];
  EXPECT_EQ(full.role, ProtocolBarrier::Full);
  EXPECT_EQ(full.kind, BarrierKind::Tma);
  EXPECT_EQ(full.slots, p.depth);
  EXPECT_EQ(full.arrivals, 1u);
  EXPECT_EQ(full.txBytes, (p.tileM + p.tileN) * 64 * 2); // B halves multicast in
  EXPECT_EQ(full.waiterPhase, 0u);
  EXPECT_EQ(full.signaller, "producer");
  EXPECT_EQ(full.waiter, "consumer");
  EXPECT_EQ(empty.kind, BarrierKind::Mbarrier);
  EXPECT_EQ(empty.arrivals, p.consumers * 2);            // every consumer of both CTAs
  EXPECT_EQ(empty.waiterPhase, 1u);
  EXPECT_EQ(empty.ctaMask, 3u);
  EXPECT_EQ(empty.offset, full.offset + 8 * full.slots);
  EXPECT_EQ(epi.kind, BarrierKind::Named);
  EXPECT_EQ(epi.slots, p.consumers);
  EXPECT_EQ(epi.arrivals, 128u);
  EXPECT_EQ(epi.namedId, 1u);
  // beta != 0: each consumer loads C's chunk into its staging tile and waits.
  EXPECT_EQ(cload.role, ProtocolBarrier::CLoad);
  EXPECT_EQ(cload.kind, BarrierKind::Tma);
  EXPECT_EQ(cload.slots, p.consumers);
  EXPECT_EQ(cload.arrivals, 1u);
  EXPECT_EQ(cload.txBytes, p.findBuffer("smemD")->bytesPerStage());
  EXPECT_EQ(cload.waiterPhase, 0u);
  EXPECT_EQ(cload.signaller, "consumer");
  EXPECT_EQ(cload.waiter, "consumer");
  EXPECT_EQ(cload.offset, empty.offset + 8 * empty.slots);
  EXPECT_EQ(p.schedule.unitRows, p.tileM * 2);           // a 2x1 cluster walks 2 tiles
  EXPECT_EQ(p.schedule.ctasPerUnit, 2u);
}

TEST(KernelPlan, Sm100PairLayoutAndProtocol) {
  KernelPlan p = derivePlan(load(specPath("sm100/08_cta_pair.yaml")));
  EXPECT_EQ(p.findBuffer("smemA")->totalBytes(), 4u * 128 * 64 * 2);
  EXPECT_EQ(p.findBuffer("smemB")->rows, 128u);          // this CTA's half of 256
  EXPECT_EQ(p.findBuffer("smemB")->offset, 65536u);
  EXPECT_EQ(p.findBuffer("smemD")->offset, 131072u);
  EXPECT_EQ(p.findBuffer("acc")->space, MemSpace::Tensor);
  EXPECT_EQ(p.barrierOffset, 163840u);
  ASSERT_EQ(p.barriers.size(), 6u);
  const char *names[] = {"tma2mma", "mma2tma", "mma2ld", "ld2mma", "epilogue", "cload"};
  unsigned offsets[] = {0, 32, 64, 72, 0, 80}; // 4 + 4 + 1 + 1 + 1 slots of 8 bytes
  for (unsigned i = 0; i < 6; ++i)
    EXPECT_EQ(p.barriers[i].name, names[i]);
  for (unsigned i : {0u, 1u, 2u, 3u, 5u}) // the named barrier has no SMEM
    EXPECT_EQ(p.barriers[i].offset, p.barrierOffset + offsets[i]) << names[i];
  // β ≠ 0: C's chunk (128 rows x chunk_n x 2 bytes) into the staging tile.
  EXPECT_EQ(p.barriers[5].kind, BarrierKind::Tma);
  EXPECT_EQ(p.barriers[5].txBytes, 128u * p.epilogueChunkN * 2);
  EXPECT_EQ(p.tmemSlotOffset, p.barrierOffset + 88);
  EXPECT_EQ(p.sharedMemBytes, 163840u + 128 + 1024);
  EXPECT_EQ(p.barriers[0].txBytes, 65536u);              // 2 × (128 + 128) × 64 × 2
  EXPECT_EQ(p.barriers[1].kind, BarrierKind::Commit);
  EXPECT_EQ(p.barriers[1].ctaMask, 3u);
  EXPECT_EQ(p.barriers[2].ctaMask, 3u);
  EXPECT_EQ(p.barriers[3].arrivals, 256u);               // 128 writeback threads × 2 CTAs
  EXPECT_EQ(p.barriers[3].waiterPhase, 1u);
  EXPECT_EQ(p.barriers[4].namedId, 10u);
  EXPECT_EQ(p.tmemColumns, 512u);
  EXPECT_EQ(p.schedule.unitRows, 256u);                  // 1 consumer × 2 CTAs × 128
  EXPECT_EQ(p.schedule.ctasPerUnit, 2u);
}

TEST(KernelPlan, DeclarationsApplyOnlyWhenAsked) {
  KernelSpec spec = parsed("kernel: k\n" + kRoles1 +
                           "barriers:\n  full: { slots: 3, arrivals: 2, phase: 1 }\n"
                           "  empty: { tx_bytes: 7 }\n");
  KernelPlan derived = derivePlan(spec, Declarations::Ignore);
  KernelPlan applied = derivePlan(spec, Declarations::Apply);
  EXPECT_EQ(derived.barriers[0].slots, 4u);
  EXPECT_EQ(derived.barriers[0].arrivals, 1u);
  EXPECT_EQ(derived.barriers[0].waiterPhase, 0u);
  EXPECT_EQ(applied.barriers[0].slots, 3u);
  EXPECT_EQ(applied.barriers[0].arrivals, 2u);
  EXPECT_EQ(applied.barriers[0].waiterPhase, 1u);
  EXPECT_EQ(applied.barriers[1].txBytes, 7u);
  // The layout follows the slots that will exist.
  EXPECT_EQ(applied.barriers[1].offset, applied.barriers[0].offset + 8 * 3);
  EXPECT_EQ(derived.barriers[1].offset, derived.barriers[0].offset + 8 * 4);
}

TEST(KernelPlan, DeclaredNamesNameTheBarriers) {
  KernelPlan p = derivePlan(parsed("kernel: k\n" + kRoles1 +
                                   "barriers:\n  tma2mma: {}\n  mma2tma: {}\n"));
  EXPECT_EQ(p.barriers[0].name, "tma2mma");
  EXPECT_EQ(p.barriers[1].name, "mma2tma");
  EXPECT_EQ(p.findBarrier(ProtocolBarrier::Empty)->name, "mma2tma");
  EXPECT_EQ(protocolBarrierNamed("ld2mma", Target::SM100a), ProtocolBarrier::AccFree);
  EXPECT_FALSE(protocolBarrierNamed("ld2mma", Target::SM90a).has_value());
  EXPECT_FALSE(protocolBarrierNamed("fulll", Target::SM90a).has_value());
}

TEST(KernelPlan, EndsAndKindsOfBarriersDeclaredWithoutThem) {
  // `tma2mma: {}` names the full ring; its ends and kind are the protocol's.
  KernelPlan p = derivePlan(parsed("kernel: k\n" + kRoles1 +
                                   "barriers:\n  tma2mma: { arrivals: 1 }\n  empty: {}\n"));
  EXPECT_EQ(p.barriers[0].signaller, "producer");
  EXPECT_EQ(p.barriers[0].waiter, "consumer");
  EXPECT_EQ(p.barriers[0].kind, BarrierKind::Tma);
  EXPECT_EQ(p.barriers[1].signaller, "consumer");
  EXPECT_EQ(p.barriers[1].waiter, "producer");
  EXPECT_EQ(p.barriers[1].kind, BarrierKind::Mbarrier);
  KernelPlan b = derivePlan(load(specPath("sm100/09_two_consumers.yaml")));
  EXPECT_EQ(b.findBarrier(ProtocolBarrier::AccReady)->signaller, "mma");
  EXPECT_EQ(b.findBarrier(ProtocolBarrier::AccReady)->waiter, "writeback");
  EXPECT_EQ(b.findBarrier(ProtocolBarrier::AccFree)->kind, BarrierKind::Mbarrier);
  EXPECT_EQ(b.findBarrier(ProtocolBarrier::Empty)->kind, BarrierKind::Commit);
}

TEST(KernelPlan, DirectStoreHasNoStagingAndNoEpilogueBarrier) {
  KernelPlan p = derivePlan(parsed("kernel: k\nepilogue: { store: direct }\n" + kRoles1));
  EXPECT_EQ(p.findBuffer("smemD"), nullptr);
  EXPECT_EQ(p.findBarrier(ProtocolBarrier::Epilogue), nullptr);
  // 4 × 16 KB A + 4 × 16 KB B + 128 + 1024
  EXPECT_EQ(p.sharedMemBytes, 131072u + 128 + 1024);
}

TEST(KernelPlan, TotalOnABrokenSpec) {
  // Structural errors are the checks' to report; deriving must not crash.
  KernelSpec spec = parsed("kernel: k\n" + kRoles1);
  spec.consumers.value = 0;
  spec.tile.n.value = 0;
  spec.ctaGroup.value = 0;
  for (Target t : {Target::SM90a, Target::SM100a}) {
    spec.target.value = t;
    KernelPlan p = derivePlan(spec);
    EXPECT_GE(p.sharedMemBytes, kSmemAlignment);
    EXPECT_GE(p.schedule.unitRows, 1u);
    EXPECT_GE(p.schedule.unitCols, 1u);
  }
}

TEST(KernelPlan, EverySpecLaysOutWithinTheBlock) {
  std::vector<std::string> specs = allSpecs();
  ASSERT_GT(specs.size(), 5u);
  for (const std::string &path : specs) {
    KernelPlan p = derivePlan(load(path));
    unsigned end = 0;
    for (const BufferPlan &b : p.buffers) {
      if (b.space != MemSpace::Shared)
        continue;
      EXPECT_EQ(b.offset % 1024, 0u) << path << " " << b.name;
      EXPECT_GE(b.offset, end) << path << " " << b.name << " overlaps the buffer before";
      // Operand and staging tiles are swizzled (128 bytes, but an N-major B of
      // 16 or 32 columns: its one box's 32 or 64); the scale slots are plain floats.
      const unsigned swizzle = b.name == "smemScales" ? 0u
                               : b.name == "smemB"    ? p.loadB.swizzleBytes
                                                      : 128u;
      EXPECT_EQ(b.swizzleBytes, swizzle) << path << " " << b.name;
      if (b.name == "smemB" && p.loadB.major == OperandMajor::K) {
        EXPECT_EQ(b.swizzleBytes, 128u) << path;
      }
      end = b.offset + b.totalBytes();
    }
    EXPECT_GE(p.barrierOffset, end) << path;
    unsigned slots = 0;
    for (const BarrierPlan &bar : p.barriers)
      if (bar.inSharedMemory()) {
        EXPECT_EQ(bar.offset, p.barrierOffset + slots) << path << " " << bar.name;
        slots += 8 * bar.slots;
      }
    EXPECT_GE(p.sharedMemUsed, p.barrierOffset + slots) << path;
    EXPECT_EQ(p.sharedMemBytes, p.sharedMemUsed + 1024) << path;
    EXPECT_LE(p.sharedMemBytes, kMaxSharedBytesPerBlock) << path;
    // The full barrier's bytes are every TMA load that lands in one stage
    // (sm_100a: both CTAs' A blocks and B halves, on the leader), blockwise
    // pairs' scale slot included.
    unsigned stage = p.findBuffer("smemA")->bytesPerStage() * p.findBuffer("smemA")->instances +
                     p.findBuffer("smemB")->bytesPerStage();
    if (const BufferPlan *scales = p.findBuffer("smemScales"))
      stage += scales->bytesPerStage();
    EXPECT_EQ(p.scalesInSmem, p.findBuffer("smemScales") != nullptr) << path;
    unsigned ctas = p.target == Target::SM100a ? p.ctaGroup : 1;
    EXPECT_EQ(p.findBarrier(ProtocolBarrier::Full)->txBytes, ctas * stage) << path;
  }
}

} // namespace

// An fp8 k-block is 128 elements (one 128-byte swizzle row) and a wgmma
// k-step 32 elements (32 bytes): the byte geometry of spec 05's f16 k-block,
// with k32 instructions, and the per-tensor scales in the ABI.
TEST(KernelPlan, Fp8GeometryMatchesTheF16ByteGeometry) {
  KernelPlan f8 = derivePlan(load(specPath("sm90/13_fast_e4m3.yaml")));
  KernelPlan f16 = derivePlan(load(specPath("sm90/05_fast_f16.yaml")));
  EXPECT_EQ(f8.tileK, 128u);
  EXPECT_EQ(f8.mmaK, 32u);
  EXPECT_EQ(f16.mmaK, 16u);
  EXPECT_EQ(f8.tileK / f8.mmaK, 4u); // four k32 steps per stage, as f16's four k16
  EXPECT_TRUE(f8.perTensorScales);
  EXPECT_FALSE(f16.perTensorScales);
  for (const OperandLoadPlan *l : {&f8.loadA, &f8.loadB}) {
    EXPECT_EQ(l->major, OperandMajor::K);
    EXPECT_EQ(l->boxInner, 128u); // 128 one-byte elements: one swizzle row
    EXPECT_EQ(l->kStepBytes, 32u);
  }
  EXPECT_EQ(f8.loadA.boxBytes, f16.loadA.boxBytes);
  EXPECT_EQ(f8.loadB.boxBytes, f16.loadB.boxBytes);
  // 128*128 + 256*128 bytes per stage = 48 KB, as spec 05's.
  EXPECT_EQ(f8.findBuffer("smemA")->bytesPerStage() + f8.findBuffer("smemB")->bytesPerStage(),
            49152u);
  EXPECT_EQ(f8.findBarrier(ProtocolBarrier::Full)->txBytes, 49152u);
  EXPECT_EQ(f8.sharedMemBytes, f16.sharedMemBytes);
  EXPECT_LE(f8.sharedMemBytes, kMaxSharedBytesPerBlock);
  // The staging tile holds bf16 D (128 columns × 64 rows × 2 bytes).
  EXPECT_EQ(f8.findBuffer("smemD")->bytesPerStage(), 16384u);
  EXPECT_EQ(tileKFor(ScalarType::E5M2), 128u);
  EXPECT_EQ(tileKFor(ScalarType::BF16), 64u);
  EXPECT_EQ(mmaKFor(ScalarType::E4M3), 32u);
}

// B stored row-major is loaded N-major: 128-byte boxes of 64 columns, or one
// box of a 16- or 32-column part in the 32- or 64-byte swizzle (K row k at
// k x 32 / 64 B; a k16 step 16 such rows). The ABI's map says the same.
TEST(KernelPlan, ANarrowNMajorBIsOneBoxOfItsColumns) {
  const std::string base = specText("sm90/08_fast_f16_b_row.yaml");
  struct Case {
    unsigned n, swizzle, boxInner, boxes, boxBytes, kStep;
  } cases[] = {{16, 32, 16, 1, 16 * 64 * 2, 16 * 32},
               {32, 64, 32, 1, 32 * 64 * 2, 16 * 64},
               {64, 128, 64, 1, 64 * 64 * 2, 16 * 128},
               {256, 128, 64, 4, 64 * 64 * 2, 16 * 128}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.n);
    const std::string t = withEdit(base, "tile: { m: 128, n: 256, k: 64 }",
                                   "tile: { m: 128, n: " + std::to_string(c.n) + ", k: 64 }");
    const KernelPlan p = derivePlan(parsed(t));
    EXPECT_EQ(p.loadB.major, OperandMajor::MN);
    EXPECT_EQ(p.loadB.swizzleBytes, c.swizzle);
    EXPECT_EQ(p.loadB.boxInner, c.boxInner);
    EXPECT_EQ(p.loadB.boxOuter, 64u);
    EXPECT_EQ(p.loadB.boxes, c.boxes);
    EXPECT_EQ(p.loadB.boxBytes, c.boxBytes);
    EXPECT_EQ(p.loadB.kStepBytes, c.kStep);
    EXPECT_EQ(p.findBuffer("smemB")->swizzleBytes, c.swizzle);
    EXPECT_EQ(p.loadA.swizzleBytes, 128u); // A K-major
  }
  EXPECT_EQ(mnMajorSwizzleBytes(48, 2), 0u); // no single box, no whole 128-byte ones
  EXPECT_EQ(mnMajorSwizzleBytes(8, 2), 0u);
  EXPECT_EQ(mnMajorSwizzleBytes(192, 2), 128u);
}

// The register pool per thread a CTA is launched with, shared by the checks'
// bound and the chooser's specs: 65536 over CTAs x threads, in steps of 8,
// at most 256.
TEST(KernelPlan, LaunchedRegistersPerThread) {
  EXPECT_EQ(launchedRegistersPerThread(1, 256), 256u); // 65536 / 256 = 256
  EXPECT_EQ(launchedRegistersPerThread(1, 384), 168u); // 170.7 -> 168
  EXPECT_EQ(launchedRegistersPerThread(1, 128), 256u); // capped
  EXPECT_EQ(launchedRegistersPerThread(2, 256), 128u);
  EXPECT_EQ(launchedRegistersPerThread(3, 256), 80u);  // 85.3 -> 80
  EXPECT_EQ(launchedRegistersPerThread(4, 256), 64u);
  EXPECT_EQ(launchedRegistersPerThread(0, 256), 256u); // 0 read as 1
}

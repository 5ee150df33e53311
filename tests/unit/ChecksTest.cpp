//===- ChecksTest.cpp - checkSpec and the plan's shared-memory budget -----===//
#include "gemmgen/Checks.h"
#include "gemmgen/IR.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gemmgen;

namespace {

struct Result {
  bool parsed = false, ok = false;
  std::vector<std::string> diags;
  unsigned errors = 0, warnings = 0;
};

Result check(const std::string &text, const CheckOptions &options = CheckOptions()) {
  DiagnosticEngine engine(nullptr);
  Result r;
  auto spec = parseSpec(text, "t.yaml", engine);
  r.parsed = spec.has_value();
  if (spec)
    r.ok = checkSpec(*spec, engine, options);
  for (const Diagnostic &d : engine.diagnostics()) {
    const char *sev = d.severity == Severity::Error     ? "error"
                      : d.severity == Severity::Warning ? "warning"
                                                        : "note";
    r.diags.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + sev +
                      ": " + d.message);
  }
  r.errors = engine.errorCount();
  r.warnings = engine.warningCount();
  return r;
}

KernelSpec parsed(const std::string &text) {
  DiagnosticEngine engine(nullptr);
  auto spec = parseSpec(text, "t.yaml", engine);
  EXPECT_TRUE(spec.has_value());
  return spec ? *spec : KernelSpec();
}

const std::string kRoles1 = R"(roles:
  producer: { warps: 1, registers: 40, does: tma_load }
  consumer: { warpgroups: 1, registers: 232, does: [mma, epilogue] }
)";
const std::string kRoles2 = R"(roles:
  producer: { warps: 1, registers: 40, does: tma_load }
  consumer: { warpgroups: 2, registers: 232, does: [mma, epilogue] }
)";

TEST(Checks, LadderSpecsPassWithoutWarnings) {
  for (const char *name : {"01_ws_1consumer", "02_ws_cluster2", "03_ws_2consumers",
                           "04_ws_2consumers_bf16"}) {
    DiagnosticEngine engine(nullptr);
    std::string path = std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + name + ".yaml";
    auto spec = parseSpecFile(path, engine);
    ASSERT_TRUE(spec) << path;
    EXPECT_TRUE(checkSpec(*spec, engine)) << path;
    for (const Diagnostic &d : engine.diagnostics())
      ADD_FAILURE() << path << ":" << d.line << ":" << d.column << ": " << d.message;
  }
}

TEST(Checks, PlanSharedMemoryBytesFollowTheLayout) {
  // 4 × 16 KB A + 4 × 16 KB B + 32 KB staging + 64 B barriers (-> 128) + 1 KB slack
  EXPECT_EQ(derivePlan(parsed("kernel: k\n" + kRoles1)).sharedMemBytes, 164992u);
  // 03: 4 × 16 KB A + 4 × 32 KB B + 32 KB staging (128 rows × 128-column chunk) + 128 + 1024
  EXPECT_EQ(derivePlan(parsed("kernel: k\ntile: { n: 256 }\nconsumers: 2\n" + kRoles2)).sharedMemBytes,
            230528u);
  // The same with the whole tile staged at once.
  EXPECT_EQ(derivePlan(parsed("kernel: k\ntile: { n: 256 }\nconsumers: 2\n"
                                     "epilogue: { chunk_n: 256 }\n" + kRoles2)).sharedMemBytes,
            263296u);
  // No staging tile with direct stores.
  EXPECT_EQ(derivePlan(parsed("kernel: k\nepilogue: { store: direct }\n" + kRoles1)).sharedMemBytes,
            164992u - 32768u);
}

TEST(Checks, SingleConsumerOwning128x256IsTheC7511Error) {
  Result r = check("kernel: k\ntile: { m: 128, n: 256 }\npipeline: { depth: 3 }\n" + kRoles1);
  ASSERT_TRUE(r.parsed);
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0],
            "6:41: error: each consumer thread needs 256 f32 accumulator registers (128 rows × "
            "256 columns / 128 threads) plus about 32 for addresses and loop state, more than "
            "the 232 registers of role 'consumer'; ptxas would serialise the wgmmas (warning "
            "C7511) or spill; use consumers: 2 (and warpgroups: 2) so each warpgroup owns 64 "
            "rows, or a smaller tile.n");
}

TEST(Checks, AccumulatorErrorPointsAtTileWhenRegistersAreDefaulted) {
  Result r = check(R"(kernel: k
tile: { m: 128, n: 256 }
pipeline: { depth: 3 }
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: [mma, epilogue] }
)");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0].substr(0, 5), "2:20:");  // tile.n's value
}

TEST(Checks, Sm100SpecGetsItsOwnTargetChecks) {
  Result r = check("kernel: k\ntarget: sm_100a\ntile: { k: 32 }\ncta_group: 2\n" + kRoles1);
  ASSERT_TRUE(r.parsed);
  EXPECT_FALSE(r.ok);
  ASSERT_GE(r.diags.size(), 2u);
  EXPECT_EQ(r.diags[0].substr(0, 55), "4:12: error: cta_group 2 needs cluster { m: 2, n: 1 }: ");
  EXPECT_EQ(r.diags[1].substr(0, 42), "3:12: error: tile.k must be 64 for 16-bit ");
}

TEST(Checks, ProtocolChecksCanBeTurnedOff) {
  std::string text = "kernel: k\n" + kRoles1 + "barriers:\n  empty: { phase: 0, arrivals: 3 }\n";
  Result on = check(text);
  EXPECT_FALSE(on.ok);
  EXPECT_EQ(on.errors, 2u);
  CheckOptions off;
  off.protocol = false;
  Result r = check(text, off);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.diags.empty());
  // Role names in from/to are still checked: lowering needs them.
  Result bad = check("kernel: k\n" + kRoles1 + "barriers:\n  empty: { to: nobody }\n", off);
  EXPECT_FALSE(bad.ok);
  ASSERT_EQ(bad.diags.size(), 1u);
  EXPECT_EQ(bad.diags[0], "6:16: error: unknown role 'nobody' in 'barriers.empty.to'; the "
                          "roles are 'producer' and 'consumer'");
}

TEST(Checks, EmptyArrivalsAboveTheProtocolIsADeadlock) {
  Result r = check("kernel: k\n" + kRoles1 + "barriers:\n  empty: { arrivals: 3 }\n");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0],
            "6:22: error: barriers.empty.arrivals is 3 but 1 consumer warpgroup × 1 CTA release "
            "each stage (one elected thread of each warpgroup of role 'consumer', in every CTA "
            "that reads the stage): the barrier would never complete and role 'producer' would "
            "wait forever (deadlock); use arrivals: 1");
}

TEST(Checks, CorrectDeclaredProtocolPasses) {
  Result r = check("kernel: k\ntile: { n: 256 }\npipeline: { depth: 3 }\nconsumers: 2\n"
                   "cluster: { m: 2 }\n" + kRoles2 + R"(barriers:
  full: { from: producer, to: consumer, kind: tma, slots: depth, arrivals: 1, phase: 0,
          tx_bytes: 49152 }
  empty: { from: consumer, to: producer, kind: mbarrier, slots: 3, arrivals: 4, phase: 1,
           cta_mask: 3 }
  epilogue: { kind: named, slots: consumers, arrivals: 128, id: 1 }
)");
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.diags.empty()) << r.diags.front();
}

TEST(Checks, NamedEpilogueBarrier) {
  Result r = check("kernel: k\nconsumers: 2\ntile: { n: 128 }\n" + kRoles2 +
                   "barriers:\n  epilogue: { arrivals: 64, id: 15, phase: 0 }\n");
  std::vector<std::string> want = {
      "8:25: error: barriers.epilogue.arrivals is 64 but the named barrier counts the 128 "
      "threads of one consumer warpgroup: threads would pass before the staging tile is written "
      "(race); use arrivals: 128",
      "8:37: error: barriers.epilogue.phase: a named barrier (bar.sync) has no phase; remove it",
      "8:33: error: barriers.epilogue.id 15: the barrier uses ids 15 to 16 (one per consumer); "
      "id 0 is __syncthreads' and ids end at 15; use id: 1"};
  EXPECT_EQ(r.diags, want);
  Result direct = check("kernel: k\nepilogue: { store: direct }\n" + kRoles1 +
                        "barriers:\n  epilogue: {}\n");
  ASSERT_EQ(direct.diags.size(), 2u);
  EXPECT_EQ(direct.diags[0], "2:20: error: epilogue.store: direct is not supported on sm_90a yet: "
                             "the emitted kernel writes D through SMEM staging and a TMA store; "
                             "use store: tma (or leave it out)");
  EXPECT_EQ(direct.diags[1], "7:3: error: barrier 'epilogue' guards the output staging tile, "
                             "which exists only with epilogue.store: tma; remove the "
                             "declaration");
}

TEST(Checks, WarningsForLegalButSlow) {
  Result r = check("kernel: k\npipeline: { depth: 2, mma_in_flight: 0 }\n" + kRoles1);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.warnings, 2u);
  std::vector<std::string> want = {
      "2:38: warning: pipeline.mma_in_flight 0 waits for every wgmma to finish before the next "
      "k-block is issued, which leaves the tensor cores idle; use mma_in_flight: 1",
      "2:20: warning: pipeline.depth 2 keeps one TMA load in flight while the consumers read "
      "the other stage, which is usually too little to hide memory latency for a 128×128 tile; "
      "use depth: 3 or more (3 fits in shared memory)"};
  EXPECT_EQ(r.diags, want);
}

TEST(Checks, ProducerShapeAndPlacement) {
  Result r = check(R"(kernel: k
roles:
  producer: { warps: 2, warp: 3, does: tma_load }
  consumer: { warpgroups: 1, warp: 0, does: [mma, epilogue] }
)");
  std::vector<std::string> want = {
      "3:22: error: roles.producer.warps 2: the sm_90a producer is one warp (one elected thread "
      "issues the TMA loads; four warps split the copies of blockwise-scaled kernels only); use "
      "warps: 1",
      "3:31: error: roles.producer.warp 3: on sm_90a the producer is warp 0 (warpgroup 0) and "
      "the consumers start at warp 4; use warp: 0 or leave it out",
      "4:36: error: roles.consumer.warp 0: on sm_90a the consumer warpgroups start at warp 4 "
      "(after the producer's warpgroup); use warp: 4 or leave it out"};
  EXPECT_EQ(r.diags, want);
  Result ok = check(R"(kernel: k
roles:
  producer: { warps: 1, warp: 0, does: tma_load }
  consumer: { warpgroups: 1, first_warp: 4, does: [mma, epilogue] }
)");
  EXPECT_TRUE(ok.ok);
  EXPECT_TRUE(ok.diags.empty());
}

TEST(Checks, ConsumerMustBeWarpgroups) {
  Result r = check(R"(kernel: k
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warps: 4, does: [mma, epilogue] }
)");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "4:15: error: roles.consumer: wgmma is issued by whole warpgroups on "
                        "sm_90a; write 'warpgroups: 1' instead of 'warps'");
}

TEST(Checks, ProducerAndMmaInOneRole) {
  Result r = check(R"(kernel: k
roles:
  all: { warpgroups: 1, does: [tma_load, mma, epilogue] }
)");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "3:42: error: role 'all' does both tma_load and mma; on sm_90a they are "
                        "separate roles (the producer warpgroup gives its registers to the "
                        "consumers): move 'mma' to a consumer role");
}

TEST(Checks, SharedMemorySuggestsADepthOrANarrowerChunk) {
  // 256×256: 3 stages of 64 KB + a 64 KB staging chunk (256 rows × 128).
  Result r = check("kernel: k\ntile: { m: 256, n: 256 }\nconsumers: 2\npipeline: { depth: 3 }\n"
                   "roles:\n  producer: { warps: 1, registers: 24, does: tma_load }\n"
                   "  consumer: { warpgroups: 2, registers: 256, does: [mma, epilogue] }\n");
  ASSERT_FALSE(r.ok);
  std::vector<std::string> want = {
      "7:41: error: each consumer thread needs 256 f32 accumulator registers (128 rows × 256 "
      "columns / 128 threads) plus about 32 for addresses and loop state, more than the 256 "
      "registers of role 'consumer'; ptxas would serialise the wgmmas (warning C7511) or "
      "spill; use a smaller tile.n",
      "7:41: error: the roles need 68608 registers per CTA (producer: 128 threads × 24 + "
      "consumer: 256 threads × 256), more than the 64512 a CTA of 384 threads is launched "
      "with (65536 per SM, 168 per thread in steps of 8); use registers: 240 or less for role "
      "'consumer'",
      "4:20: error: the spec needs 263296 bytes of shared memory per block (3 stages of 65536 "
      "bytes and a 65536-byte output staging chunk, barriers and 1024 bytes of alignment "
      "slack), more than the 232448 bytes (227 KB) an sm_90a block can use; use "
      "pipeline.depth: 2 (197760 bytes), or epilogue.chunk_n: 64 (230528 bytes)"};
  EXPECT_EQ(r.diags, want);
}

TEST(Checks, ChunkNMustBeWholeSlabsOfTileN) {
  // A row-major 16-bit D: chunks of any multiple of 8 up to tile.n, the last
  // one narrower (192 = 128 + 64; 144 = 3 x 40 + 24).
  EXPECT_TRUE(check("kernel: k\ntile: { n: 192 }\nepilogue: { chunk_n: 128 }\n" + kRoles1).ok);
  EXPECT_TRUE(check("kernel: k\ntile: { n: 144 }\nepilogue: { chunk_n: 40 }\n" + kRoles1).ok);
  EXPECT_TRUE(check("kernel: k\ntile: { n: 152 }\nepilogue: { chunk_n: 32 }\n" + kRoles1).ok);
  Result wide = check("kernel: k\ntile: { n: 144 }\nepilogue: { chunk_n: 160 }\n" + kRoles1);
  ASSERT_EQ(wide.diags.size(), 1u);
  EXPECT_EQ(wide.diags[0], "3:22: error: epilogue.chunk_n 160 must be a multiple of 8 up to "
                           "tile.n (144): the TMA store writes slabs of at least 8 columns; use "
                           "144 or leave it out");
  Result odd = check("kernel: k\ntile: { n: 144 }\nepilogue: { chunk_n: 36 }\n" + kRoles1);
  ASSERT_EQ(odd.diags.size(), 1u);
  EXPECT_EQ(odd.diags[0], "3:22: error: epilogue.chunk_n 36 must be a multiple of 8 up to "
                          "tile.n (144): the TMA store writes slabs of at least 8 columns; use "
                          "144 or leave it out");
  // An f32 D keeps whole 16-column chunks that divide tile.n.
  const std::string f32 = "types: { a: f16, b: f16, d: f32, accumulate: f32 }\n";
  Result r = check("kernel: k\n" + f32 + "tile: { n: 192 }\nepilogue: { chunk_n: 128 }\n" +
                   kRoles1);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "4:22: error: epilogue.chunk_n 128 must be a multiple of 16 that "
                        "divides tile.n (192): the TMA store writes slabs of at least 16 "
                        "columns; use 64 or leave it out");
  EXPECT_TRUE(check("kernel: k\nepilogue: { chunk_n: 64 }\n" + kRoles1).ok);
  EXPECT_TRUE(check("kernel: k\nepilogue: { chunk_n: 128 }\n" + kRoles1).ok);
}

TEST(Checks, SixteenByteSlabsAreWarnedOf) {
  // 8-column TMA store boxes cost 19% at 3000x5000x2048 (docs/PERF.md).
  Result r = check("kernel: k\ntile: { n: 152 }\nepilogue: { chunk_n: 8 }\n" + kRoles1);
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_NE(r.diags[0].find("3:22: warning: epilogue.chunk_n 8 with tile.n 152 stores D in "
                            "16-byte slabs"),
            std::string::npos)
      << r.diags[0];
  // Chunks of 16 columns or more leave in wider boxes, whether or not they
  // divide tile.n (the last overlaps the one before), and so does the default.
  for (const char *chunk : {"16", "24", "32", "40", "48"})
    EXPECT_TRUE(check("kernel: k\ntile: { n: 152 }\nepilogue: { chunk_n: " + std::string(chunk) +
                      " }\n" + kRoles1)
                    .diags.empty())
        << chunk;
  EXPECT_TRUE(check("kernel: k\ntile: { m: 64, n: 152 }\n" + kRoles1).diags.empty());
  EXPECT_TRUE(check("kernel: k\ntile: { n: 144 }\nepilogue: { chunk_n: 48 }\n" + kRoles1)
                  .diags.empty());
}

TEST(Checks, TmemColumnsIsAnSm100Key) {
  Result r = check("kernel: k\ntmem_columns: 256\n" + kRoles1);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "2:1: error: tmem_columns is an sm_100a key: sm_90a has no tensor "
                        "memory (accumulators live in registers); remove it");
}

} // namespace

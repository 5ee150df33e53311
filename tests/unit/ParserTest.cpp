//===- ParserTest.cpp - parseSpec: values, locations, diagnostics ---------===//
#include "gemmgen/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gemmgen;

namespace {

/// "line:col: severity: message" for each diagnostic, as in bad_specs/.
std::vector<std::string> render(const DiagnosticEngine &diags) {
  std::vector<std::string> out;
  for (const Diagnostic &d : diags.diagnostics()) {
    const char *sev = d.severity == Severity::Error     ? "error"
                      : d.severity == Severity::Warning ? "warning"
                                                        : "note";
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + sev + ": " +
                  d.message);
  }
  return out;
}

struct Parsed {
  std::optional<KernelSpec> spec;
  std::vector<std::string> diags;
};

/// Parses `text`; `engine` must outlive uses of the returned spec's locations.
Parsed parse(const std::string &text, DiagnosticEngine &engine) {
  Parsed p;
  p.spec = parseSpec(text, "test.yaml", engine);
  p.diags = render(engine);
  return p;
}

std::pair<unsigned, unsigned> lineCol(DiagnosticEngine &engine, llvm::SMLoc loc) {
  if (!loc.isValid())
    return {0, 0};
  return engine.sourceMgr().getLineAndColumn(loc);
}

const char *kMinimal = R"(kernel: k
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: [mma, epilogue] }
)";

// The DESIGN.md §3 sketch, verbatim apart from the first comment.
const char *kSketch = R"(# sketch
kernel: gemm_sm90_c2x1_2c
target: sm_90a
types:   { a: f16, b: f16, d: f16, accumulate: f32 }
layout:  { a: row, b: col }          # D[M,N] = A[M,K] · B[N,K]^T — the seed's layout
tile:    { m: 128, n: 256, k: 64 }   # per CTA
cluster: { m: 2, n: 1 }              # the two CTAs share B through TMA multicast
pipeline: { depth: 4 }
consumers: 2                          # MMA warpgroups that share each staged B tile
scheduler: { kind: persistent, raster: along_m, group: 8 }
roles:
  producer: { warps: 1, registers: 40,  does: tma_load }
  consumer: { warpgroups: 2, registers: 232, does: [mma, epilogue] }
barriers:                             # optional: derived when omitted, checked when given
  full:  { from: producer, to: consumer, kind: tma,      slots: depth }
  empty: { from: consumer, to: producer, kind: mbarrier, slots: depth, arrivals: 4 }
epilogue: { store: tma }
)";

TEST(Parser, DesignSketchParsesWithEveryValue) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(kSketch, engine);
  ASSERT_TRUE(p.spec.has_value());
  EXPECT_TRUE(p.diags.empty());
  const KernelSpec &s = *p.spec;
  EXPECT_EQ(s.kernel.value, "gemm_sm90_c2x1_2c");
  EXPECT_EQ(s.target.value, Target::SM90a);
  EXPECT_EQ(s.types.a.value, ScalarType::F16);
  EXPECT_EQ(s.types.accumulate.value, ScalarType::F32);
  EXPECT_EQ(s.layout.b.value, MatrixLayout::Col);
  EXPECT_EQ(s.tile.m.value, 128u);
  EXPECT_EQ(s.tile.n.value, 256u);
  EXPECT_EQ(s.tile.k.value, 64u);
  EXPECT_EQ(s.cluster.m.value, 2u);
  EXPECT_EQ(s.pipeline.depth.value, 4u);
  EXPECT_EQ(s.consumers.value, 2u);
  EXPECT_EQ(s.scheduler.group.value, 8u);
  ASSERT_EQ(s.roles.size(), 2u);
  EXPECT_EQ(s.roles[0].name.value, "producer");
  EXPECT_EQ(s.roles[0].warps.value, 1u);
  EXPECT_EQ(s.roles[0].registers.value, 40u);
  ASSERT_EQ(s.roles[0].does.size(), 1u);
  EXPECT_EQ(s.roles[0].does[0].value, RoleTask::TmaLoad);
  EXPECT_EQ(s.roles[1].warpgroups.value, 2u);
  ASSERT_EQ(s.roles[1].does.size(), 2u);
  EXPECT_EQ(s.roles[1].does[1].value, RoleTask::Epilogue);
  ASSERT_EQ(s.barriers.size(), 2u);
  EXPECT_EQ(s.barriers[0].name.value, "full");
  EXPECT_EQ(s.barriers[0].kind.value, BarrierKind::Tma);
  EXPECT_EQ(*s.barriers[0].slots.value, 4u);  // "depth"
  EXPECT_FALSE(s.barriers[0].arrivals.given);
  EXPECT_EQ(*s.barriers[1].arrivals.value, 4u);
  EXPECT_EQ(s.epilogue.store.value, EpilogueStore::Tma);
  EXPECT_EQ(s.path, "test.yaml");
}

TEST(Parser, KeepsValueAndKeyLocations) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(kSketch, engine);
  ASSERT_TRUE(p.spec);
  const KernelSpec &s = *p.spec;
  // tile:    { m: 128, n: 256, k: 64 }   (line 6)
  EXPECT_EQ(lineCol(engine, s.tile.n.loc), std::make_pair(6u, 23u));
  EXPECT_EQ(lineCol(engine, s.tile.n.keyLoc), std::make_pair(6u, 20u));
  EXPECT_TRUE(s.tile.n.given);
  // consumer: { warpgroups: 2, registers: 232, ... }   (line 13)
  EXPECT_EQ(lineCol(engine, s.roles[1].registers.loc), std::make_pair(13u, 41u));
  EXPECT_EQ(lineCol(engine, s.roles[1].loc), std::make_pair(13u, 3u));
  EXPECT_EQ(lineCol(engine, s.rolesLoc), std::make_pair(11u, 1u));
  EXPECT_EQ(lineCol(engine, s.barriersLoc), std::make_pair(14u, 1u));
  // Defaults point at the enclosing mapping's key.
  EXPECT_FALSE(s.pipeline.mmaInFlight.given);
  EXPECT_EQ(lineCol(engine, s.pipeline.mmaInFlight.loc), std::make_pair(8u, 1u));
  EXPECT_FALSE(s.epilogue.overlap.given);
  EXPECT_EQ(lineCol(engine, s.epilogue.overlap.loc), std::make_pair(17u, 1u));
}

TEST(Parser, DefaultsWhenAbsent) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(kMinimal, engine);
  ASSERT_TRUE(p.spec);
  const KernelSpec &s = *p.spec;
  EXPECT_EQ(s.target.value, Target::SM90a);
  EXPECT_FALSE(s.target.given);
  EXPECT_EQ(s.tile.m.value, 128u);
  EXPECT_EQ(s.tile.k.value, 64u);
  EXPECT_EQ(s.pipeline.depth.value, 4u);
  EXPECT_EQ(s.pipeline.mmaInFlight.value, 1u);
  EXPECT_EQ(s.consumers.value, 1u);
  EXPECT_EQ(s.cluster.m.value, 1u);
  EXPECT_EQ(s.scheduler.kind.value, SchedulerKind::Persistent);
  EXPECT_EQ(s.epilogue.store.value, EpilogueStore::Tma);
  EXPECT_TRUE(s.epilogue.overlap.value);
  EXPECT_EQ(s.ctaGroup.value, 1u);
  EXPECT_EQ(s.roles[0].registers.value, 0u);
  EXPECT_FALSE(s.roles[0].firstWarp.given);
  EXPECT_TRUE(s.barriers.empty());
  EXPECT_FALSE(s.barriersLoc.isValid());
  // Absent top-level sections point at the top of the spec.
  EXPECT_EQ(lineCol(engine, s.tile.m.loc), std::make_pair(1u, 1u));
}

TEST(Parser, SymbolicSlotsResolveAfterTheWholeFile) {
  DiagnosticEngine engine(nullptr);
  // `barriers` comes before `pipeline` and `consumers`.
  Parsed p = parse(std::string(kMinimal) + R"(barriers:
  full: { slots: depth }
  epilogue: { slots: consumers }
pipeline: { depth: 6 }
consumers: 2
)",
                   engine);
  ASSERT_TRUE(p.spec) << p.diags.front();
  EXPECT_EQ(*p.spec->barriers[0].slots.value, 6u);
  EXPECT_TRUE(p.spec->barriers[0].slots.given);
  EXPECT_EQ(*p.spec->barriers[1].slots.value, 2u);
}

TEST(Parser, BarrierEndsAndKindsLeftOutStayUnwritten) {
  // The parser keeps what was written; the protocol's ends and kinds are the
  // plan's (KernelPlanTest).
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + R"(barriers:
  tma2mma: { arrivals: 1 }
  empty: { slots: 4 }
  epilogue: { id: 2 }
)",
                   engine);
  ASSERT_TRUE(p.spec);
  const auto &b = p.spec->barriers;
  EXPECT_FALSE(b[0].from.given);
  EXPECT_FALSE(b[0].to.given);
  EXPECT_FALSE(b[0].kind.given);
  EXPECT_FALSE(b[1].kind.given);
  EXPECT_EQ(*b[2].id.value, 2u);
}

TEST(Parser, BarrierFieldsAndIntegerForms) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + R"(barriers:
  empty: { kind: mbarrier, slots: 4, arrivals: 2, initial_phase: 1, cta_mask: 0b11 }
  full: { tx_bytes: 0x8000, cta_mask: 0x3 }
)",
                   engine);
  ASSERT_TRUE(p.spec);
  const auto &b = p.spec->barriers;
  EXPECT_EQ(*b[0].initialPhase.value, 1u);
  EXPECT_EQ(*b[0].ctaMask.value, 3u);
  EXPECT_EQ(*b[1].txBytes.value, 32768u);
  EXPECT_EQ(*b[1].ctaMask.value, 3u);
}

TEST(Parser, RolePlacementSynonyms) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(R"(kernel: k
roles:
  producer: { warps: 1, warp: 11, does: tma_load }
  mma: { warps: 2, first_warp: 8, does: mma }
  writeback: { warpgroups: 2, warp: 0, first_warp: 0, does: epilogue }
)",
                   engine);
  EXPECT_FALSE(p.spec);
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0], "5:40: error: give either 'warp' or 'first_warp' for role 'writeback', "
                        "not both (they mean the same)");
}

TEST(Parser, Sm100SeedStep9IsExpressible) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(R"(kernel: seed_step9
target: sm_100a
tile: { m: 128, n: 256, k: 64 }
cluster: { m: 2, n: 1 }
cta_group: 2
consumers: 2
tmem_columns: 256
epilogue: { store: tma, chunk_n: 64 }
roles:
  producer:  { warps: 1, warp: 11, does: tma_load }
  mma:       { warps: 2, warp: 8, does: mma }
  writeback: { warpgroups: 2, warp: 0, does: epilogue }
barriers:
  tma2mma: { kind: tma, slots: depth, arrivals: 1 }
  mma2tma: { kind: commit, slots: depth, arrivals: 2, cta_mask: 3 }
  mma2ld:  { kind: commit, slots: consumers, arrivals: 1, cta_mask: 3 }
  ld2mma:  { slots: consumers, arrivals: 256 }
)",
                   engine);
  ASSERT_TRUE(p.spec);
  const KernelSpec &s = *p.spec;
  EXPECT_EQ(s.target.value, Target::SM100a);
  EXPECT_EQ(s.ctaGroup.value, 2u);
  EXPECT_EQ(s.tmemColumns.value, 256u);
  EXPECT_EQ(s.epilogue.chunkN.value, 64u);
  EXPECT_EQ(*s.roles[0].firstWarp.value, 11u);
  EXPECT_EQ(*s.roles[1].firstWarp.value, 8u);
  EXPECT_EQ(*s.barriers[2].slots.value, 2u);
  EXPECT_EQ(*s.barriers[3].arrivals.value, 256u);
}

TEST(Parser, DuplicateKeyWarnsAndLaterValueWins) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + "tile: { m: 64, m: 192 }\n", engine);
  ASSERT_TRUE(p.spec);
  EXPECT_EQ(p.spec->tile.m.value, 192u);
  ASSERT_EQ(p.diags.size(), 2u);
  EXPECT_EQ(p.diags[0], "5:16: warning: duplicate key 'm' in 'tile'; the later value is used");
  EXPECT_EQ(p.diags[1], "5:9: note: 'm' first given here");
  EXPECT_EQ(engine.warningCount(), 1u);
  EXPECT_EQ(engine.errorCount(), 0u);
}

TEST(Parser, DuplicateRoleReplacesTheFirst) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(R"(kernel: k
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: mma }
  consumer: { warpgroups: 2, does: [mma, epilogue] }
)",
                   engine);
  ASSERT_TRUE(p.spec);
  ASSERT_EQ(p.spec->roles.size(), 2u);
  EXPECT_EQ(p.spec->roles[1].warpgroups.value, 2u);
  EXPECT_EQ(p.diags[0],
            "5:3: warning: duplicate key 'consumer' in 'roles'; the later value is used");
}

TEST(Parser, UnknownKeysSuggestOrList) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + R"(pipeline: { dept: 4, stages: 3, x: 1 }
epilog: { store: tma }
)",
                   engine);
  EXPECT_FALSE(p.spec);
  std::vector<std::string> want = {
      "5:13: error: unknown key 'dept' in 'pipeline'; did you mean 'depth'?",
      "5:22: error: unknown key 'stages' in 'pipeline'; did you mean 'depth'?",
      "5:33: error: unknown key 'x' in 'pipeline'; the keys are 'depth', 'mma_in_flight' and "
      "'l2_promotion'",
      "6:1: error: unknown key 'epilog' in the spec; did you mean 'epilogue'?"};
  EXPECT_EQ(p.diags, want);
}

TEST(Parser, WrongTypesAndRanges) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + R"(tile: { m: 12x, n: [1], k: }
cluster: { m: 0 }
epilogue: { overlap: maybe }
types: { a: { x: 1 } }
)",
                   engine);
  EXPECT_FALSE(p.spec);
  std::vector<std::string> want = {
      "5:12: error: expected an integer for 'tile.m', got '12x'",
      "5:20: error: expected an integer for 'tile.n', got a list",
      "5:28: error: expected an integer for 'tile.k', got nothing",
      "6:15: error: cluster.m must be between 1 and 16 (CTAs along one side of a cluster), got 0",
      "7:22: error: expected true or false for 'epilogue.overlap', got 'maybe'",
      "8:13: error: expected one of f16, bf16, f32, e4m3, e5m2 for 'types.a', got a mapping"};
  EXPECT_EQ(p.diags, want);
}

// Up to 32 stages parse (the decode tile fits 22 in shared memory, which
// the checks bound); 33 is a located range error.
TEST(Parser, DepthUpTo32Stages) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + "pipeline: { depth: 32 }\n", engine);
  ASSERT_TRUE(p.spec);
  EXPECT_EQ(p.spec->pipeline.depth.value, 32u);
  DiagnosticEngine e(nullptr);
  Parsed q = parse(std::string(kMinimal) + "pipeline: { depth: 33 }\n", e);
  EXPECT_FALSE(q.spec);
  EXPECT_EQ(q.diags, std::vector<std::string>{"5:20: error: pipeline.depth must be between 1 and "
                                              "32 (stages in the SMEM ring), got 33"});
}

TEST(Parser, L2PromotionTakesTheSizesTmaPromotesTo) {
  for (unsigned bytes : {64u, 128u, 256u}) {
    DiagnosticEngine engine(nullptr);
    Parsed p = parse(std::string(kMinimal) + "pipeline: { depth: 4, l2_promotion: " +
                         std::to_string(bytes) + " }\n",
                     engine);
    ASSERT_TRUE(p.spec) << bytes;
    EXPECT_EQ(p.spec->pipeline.l2Promotion.value, bytes);
    EXPECT_TRUE(p.spec->pipeline.l2Promotion.given);
  }
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + "pipeline: { depth: 4 }\n", engine);
  ASSERT_TRUE(p.spec);
  EXPECT_EQ(p.spec->pipeline.l2Promotion.value, 0u); // unset: the runtime's rule
  struct Bad {
    const char *value, *diag;
  } bad[] = {
      {"100", "5:37: error: pipeline.l2_promotion 100 is not a size TMA promotes to; use 64, 128 "
              "or 256 (or leave it out: 256 on rows that start on 128-byte lines, else 128)"},
      {"512", "5:37: error: pipeline.l2_promotion must be between 64 and 256 (bytes the L2 "
              "fetches per operand load request), got 512"},
      {"big", "5:37: error: expected an integer for 'pipeline.l2_promotion', got 'big'"},
  };
  for (const Bad &b : bad) {
    DiagnosticEngine e(nullptr);
    Parsed q = parse(std::string(kMinimal) + "pipeline: { depth: 4, l2_promotion: " + b.value +
                         " }\n",
                     e);
    EXPECT_FALSE(q.spec) << b.value;
    EXPECT_EQ(q.diags, std::vector<std::string>{b.diag}) << b.value;
  }
}

TEST(Parser, MalformedYamlReportsOnlyTheSyntaxError) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse("kernel: k\ntile: [128, 128\nroles: x\n", engine);
  EXPECT_FALSE(p.spec);
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0].rfind("error: malformed YAML: ") != std::string::npos, true)
      << p.diags[0];
  EXPECT_EQ(engine.errorCount(), 1u);
}

TEST(Parser, MissingKernelAndRoles) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse("# nothing useful\ntile: { m: 128 }\n", engine);
  EXPECT_FALSE(p.spec);
  std::vector<std::string> want = {
      "2:1: error: missing required key 'kernel' (the kernel's name, a C identifier); add e.g. "
      "'kernel: my_gemm'",
      "2:1: error: missing required key 'roles'; add e.g. 'roles: { producer: { warps: 1, "
      "registers: 40, does: tma_load }, consumer: { warpgroups: 1, registers: 232, does: [mma, "
      "epilogue] } }'"};
  EXPECT_EQ(p.diags, want);
}

TEST(Parser, NamesMustBeIdentifiers) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(R"(kernel: "9 lives"
roles:
  tma-producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: [mma, epilogue] }
)",
                   engine);
  EXPECT_FALSE(p.spec);
  std::vector<std::string> want = {
      "1:9: error: kernel name '9 lives' is not a valid C identifier; use letters, digits and "
      "'_', not starting with a digit (e.g. 'k_9_lives')",
      "3:3: error: role name 'tma-producer' is not a valid C identifier; use letters, digits "
      "and '_', not starting with a digit (e.g. 'tma_producer')"};
  EXPECT_EQ(p.diags, want);
}

TEST(Parser, DoesAcceptsOneTaskOrAList) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(R"(kernel: k
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: [mma, epilogue, mma] }
  idle: { warps: 1, does: [] }
)",
                   engine);
  EXPECT_FALSE(p.spec);
  std::vector<std::string> want = {
      "4:52: warning: task 'mma' is listed twice in 'roles.consumer.does'; remove one",
      "5:27: error: role 'idle' does nothing; list at least one of tma_load, mma, epilogue in "
      "'roles.idle.does'"};
  EXPECT_EQ(p.diags, want);
}

TEST(Parser, DescriptionAndOneDocument) {
  DiagnosticEngine engine(nullptr);
  Parsed p = parse(std::string(kMinimal) + "description: |\n  two\n  lines\n---\nkernel: x\n",
                   engine);
  EXPECT_FALSE(p.spec);
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0], "9:1: error: a spec file holds one YAML document; move what follows "
                        "'---' to its own file");

  DiagnosticEngine engine2(nullptr);
  Parsed q = parse(std::string(kMinimal) + "description: |\n  two\n  lines\n", engine2);
  ASSERT_TRUE(q.spec);
  EXPECT_EQ(q.spec->description.value, "two\nlines\n");
}

TEST(Parser, EmptyAndNonMappingDocuments) {
  DiagnosticEngine e1(nullptr);
  EXPECT_FALSE(parse("", e1).spec);
  EXPECT_EQ(render(e1).at(0), "1:1: error: the spec is empty; it needs at least 'kernel' and "
                              "'roles' (see docs/SPEC.md)");
  DiagnosticEngine e2(nullptr);
  EXPECT_FALSE(parse("- a\n- b\n", e2).spec);
  EXPECT_EQ(render(e2).at(0), "1:1: error: expected a mapping of keys at the top of the spec, "
                              "got a list; start with 'kernel: my_gemm'");
}

TEST(Parser, MissingFileIsAnUnlocatedError) {
  DiagnosticEngine engine(nullptr);
  EXPECT_FALSE(parseSpecFile("/nonexistent/spec.yaml", engine));
  ASSERT_EQ(engine.diagnostics().size(), 1u);
  EXPECT_EQ(engine.diagnostics()[0].line, 0u);
  EXPECT_EQ(engine.diagnostics()[0].message.rfind("cannot read spec '/nonexistent/spec.yaml': ",
                                                  0),
            0u);
}

TEST(Parser, LadderSpecFilesParse) {
  for (const char *name : {"01_ws_1consumer", "02_ws_cluster2", "03_ws_2consumers",
                           "04_ws_2consumers_bf16"}) {
    DiagnosticEngine engine(nullptr);
    std::string path = std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + name + ".yaml";
    auto spec = parseSpecFile(path, engine);
    ASSERT_TRUE(spec) << path;
    EXPECT_EQ(spec->path, path);
    EXPECT_TRUE(engine.diagnostics().empty()) << path;
  }
}

TEST(Spec, ToStringSpellsTheSpecWords) {
  EXPECT_STREQ(toString(Target::SM90a), "sm_90a");
  EXPECT_STREQ(toString(Target::SM100a), "sm_100a");
  EXPECT_STREQ(toString(ScalarType::BF16), "bf16");
  EXPECT_STREQ(toString(MatrixLayout::Col), "col");
  EXPECT_STREQ(toString(SchedulerKind::DataParallel), "data_parallel");
  EXPECT_STREQ(toString(RasterOrder::Hilbert), "hilbert");
  EXPECT_STREQ(toString(EpilogueStore::Direct), "direct");
  EXPECT_STREQ(toString(RoleTask::TmaLoad), "tma_load");
  EXPECT_STREQ(toString(BarrierKind::Commit), "commit");
  EXPECT_EQ(sizeInBytes(ScalarType::F16), 2u);
  EXPECT_EQ(sizeInBytes(ScalarType::BF16), 2u);
  EXPECT_EQ(sizeInBytes(ScalarType::F32), 4u);
}

TEST(Spec, EveryToStringWordParsesBack) {
  // Each word toString() prints is accepted by the parser for that key.
  for (ScalarType t : {ScalarType::F16, ScalarType::BF16, ScalarType::F32}) {
    DiagnosticEngine engine(nullptr);
    auto p = parse(std::string(kMinimal) + "types: { d: " + toString(t) + " }\n", engine);
    ASSERT_TRUE(p.spec);
    EXPECT_EQ(p.spec->types.d.value, t);
  }
  for (RasterOrder r : {RasterOrder::AlongM, RasterOrder::AlongN, RasterOrder::Hilbert}) {
    DiagnosticEngine engine(nullptr);
    auto p = parse(std::string(kMinimal) + "scheduler: { raster: " + toString(r) + " }\n",
                   engine);
    ASSERT_TRUE(p.spec);
    EXPECT_EQ(p.spec->scheduler.raster.value, r);
  }
  for (BarrierKind k : {BarrierKind::Tma, BarrierKind::Mbarrier, BarrierKind::Commit,
                        BarrierKind::Named}) {
    DiagnosticEngine engine(nullptr);
    auto p = parse(std::string(kMinimal) + "barriers: { x: { kind: " + toString(k) + " } }\n",
                   engine);
    ASSERT_TRUE(p.spec);
    EXPECT_EQ(p.spec->barriers[0].kind.value, k);
  }
}

TEST(Spec, FindRoleAndRoleDoing) {
  DiagnosticEngine engine(nullptr);
  auto p = parse(kMinimal, engine);
  ASSERT_TRUE(p.spec);
  const KernelSpec &s = *p.spec;
  ASSERT_NE(s.findRole("consumer"), nullptr);
  EXPECT_EQ(s.findRole("consumer")->warpgroups.value, 1u);
  EXPECT_EQ(s.findRole("nobody"), nullptr);
  EXPECT_EQ(s.roleDoing(RoleTask::TmaLoad), s.findRole("producer"));
  EXPECT_EQ(s.roleDoing(RoleTask::Epilogue), s.findRole("consumer"));
  KernelSpec empty;
  EXPECT_EQ(empty.roleDoing(RoleTask::Mma), nullptr);
}

} // namespace

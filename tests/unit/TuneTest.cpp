//===- TuneTest.cpp - gemmgen tune: space, variants, pruning, DB, driver --===//
#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/TuneSpace.h"
#include "gemmgen/tune/CompileHook.h"
#include "gemmgen/tune/Report.h"
#include "gemmgen/tune/Tuner.h"
#include "gemmgen/gemmgen.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

using namespace gemmgen;
using namespace gemmgen::tune;

namespace {

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buf)) << path;
  return buf ? (*buf)->getBuffer().str() : std::string();
}

std::string specPath(const char *name) {
  return std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/" + name;
}

/// A fresh temporary directory, removed at the end of the test.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gemmgen-tune-test", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const char *name) const { return (path + "/" + name).str(); }
};

SearchSpace space(std::initializer_list<std::string> args) {
  SearchSpace s;
  llvm::Error e = addSpaceArgs(s, std::vector<std::string>(args));
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// The space
//===----------------------------------------------------------------------===//

TEST(TuneSpace, ParsesAFileWithListsScalarsAndNestedMappings) {
  auto s = parseSpaceText("# a space\n"
                          "tile.n: [128, 192, 256]\n"
                          "pipeline: { depth: [3, 4] }\n"
                          "scheduler.raster: hilbert\n"
                          "roles.consumer.registers: [232, 240, 232]\n",
                          "space.yaml");
  ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
  ASSERT_EQ(s->params.size(), 4u);
  EXPECT_EQ(s->params[0].key, "tile.n");
  EXPECT_EQ(s->params[1].key, "pipeline.depth");
  EXPECT_EQ(s->params[1].values, (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(s->params[2].values, (std::vector<std::string>{"hilbert"}));
  EXPECT_EQ(s->params[3].values.size(), 2u); // duplicate removed
  EXPECT_EQ(s->size(), 3u * 2 * 1 * 2);
  // str() is a space file again.
  auto again = parseSpaceText(s->str(), "again");
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->str(), s->str());
}

TEST(TuneSpace, ArgsAddToAndReplaceKeys) {
  SearchSpace s = space({"tile.n=128,256", "pipeline.depth=3,4,5"});
  ASSERT_FALSE(bool(addSpaceArgs(s, {"tile.n=192"})));
  EXPECT_EQ(s.params[0].values, (std::vector<std::string>{"192"}));
  EXPECT_EQ(s.size(), 3u);
}

TEST(TuneSpace, RejectsUnknownKeysWithASuggestion) {
  SearchSpace s;
  llvm::Error e = addSpaceArgs(s, {"pipline.depth=3,4"});
  ASSERT_TRUE(bool(e));
  std::string msg = llvm::toString(std::move(e));
  EXPECT_NE(msg.find("did you mean 'pipeline.depth'"), std::string::npos) << msg;
  llvm::Error e2 = addSpaceArgs(s, {"tile.n"});
  ASSERT_TRUE(bool(e2));
  EXPECT_NE(llvm::toString(std::move(e2)).find("KEY=V1,V2"), std::string::npos);
  auto bad = parseSpaceText("tile.n: [128, \"a b\"]\n", "s.yaml");
  ASSERT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST(TuneSpace, EnumeratesTheCartesianProductWithStableIds) {
  SearchSpace s = space({"tile.n=128,192,256", "pipeline.depth=3,4", "cluster.m=1,2"});
  std::vector<Candidate> c = enumerate(s);
  ASSERT_EQ(c.size(), 12u);
  std::set<std::string> ids;
  for (const Candidate &x : c)
    ids.insert(x.id);
  EXPECT_EQ(ids.size(), 12u);
  EXPECT_EQ(c[0].describe(), "tile.n=128 pipeline.depth=3 cluster.m=1");
  EXPECT_EQ(c[1].describe(), "tile.n=128 pipeline.depth=3 cluster.m=2"); // last key fastest
  // The id depends on the values, not on the order the keys were given in.
  SearchSpace r = space({"cluster.m=1,2", "pipeline.depth=3,4", "tile.n=128,192,256"});
  std::set<std::string> ids2;
  for (const Candidate &x : enumerate(r))
    ids2.insert(x.id);
  EXPECT_EQ(ids, ids2);
  EXPECT_EQ(c[0].id.size(), 12u);
}

//===----------------------------------------------------------------------===//
// Variants
//===----------------------------------------------------------------------===//

// A width that is no multiple of 64 (a wave-filling tile): the base's chunk
// of 128 becomes the largest multiple of 16 that divides it, 48 for 144.
TEST(TuneVariant, ChunkFollowsAWaveFillingWidth) {
  std::string base = readFile(specPath("05_fast_f16.yaml"));
  SearchSpace s = space({"tile.n=144", "pipeline.depth=6"});
  ApplyOptions opts;
  opts.basePath = "specs/sm90/05_fast_f16.yaml";
  auto v = applyCandidate(base, enumerate(s)[0], opts);
  ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
  EXPECT_NE(v->body.find("chunk_n: 48"), std::string::npos) << v->body;
  PruneResult p = checkVariant(*v);
  EXPECT_TRUE(p.ok) << (p.errors.empty() ? "" : p.errors[0]) << "\n" << v->yaml;
}

TEST(TuneVariant, AppliedSpecParsesChecksAndReadsBack) {
  std::string base = readFile(specPath("03_ws_2consumers.yaml"));
  SearchSpace s = space({"tile.n=192", "pipeline.depth=4", "scheduler.raster=hilbert",
                         "roles.consumer.registers=240", "roles.producer.registers=24"});
  Candidate c = enumerate(s)[0];
  ApplyOptions opts;
  opts.basePath = "specs/sm90/03_ws_2consumers.yaml";
  opts.dtype = "bf16";
  auto v = applyCandidate(base, c, opts);
  ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
  EXPECT_EQ(v->kernelName, "gemm_sm90_ws_2consumers_t" + c.id);
  EXPECT_EQ(v->body.find("\nbarriers:"), std::string::npos);
  EXPECT_NE(v->body.find("tile: { m: 128, n: 192, k: 64 }"), std::string::npos) << v->body;
  EXPECT_NE(v->body.find("types: { a: bf16, b: bf16, d: bf16, accumulate: f32 }"),
            std::string::npos)
      << v->body;
  EXPECT_EQ(v->yaml.rfind("# Generated by `gemmgen tune`", 0), 0u);

  PruneResult p = checkVariant(*v);
  EXPECT_TRUE(p.ok) << (p.errors.empty() ? "" : p.errors[0]) << "\n" << v->yaml;
  // The applied values are what the parser reads.
  DiagnosticEngine diags(nullptr);
  auto spec = parseSpec(v->yaml, "v.yaml", diags);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->tile.n.value, 192u);
  EXPECT_EQ(spec->pipeline.depth.value, 4u);
  EXPECT_EQ(spec->scheduler.raster.value, RasterOrder::Hilbert);
  EXPECT_EQ(spec->types.a.value, ScalarType::BF16);
  EXPECT_EQ(spec->findRole("consumer")->registers.value, 240u);
  EXPECT_EQ(spec->findRole("producer")->registers.value, 24u);
  EXPECT_TRUE(spec->barriers.empty());

  // Same inputs, same bytes; the header's base path is not hashed.
  auto v2 = applyCandidate(base, c, ApplyOptions{"bf16", "elsewhere/03.yaml"});
  ASSERT_TRUE(bool(v2));
  EXPECT_EQ(v2->body, v->body);
  EXPECT_EQ(v2->specHash, v->specHash);
  // Re-applying to the variant itself changes nothing but the name.
  auto v3 = applyCandidate(v->yaml, c, opts);
  ASSERT_TRUE(bool(v3));
  EXPECT_TRUE(checkVariant(*v3).ok);
}

TEST(TuneVariant, ConsumersAlsoSetTheConsumerRolesWarpgroups) {
  std::string base = readFile(specPath("01_ws_1consumer.yaml"));
  Candidate c = enumerate(space({"consumers=2", "tile.n=256"}))[0];
  auto v = applyCandidate(base, c);
  ASSERT_TRUE(bool(v));
  EXPECT_NE(v->body.find("warpgroups: 2"), std::string::npos) << v->body;
  PruneResult p = checkVariant(*v);
  EXPECT_TRUE(p.ok) << (p.errors.empty() ? "" : p.errors[0]);
}

// Split-K is a tunable (the decode shapes' lever): the variant carries the
// split, and its checks are the spec's (an fp8 D refuses it).
TEST(TuneVariant, SplitKIsTunable) {
  std::string base = readFile(specPath("05_fast_f16.yaml"));
  Candidate c = enumerate(space({"scheduler.split_k=4"}))[0];
  auto v = applyCandidate(base, c);
  ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
  PruneResult p = checkVariant(*v);
  EXPECT_TRUE(p.ok) << (p.errors.empty() ? "" : p.errors[0]) << "\n" << v->yaml;
  DiagnosticEngine diags(nullptr);
  auto spec = parseSpec(v->yaml, "v.yaml", diags);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->scheduler.splitK.value, 4u);

  std::string fp8Out = readFile(specPath("16_fast_e4m3_out_e4m3.yaml"));
  auto refused = applyCandidate(fp8Out, c);
  ASSERT_TRUE(bool(refused)) << llvm::toString(refused.takeError());
  PruneResult q = checkVariant(*refused);
  EXPECT_FALSE(q.ok) << refused->yaml;
  ASSERT_FALSE(q.errors.empty());
  EXPECT_NE(q.errors[0].find("split_k"), std::string::npos) << q.errors[0];
}

TEST(TuneVariant, L2PromotionIsTunableAndChecked) {
  // Spec 25's decode kernel with each promotion: 64/128/256 parse into the
  // spec; another value is pruned with the parser's located error.
  std::string base = readFile(specPath("25_decode_two_ctas_f16.yaml"));
  std::vector<Candidate> cs = enumerate(space({"pipeline.l2_promotion=64,128,256,100"}));
  ASSERT_EQ(cs.size(), 4u);
  for (const Candidate &c : cs) {
    auto v = applyCandidate(base, c);
    ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
    PruneResult p = checkVariant(*v);
    const std::string value = *c.value("pipeline.l2_promotion");
    if (value == "100") {
      EXPECT_FALSE(p.ok) << v->yaml;
      ASSERT_FALSE(p.errors.empty());
      EXPECT_NE(p.errors[0].find("use 64, 128 or 256"), std::string::npos) << p.errors[0];
      continue;
    }
    EXPECT_TRUE(p.ok) << (p.errors.empty() ? "" : p.errors[0]) << "\n" << v->yaml;
    DiagnosticEngine diags(nullptr);
    auto spec = parseSpec(v->yaml, "v.yaml", diags);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(std::to_string(spec->pipeline.l2Promotion.value), value);
  }
}

TEST(TuneVariant, UnknownRoleIsAnError) {
  std::string base = readFile(specPath("01_ws_1consumer.yaml"));
  Candidate c = enumerate(space({"roles.writer.registers=100"}))[0];
  auto v = applyCandidate(base, c);
  ASSERT_FALSE(bool(v));
  EXPECT_NE(llvm::toString(v.takeError()).find("no role 'writer'"), std::string::npos);
}

TEST(TuneVariant, YamlTreeRoundTripsEverySpec) {
  for (const char *name : {"01_ws_1consumer.yaml", "02_ws_cluster2.yaml",
                           "03_ws_2consumers.yaml", "04_ws_2consumers_bf16.yaml"}) {
    std::string text = readFile(specPath(name));
    auto tree = parseYamlTree(text, name);
    ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
    std::string out = writeYamlTree(**tree);
    // The written tree parses to the same spec: same generated source.
    DiagnosticEngine d1(nullptr), d2(nullptr);
    auto a = compileSpecText(text, name, EmitOptions(), d1);
    auto b = compileSpecText(out, name, EmitOptions(), d2);
    ASSERT_TRUE(a && b) << name << "\n" << out;
    EXPECT_EQ(a->source, b->source) << name;
  }
}

//===----------------------------------------------------------------------===//
// Pruning
//===----------------------------------------------------------------------===//

TEST(TunePrune, CountsReasonsPerKind) {
  std::string base = readFile(specPath("03_ws_2consumers.yaml"));
  // depth 6 at 128x256 cannot fit shared memory; tile.m 256 with 1 consumer
  // is not a legal split; 1 consumer with 128x256 needs too many registers.
  SearchSpace s = space({"tile.m=128,256", "consumers=1,2", "pipeline.depth=3,6"});
  PruneStats stats;
  size_t ok = 0;
  for (const Candidate &c : enumerate(s)) {
    auto v = applyCandidate(base, c);
    ASSERT_TRUE(bool(v));
    PruneResult r = checkVariant(*v);
    stats.add(r);
    ok += r.ok;
    if (!r.ok) {
      EXPECT_FALSE(r.reason.empty());
      EXPECT_FALSE(r.errors.empty());
    }
  }
  EXPECT_EQ(stats.total, 8u);
  EXPECT_EQ(stats.kept, ok);
  EXPECT_GE(ok, 1u);
  EXPECT_GE(stats.byReason.size(), 2u);
  bool smem = false;
  for (const auto &[reason, n] : stats.sorted())
    smem |= reason.find("shared memory") != std::string::npos;
  EXPECT_TRUE(smem);
  EXPECT_EQ(reasonKind("the spec needs 263296 bytes of shared memory per block (4 stages); use"),
            "the spec needs # bytes of shared memory per block");
}

TEST(TunePrune, DefaultSpaceLeavesEnoughCandidatesFor03) {
  std::string base = readFile(specPath("03_ws_2consumers.yaml"));
  SearchSpace s = defaultSpace();
  size_t ok = 0;
  for (const Candidate &c : enumerate(s)) {
    auto v = applyCandidate(base, c, ApplyOptions{"f16", ""});
    ASSERT_TRUE(bool(v));
    ok += checkVariant(*v).ok;
  }
  EXPECT_GE(ok, 50u) << "the default space should give a >= 50-candidate tune at 4096^3";
}

//===----------------------------------------------------------------------===//
// Results DB
//===----------------------------------------------------------------------===//

static Record sampleRecord(const std::string &hash, double ms) {
  Record r;
  r.shape = ShapeKey{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  r.specHash = hash;
  r.sourceHash = "src" + hash;
  r.candidate = "c" + hash;
  r.params = {{"tile.n", "256"}, {"pipeline.depth", "4"}};
  r.msMedian = ms;
  r.baselineMs = 0.2;
  r.tflops = 2.0 * 4096.0 * 4096 * 4096 / (ms * 1e-3) / 1e12;
  r.specYaml = "kernel: x\n# \"quoted\"\n";
  r.seed = 18446744073709551615ull;
  return r;
}

TEST(TuneDB, RoundTripsAndKeepsTheLatestRecordPerKey) {
  TempDir dir;
  std::string path = dir.file("db.jsonl");
  {
    auto db = ResultsDB::open(path);
    ASSERT_TRUE(bool(db));
    ASSERT_FALSE(bool(db->append(sampleRecord("aa", 0.30))));
    ASSERT_FALSE(bool(db->append(sampleRecord("bb", 0.18))));
    Record failed = sampleRecord("cc", 0);
    failed.status = "timeout";
    failed.error = "kernel did not finish";
    ASSERT_FALSE(bool(db->append(failed)));
    ASSERT_FALSE(bool(db->append(sampleRecord("aa", 0.25)))); // re-measured
    Record cb = sampleRecord("", 0.19);
    cb.kind = "cublas";
    ASSERT_FALSE(bool(db->append(cb)));
  }
  // A torn last line (an interrupted write) is skipped.
  { std::ofstream(path, std::ios::app) << "{\"v\":1,\"kind\":\"cand"; }
  auto db = ResultsDB::open(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  EXPECT_EQ(db->skippedLines(), 1u);
  ShapeKey key{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  const Record *a = db->find(key, "aa");
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->msMedian, 0.25);
  EXPECT_EQ(a->params, (std::vector<std::pair<std::string, std::string>>{
                           {"tile.n", "256"}, {"pipeline.depth", "4"}}));
  EXPECT_EQ(a->specYaml, "kernel: x\n# \"quoted\"\n");
  EXPECT_EQ(a->seed, 18446744073709551615ull);
  EXPECT_EQ(db->latest(key).size(), 4u); // aa, bb, cc, cublas
  ASSERT_TRUE(db->best(key));
  EXPECT_EQ(db->best(key)->specHash, "bb");
  ASSERT_TRUE(db->cublas(key));
  EXPECT_DOUBLE_EQ(db->cublas(key)->msMedian, 0.19);
  ShapeKey other = key;
  other.gpu = "NVIDIA H100";
  EXPECT_FALSE(db->find(other, "aa"));

  // Import merges only what is new.
  std::string path2 = dir.file("other.jsonl");
  {
    auto db2 = ResultsDB::open(path2);
    ASSERT_FALSE(bool(db2->append(sampleRecord("dd", 0.17))));
  }
  auto added = db->import(path2);
  ASSERT_TRUE(bool(added));
  EXPECT_EQ(*added, 1u);
  auto again = db->import(path2);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(ResultsDB::open(path)->best(key)->specHash, "dd");

  // Not a DB.
  std::string junk = dir.file("junk.jsonl");
  { std::ofstream(junk) << "hello\n"; }
  auto bad = ResultsDB::open(junk);
  ASSERT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST(TuneDB, CublasVersionHasItsOwnFieldAndOldFilesStillRead) {
  Record cb;
  cb.kind = "cublas";
  cb.shape = ShapeKey{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  cb.msMedian = 0.19;
  cb.cublasVersion = 130100;
  auto back = Record::fromJson(cb.toJson());
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->cublasVersion, 130100);
  EXPECT_EQ(back->error, "");
  // A line written before the field: the version was in `error`.
  auto old = Record::fromJson(
      "{\"v\":1,\"kind\":\"cublas\",\"gpu\":\"NVIDIA H200\",\"driver\":13000,\"M\":4096,"
      "\"N\":4096,\"K\":4096,\"dtype\":\"f16\",\"status\":\"ok\",\"error\":\"cuBLAS 130100\","
      "\"ms\":{\"median\":0.19}}");
  ASSERT_TRUE(bool(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->cublasVersion, 130100);
  EXPECT_EQ(old->error, "");
  // A failed candidate keeps its error as written.
  auto failed = Record::fromJson("{\"v\":1,\"kind\":\"candidate\",\"status\":\"failed\","
                                 "\"error\":\"cuBLAS 1 is not an error text\"}");
  ASSERT_TRUE(bool(failed));
  EXPECT_EQ(failed->error, "cuBLAS 1 is not an error text");
  EXPECT_EQ(failed->cublasVersion, 0);
}

TEST(TuneDB, TunedDefaultsLookup) {
  auto d = parseTunedDefaults("version: 1\ngpu: \"NVIDIA H200\"\nshapes:\n"
                              "  - { m: 4096, n: 4096, k: 4096, dtype: f16, spec: h200/a.yaml, "
                              "tflops: 750.5, cublas_tflops: 710 }\n"
                              "  - { m: 8192, n: 8192, k: 8192, dtype: f16, spec: h200/b.yaml }\n"
                              "  - { m: 4096, n: 4096, k: 4096, dtype: bf16, spec: h200/c.yaml }\n",
                              "defaults.yaml", "/x/specs/tuned");
  ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
  ASSERT_EQ(d->entries.size(), 3u);
  EXPECT_EQ(d->lookup(4096, 4096, 4096, "f16")->spec, "h200/a.yaml");
  EXPECT_EQ(d->lookup(4096, 4096, 4096, "bf16")->spec, "h200/c.yaml");
  EXPECT_EQ(d->lookup(7000, 8192, 8192, "f16")->spec, "h200/b.yaml"); // nearest
  EXPECT_EQ(d->lookup(7000, 8192, 8192, "f16", /*exactOnly=*/true), nullptr);
  EXPECT_EQ(d->specPath(d->entries[0]), "/x/specs/tuned/h200/a.yaml");
  EXPECT_DOUBLE_EQ(d->entries[0].tflops, 750.5);
  // str() reads back.
  auto again = parseTunedDefaults(d->str(), "again", "/x");
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError()) << d->str();
  EXPECT_EQ(again->entries.size(), 3u);
  EXPECT_EQ(again->gpu, "NVIDIA H200");
  auto empty = parseTunedDefaults("version: 1\ngpu: x\nshapes:\n", "e", "");
  ASSERT_TRUE(bool(empty));
  EXPECT_TRUE(empty->entries.empty());
}

//===----------------------------------------------------------------------===//
// The driver, without a GPU
//===----------------------------------------------------------------------===//

/// The compile hook `gemmgen tune` ships (compileCandidate), in a test cache.
static TuneHooks nvrtcHooks(const std::string &cacheDir, std::vector<std::string> *log) {
  TuneHooks h;
  h.compile = [cacheDir](const CandidateState &c) {
    CompileOptions o;
    o.cacheDir = cacheDir;
    return compileCandidate(c, o);
  };
  h.log = [log](const std::string &s) {
    if (log)
      log->push_back(s);
  };
  return h;
}

/// The hook compiles for the candidate's own target: an sm_100a base
/// (compile-verified only) compiles for sm_100a, not for sm_90a.
TEST(TuneDriver, TheShippedCompileHookUsesTheSpecsTarget) {
  TempDir dir;
  TuneConfig cfg;
  cfg.basePath = std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm100/07_ws_tcgen05.yaml";
  cfg.baseYaml = readFile(cfg.basePath);
  cfg.shape = ShapeKey{"", 0, 4096, 4096, 4096, "f16"};
  cfg.space = space({"pipeline.depth=4"});
  cfg.compileOnly = true;
  cfg.jobs = 1;
  std::vector<std::string> log;
  ResultsDB db;
  auto r = runTune(cfg, db, nvrtcHooks(dir.file("cache"), &log));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->candidates.size(), 1u);
  const CandidateState &c = r->candidates[0];
  ASSERT_TRUE(c.compiled) << (c.prune.errors.empty() ? "" : c.prune.errors[0]);
  EXPECT_EQ(c.compiled->abi.target, Target::SM100a);
  EXPECT_TRUE(c.compile.ok) << c.compile.error;
  EXPECT_EQ(r->compileErrors, 0u);
  EXPECT_GT(c.compile.registers, 0);
  // Nothing to compile for a candidate that did not pass the checks.
  CandidateState pruned;
  CompileOutcome none = compileCandidate(pruned);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.error, "the candidate did not pass the checks: nothing to compile");
}

TEST(TuneDriver, CompileOnlyOnATinySpaceNeedsNoGpu) {
  TempDir dir;
  TuneConfig cfg;
  cfg.basePath = specPath("03_ws_2consumers.yaml");
  cfg.baseYaml = readFile(cfg.basePath);
  cfg.shape = ShapeKey{"", 0, 4096, 4096, 4096, "f16"};
  cfg.space = space({"tile.n=192,256", "pipeline.depth=3,6"}); // depth 6 is pruned
  cfg.compileOnly = true;
  cfg.jobs = 2;
  std::vector<std::string> log;
  ResultsDB db;
  auto r = runTune(cfg, db, nvrtcHooks(dir.file("cache"), &log));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->prune.total, 4u);
  EXPECT_EQ(r->prune.kept, 2u);
  EXPECT_EQ(r->compiled, 2u) << (log.empty() ? "" : log.back());
  EXPECT_EQ(r->compileErrors, 0u);
  EXPECT_EQ(r->measured, 0u);
  EXPECT_NE(log.back().find("would time 2 candidates"), std::string::npos) << log.back();
  // The report works on compile-only records too.
  std::vector<Record> recs;
  for (const CandidateState &c : r->candidates)
    if (c.stage == Stage::Compiled) {
      recs.push_back(compileOnlyRecord(cfg, c));
      EXPECT_GT(recs.back().registers, 0);
      EXPECT_GT(recs.back().smemBytes, 0u);
    }
  ASSERT_FALSE(bool(writeReport(dir.file("report"), recs, ReportOptions())));
  std::string svg = readFile(dir.file("report") + "/report.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("compile-only"), std::string::npos);

  // A rerun compiles from the cache.
  auto again = runTune(cfg, db, nvrtcHooks(dir.file("cache"), nullptr));
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->fromCache, 2u);
}

TEST(TuneDriver, MeasuresRecordsFailuresAndResumes) {
  TempDir dir;
  TuneConfig cfg;
  cfg.basePath = specPath("01_ws_1consumer.yaml");
  cfg.baseYaml = readFile(cfg.basePath);
  cfg.shape = ShapeKey{"Fake GPU", 13000, 2048, 2048, 2048, "f16"};
  cfg.space = space({"pipeline.depth=3,4", "scheduler.raster=along_m,along_n,hilbert"});
  std::string dbPath = dir.file("db.jsonl");
  int calls = 0;
  TuneHooks hooks;
  hooks.compile = [](const CandidateState &) {
    CompileOutcome o;
    o.ok = true;
    o.registers = 168;
    return o;
  };
  // A fake timer: hilbert "hangs", deeper is faster.
  hooks.measure = [&](const CandidateState &c, int) {
    ++calls;
    Measurement m;
    if (*c.cand.value("scheduler.raster") == "hilbert") {
      m.status = "timeout";
      m.error = "kernel did not finish within 10 s";
      return m;
    }
    m.msMedian = *c.cand.value("pipeline.depth") == "4" ? 0.020 : 0.025;
    m.baselineMs = 0.024;
    return m;
  };
  {
    auto db = ResultsDB::open(dbPath);
    ASSERT_TRUE(bool(db));
    auto r = runTune(cfg, *db, hooks);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(calls, 6);
    EXPECT_EQ(r->measured, 6u);
    EXPECT_EQ(r->failed, 2u);
    ASSERT_TRUE(r->best.has_value());
    EXPECT_EQ(r->best->params[0].second, "4");
    EXPECT_NEAR(r->best->speedup(), 1.2, 1e-9);
    EXPECT_GT(r->best->tflops, 0);
    std::string out;
    llvm::raw_string_ostream os(out);
    printTable(os, r->records(), ReportOptions());
    os.flush();
    EXPECT_NE(out.find("timeout"), std::string::npos) << out;
    std::string svg = renderSvg(r->records(), ReportOptions());
    EXPECT_NE(svg.find("<circle"), std::string::npos);
  }
  // Rerun: everything comes from the DB, failures included.
  calls = 0;
  {
    auto db = ResultsDB::open(dbPath);
    auto r = runTune(cfg, *db, hooks);
    ASSERT_TRUE(bool(r));
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(r->reused, 6u);
    ASSERT_TRUE(r->best.has_value());
  }
  // --retry-failed re-times only the failed ones; a bigger space only the new.
  {
    auto db = ResultsDB::open(dbPath);
    TuneConfig c2 = cfg;
    c2.retryFailed = true;
    c2.space = space({"pipeline.depth=3,4,5", "scheduler.raster=along_m,along_n,hilbert"});
    auto r = runTune(c2, *db, hooks);
    ASSERT_TRUE(bool(r));
    EXPECT_EQ(calls, 2 + 3);
  }
  // Another GPU does not reuse these.
  calls = 0;
  {
    auto db = ResultsDB::open(dbPath);
    TuneConfig c3 = cfg;
    c3.shape.gpu = "Other GPU";
    auto r = runTune(c3, *db, hooks);
    ASSERT_TRUE(bool(r));
    EXPECT_EQ(calls, 6);
  }
}

TEST(TuneDriver, ABrokenBaseIsAnError) {
  TuneConfig cfg;
  cfg.basePath = "broken.yaml";
  cfg.baseYaml = "kernel: x\ntile: { m: 100 }\n";
  cfg.shape = ShapeKey{"", 0, 64, 64, 64, "f16"};
  cfg.compileOnly = true;
  ResultsDB db;
  auto r = runTune(cfg, db, TuneHooks());
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("base spec has errors"), std::string::npos);
}

//===- TuneMergeTest.cpp - tune-db merge: conflicts, order, bad input -----===//
//
// Hand-written DB files of two hosts: the same candidate measured on both
// (and on two GPUs of one host) is kept once per host/GPU, selection takes
// the best record of the matching GPU name, the output does not depend on
// the inputs' order, and malformed input is an error at FILE:LINE with
// nothing written (a torn last line excepted).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/TuneDB.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace gemmgen;
using namespace gemmgen::tune;
using gemmgen::testing::withEdit;

namespace {

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gemmgen-merge-test", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const std::string &name) const { return (path + "/" + name).str(); }
  std::string write(const std::string &name, const std::string &text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
};

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string("<missing>");
}

const char *kHeader = "{\"gemmgen_tune_db\":1}\n";

/// One candidate record line (speedup = base / ms).
std::string rec(const std::string &spec, const std::string &host, int ordinal, double ms,
                const std::string &date = "2026-12-01T00:00:00Z",
                const std::string &status = "ok", const std::string &gpu = "NVIDIA H200") {
  return "{\"v\":1,\"kind\":\"candidate\",\"gpu\":\"" + gpu +
         "\",\"driver\":13000,\"M\":4096,\"N\":4096,\"K\":4096,\"dtype\":\"f16\","
         "\"spec_hash\":\"" + spec + "\",\"candidate\":\"c_" + spec + "\",\"status\":\"" + status +
         "\",\"ms\":{\"median\":" + std::to_string(ms) + "},\"baseline_ms\":0.2,\"date\":\"" +
         date + "\",\"host\":\"" + host + "\",\"gpu_ordinal\":" + std::to_string(ordinal) + "}\n";
}

std::string errorOf(llvm::Expected<MergeStats> r) {
  return r ? std::string("no error") : llvm::toString(r.takeError());
}

} // namespace

TEST(TuneMerge, KeepsEveryHostsRecordAndSelectsTheBestOfTheMatchingGpu) {
  TempDir d;
  // Host A: spec aa on GPUs 0 and 1, bb failed on GPU 0; an H100 record too.
  std::string a = d.write("hostA.jsonl", std::string(kHeader) + rec("aa", "hostA", 0, 0.20) +
                                             rec("aa", "hostA", 1, 0.19) +
                                             rec("bb", "hostA", 0, 0, "2026-12-01T00:00:00Z",
                                                 "timeout") +
                                             rec("cc", "hostA", 0, 0.10, "2026-12-01T00:00:00Z",
                                                 "ok", "NVIDIA H100"));
  // Host B: aa again (slower), bb worked here; one line identical to host A's.
  std::string b = d.write("hostB.jsonl", std::string(kHeader) + rec("aa", "hostB", 0, 0.21) +
                                             rec("bb", "hostB", 0, 0.18) +
                                             rec("aa", "hostA", 0, 0.20));
  auto st = mergeDbFiles({a, b}, d.file("ab.jsonl"));
  ASSERT_TRUE(bool(st)) << llvm::toString(st.takeError());
  EXPECT_EQ(st->read, 7u);
  EXPECT_EQ(st->duplicates, 1u);
  EXPECT_EQ(st->written, 6u);
  EXPECT_EQ(st->multiMeasured, 2u); // aa (3 places), bb (2)

  auto db = ResultsDB::open(d.file("ab.jsonl"));
  ASSERT_TRUE(bool(db));
  EXPECT_EQ(db->skippedLines(), 0u);
  ShapeKey h200{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  EXPECT_EQ(db->latest(h200).size(), 5u); // aa x3, bb x2: all kept
  // Selection: the best record among the H200's (the H100's faster cc is another GPU).
  ASSERT_TRUE(db->best(h200));
  EXPECT_EQ(db->best(h200)->specHash, "bb");
  EXPECT_EQ(db->best(h200)->host, "hostB");
  // A candidate's own record: its best ok one, so bb counts as working.
  ASSERT_TRUE(db->find(h200, "aa"));
  EXPECT_EQ(db->find(h200, "aa")->host, "hostA");
  EXPECT_EQ(db->find(h200, "aa")->gpuOrdinal, 1);
  ASSERT_TRUE(db->find(h200, "bb"));
  EXPECT_TRUE(db->find(h200, "bb")->ok());
  ShapeKey h100 = h200;
  h100.gpu = "NVIDIA H100";
  EXPECT_EQ(db->best(h100)->specHash, "cc");

  // The same file whatever the inputs' order.
  ASSERT_TRUE(bool(mergeDbFiles({b, a}, d.file("ba.jsonl"))));
  EXPECT_EQ(readFile(d.file("ab.jsonl")), readFile(d.file("ba.jsonl")));
  // Merging into an input, and again: nothing new.
  ASSERT_TRUE(bool(mergeDbFiles({d.file("ab.jsonl"), a, b}, d.file("ab.jsonl"))));
  EXPECT_EQ(readFile(d.file("ab.jsonl")), readFile(d.file("ba.jsonl")));
}

TEST(TuneMerge, ReMeasuredOnOneGpuTheNewestIsCurrent) {
  TempDir d;
  // Written newest first: the merge orders by date, so the newest reads as current.
  std::string a = d.write("a.jsonl", std::string(kHeader) +
                                         rec("aa", "h", 0, 0.30, "2026-12-02T00:00:00Z") +
                                         rec("aa", "h", 0, 0.20, "2026-12-01T00:00:00Z"));
  ASSERT_TRUE(bool(mergeDbFiles({a}, d.file("m.jsonl"))));
  auto db = ResultsDB::open(d.file("m.jsonl"));
  ShapeKey h200{"NVIDIA H200", 13000, 4096, 4096, 4096, "f16"};
  EXPECT_EQ(db->all().size(), 2u);
  EXPECT_DOUBLE_EQ(db->find(h200, "aa")->msMedian, 0.30);
}

TEST(TuneMerge, MalformedInputIsALocatedErrorAndNothingIsWritten) {
  TempDir d;
  std::string good = d.write("good.jsonl", std::string(kHeader) + rec("aa", "h", 0, 0.2));
  struct Case {
    const char *name;
    std::string text;
    std::string error; ///< how the message goes on after "<path>:"
  };
  std::string r = rec("aa", "h", 0, 0.2);
  auto replaced = [&](const std::string &from, const std::string &to) {
    return withEdit(r, from, to);
  };
  std::vector<Case> cases = {
      {"notdb.jsonl", "hello\n",
       "1: not a gemmgen results DB (its first line must be {\"gemmgen_tune_db\":1}); give the "
       ".jsonl files `gemmgen tune --db` wrote"},
      {"newer.jsonl", "{\"gemmgen_tune_db\":7}\n",
       "1: results DB version 7; this gemmgen reads version 1"},
      {"json.jsonl", std::string(kHeader) + "{\"v\":1,\n" + r,
       "2: not valid JSON ([1:7, byte=7]: Expected object key); fix or delete this line"},
      {"array.jsonl", std::string(kHeader) + r + "[1,2]\n" + r,
       "3: not a JSON object (a record is one {...} per line); fix or delete this line "
       "(nothing was written)"},
      {"mtype.jsonl", std::string(kHeader) + replaced("\"M\":4096", "\"M\":\"4096\"") + r,
       "2: \"M\" must be an integer; fix or delete this line (nothing was written)"},
      {"mzero.jsonl", std::string(kHeader) + replaced("\"M\":4096", "\"M\":0") + r,
       "2: \"M\" is 0; it must be positive"},
      {"nok.jsonl", std::string(kHeader) + replaced("\"K\":4096,", "") + r,
       "2: the record has no \"K\""},
      {"dtype.jsonl", std::string(kHeader) + replaced("\"f16\"", "\"f32\"") + r,
       "2: \"dtype\" must be \"f16\" or \"bf16\" (got \"f32\")"},
      {"kind.jsonl", std::string(kHeader) + replaced("\"candidate\"", "\"mystery\"") + r,
       "2: \"kind\" must be \"candidate\" or \"cublas\" (got \"mystery\")"},
      {"status.jsonl", std::string(kHeader) + replaced("\"ok\"", "\"great\"") + r,
       "2: \"status\" \"great\" is not one of ok, failed, timeout, wrong, crashed, spills, "
       "compile_error"},
      {"version.jsonl", std::string(kHeader) + replaced("\"v\":1", "\"v\":2") + r,
       "2: record version 2 is not supported (this gemmgen reads version 1; merge with the "
       "gemmgen that wrote it)"},
      {"ordinal.jsonl", std::string(kHeader) + replaced("\"gpu_ordinal\":0", "\"gpu_ordinal\":-3") + r,
       "2: \"gpu_ordinal\" is -3; it must be 0 or more"},
      {"noms.jsonl", std::string(kHeader) + replaced("\"median\":0.200000", "\"median\":0") + r,
       "2: an \"ok\" record needs \"ms\": {\"median\": a time > 0}"},
      {"nohash.jsonl", std::string(kHeader) + replaced("\"spec_hash\":\"aa\"", "\"spec_hash\":\"\"") + r,
       "2: a candidate record needs its \"spec_hash\""},
      {"empty.jsonl", "", " empty; not a gemmgen results DB"},
  };
  for (const Case &c : cases) {
    std::string in = d.write(c.name, c.text);
    std::string out = d.file(std::string("out-") + c.name);
    std::string err = errorOf(mergeDbFiles({good, in}, out));
    // The message starts with FILE:LINE and says what is wrong.
    EXPECT_EQ(err.rfind(in + ":" + c.error, 0), 0u) << c.name << ": " << err;
    EXPECT_FALSE(llvm::sys::fs::exists(out)) << c.name;
  }
  // A missing file, a directory.
  EXPECT_EQ(errorOf(mergeDbFiles({good, d.file("none.jsonl")}, d.file("o.jsonl"))),
            "cannot read '" + d.file("none.jsonl") + "': No such file or directory");
  EXPECT_EQ(errorOf(mergeDbFiles({d.path.str().str()}, d.file("o.jsonl"))),
            "cannot read '" + d.path.str().str() + "': it is a directory; give results DB files");
  EXPECT_EQ(errorOf(mergeDbFiles({}, d.file("o.jsonl"))),
            "nothing to merge: give at least one input DB");
  // An existing output that is not an input is not clobbered.
  std::string keep = d.write("keep.jsonl", "precious\n");
  EXPECT_EQ(errorOf(mergeDbFiles({good}, keep)),
            "'" + keep + "' exists and is not one of the inputs; list it as an input to merge "
            "into it, or give a new output file");
  EXPECT_EQ(readFile(keep), "precious\n");
}

TEST(TuneMerge, ATornLastLineIsSkippedWithANoteAnywhereElseItIsAnError) {
  TempDir d;
  std::string r = rec("aa", "h", 0, 0.2);
  std::string torn = d.write("torn.jsonl", std::string(kHeader) + r + "{\"v\":1,\"kind\":\"cand");
  auto st = mergeDbFiles({torn}, d.file("m.jsonl"));
  ASSERT_TRUE(bool(st)) << llvm::toString(st.takeError());
  EXPECT_EQ(st->written, 1u);
  EXPECT_EQ(st->tornLines, 1u);
  ASSERT_EQ(st->notes.size(), 1u);
  EXPECT_EQ(st->notes[0].rfind(torn + ":3: skipped an interrupted last line (not valid JSON", 0),
            0u)
      << st->notes[0];
  // The same text ended by a newline is a finished line: an error.
  std::string closed = d.write("closed.jsonl", std::string(kHeader) + r + "{\"v\":1,\"kind\":\"cand\n");
  std::string err = errorOf(mergeDbFiles({closed}, d.file("m2.jsonl")));
  EXPECT_EQ(err.rfind(closed + ":3: not valid JSON", 0), 0u) << err;
  EXPECT_FALSE(llvm::sys::fs::exists(d.file("m2.jsonl")));
}

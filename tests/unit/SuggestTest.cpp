//===- SuggestTest.cpp - closestMatch: the one "did you mean" rule --------===//
//
// The parser (keys, values), the checks (role and barrier names) and the
// tune space (keys) all suggest through closestMatch; these tests pin the
// rule itself and that each user reaches it.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Checks.h"
#include "gemmgen/Diagnostics.h"
#include "gemmgen/Parser.h"
#include "gemmgen/tune/TuneSpace.h"

#include <gtest/gtest.h>

#include <string>

using namespace gemmgen;
using llvm::StringRef;

namespace {

std::string suggest(StringRef word, std::initializer_list<StringRef> candidates,
                    llvm::ArrayRef<Synonym> synonyms = {}) {
  std::optional<StringRef> best =
      closestMatch(word, llvm::ArrayRef<StringRef>(candidates.begin(), candidates.size()),
                   synonyms);
  return best ? best->str() : "(none)";
}

TEST(ClosestMatch, TyposCaseAndSynonyms) {
  EXPECT_EQ(suggest("dpeth", {"tile", "depth", "cluster"}), "depth");
  EXPECT_EQ(suggest("DEPTH", {"tile", "depth"}), "depth");
  EXPECT_EQ(suggest("epilog", {"epilogue", "roles"}), "epilogue");
  const Synonym syn[] = {{"stages", "depth"}};
  EXPECT_EQ(suggest("stages", {"tile", "depth"}, syn), "depth");
  EXPECT_EQ(suggest("stages", {"tile", "depth"}), "(none)"); // far without the synonym
  // A synonym whose meaning is not a candidate here suggests nothing by itself.
  EXPECT_EQ(suggest("stages", {"tile", "kind"}, syn), "(none)");
}

TEST(ClosestMatch, NothingCloseSuggestsNothing) {
  EXPECT_EQ(suggest("x", {"m", "n", "k"}), "(none)"); // one edit, but the whole word
  EXPECT_EQ(suggest("banana", {"tile", "depth"}), "(none)");
  EXPECT_EQ(suggest("depth", {}), "(none)");
  // The closest wins, not the first close one.
  EXPECT_EQ(suggest("mma2tmaa", {"tma2mma", "mma2tma"}), "mma2tma");
}

/// The checks suggest role and barrier names by the same rule.
TEST(ClosestMatch, ChecksUseIt) {
  const char *text = R"(kernel: k
roles:
  producer: { warps: 1, does: tma_load }
  consumer: { warpgroups: 1, does: [mma, epilogue] }
barriers:
  Full: { from: Producer, to: consumer }
)";
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpec(text, "t.yaml", diags);
  ASSERT_TRUE(spec);
  checkSpec(*spec, diags);
  std::vector<std::string> msgs;
  for (const Diagnostic &d : diags.diagnostics())
    msgs.push_back(d.message);
  // Case alone is a typo: 0 edits apart but for case.
  EXPECT_NE(std::find(msgs.begin(), msgs.end(),
                      "unknown role 'Producer' in 'barriers.Full.from'; did you mean 'producer'?"),
            msgs.end())
      << ::testing::PrintToString(msgs);
  EXPECT_NE(std::find(msgs.begin(), msgs.end(),
                      "unknown barrier 'Full' for sm_90a; did you mean 'full'? (the sm_90a "
                      "protocol has 'full' (or 'tma2mma'), 'empty' (or 'mma2tma') and 'epilogue')"),
            msgs.end())
      << ::testing::PrintToString(msgs);
}

TEST(ClosestMatch, TheTuneSpaceUsesIt) {
  tune::SearchSpace s;
  llvm::Error e = tune::addSpaceArgs(s, {"Tile.N=128"});
  ASSERT_TRUE(bool(e));
  std::string msg = llvm::toString(std::move(e));
  EXPECT_EQ(msg.rfind("'Tile.N' is not a tunable spec key; did you mean 'tile.n'? (tunable: ", 0),
            0u)
      << msg;
}

} // namespace

// The lists in messages ("the keys are 'a', 'b' and 'c'"; "the sm_90a
// protocol has 'full', 'empty' and 'epilogue'") come from sentenceList.
TEST(SentenceList, JoinsAsASentence) {
  const std::vector<std::string> none, one = {"a"}, two = {"a", "b"}, three = {"a", "b", "c"};
  EXPECT_EQ(sentenceList(none), "");
  EXPECT_EQ(sentenceList(one), "a");
  EXPECT_EQ(sentenceList(two), "a and b");
  EXPECT_EQ(sentenceList(three), "a, b and c");
  EXPECT_EQ(sentenceList(three, /*quoted=*/true), "'a', 'b' and 'c'");
  const std::vector<StringRef> refs = {"tile", "depth"};
  EXPECT_EQ(sentenceList(refs, /*quoted=*/true), "'tile' and 'depth'");
}

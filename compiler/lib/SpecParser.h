//===- SpecParser.h - The spec parser's class, for its two files -*- C++ -*-===//
//
// Internal to compiler/lib: Parser.cpp (the driver, the YAML walk, scalars
// and the top-level keys) and ParserSections.cpp (roles, barriers and the
// epilogue chain) define SpecParser's members. docs/SPEC.md is the key-by-key
// reference; Parser.cpp's opening comment says what this stage reports.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_SPECPARSER_H
#define GEMMGEN_LIB_SPECPARSER_H

#include "gemmgen/Diagnostics.h"
#include "gemmgen/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen::specparser {

using llvm::SMLoc;
using llvm::StringRef;
namespace yaml = llvm::yaml;

/// One accepted word of an enum-valued key.
template <typename E> struct Word {
  const char *word;
  E value;
};

/// The element types (types.a/b/d, a bias's type).
inline const Word<ScalarType> kScalarTypes[] = {
    {"f16", ScalarType::F16},   {"bf16", ScalarType::BF16}, {"f32", ScalarType::F32},
    {"e4m3", ScalarType::E4M3}, {"e5m2", ScalarType::E5M2}};

/// The closest of `candidates` to a misspelt key or word (edit distance, or a
/// synonym other GEMM code bases use), for "did you mean".
std::optional<StringRef> closest(StringRef word, llvm::ArrayRef<StringRef> candidates);

/// One spec text to a KernelSpec, every problem reported at its location.
class SpecParser {
public:
  explicit SpecParser(DiagnosticEngine &diags) : diags(diags) {}

  std::optional<KernelSpec> run(llvm::MemoryBufferRef buffer);

private:
  using Handler = std::function<void(StringRef key, SMLoc keyLoc, yaml::Node *value)>;

  // --- diagnostics ---------------------------------------------------------
  static void onYamlDiag(const llvm::SMDiagnostic &d, void *ctx);
  void error(SMLoc loc, const llvm::Twine &msg) { diags.error(loc, msg); }

  // --- structure -----------------------------------------------------------
  /// Calls `handle` for each key of `node` (which must be a mapping, else an
  /// error names `path`). With `known` non-empty, other keys are reported as
  /// unknown with a suggestion. Duplicate keys are warned about; both values
  /// are handled in order, so the later one wins.
  void walkMapping(yaml::Node *node, StringRef path, llvm::ArrayRef<StringRef> known,
                   const Handler &handle);

  // --- scalars -------------------------------------------------------------
  /// Where a node starts. LLVM's collections start at their first entry;
  /// a flow collection's diagnostics should point at its '{' or '['.
  SMLoc locOf(yaml::Node *n) const {
    SMLoc start = n->getSourceRange().Start;
    if (!llvm::isa<yaml::MappingNode>(n) && !llvm::isa<yaml::SequenceNode>(n))
      return start;
    const char *p = start.getPointer();
    if (!p || p < text.begin() || p >= text.end())
      return start;
    if (*p == '[' || *p == '{')
      return start;
    const char *q = p;
    // Scan back over blanks to the opening bracket (bounded: a few lines,
    // and never before the start of the text).
    for (int i = 0; i < 256 && q > text.begin(); ++i) {
      --q;
      if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
        continue;
      if (*q == '[' || *q == '{')
        return SMLoc::getFromPointer(q);
      break;
    }
    return start;
  }
  static std::string describe(yaml::Node *n);
  /// The text of a plain or quoted scalar; otherwise an error "expected
  /// `what` for 'path', got ...".
  std::optional<std::string> scalarText(yaml::Node *n, StringRef path, StringRef what);

  template <typename T> void setGiven(Located<T> &out, T v, yaml::Node *n, SMLoc keyLoc) {
    out.value = std::move(v);
    out.loc = locOf(n);
    out.keyLoc = keyLoc;
    out.given = true;
  }

  std::optional<int64_t> integer(yaml::Node *n, StringRef path, int64_t min, int64_t max,
                                 StringRef why = "");
  void parseUnsigned(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<unsigned> &out,
                     int64_t min, int64_t max, StringRef why = "");
  void parseOptUnsigned(yaml::Node *n, SMLoc keyLoc, StringRef path,
                        Located<std::optional<unsigned>> &out, int64_t min, int64_t max,
                        StringRef why = "");
  template <typename E, size_t N>
  std::optional<E> enumWord(yaml::Node *n, StringRef path, const Word<E> (&words)[N]);
  template <typename E, size_t N>
  void parseEnum(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<E> &out,
                 const Word<E> (&words)[N]) {
    if (auto v = enumWord(n, path, words))
      setGiven(out, *v, n, keyLoc);
  }
  void parseBool(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<bool> &out);
  void parseFloat(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<float> &out);
  void parseIdentifier(yaml::Node *n, SMLoc keyLoc, StringRef path, StringRef what,
                       Located<std::string> &out);
  /// An identifier of at most kMaxNameLength; otherwise an error at `loc`.
  bool checkName(SMLoc loc, StringRef what, StringRef name);

  // --- sections ------------------------------------------------------------
  void parseTop(yaml::Node *root);
  void parseRoles(yaml::Node *node);
  void parseRole(StringRef name, SMLoc nameLoc, yaml::Node *node);
  void parseBarriers(yaml::Node *node);
  void parseBarrier(StringRef name, SMLoc nameLoc, yaml::Node *node);
  void parseChain(yaml::Node *node);
  void parseChainOp(yaml::Node *node, unsigned index);
  void fillDefaultLocations();
  void resolveSymbolicSlots();

  /// Walks every node without recursion and reports nesting deeper than
  /// kMaxNesting; false when the text is malformed or nested too deeply.
  bool checkSyntaxAndNesting(llvm::MemoryBufferRef buffer);

  DiagnosticEngine &diags;
  KernelSpec spec;
  llvm::StringRef text;  ///< the whole spec text (locations point into it)
  bool yamlFailed = false;
  /// Where each top-level section key was written (for default locations).
  llvm::StringMap<SMLoc> sectionLoc;
  /// Parallel to spec.barriers: "depth"/"consumers" when slots was symbolic.
  std::vector<std::string> slotSymbols;
};

template <typename E, size_t N>
std::optional<E> SpecParser::enumWord(yaml::Node *n, StringRef path, const Word<E> (&words)[N]) {
  llvm::SmallVector<StringRef, 8> accepted;
  for (const Word<E> &w : words)
    accepted.push_back(w.word);
  std::string list;
  for (size_t i = 0; i < N; ++i)
    list += (i ? ", " : "") + accepted[i].str();
  auto text = scalarText(n, path, "one of " + list);
  if (!text)
    return std::nullopt;
  for (const Word<E> &w : words)
    if (*text == w.word)
      return w.value;
  if (auto best = closest(*text, accepted))
    error(locOf(n), "unknown value '" + *text + "' for '" + path + "'; did you mean '" + *best +
                        "'? (accepted: " + list + ")");
  else
    error(locOf(n), "unknown value '" + *text + "' for '" + path + "'; use one of " + list);
  return std::nullopt;
}

} // namespace gemmgen::specparser

#endif // GEMMGEN_LIB_SPECPARSER_H

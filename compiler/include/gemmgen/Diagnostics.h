//===- Diagnostics.h - Located errors and warnings --------------*- C++ -*-===//
//
// The one diagnostics printer of gemmgen. Every stage that finds a problem in
// a spec reports it here with the SMLoc of the value at fault; the engine
// prints `file:line:col: error: message` with the source line and a caret
// (llvm::SourceMgr), and keeps going so that one run shows all errors.
//
// Messages follow LLVM style: lowercase, no trailing period, and say what to
// do ("tile.m must be a multiple of 64; use 64, 128, 192 or 256").
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_DIAGNOSTICS_H
#define GEMMGEN_DIAGNOSTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen {

enum class Severity { Error, Warning, Note };

/// One reported problem, kept for tests and --json output.
struct Diagnostic {
  Severity severity;
  std::string file;
  unsigned line = 0, column = 0; ///< 1-based; 0 when there is no location
  std::string message;
};

class DiagnosticEngine {
public:
  /// Diagnostics are printed to `os` as they are reported (pass nullptr to
  /// only collect them).
  explicit DiagnosticEngine(llvm::raw_ostream *os = &llvm::errs());

  /// Registers a buffer (a spec file's text) and returns its SourceMgr id.
  unsigned addBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);
  llvm::SourceMgr &sourceMgr() { return srcMgr; }

  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg);
  /// An error with no location in a spec (a missing file, say).
  void error(const llvm::Twine &msg) { error(llvm::SMLoc(), msg); }

  unsigned errorCount() const { return numErrors; }
  unsigned warningCount() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }
  const std::vector<Diagnostic> &diagnostics() const { return diags; }

private:
  void report(Severity sev, llvm::SMLoc loc, const llvm::Twine &msg);

  llvm::SourceMgr srcMgr;
  llvm::raw_ostream *out;
  std::vector<Diagnostic> diags;
  unsigned numErrors = 0, numWarnings = 0;
};

/// A word people write for one of ours ("stages" for "depth"): suggested
/// even when it is far from the real word in edit distance.
struct Synonym {
  llvm::StringRef written, meant;
};

/// The one "did you mean" rule of gemmgen (spec keys and values, role and
/// barrier names, tune-space keys): a synonym of `word` that is among
/// `candidates`, else the candidate closest to `word` when it is a plausible
/// typo: equal but for case, or up to 2 edits (never as many as either word
/// has letters, nor more than half the longer one), or at most a third of
/// the longer word's letters. None when nothing is that close.
std::optional<llvm::StringRef> closestMatch(llvm::StringRef word,
                                            llvm::ArrayRef<llvm::StringRef> candidates,
                                            llvm::ArrayRef<Synonym> synonyms = {});

/// A message's list as a sentence writes it: "a, b and c", each item quoted
/// ("'a', 'b' and 'c'") with `quoted`.
std::string sentenceList(llvm::ArrayRef<std::string> items, bool quoted = false);
std::string sentenceList(llvm::ArrayRef<llvm::StringRef> items, bool quoted = false);

} // namespace gemmgen

#endif // GEMMGEN_DIAGNOSTICS_H

//===- Diagnostics.cpp - Located errors and warnings ----------------------===//
#include "gemmgen/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace gemmgen;

DiagnosticEngine::DiagnosticEngine(llvm::raw_ostream *os) : out(os) {
  // The SourceMgr's own handler would print to stderr unconditionally; route
  // everything through report() instead.
  srcMgr.setDiagHandler(nullptr);
}

unsigned DiagnosticEngine::addBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  return srcMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
}

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg) {
  report(Severity::Error, loc, msg);
}
void DiagnosticEngine::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  report(Severity::Warning, loc, msg);
}
void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  report(Severity::Note, loc, msg);
}

void DiagnosticEngine::report(Severity sev, llvm::SMLoc loc, const llvm::Twine &msg) {
  Diagnostic d;
  d.severity = sev;
  d.message = msg.str();
  if (sev == Severity::Error)
    ++numErrors;
  else if (sev == Severity::Warning)
    ++numWarnings;

  llvm::SourceMgr::DiagKind kind = sev == Severity::Error     ? llvm::SourceMgr::DK_Error
                                   : sev == Severity::Warning ? llvm::SourceMgr::DK_Warning
                                                              : llvm::SourceMgr::DK_Note;
  if (loc.isValid()) {
    unsigned buf = srcMgr.FindBufferContainingLoc(loc);
    if (buf != 0) {
      auto lc = srcMgr.getLineAndColumn(loc, buf);
      d.line = lc.first;
      d.column = lc.second;
      d.file = srcMgr.getMemoryBuffer(buf)->getBufferIdentifier().str();
    }
  }
  diags.push_back(d);
  if (!out)
    return;
  if (loc.isValid() && d.line != 0) {
    srcMgr.PrintMessage(*out, loc, kind, d.message);
  } else {
    const char *tag = sev == Severity::Error     ? "error"
                      : sev == Severity::Warning ? "warning"
                                                 : "note";
    *out << "gemmgen: " << tag << ": " << d.message << "\n";
  }
}

std::optional<llvm::StringRef> gemmgen::closestMatch(llvm::StringRef word,
                                                     llvm::ArrayRef<llvm::StringRef> candidates,
                                                     llvm::ArrayRef<Synonym> synonyms) {
  for (const Synonym &s : synonyms)
    if (word.equals_insensitive(s.written))
      for (llvm::StringRef c : candidates)
        if (c == s.meant)
          return c;
  std::optional<llvm::StringRef> best;
  unsigned bestDist = ~0u;
  for (llvm::StringRef c : candidates) {
    unsigned d = word.equals_insensitive(c) ? 0 : word.edit_distance(c, true);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  if (!best)
    return std::nullopt;
  size_t len = std::max(word.size(), best->size());
  // "x" is not a typo of "m": never as many edits as the word has letters.
  if (bestDist <= 2 && bestDist < std::min(word.size(), best->size()) && bestDist * 2 <= len)
    return best;
  if (bestDist <= len / 3)
    return best;
  return std::nullopt;
}

std::string gemmgen::sentenceList(llvm::ArrayRef<std::string> items, bool quoted) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      s += i + 1 == items.size() ? " and " : ", ";
    s += quoted ? "'" + items[i] + "'" : items[i];
  }
  return s;
}

std::string gemmgen::sentenceList(llvm::ArrayRef<llvm::StringRef> items, bool quoted) {
  std::vector<std::string> words(items.begin(), items.end());
  return sentenceList(words, quoted);
}

//===- Diagnostics.cpp - Located errors and warnings ----------------------===//
#include "gemmgen/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"

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

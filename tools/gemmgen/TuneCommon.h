//===- TuneCommon.h - Helpers shared by the tune and tune-db verbs -*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_TUNECOMMON_H
#define GEMMGEN_TOOLS_TUNECOMMON_H

#include "CompilerCommands.h"
#include "OutputFile.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace gemmgen::cli::tunecli {

/// "gemmgen: error: MSG" on stderr (after flushing stdout) and the exit code.
inline void error(const llvm::Twine &msg, int code) {
  llvm::outs().flush();
  llvm::errs() << "gemmgen: error: " << msg << "\n";
  setExitCode(code);
}

inline std::optional<std::string> readText(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return std::nullopt;
  return (*buf)->getBuffer().str();
}

/// Writes `text` to `path` (creating its directory); false, with the error
/// reported (exit 3), when it cannot.
inline bool writeText(const std::string &path, llvm::StringRef text) {
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty())
    llvm::sys::fs::create_directories(dir);
  return writeOutputFile(path, text);
}

/// The note both tune and tune-db print when a results DB had lines it could
/// not read (skipped on reading: a torn last line from an interrupted
/// write), on stderr so that a CSV on stdout stays clean.
inline void noteSkippedLines(size_t skipped, const std::string &path) {
  if (skipped)
    llvm::errs() << "gemmgen: note: " << skipped << " unreadable line(s) in " << path
                 << " skipped (an interrupted write?)\n";
}

} // namespace gemmgen::cli::tunecli

#endif // GEMMGEN_TOOLS_TUNECOMMON_H

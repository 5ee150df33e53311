//===- OutputFile.h - Files the verbs write ---------------------*- C++ -*-===//
//
// Every file a verb writes (emit -o, compile's cubin, choose -o, bench's
// --json/--csv, tune's specs and DBs) goes through writeOutputFile, so that a
// failed open and a failed write (a full disk: /dev/full) end the same way:
// "gemmgen: error: cannot write 'PATH': why" and exit code 3, never LLVM's
// fatal "IO failure on output stream" from a stream destroyed with an error.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TOOLS_OUTPUTFILE_H
#define GEMMGEN_TOOLS_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace gemmgen::cli {

/// Writes `bytes` to `path` (created or truncated; `binary` for a cubin).
/// False after the error line (and exit code 3) when it cannot.
bool writeOutputFile(const std::string &path, llvm::StringRef bytes, bool binary = false);

/// The same for output produced by `write` into a stream (rendered first,
/// then written: nothing is left half-written by a failing writer).
bool writeOutputFile(const std::string &path,
                     const std::function<void(llvm::raw_ostream &)> &write);

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_OUTPUTFILE_H

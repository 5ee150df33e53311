//===- Parser.h - YAML spec text to KernelSpec ------------------*- C++ -*-===//
#ifndef GEMMGEN_PARSER_H
#define GEMMGEN_PARSER_H

#include "gemmgen/Diagnostics.h"
#include "gemmgen/Spec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace gemmgen {

/// A spec file is small (the largest in specs/ is a few KB); anything
/// bigger is refused before it is read.
constexpr uint64_t kMaxSpecBytes = 1u << 20;
/// Collections nested in collections: a spec needs 4 (top, roles, a role,
/// its `does` list); deeper input is refused before it is walked.
constexpr unsigned kMaxSpecNesting = 32;

/// Reads a spec file: a regular file of at most kMaxSpecBytes. Directories,
/// FIFOs and devices are refused without blocking (the message says what
/// the path is).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readSpecFile(llvm::StringRef path);

/// Parses the YAML text `text` (named `bufferName` in diagnostics) into a
/// KernelSpec. Reports every problem it finds (malformed YAML, unknown or
/// misspelt keys with "did you mean", wrong types, values out of their
/// documented range, duplicate keys as warnings) and returns std::nullopt
/// when any error was reported. Range checks that need no other field are
/// done here; checks that relate fields are in Checks.h.
std::optional<KernelSpec> parseSpec(llvm::StringRef text, llvm::StringRef bufferName,
                                    DiagnosticEngine &diags);

/// Reads `path` and parses it; a missing or unreadable file is an error.
std::optional<KernelSpec> parseSpecFile(llvm::StringRef path, DiagnosticEngine &diags);

} // namespace gemmgen

#endif // GEMMGEN_PARSER_H

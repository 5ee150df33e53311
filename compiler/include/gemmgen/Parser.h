//===- Parser.h - YAML spec text to KernelSpec ------------------*- C++ -*-===//
#ifndef GEMMGEN_PARSER_H
#define GEMMGEN_PARSER_H

#include "gemmgen/Diagnostics.h"
#include "gemmgen/Spec.h"

#include <optional>

namespace gemmgen {

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

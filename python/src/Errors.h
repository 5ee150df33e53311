//===- Errors.h - gemmgen Status -> Python exceptions -------------*- C++ -*-===//
//
// Binding code throws PyFacingError; the translator registered by
// registerErrorTranslator turns it into the matching class of
// gemmgen.errors (SpecError carries the located diagnostics).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_PYTHON_ERRORS_H
#define GEMMGEN_PYTHON_ERRORS_H

#include "gemmgen/Diagnostics.h"
#include "gemmgen/gemmgen.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace gemmgen::python {

/// An error for Python: the gemmgen.errors class to raise, its message and,
/// for spec errors, the diagnostics.
struct PyFacingError : std::runtime_error {
  PyFacingError(std::string cls, const std::string &message,
                std::vector<Diagnostic> diagnostics = {})
      : std::runtime_error(message), cls(std::move(cls)), diagnostics(std::move(diagnostics)) {}
  std::string cls;
  std::vector<Diagnostic> diagnostics;
};

/// The gemmgen.errors class name for a runtime error code.
const char *exceptionClassFor(ErrorCode code);

/// Throws the PyFacingError for a failed Status.
[[noreturn]] void throwStatus(const Status &s);

/// Returns the value or throws the Status.
template <typename T> T unwrap(Expected<T> e) {
  if (!e)
    throwStatus(e.status());
  return e.take();
}
inline void check(const Status &s) {
  if (!s)
    throwStatus(s);
}

/// Installs the translator (once, at module import).
void registerErrorTranslator();

} // namespace gemmgen::python

#endif // GEMMGEN_PYTHON_ERRORS_H

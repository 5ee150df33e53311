//===- Errors.cpp - gemmgen Status -> Python exceptions --------------------===//
#include "Errors.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace gemmgen;
using namespace gemmgen::python;

const char *python::exceptionClassFor(ErrorCode code) {
  switch (code) {
  case ErrorCode::NoDriver:
    return "NoDeviceError";
  case ErrorCode::InvalidArgument:
    return "ArgumentError";
  case ErrorCode::Unsupported:
    return "UnsupportedError";
  case ErrorCode::SpecError:
    return "SpecError";
  case ErrorCode::CompileError:
    return "CompileError";
  case ErrorCode::CudaError:
  case ErrorCode::Timeout:
    return "CudaError";
  case ErrorCode::Io:
  case ErrorCode::VerificationFailed:
  case ErrorCode::Ok:
    break;
  }
  return "Error";
}

void python::throwStatus(const Status &s) {
  throw PyFacingError(exceptionClassFor(s.code()), s.message());
}

static const char *severityName(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

void python::registerErrorTranslator() {
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const PyFacingError &e) {
      nb::module_ errors = nb::module_::import_("gemmgen.errors");
      nb::object cls = errors.attr(e.cls.c_str());
      nb::list diags;
      for (const Diagnostic &d : e.diagnostics)
        diags.append(errors.attr("Diagnostic")(d.file, d.line, d.column,
                                               severityName(d.severity), d.message));
      nb::object exc = e.cls == "SpecError" ? cls(e.what(), diags) : cls(e.what());
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });
}

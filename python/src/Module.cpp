//===- Module.cpp - gemmgen._core: the C++ library as a Python module ------===//
//
// A thin layer over the compiler's entry points and the runtime's host API
// (gemmgen/gemmgen.h); the Python package (python/gemmgen) reads arrays and
// streams and calls into it. Importing it needs no GPU and no libcuda.so.1:
// the runtime loads the driver on the first launch.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"
#include "Errors.h"

#include "gemmgen/gemmgen.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "gemmgen's C++ compiler and runtime (use the gemmgen package, not this module)";
  gemmgen::python::registerErrorTranslator();
  gemmgen::python::bindSpecFunctions(m);
  gemmgen::python::bindKernel(m);
  m.def("nvrtc_version", &gemmgen::nvrtcVersionString);
  m.def("version", [] { return std::string(gemmgen::versionString()); });
}

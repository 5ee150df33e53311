//===- Bindings.h - The pieces of gemmgen._core -------------------*- C++ -*-===//
#ifndef GEMMGEN_PYTHON_BINDINGS_H
#define GEMMGEN_PYTHON_BINDINGS_H

#include <nanobind/nanobind.h>

namespace gemmgen::python {

/// check, emit, compile, tuned_spec (SpecBindings.cpp).
void bindSpecFunctions(nanobind::module_ &m);
/// Kernel, plan, kernel_layout, dlpack_view (KernelBindings.cpp).
void bindKernel(nanobind::module_ &m);

} // namespace gemmgen::python

#endif // GEMMGEN_PYTHON_BINDINGS_H

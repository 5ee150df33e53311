//===- Sm90Wgmma.h - wgmma wrappers of widths the device header lacks -*- C++ -*-===//
//
// gemmgen/device/sm90_ptx.cuh wraps wgmma for every width that is a multiple
// of 16. A tile of 8 columns mod 16 (256x152: three exact waves at
// 3000x5000) gets its one width printed into its own source, as a
// specialisation of the header's Wgmma dispatcher.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_SM90WGMMA_H
#define GEMMGEN_LIB_SM90WGMMA_H

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/Spec.h"

namespace gemmgen {
namespace sm90 {

/// Whether the header has no wgmma of width `n` (n is 8 mod 16).
bool needsPrintedWgmma(unsigned n);
/// Wgmma<n, ELEM_F16 / ELEM_BF16, TA, TB> for 16-bit kind `t`: m64n<n>k16
/// with n / 2 f32 accumulators per thread, in namespace gemmgen::sm90.
void emitWgmmaOfWidth(CodeEmitter &e, unsigned n, ScalarType t);

} // namespace sm90
} // namespace gemmgen

#endif // GEMMGEN_LIB_SM90WGMMA_H

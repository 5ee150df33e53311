//===- Sm90Wgmma.cpp - wgmma wrappers of widths the device header lacks ---===//
#include "Sm90Wgmma.h"

#include <string>

using namespace gemmgen;

bool gemmgen::sm90::needsPrintedWgmma(unsigned n) { return n % 16 != 0; }

void gemmgen::sm90::emitWgmmaOfWidth(CodeEmitter &e, unsigned n, ScalarType t) {
  const std::string N = std::to_string(n), regs = std::to_string(n / 2);
  const bool bf16 = t == ScalarType::BF16;
  const std::string kind = bf16 ? "bf16" : "f16";
  // Operands: the n / 2 accumulators, then desc_a, desc_b, scale_d, TA, TB.
  const unsigned a = n / 2;
  std::string list;
  for (unsigned i = 0; i < a; ++i)
    list += (i ? "," : "") + std::string("%") + std::to_string(i);
  e.comment("wgmma m64n" + N + "k16 (" + kind + "): the tile's width, 8 columns mod 16, which");
  e.comment("gemmgen/device/sm90_ptx.cuh does not wrap; TA / TB as the header's wrappers.");
  e.line("namespace gemmgen {");
  e.line("namespace sm90 {");
  {
    e.line("template <int TA, int TB>");
    CodeEmitter::Block s(e, "struct Wgmma<" + N + ", " + (bf16 ? "ELEM_BF16" : "ELEM_F16") +
                                ", TA, TB>",
                         "", ";");
    CodeEmitter::Block f(e, "static __device__ __forceinline__ void mma(float (&d)[" + regs +
                                "], u64 desc_a, u64 desc_b, int scale_d)");
    e.line("asm volatile(\"{\\n.reg .pred p;\\n\"");
    e.line("             \"setp.ne.b32 p, %" + std::to_string(a + 2) + ", 0;\\n\"");
    e.line("             \"wgmma.mma_async.sync.aligned.m64n" + N + "k16.f32." + kind + "." + kind +
           " \"");
    e.line("             \"{" + list + "}, \"");
    e.line("             \"%" + std::to_string(a) + ", %" + std::to_string(a + 1) + ", p, 1, 1, %" +
           std::to_string(a + 3) + ", %" + std::to_string(a + 4) + ";\\n}\\n\"");
    for (unsigned i = 0; i < a; i += 8) {
      std::string outs;
      for (unsigned j = i; j < a && j < i + 8; ++j)
        outs += "\"+f\"(d[" + std::to_string(j) + "])" + (j + 1 < a ? ", " : "");
      e.line(std::string(i ? "               " : "             : ") + outs);
    }
    e.line("             : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d), \"n\"(TA), \"n\"(TB));");
  }
  e.line("}  // namespace sm90");
  e.line("}  // namespace gemmgen");
  e.blank();
}

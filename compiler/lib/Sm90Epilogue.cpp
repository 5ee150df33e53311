//===- Sm90Epilogue.cpp - The sm_90a epilogue's staging code ---------------===//
//
// What the sm_90a printer emits for the epilogue's three ops on the staging
// tile: store_acc (accumulators, times alpha, plus beta times the C chunk
// the tile holds, into the 128B-swizzled slabs: stmatrix for 16-bit D,
// float2 stores for f32, fp8 pairs for 8-bit), the TMA store of the tile,
// and the TMA load of C's chunk into it. One 128-byte slab row holds
// D_SLAB_COLS columns.
//
//===----------------------------------------------------------------------===//
#include "Sm90Epilogue.h"

#include "EpiloguePrinter.h"

#include "llvm/ADT/Twine.h"

#include <cstdio>
#include <functional>
#include <vector>

using namespace gemmgen;
using llvm::Twine;

namespace {

/// The staging tile this consumer's chunk uses: one per consumer, or with
/// epilogue.buffers the chunk's of D_BUFFERS (chunk % D_BUFFERS).
std::string stagingTile(const ir::Kernel &k) {
  const ir::Buffer *d = k.findBuffer("smemD");
  if (d && d->stages > 1)
    return "smem + SMEM_D + (consumer * D_BUFFERS + chunk % D_BUFFERS) * D_STAGE_BYTES";
  return "smem + SMEM_D + consumer * D_STAGE_BYTES";
}

/// What a chunk's stores compute in a kernel without a chain, tested once
/// per chunk (alpha and beta are the launch's): D = acc (alpha 1, beta 0, the
/// common launch: 1·x is x, the same bits), alpha·acc (beta 0: C not read),
/// or alpha·acc + beta·C. Each form's stores have no branch per 8 values;
/// bench/results/2026-12-04_plain_store_sass.
enum class PlainForm { Acc, AlphaAcc, AlphaAccBetaC };

/// The multiplier a form's values take before C joins ("": D = acc).
std::string formScale(PlainForm form) { return form == PlainForm::Acc ? "" : "alpha * "; }
bool formReadsC(PlainForm form) { return form == PlainForm::AlphaAccBetaC; }

/// A kernel with a C path and no chain: alpha and beta tested once per chunk,
/// `storesOf(form)` emitting each form's stores under its branch.
void emitPlainForms(CodeEmitter &e, const std::function<void(PlainForm)> &storesOf) {
  {
    CodeEmitter::Block plain(e, "if (alpha == 1.f && beta == 0.f)");
    e.comment("D = acc: store");
    storesOf(PlainForm::Acc);
  }
  {
    CodeEmitter::Block scaled(e, "else if (beta == 0.f)");
    e.comment("D = alpha * acc: C is not read");
    storesOf(PlainForm::AlphaAcc);
  }
  CodeEmitter::Block general(e, "else", "D = alpha * acc + beta * C");
  storesOf(PlainForm::AlphaAccBetaC);
}

/// The one form a kernel without that test runs: a chain (its own entry, C
/// read where the kernel has a C path) or no C path (the accumulators).
PlainForm wholeKernelForm(bool hasCPath) {
  return hasCPath ? PlainForm::AlphaAccBetaC : PlainForm::Acc;
}

void emitChainCall(CodeEmitter &e, const std::string &v0, const std::string &v1,
                   const std::string &c0, const std::string &c1, const std::string &b0,
                   const std::string &b1);
void emitBiasPrefetch(CodeEmitter &e, const ir::Kernel &k);
void emitPairValues(CodeEmitter &e, const ir::Kernel &k, PlainForm form,
                    const std::string &loadC);
/// The bias of a fragment value: chain without a bias "0.f", else bias_v at
/// the n8 block `jj` of the chunk (column bias) or the m block and half-row
/// (row bias), element `e01` of the pair.
std::string biasOf(const ir::Kernel &k, const std::string &jj, const std::string &m,
                   const std::string &h, int e01);

/// The names the chain's entry multiplies by (KernelPlan::chainEntry): the
/// halved copies of alpha and beta where what they scale joins the chain
/// before a gelu_tanh that takes D's value halved.
std::string entryAlpha(const ir::Kernel &k) {
  return k.plan.chainEntry.halved() ? "chain_alpha" : "alpha";
}
std::string entryBeta(const ir::Kernel &k) {
  return k.plan.chainEntry.halvesC ? "chain_beta" : "beta";
}

/// The chain's entry value of accumulator `acc`: alpha·acc, with the chain's
/// leading bias `bias` in the same FMA where the plan folds it there.
std::string entryValue(const ir::Kernel &k, const std::string &acc, const std::string &bias) {
  if (k.plan.chainEntry.biasInAlpha)
    return "fmaf(" + entryAlpha(k) + ", " + acc + ", " + bias + ")";
  return entryAlpha(k) + " * " + acc;
}

/// The 16-bit store's matrix instructions of `mats` 8x8 matrices (4 or 2):
/// transposed for a column-major D (which has no odd n8 blocks).
std::string stmatrixOf(const ir::Kernel &k, unsigned mats) {
  return "stmatrix_x" + std::to_string(mats) + (k.plan.dColMajor ? "_trans" : "");
}
/// The registers r0.. a stmatrix / ldmatrix of `mats` matrices names.
std::string stmatrixRegisters(unsigned mats) { return mats == 4 ? "r0, r1, r2, r3" : "r0, r1"; }
std::string ldmatrixOf(const ir::Kernel &k, unsigned mats) {
  return "ldmatrix_x" + std::to_string(mats) + (k.plan.dColMajor ? "_trans" : "");
}

/// The byte offset in the staging chunk of 16-byte column `col16` of `row`:
/// slabs of k.plan.dSlabBytes (S) per row, each swizzled as the TMA box of
/// that span: the column's S/16 chunk bits XOR the address bits from 7 up,
/// i.e. the row shifted right by log2(128/S) (128-byte rows: the row's low 3
/// bits; 64: bits 1-2; 32: bit 2).
std::string slabAddress(const ir::Kernel &k, const std::string &row, const std::string &col16) {
  const unsigned bytes = k.plan.dSlabBytes, chunks = bytes / 16;
  // An unswizzled slab (an odd number of 16-byte columns, one per chunk):
  // rows an odd multiple of 16 bytes apart, so a warp's 8 rows of 16 bytes
  // fall in 8 different groups of 4 banks.
  if (!outputSlabSwizzleBytes(bytes))
    return row + " * " + std::to_string(bytes) + " + " + col16 + " * 16";
  unsigned shift = 0;
  while ((bytes << shift) < 128)
    ++shift;
  const std::string mask = std::to_string(chunks - 1);
  const std::string rowBits = shift == 0 ? "(" + row + " & " + mask + ")"
                                         : "((" + row + " >> " + std::to_string(shift) + ") & " +
                                               mask + ")";
  return "(" + col16 + " / " + std::to_string(chunks) + ") * D_SLAB_BYTES + " + row + " * " +
         std::to_string(bytes) + " + (((" + col16 + " & " + mask + ") ^ " + rowBits + ") << 4)";
}

void emitStoreF32Pairs(CodeEmitter &e, const ir::Kernel &k, PlainForm form);

/// f32 output: no stmatrix (16-bit only); each thread writes its pairs as
/// float2 into the swizzled slabs (D_SLAB_COLS columns each), reading C's
/// pair at the same address first when beta != 0; the form (PlainForm)
/// tested once per chunk, as for 16-bit D.
void emitStoreF32(CodeEmitter &e, const ir::Kernel &k, bool hasCPath) {
  e.comment("accumulators -> f32 staging: a float2 per n8 block and half-row. m64nN fragment:");
  e.comment("thread (warp w, lane l) holds rows 16w + l/4 (+8) and, for n8 block j, columns");
  e.comment("8j + 2(l%4) (+1) in acc[.][4j .. 4j+1] (row +8: 4j+2 .. 4j+3).");
  e.line("const u32 staging = " + stagingTile(k) + ";");
  emitBiasPrefetch(e, k);
  if (!hasCPath || !k.epilogueChain.empty())
    return emitStoreF32Pairs(e, k, wholeKernelForm(hasCPath));
  emitPlainForms(e, [&](PlainForm form) { emitStoreF32Pairs(e, k, form); });
}

/// The chunk's float2 stores of one form's values.
void emitStoreF32Pairs(CodeEmitter &e, const ir::Kernel &k, PlainForm form) {
  e.line("#pragma unroll");
  CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
  e.line("#pragma unroll");
  CodeEmitter::Block js(e, "for (int jj = 0; jj < EPI_COLS / 8; ++jj)");
  e.line("const int j = " + sm90::chunkFirstBlock(k) + " + jj;  // n8 block of the tile");
  e.line("const int col = jj * 8 + 2 * (lane % 4);       // column inside the chunk");
  e.line("#pragma unroll");
  CodeEmitter::Block hs(e, "for (int h = 0; h < 2; ++h)");
  e.line("const int row = m * 64 + warp_in_group * 16 + lane / 4 + 8 * h;");
  e.line("const u32 addr = staging + " + slabAddress(k, "row", "(col / 4)") + " + (col % 4) * 4;");
  emitPairValues(e, k, form,
                 "ld_shared_f32x2(addr, c0, c1);  // C's pair, loaded into the staging tile");
  e.line("st_shared_f32x2(addr, v0, v1);");
}

/// One fragment pair's values v0, v1 (D's row, columns col and col + 1 of
/// n8 block jj) in `form`: acc or alpha·acc (a chain's entry value where the
/// form reads C), beta·C read by `loadC` into c0, c1 (before the chain, or at
/// its residual step), then the chain. For the f32 and 8-bit stores, which
/// handle a pair at a time (the 16-bit store, eight).
void emitPairValues(CodeEmitter &e, const ir::Kernel &k, PlainForm form,
                    const std::string &loadC) {
  const bool residual = chainHas(k.epilogueChain, EpilogueOpKind::Residual);
  const bool readsC = formReadsC(form);
  const std::string scale = formScale(form);
  const bool entry = !k.epilogueChain.empty() && readsC;  // alpha and beta are the chain entry's
  if (entry)
    e.line("float v0 = " + entryValue(k, "acc[m][4 * j + 2 * h]", biasOf(k, "jj", "m", "h", 0)) +
           ", v1 = " + entryValue(k, "acc[m][4 * j + 2 * h + 1]", biasOf(k, "jj", "m", "h", 1)) +
           ";");
  else
    e.line("float v0 = " + scale + "acc[m][4 * j + 2 * h], v1 = " + scale +
           "acc[m][4 * j + 2 * h + 1];");
  if (residual)
    e.line("float c0 = 0.f, c1 = 0.f;  // beta * C, added at the chain's residual step");
  if (readsC) {
    const std::string beta = entry ? entryBeta(k) : "beta";
    CodeEmitter::Block ifc(e, "if (beta != 0.f)");
    if (!residual)
      e.line("float c0, c1;");
    e.line(loadC);
    if (residual) {
      e.line("c0 *= " + beta + ";");
      e.line("c1 *= " + beta + ";");
    } else {
      e.line("v0 = fmaf(" + beta + ", c0, v0);");
      e.line("v1 = fmaf(" + beta + ", c1, v1);");
    }
  }
  if (!k.epilogueChain.empty())
    emitChainCall(e, "v0", "v1", residual ? "c0" : "0.f", residual ? "c1" : "0.f",
                  biasOf(k, "jj", "m", "h", 0), biasOf(k, "jj", "m", "h", 1));
}

/// 8-bit output: each thread converts its pairs (out_scale · v, two fp8 in a
/// 16-bit word); neighbouring lanes, whose pairs are adjacent columns of one
/// row, trade one pair with a shuffle, so that each lane stores four bytes:
/// even lanes n8 block 2jp, odd lanes 2jp + 1. A warp's store then writes 16
/// bytes in each of 8 rows, 8 different 16-byte columns of the 128B-swizzled
/// 128-column slab: no bank conflicts, half the stores of one per pair. C's
/// pair is read at its own address first when beta != 0. amax_v takes |v|.
void emitStoreFp8(CodeEmitter &e, const ir::Kernel &k, bool readsC) {
  e.comment("accumulators -> " + Twine(toString(k.dType)) +
            " pairs (cvt.rn.satfinite), 4 bytes per lane, in 128-column staging slabs.");
  e.comment("m64nN fragment: thread (warp w, lane l) holds rows 16w + l/4 (+8) and, for n8");
  e.comment("block j, columns 8j + 2(l%4) (+1) in acc[.][4j .. 4j+1] (row +8: 4j+2 .. 4j+3).");
  e.line("const u32 staging = " + stagingTile(k) + ";");
  emitBiasPrefetch(e, k);
  // The tile's padding holds v = 0 (TMA zero-fills A, B and C; the bias
  // loads are guarded), which cannot raise a maximum of |v| — unless a clamp
  // moves 0 away from 0: then only elements inside D count.
  const bool maskAmax = chainHas(k.epilogueChain, EpilogueOpKind::Clamp);
  auto staged = [](const std::string &col) {
    return "staging + (" + col + ") / D_SLAB_COLS * D_SLAB_BYTES + row * 128 + ((((" + col +
           ") % D_SLAB_COLS / 16) ^ (row & 7)) << 4) + (" + col + ") % 16";
  };
  e.line("const bool odd = lane & 1;  // stores n8 block 2jp + 1 (even lanes: 2jp)");
  e.line("#pragma unroll");
  CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
  e.line("#pragma unroll");
  CodeEmitter::Block js(e, "for (int jp = 0; jp < EPI_COLS / 16; ++jp)");
  e.line("#pragma unroll");
  CodeEmitter::Block hs(e, "for (int h = 0; h < 2; ++h)");
  e.line("const int row = m * 64 + warp_in_group * 16 + lane / 4 + 8 * h;");
  e.line("u16 pair[2];  // this lane's pairs of n8 blocks 2jp and 2jp + 1");
  e.line("#pragma unroll");
  {
    CodeEmitter::Block qs(e, "for (int q = 0; q < 2; ++q)");
    e.line("const int jj = 2 * jp + q, j = " + sm90::chunkFirstBlock(k) + " + jj;  // n8 block of the chunk, "
           "of the tile");
    e.line("const int col = jj * 8 + 2 * (lane % 4);  // v0's column inside the chunk");
    // fp8: alpha carries the per-tensor scales, so every form multiplies.
    emitPairValues(e, k, readsC ? PlainForm::AlphaAccBetaC : PlainForm::AlphaAcc,
                   "unpack_fp8x2<ELEM>(ld_shared_u16(" + staged("col") +
                       "), c0, c1);  // C's pair, loaded into the staging tile");
    if (maskAmax) {
      e.line("const int d_col = tile_n * BN + " + sm90::chunkOrigin(k) + " + col;  // D's column of v0");
      CodeEmitter::Block in(e, "if (" + sm90::consumerFirstRow(k) + " + row < M)");
      e.line("if (d_col < N) amax_v = fmaxf(amax_v, fabsf(v0));");
      e.line("if (d_col + 1 < N) amax_v = fmaxf(amax_v, fabsf(v1));");
    } else {
      e.line("amax_v = fmaxf(amax_v, fmaxf(fabsf(v0), fabsf(v1)));  // padding: v = 0");
    }
    e.line("pair[q] = pack_fp8x2<ELEM>(out_scale * v0, out_scale * v1);");
  }
  e.comment("lane l and l ^ 1 hold columns c, c+1 and c+2, c+3 of one row in each block: even");
  e.comment("lanes keep block 2jp's four, odd lanes block 2jp + 1's");
  e.line("const u32 other = __shfl_xor_sync(0xffffffffu, (u32)(odd ? pair[0] : pair[1]), 1);");
  e.line("const u32 quad = odd ? (other | (u32)pair[1] << 16) : ((u32)pair[0] | other << 16);");
  e.line("const int col = (2 * jp + odd) * 8 + 2 * (lane % 4) - 2 * odd;  // the quad's first column");
  e.line("st_shared_u32(" + staged("col") + ", quad);");
}

/// The chain's values of one fragment pair: v0 at D's (row, col), v1 at
/// (row, col + 1), after alpha·acc (and beta·C unless the chain places it).
void emitChainCall(CodeEmitter &e, const std::string &v0, const std::string &v1,
                   const std::string &c0, const std::string &c1, const std::string &b0,
                   const std::string &b1) {
  e.line("apply_epilogue_chain(" + v0 + ", " + v1 + ", " + c0 + ", " + c1 + ", " + b0 + ", " +
         b1 + ", chain_scale);");
}

const EpilogueStep *biasStep(const ir::Kernel &k) {
  for (const EpilogueStep &s : k.epilogueChain)
    if (s.kind == EpilogueOpKind::Bias)
      return &s;
  return nullptr;
}

std::string biasOf(const ir::Kernel &k, const std::string &jj, const std::string &m,
                   const std::string &h, int e01) {
  const EpilogueStep *b = biasStep(k);
  if (!b)
    return "0.f";
  if (b->axis == BiasAxis::Column)
    return "bias_v[" + jj + "][" + std::to_string(e01) + "]";
  return "bias_v[" + m + "][" + h + "]";
}

/// The chain's bias for this thread's D rows or columns of the chunk, loaded
/// before its stores: the loads issue together and wait once, not once per
/// n8 block between stmatrix stores (measured: the bias cost 7% at 4096³).
void emitBiasPrefetch(CodeEmitter &e, const ir::Kernel &k) {
  const EpilogueStep *b = biasStep(k);
  if (!b)
    return;
  const std::string t = biasTypeName(b->biasType);
  const bool halved = k.plan.chainEntry.halvesBias;
  e.comment("the chain's bias for this thread's " +
            std::string(b->axis == BiasAxis::Column ? "columns" : "rows") +
            " of the chunk, loaded together before the stores" + (halved ? ", halved" : ""));
  const std::string load = halved ? "0.5f * epi::load_bias(bias, " : "epi::load_bias(bias, ";
  if (b->axis == BiasAxis::Column) {
    e.line("float bias_v[EPI_COLS / 8][2];  // columns 8jj + 2(lane % 4) (+1) of the chunk");
    e.line("#pragma unroll");
    CodeEmitter::Block js(e, "for (int jj = 0; jj < EPI_COLS / 8; ++jj)");
    e.line("const int col = tile_n * BN + " + sm90::chunkOrigin(k) + " + 8 * jj + 2 * (lane % 4);");
    e.line("const long long at = (long long)entry * bias_stride + col;");
    e.line("bias_v[jj][0] = col < N ? " + load + t + ", at) : 0.f;");
    e.line("bias_v[jj][1] = col + 1 < N ? " + load + t + ", at + 1) : 0.f;");
    return;
  }
  e.line("float bias_v[WG_MMAS][2];  // rows 16w + lane / 4 (+8) of each m64 block");
  e.line("#pragma unroll");
  CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
  e.line("#pragma unroll");
  CodeEmitter::Block hs(e, "for (int h = 0; h < 2; ++h)");
  e.line("const int row = " + sm90::consumerFirstRow(k) + " + m * 64 + warp_in_group * 16 + "
         "lane / 4 + 8 * h;");
  e.line("bias_v[m][h] = row < M ? " + load + t + ", (long long)entry * bias_stride + row) : 0.f;");
}

/// Overlapping chunks (KernelPlan::chunksOverlap): the n8 blocks the last
/// chunk shares with the one before take the packed values that chunk
/// computed, kept in registers, not values computed again: with C in place
/// the shared columns of C may already hold D. The blocks of the stmatrix
/// about to run: j (r0, r1) and, of 4 matrices, j + 1 (r2, r3). The
/// conditions are constants once the chunk and n8 loops are unrolled.
void emitSharedBlocks(CodeEmitter &e, unsigned mats) {
  e.comment("columns the last chunk shares with the one before: that chunk's values");
  for (unsigned b = 0; b < mats / 2; ++b) {
    const std::string jb = b ? "j + 1" : "j", at = "kept[m][" + jb + " - KEPT_FIRST]";
    const std::string lo = "r" + std::to_string(2 * b), hi = "r" + std::to_string(2 * b + 1);
    e.line("if (chunk + 2 == EPI_CHUNKS && " + jb + " >= KEPT_FIRST) { " + at + "[0] = " + lo +
           "; " + at + "[1] = " + hi + "; }");
    e.line("if (chunk + 1 == EPI_CHUNKS && " + jb + " < KEPT_FIRST + KEPT_BLOCKS) { " + lo +
           " = " + at + "[0]; " + hi + " = " + at + "[1]; }");
  }
}

/// The fragment of a chained store: the thread's values as floats, then the
/// chain per pair, then the conversion. C (beta != 0) is read first, from
/// the staging tile the values then overwrite. `mats` 8x8 matrices: 4 (two
/// n8 blocks, both half-rows) or 2 (a chunk's odd n8 block).
void emitStore16Chain(CodeEmitter &e, const ir::Kernel &k, bool readsC, unsigned mats) {
  const bool residual = chainHas(k.epilogueChain, EpilogueOpKind::Residual);
  const std::string vals = std::to_string(2 * mats), last = std::to_string(2 * mats - 1);
  const std::string n = std::to_string(mats), beta = entryBeta(k);
  const bool biasInAlpha = k.plan.chainEntry.biasInAlpha;
  const std::string what = biasInAlpha ? "alpha * acc + bias" : "alpha * acc";
  const std::string of = " of acc[m][4j .. 4j+" + last + "]";
  if (residual)
    e.line("float v[" + vals + "], c[" + vals + "];  // " + what + " and beta * C" + of);
  else
    e.line("float v[" + vals + "];  // " + what + " (+ beta * C)" + of);
  e.line("#pragma unroll");
  if (biasInAlpha) {
    // Pair q of the chain call below: the same bias.
    CodeEmitter::Block qs(e, "for (int q = 0; q < " + n + "; ++q)");
    for (int e01 = 0; e01 < 2; ++e01) {
      const std::string at = "2 * q" + std::string(e01 ? " + 1" : "");
      e.line("v[" + at + "] = " +
             entryValue(k, "acc[m][4 * j + " + at + "]",
                        biasOf(k, "2 * j2 + q / 2", "m", "q & 1", e01)) +
             ";");
    }
    if (residual)
      e.line("c[2 * q] = 0.f; c[2 * q + 1] = 0.f;");
  } else {
    const std::string value = entryValue(k, "acc[m][4 * j + q]", "");
    e.line("for (int q = 0; q < " + vals + "; ++q) " +
           (residual ? "{ v[q] = " + value + "; c[q] = 0.f; }" : "v[q] = " + value + ";"));
  }
  const std::string x = "_x" + std::to_string(mats);
  const std::string regs = mats == 4 ? "cr[0], cr[1], cr[2], cr[3]" : "cr[0], cr[1]";
  if (readsC) {
    CodeEmitter::Block ifc(e, "if (beta != 0.f)");
    e.line("u32 cr[" + std::to_string(mats) + "];");
    e.line(ldmatrixOf(k, mats) + "(addr, " + regs + ");  // C's pairs, as stmatrix writes them");
    e.line("#pragma unroll");
    const std::string loop = "for (int q = 0; q < " + n + "; ++q) ";
    if (residual)
      e.line(loop + "{ c[2 * q] = " + beta + " * unpack_lo<ELEM>(cr[q]); c[2 * q + 1] = " + beta +
             " * unpack_hi<ELEM>(cr[q]); }");
    else
      e.line(loop + "{ v[2 * q] = fmaf(" + beta + ", unpack_lo<ELEM>(cr[q]), v[2 * q]); " +
             "v[2 * q + 1] = fmaf(" + beta + ", unpack_hi<ELEM>(cr[q]), v[2 * q + 1]); }  " +
             "// beta * C before the chain");
  }
  e.line("#pragma unroll");
  {
    CodeEmitter::Block qs(e, "for (int q = 0; q < " + std::to_string(mats) + "; ++q)");
    e.comment("pair q: row 16w + lane / 4 + 8 (q & 1), n8 block 2 j2 + q / 2 of the chunk");
    emitChainCall(e, "v[2 * q]", "v[2 * q + 1]", residual ? "c[2 * q]" : "0.f",
                  residual ? "c[2 * q + 1]" : "0.f", biasOf(k, "2 * j2 + q / 2", "m", "q & 1", 0),
                  biasOf(k, "2 * j2 + q / 2", "m", "q & 1", 1));
  }
  auto pair = [](unsigned q) {
    return "pack2<ELEM>(v[" + std::to_string(2 * q) + "], v[" + std::to_string(2 * q + 1) + "])";
  };
  if (!k.plan.chunksOverlap) {
    std::string packed;
    for (unsigned q = 0; q < mats; ++q)
      packed += ", " + pair(q);
    e.line(stmatrixOf(k, mats) + "(addr" + packed + ");");
    return;
  }
  // Named registers: the shared columns' values may replace them.
  for (unsigned q = 0; q < mats; ++q)
    e.line("u32 r" + std::to_string(q) + " = " + pair(q) + ";");
  emitSharedBlocks(e, mats);
  e.line(stmatrixOf(k, mats) + "(addr, " + stmatrixRegisters(mats) + ");");
}

/// The lane's row address for stmatrix / ldmatrix of n8 blocks 2 j2 (and
/// 2 j2 + 1) of the chunk, and j, the first block's index in the tile.
void emitStore16Address(CodeEmitter &e, const ir::Kernel &k) {
  e.line("const int j = " + sm90::chunkFirstBlock(k) + " + 2 * j2;  // first of two n8 blocks");
  e.line("const int mat = lane / 8;  // the 8x8 matrix whose row address this lane supplies");
  if (k.plan.dColMajor) {
    e.comment("transposed: matrix mat's stored row (lane & 7) is a column of the chunk, its 16");
    e.comment("bytes 8 rows of D: piece 2w + (mat & 1) of the m64 block's 128-byte row");
    e.line("const int col = j2 * 16 + (mat >> 1) * 8 + (lane & 7);  // column inside the chunk");
    e.line("const int piece = warp_in_group * 2 + (mat & 1);");
    e.line("const u32 addr = staging + m * D_SLAB_BYTES + col * 128 + ((piece ^ (col & 7)) << 4);");
  } else {
    e.line("const int row = m * 64 + warp_in_group * 16 + (mat & 1) * 8 + (lane & 7);");
    e.line("const int col16 = j2 * 2 + (mat >> 1);  // 16-byte column inside the chunk");
    e.line("const u32 addr = staging + " + slabAddress(k, "row", "col16") + ";");
  }
}

/// The stores of `mats` 8x8 matrices at `addr`: 4 (n8 blocks j and j + 1,
/// both half-rows) or 2 (block j alone: acc[m][4j .. 4j+3]).
void emitStore16Matrices(CodeEmitter &e, const ir::Kernel &k, PlainForm form, unsigned mats) {
  if (!k.epilogueChain.empty()) {
    emitStore16Chain(e, k, formReadsC(form), mats);
    return;
  }
  std::vector<std::string> r;
  for (unsigned q = 0; q < mats; ++q)
    r.push_back("r" + std::to_string(q));
  auto accPair = [](unsigned q, const std::string &scale) {
    return scale + "acc[m][4 * j + " + std::to_string(2 * q) + "], " + scale + "acc[m][4 * j + " +
           std::to_string(2 * q + 1) + "]";
  };
  const std::string list = stmatrixRegisters(mats);
  if (form == PlainForm::AlphaAccBetaC) {
    e.comment("C's pairs, in the layout stmatrix writes back to the same addresses");
    e.line("u32 " + list + ";");
    e.line(ldmatrixOf(k, mats) + "(addr, " + list + ");");
    for (unsigned q = 0; q < mats; ++q)
      e.line(r[q] + " = axpby2<ELEM>(alpha, " + accPair(q, "") + ", beta, " + r[q] + ");");
  } else {
    const std::string decl = k.plan.chunksOverlap ? "u32 " : "const u32 ";
    for (unsigned q = 0; q < mats; ++q)
      e.line(decl + r[q] + " = pack2<ELEM>(" + accPair(q, formScale(form)) + ");");
  }
  if (k.plan.chunksOverlap)
    emitSharedBlocks(e, mats);
  e.line(stmatrixOf(k, mats) + "(addr, " + list + ");");
}

/// The chunk's stmatrix stores: the n8 blocks in pairs, then an odd last one.
void emitStore16Blocks(CodeEmitter &e, const ir::Kernel &k, PlainForm form) {
  e.line("#pragma unroll");
  CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
  {
    e.line("#pragma unroll");
    CodeEmitter::Block js(e, "for (int j2 = 0; j2 < EPI_COLS / 16; ++j2)");
    emitStore16Address(e, k);
    emitStore16Matrices(e, k, form, 4);
  }
  if (k.epilogueChunkN % 16 == 0)
    return;
  CodeEmitter::Block odd(e, "", "the chunk's last, odd n8 block");
  e.line("const int j2 = (EPI_COLS - 8) / 16;");
  emitStore16Address(e, k);
  emitStore16Matrices(e, k, form, 2);
}

void emitStore16(CodeEmitter &e, const ir::Kernel &k, bool hasCPath) {
  e.comment("accumulators -> " + Twine(toString(k.dType)) +
            " -> stmatrix into the staging slabs (D_SLAB_COLS columns each).");
  e.comment("m64nN fragment: thread (warp w, lane l) holds rows 16w + l/4 (+8) and, for n8");
  e.comment("block j, columns 8j + 2(l%4) (+1) in acc[.][4j .. 4j+3].");
  e.line("const u32 staging = " + stagingTile(k) + ";");
  emitBiasPrefetch(e, k);
  if (!hasCPath || !k.epilogueChain.empty())
    return emitStore16Blocks(e, k, wholeKernelForm(hasCPath));
  emitPlainForms(e, [&](PlainForm form) { emitStore16Blocks(e, k, form); });
}

} // namespace

std::string gemmgen::sm90::chunkOrigin(const ir::Kernel &k) {
  return k.plan.chunksOverlap ? "chunk_col0" : "chunk * EPI_COLS";
}

std::string gemmgen::sm90::chunkFirstBlock(const ir::Kernel &k) {
  return k.plan.chunksOverlap ? "chunk_col0 / 8" : "chunk * (EPI_COLS / 8)";
}

std::string gemmgen::sm90::consumerFirstRow(const ir::Kernel &k) {
  return k.plan.schedule.pingpong ? "tile_m * BM" : "tile_m * BM + consumer * WG_ROWS";
}

void gemmgen::sm90::emitStagingStore(CodeEmitter &e, const ir::Kernel &k, bool readsC) {
  if (k.dType == ScalarType::F32)
    emitStoreF32(e, k, readsC);
  else if (isFp8(k.dType))
    emitStoreFp8(e, k, readsC);
  else
    emitStore16(e, k, readsC);
}

namespace {
/// The staging chunk's slabs as TMA boxes: the loop over them, and a box's
/// coordinates (inner first, then the batch entry). Row-major D: a slab per
/// D_SLAB_COLS columns; column-major: a slab per m64 block, 64 rows along M.
struct SlabBoxes {
  std::string loop, coords;
};
SlabBoxes slabBoxes(const ir::Kernel &k) {
  const std::string firstRow = gemmgen::sm90::consumerFirstRow(k);
  const std::string columns = "tile_n * BN + " + gemmgen::sm90::chunkOrigin(k);
  if (k.plan.dColMajor)
    return {"for (int slab = 0; slab < WG_MMAS; ++slab)",
            firstRow + " + slab * 64, " + columns + ", entry);"};
  return {"for (int slab = 0; slab < EPI_COLS / D_SLAB_COLS; ++slab)",
          columns + " + slab * D_SLAB_COLS, " + firstRow + ", entry);"};
}
} // namespace

void gemmgen::sm90::emitStagingTmaStore(CodeEmitter &e, const ir::Kernel &k) {
  const SlabBoxes boxes = slabBoxes(k);
  e.line("#pragma unroll");
  CodeEmitter::Block loop(e, boxes.loop);
  e.line("tma_store_3d(&tmD, " + stagingTile(k) + " + slab * D_SLAB_BYTES,");
  e.line("             " + boxes.coords);
}

void gemmgen::sm90::emitStagingCLoad(CodeEmitter &e, const ir::Kernel &k,
                                     const std::string &barrierAddr) {
  const SlabBoxes boxes = slabBoxes(k);
  e.comment("C's chunk, one box per staging slab, as D's store will write them");
  e.line("#pragma unroll");
  CodeEmitter::Block loop(e, boxes.loop);
  e.line("tma_load_3d(" + stagingTile(k) + " + slab * D_SLAB_BYTES, &tmC, " + barrierAddr + ",");
  e.line("            " + boxes.coords);
}

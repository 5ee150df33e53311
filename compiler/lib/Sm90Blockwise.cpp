//===- Sm90Blockwise.cpp - The sm_90a printer's blockwise-scale code ------===//
//
// fp8 blockwise scaling (types.scaling: blockwise): the producer's copies
// of each k-block's scales into the stage, the consumers' reads of them and
// the promotion of a k-block's partial sum into the f32 accumulators
// (Sm90Printer.cpp decides where; the names are the kernel's: scale_a/
// scale_b, entry, k_blocks, M, N, kb, tile_m/tile_n, consumer,
// warp_in_group, lane, acc, smem and the SMEM_SCALES constants).
//
//===----------------------------------------------------------------------===//
#include "Sm90Blockwise.h"

#include "Sm90Epilogue.h"

using namespace gemmgen;

void gemmgen::sm90::emitTileScalePointers(CodeEmitter &e, const ir::Kernel &k,
                                          const std::string &kFirst) {
  e.comment("where this thread's scales sit in a stage's smemScales (rows past M read row 0's,");
  e.comment("blocks past N block 0's: finite, and their A rows and B columns are TMA's zeros)");
  e.line("u32 sa_off[WG_MMAS][2];  // bytes into a k-block's A scales: rows r, r + 8");
  e.line("#pragma unroll");
  {
    CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
    e.line("const int r = " + consumerFirstRow(k) + " + m * 64 + warp_in_group * 16 + lane / 4;");
    e.line("sa_off[m][0] = 4 * (r < M ? r - tile_m * BM : 0);");
    e.line("sa_off[m][1] = 4 * (r + 8 < M ? r + 8 - tile_m * BM : 0);");
  }
  e.comment("the producer's copy of a k-block's A scales starts at a 16-byte boundary, (the tile's");
  e.comment("first row's float index) mod 4 floats early; the index steps by M per k-block");
  e.line("u32 sa_index = (u32)(reinterpret_cast<u64>(scale_a) / 4) + (u32)(((long long)entry * "
         "k_blocks + " + kFirst + ") * M) + (u32)(tile_m * BM);");
  e.comment("B's: the copy holds the 16 aligned bytes around the scale, at its address's low bits");
  e.comment("(sb_addr: the scale's address, low 32 bits, stepping 4 bytes per k-block)");
  e.line("const int col_blocks = (N + 127) / 128;");
  e.line("u32 sb_addr[SB_BLOCKS];");
  e.line("#pragma unroll");
  CodeEmitter::Block cs(e, "for (int cb = 0; cb < SB_BLOCKS; ++cb)");
  e.line("const int nb = tile_n * BN / 128 + cb;");
  e.line("sb_addr[cb] = (u32)reinterpret_cast<u64>(scale_b + ((long long)entry * col_blocks + "
         "(nb < col_blocks ? nb : 0)) * k_blocks + " + kFirst + ");");
}

void gemmgen::sm90::emitPointerScaleLoad(CodeEmitter &e, const std::string &sa,
                                         const std::string &sb, const std::string &stage) {
  e.comment("from the stage's smemScales (the full barrier covered their copies)");
  e.line("const u32 scales_at = smem + SMEM_SCALES + SCALES_STAGE_BYTES * " + stage + ";");
  e.line("const u32 sa_at = scales_at + 4 * (sa_index & 3);");
  e.line("sa_index += (u32)M;");
  e.line("#pragma unroll");
  {
    CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
    e.line(sa + "[m][0] = ld_shared_f32(sa_at + sa_off[m][0]);");
    e.line(sa + "[m][1] = ld_shared_f32(sa_at + sa_off[m][1]);");
  }
  e.line("#pragma unroll");
  CodeEmitter::Block cs(e, "for (int cb = 0; cb < SB_BLOCKS; ++cb)");
  e.line(sb + "[cb] = ld_shared_f32(scales_at + SCALES_B_OFFSET + 16 * cb + (sb_addr[cb] & 15u));");
  e.line("sb_addr[cb] += 4u;");
}

/// The producer's float index into scale_b of block cb's scale for k-block kb (blocks past N
/// read block 0's: finite, and their B columns are TMA's zeros).
static std::string producerScaleBIndex() {
  return "(entry * col_blocks + (tile_n * BN / 128 + cb < col_blocks ? tile_n * BN / 128 + cb : 0)) * "
         "k_blocks + kb";
}

namespace {
/// The staging of a k-block's scales, shared by the one-thread producer
/// (emitScaleCopyBytes / emitScaleCopy) and the four-warp one
/// (emitScaleCopyParts); `whole` names the kernel's flag saying the arrays
/// are whole 16-byte chunks.
void emitScalesTo(CodeEmitter &e, const std::string &stage) {
  e.line("const u32 scales_to = smem + SMEM_SCALES + SCALES_STAGE_BYTES * " + stage + ";");
}

/// A's scales for the tile's rows: the floats of partly covered chunks
/// stored here, the bulk-copied span sa_from .. sa_to (sa_bytes).
void emitStageAScales(CodeEmitter &e, const std::string &whole) {
  e.line("const int sa_first = (entry * k_blocks + kb) * M + tile_m * BM;");
  e.line("int sa_from, sa_to;");
  e.line("stage_scales(scales_to, scale_a, sa_first, min(BM, M - tile_m * BM), batch * k_blocks * M, "
         + whole + ", &sa_from, &sa_to);");
  e.line("const u32 sa_bytes = 4u * (u32)(sa_to - sa_from);");
}

void emitCopyAScales(CodeEmitter &e, const std::string &bar) {
  e.line("if (sa_bytes) bulk_load_g2s(scales_to + 4u * (u32)(sa_from - scale_chunk_base(scale_a, sa_first)), "
         "scale_a + sa_from, sa_bytes, " + bar + ");");
}

/// B's scales, one per column block of the tile (past N: block 0's):
/// sb_bulk's bit cb says block cb's chunk is bulk-copied.
void emitStageBScales(CodeEmitter &e, const std::string &whole) {
  e.line("u32 sb_bulk = 0;  // bit cb: B block cb's chunk is bulk-copied");
  e.line("#pragma unroll");
  CodeEmitter::Block cs(e, "for (int cb = 0; cb < SB_BLOCKS; ++cb)");
  e.line("if (stage_scale(scales_to + SCALES_B_OFFSET + 16 * cb, scale_b, " + producerScaleBIndex() +
         ", batch * col_blocks * k_blocks, " + whole + ")) sb_bulk |= 1u << cb;");
}

void emitCopyBScales(CodeEmitter &e, const std::string &bar) {
  e.line("#pragma unroll");
  CodeEmitter::Block cs(e, "for (int cb = 0; cb < SB_BLOCKS; ++cb)");
  e.line("const int sb_index = " + producerScaleBIndex() + ";");
  e.line("if (sb_bulk >> cb & 1u) bulk_load_g2s(scales_to + SCALES_B_OFFSET + 16 * cb, "
         "scale_b + scale_chunk_base(scale_b, sb_index), 16, " + bar + ");");
}
} // namespace

void gemmgen::sm90::emitScaleCopyBytes(CodeEmitter &e, const std::string &stage) {
  e.comment("this k-block's scales: A's for the tile's rows, B's for its column blocks (past N:");
  e.comment("block 0's); bulk copies take the 16-byte chunks inside each array, the floats of a");
  e.comment("chunk the array only partly covers are stored here (stage_scales); float indices");
  emitScalesTo(e, stage);
  e.line("const int col_blocks = (N + 127) / 128;");
  e.line("const bool whole_chunks = scales_in_whole_chunks(scale_a, batch * k_blocks * M, scale_b, "
         "batch * col_blocks * k_blocks);");
  emitStageAScales(e, "whole_chunks");
  emitStageBScales(e, "whole_chunks");
  e.line("const u32 sb_total = 16u * (u32)__popc(sb_bulk);");
}

void gemmgen::sm90::emitScaleCopy(CodeEmitter &e, const std::string &bar) {
  e.comment("the bulk copies land at the slot's offset of their first float (A's slot starts at the");
  e.comment("boundary at or below sa_first, each B block's at the one at or below its scale)");
  emitCopyAScales(e, bar);
  emitCopyBScales(e, bar);
}

void gemmgen::sm90::emitScaleCopyParts(CodeEmitter &e, const std::string &stage,
                                       const std::string &bar) {
  e.comment("this k-block's scales: A's for the tile's rows (warp 1), B's for its column blocks");
  e.comment("(warp 2; past N: block 0's); bulk copies take the 16-byte chunks inside each array,");
  e.comment("the floats of a chunk an array only partly covers are stored here (stage_scales)");
  e.comment("before the warp's arrive; float indices");
  {
    CodeEmitter::Block a(e, "else if (part == 1)", "A's scales");
    emitScalesTo(e, stage);
    e.line("const bool whole_chunks = scales_in_whole_chunks(scale_a, batch * k_blocks * M, "
           "scale_a, 0);");
    emitStageAScales(e, "whole_chunks");
    e.line("mbar_arrive_expect_tx(" + bar + ", sa_bytes);");
    e.comment("the copy lands at the slot's offset of its first float (the slot starts at the");
    e.comment("boundary at or below sa_first)");
    emitCopyAScales(e, bar);
  }
  CodeEmitter::Block b(e, "else if (part == 2)", "B's scales");
  emitScalesTo(e, stage);
  e.line("const int col_blocks = (N + 127) / 128;");
  e.line("const bool whole_chunks = scales_in_whole_chunks(scale_b, batch * col_blocks * k_blocks, "
         "scale_b, 0);");
  emitStageBScales(e, "whole_chunks");
  e.line("mbar_arrive_expect_tx(" + bar + ", 16u * (u32)__popc(sb_bulk));");
  e.comment("each block's copy lands at the one boundary at or below its scale");
  emitCopyBScales(e, bar);
}

/// The unrolled promotion; n8 block j of the tile uses scale block
/// (j + shift) / 16 of those the tile touches.
static void emitPromoteLoop(CodeEmitter &e, const std::string &part, const std::string &sa,
                            const std::string &sb, int shift) {
  e.line("#pragma unroll");
  CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
  e.line("#pragma unroll");
  CodeEmitter::Block js(e, "for (int j = 0; j < BN / 8; ++j)");
  e.comment("n8 block j: rows r, r + 8 in " + part + "[m][4j .. 4j+1], [4j+2 .. 4j+3]");
  e.line("const float sb = " + sb + (shift ? "[(j + " + std::to_string(shift) + ") / 16];" : "[j / 16];") +
         "  // 16 n8 blocks per 128 columns");
  e.line("const float s0 = " + sa + "[m][0] * sb, s1 = " + sa + "[m][1] * sb;");
  for (int q = 0; q < 4; ++q) {
    const std::string i = "[m][4 * j + " + std::to_string(q) + "]";
    e.line("acc" + i + " = fmaf(" + part + i + ", " + (q < 2 ? "s0" : "s1") + ", acc" + i + ");");
  }
}

/// acc += part · sA · sB once the k-block's wgmmas finished (its group
/// waited for); zero_acc cleared acc at the tile's start. A tile.n that is
/// not a multiple of 128 starts either at a scale block's edge or 64
/// columns into one: a warp-uniform branch picks the unrolled form whose
/// scale index per n8 block is a constant (no per-register select).
void gemmgen::sm90::emitPromoteAcc(CodeEmitter &e, const ir::Kernel &k, const std::string &part,
                                   const std::string &sa, const std::string &sb) {
  e.comment("promote the k-block's partial sum into the f32 accumulators (CUDA cores)");
  if (k.tileN % 128 == 0) {
    emitPromoteLoop(e, part, sa, sb, 0);
    return;
  }
  CodeEmitter::Block scope(e, ""); // a pair promotes twice in one scope
  e.line("const bool mid_block = (tile_n * BN) % 128 != 0;  // the tile starts 64 columns into B's "
         "scale block");
  {
    CodeEmitter::Block edge(e, "if (!mid_block)");
    emitPromoteLoop(e, part, sa, sb, 0);
  }
  CodeEmitter::Block mid(e, "else");
  emitPromoteLoop(e, part, sa, sb, 8);
}

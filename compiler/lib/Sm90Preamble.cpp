//===- Sm90Preamble.cpp - What an sm_90a kernel's source holds before it ----===//
//
// The banner (the problem, tile and launch contract in words), the device
// header, and the constants every role of the kernel reads: tile and
// pipeline shape, element kinds, the kernel plan's shared-memory offsets and
// barrier counts, then the ring cursors. Each value is the plan's; this file
// only names it.
//
//===----------------------------------------------------------------------===//
#include "Sm90Preamble.h"

#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/PrinterCommon.h"

#include "EpiloguePrinter.h"
#include "Sm90Wgmma.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace gemmgen;
using namespace gemmgen::ir;
using gemmgen::sm90::mnMajor;
using llvm::Twine;

namespace {

std::string str(unsigned v) { return std::to_string(v); }

class PreamblePrinter {
public:
  PreamblePrinter(CodeEmitter &e, const Kernel &k, const EmitOptions &opts)
      : k(k), opts(opts), e(e) {}

  void print() {
    emitBanner();
    emitIncludes();
    if (sm90::needsPrintedWgmma(k.tileN))
      sm90::emitWgmmaOfWidth(e, k.tileN, k.aType);
    emitConstants();
    emitHelpers();
  }

private:
  void emitBanner() {
    KernelABI abi = deriveKernelABI(k);
    emitBannerHead(e, k);
    if (k.plan.perTensorScales)
      e.comment("  D[M,N] = (alpha * scale_a * scale_b) * A[M,K] * B[N,K]^T + beta * C, A " +
                Twine(toString(k.aType)) + ", B " + toString(k.bType) + " K-major, D " +
                toString(k.dType) + " row-major, " + toString(k.accType) + " accumulate");
    else if (!mnMajor(k.plan.loadA) && !mnMajor(k.plan.loadB))
      e.comment("  D[M,N] = A[M,K] * B[N,K]^T, A/B " + Twine(toString(k.aType)) + " K-major, D " +
                toString(k.dType) + " row-major, " + toString(k.accType) + " accumulate");
    else
      e.comment("  D[M,N] = A[M,K] * B[K,N], A " + Twine(toString(k.aType)) +
                (mnMajor(k.plan.loadA) ? " column-major (M-major)" : " row-major (K-major)") +
                ", B " + (mnMajor(k.plan.loadB) ? "row-major (N-major)" : "column-major (K-major)") +
                ", D " + toString(k.dType) + " row-major, " + toString(k.accType) + " accumulate");
    e.comment("  tile " + str(k.tileM) + "x" + str(k.tileN) + "x" + str(k.tileK) + ", " +
              str(k.depth) + " stages, " + str(k.consumers) + " consumer warpgroup(s), cluster " +
              str(k.clusterM) + "x" + str(k.clusterN));
    emitLaunchContractComment(e, abi);
    e.comment("===----------------------------------------------------------------------===");
  }

  void emitIncludes() {
    emitDeviceHeader(e, opts, "sm90_ptx.cuh", sm90DeviceHeader(), "gemmgen::sm90",
                     !k.epilogueChain.empty());
  }

  void emitConstants() {
    const Buffer *a = k.findBuffer("smemA");
    const Buffer *b = k.findBuffer("smemB");
    const Buffer *d = k.findBuffer("smemD");
    const Barrier &full = k.barriers[0], &empty = k.barriers[1];
    e.line("namespace {");
    e.blank();
    e.comment("---- tile and pipeline shape (from the spec) ----");
    e.line("constexpr int BM = " + str(k.tileM) + ";          // tile.m: rows of D per CTA tile");
    e.line("constexpr int BN = " + str(k.tileN) + ";          // tile.n: columns of D per CTA tile");
    e.line("constexpr int BK = " + str(k.tileK) + ";           // tile.k: one 128-byte swizzled row of K");
    e.line("constexpr int STAGES = " + str(k.depth) + ";        // pipeline.depth: SMEM ring slots");
    e.line("constexpr int CONSUMERS = " + str(k.consumers) + ";     // consumer warpgroups");
    e.line("constexpr int CLUSTER_M = " + str(k.clusterM) + ";     // CTAs per cluster along M (share B)");
    e.line("constexpr int GROUP = " + str(k.schedule.group) + ";         // scheduler.group: tiles per L2 group");
    e.line("constexpr int RASTER = " + std::string(scheduleRasterName(k.schedule.raster)) +
           ";  // scheduler.raster: tile order (gemmgen/device/tile_schedule.cuh)");
    if (pingpong())
      e.line("constexpr int WG_ROWS = BM;  // scheduler.consumers pingpong: each consumer computes "
             "whole tiles in turn");
    else
      e.line("constexpr int WG_ROWS = BM / CONSUMERS;  // rows of the tile per consumer warpgroup");
    e.line("constexpr int WG_MMAS = WG_ROWS / 64;    // m64 wgmmas per k16 step per warpgroup");
    e.line("constexpr int THREADS = " + str(k.threadsPerBlock()) + ";  // producer warpgroup + consumers");
    if (k.plan.blockwiseScales)
      e.line("constexpr int SB_BLOCKS = " + str(k.plan.scaleBlocksN) +
             ";  // B's 128-column scale blocks one tile touches");
    emitElementKinds();
    e.blank();
    e.comment("---- shared memory layout (the kernel plan's: bytes from the 1024-aligned base) ----");
    const std::string elemBytes = str(sizeInBytes(k.aType));
    e.line("constexpr u32 A_STAGE_BYTES = " + str(a->bytesPerStage()) + ";  // BM x BK x " + elemBytes);
    e.line("constexpr u32 B_STAGE_BYTES = " + str(b->bytesPerStage()) + ";  // BN x BK x " + elemBytes);
    e.line("constexpr u32 B_PART_ROWS = BN / CLUSTER_M;  // B rows each CTA of the cluster loads");
    if (k.plan.scalesInSmem)
      e.line("constexpr u32 STAGE_TX_BYTES = " + str(full.txBytes - k.plan.scaleTxBytes) +
             ";  // full barrier: A's and B's bytes; the scales' bulk copies add theirs (sa_bytes + sb_total)");
    else
      e.line("constexpr u32 STAGE_TX_BYTES = " + str(full.txBytes) +
             ";  // full barrier: bytes landing per stage, peers' multicast included");
    emitOperandLoadConstants("A", k.plan.loadA, "M");
    emitOperandLoadConstants("B", k.plan.loadB, "N");
    e.line("constexpr u32 SMEM_A = " + str(a->offset) + ";  // smemA[STAGES]");
    e.line("constexpr u32 SMEM_B = " + str(b->offset) + ";  // smemB[STAGES]");
    if (const Buffer *sc = k.findBuffer("smemScales")) {
      e.line("constexpr u32 SMEM_SCALES = " + str(sc->offset) +
             ";  // smemScales[STAGES]: a k-block's A scales, then B's");
      e.line("constexpr u32 SCALES_STAGE_BYTES = " + str(sc->bytesPerStage()) +
             ";  // (BM + 4) x 4 for A's rows (16-byte-aligned copy), 16 per B block");
      e.line("constexpr u32 SCALES_B_OFFSET = " + str(k.plan.scaleBOffsetBytes) +
             ";  // B's scales in the slot: after (BM + 4) x 4 bytes of A's");
    }
    if (d) {
      e.line("constexpr int EPI_COLS = " + str(k.epilogueChunkN) +
             ";   // epilogue.chunk_n: output columns staged per chunk");
      if (k.plan.chunksOverlap) {
        const unsigned chunks = k.plan.epilogueChunks();
        e.line("constexpr int EPI_CHUNKS = " + str(chunks) + ";  // the last ends at the tile's "
               "edge, storing again " + str(chunks * k.plan.chunkWidth() - k.tileN) +
               " columns of the one before");
        e.line("constexpr int LAST_CHUNK_COL0 = " + str(k.plan.chunkFirstColumn(chunks - 1)) +
               ";  // the last chunk's first tile column");
        e.line("constexpr int KEPT_FIRST = LAST_CHUNK_COL0 / 8;  // the first n8 block both store");
        e.line("constexpr int KEPT_BLOCKS = (EPI_CHUNKS - 1) * EPI_COLS / 8 - KEPT_FIRST;");
      }
      const std::string slab = str(k.plan.dSlabBytes);
      if (k.plan.dColMajor) {
        e.line("constexpr u32 D_SLAB_BYTES = EPI_COLS * 128;  // column-major D: one m64 block, "
               "a swizzled 128-byte row (64 rows of D) per column");
      } else {
        e.line("constexpr int D_SLAB_COLS = " + str(k.plan.dSlabBytes / sizeInBytes(k.dType)) +
               ";  // output columns of one " + slab + "-byte " +
               (outputSlabSwizzleBytes(k.plan.dSlabBytes) ? "swizzled" : "unswizzled") +
               " row (" + toString(k.dType) + ")");
        e.line("constexpr u32 D_SLAB_BYTES = WG_ROWS * " + slab +
               ";  // D_SLAB_COLS columns x WG_ROWS rows");
      }
      e.line("constexpr u32 D_STAGE_BYTES = " + str(d->bytesPerStage()) +
             ";  // one consumer's staging chunk");
      if (d->stages > 1) {
        e.line("constexpr u32 D_BUFFERS = " + str(d->stages) +
               ";  // epilogue.buffers: staging tiles per consumer, chunk c in tile c % D_BUFFERS");
        e.line("constexpr u32 SMEM_D = " + str(d->offset) + ";  // smemD[CONSUMERS][D_BUFFERS]");
      } else {
        e.line("constexpr u32 SMEM_D = " + str(d->offset) + ";  // smemD[CONSUMERS]");
      }
    }
    e.line("constexpr u32 SMEM_" + llvm::StringRef(full.name).upper() + "_BAR = " +
           str(full.offset) + ";  // " + full.name + "[" + str(full.slots) + "]: " +
           full.signaller + " -> " + full.waiter);
    e.line("constexpr u32 SMEM_" + llvm::StringRef(empty.name).upper() + "_BAR = " +
           str(empty.offset) + ";  // " + empty.name + "[" + str(empty.slots) + "]: " +
           empty.signaller + " -> " + empty.waiter);
    if (spreadsProducer(k.plan))
      e.line("constexpr u32 " + llvm::StringRef(full.name).upper() + "_ARRIVALS = " +
             str(full.arriveCount + producerWarpArrivals(k.plan)) +
             ";   // each producer warp's expect_tx arrival");
    else
      e.line("constexpr u32 " + llvm::StringRef(full.name).upper() + "_ARRIVALS = " +
             str(full.arriveCount) + ";   // the producer's expect_tx arrival");
    e.line("constexpr u32 " + llvm::StringRef(empty.name).upper() + "_ARRIVALS = " +
           str(empty.arriveCount) + ";  // one elected thread per consumer warpgroup per CTA");
    if (const Barrier *cload = cloadBarrier()) {
      e.line("constexpr u32 SMEM_CLOAD_BAR = " + str(cload->offset) + ";  // " + cload->name + "[" +
             str(cload->slots) + "]: C's chunk landed in consumer c's staging tile (beta != 0)");
      e.line("constexpr u32 CLOAD_TX_BYTES = " + str(cload->txBytes) +
             ";  // one staging chunk of C");
    }
    if (const Barrier *epi = k.findBarrier("epilogue")) {
      e.line("constexpr u32 EPILOGUE_BAR_ID = " + str(epi->namedId) +
             ";  // named barrier of consumer c's staging tile: id + c % slots");
      e.line("constexpr u32 EPILOGUE_BAR_SLOTS = " + str(epi->slots) + ";");
      e.line("constexpr u32 EPILOGUE_BAR_THREADS = " + str(epi->namedThreads) +
             ";  // the consumer warpgroup");
    }
    if (const Barrier *order = orderBarrier()) {
      e.line("constexpr u32 ORDER_BAR_ID = " + str(order->namedId) +
             ";  // ping-pong: named barrier id + c: consumer c's mainloop passed its last wait");
      e.line("constexpr u32 ORDER_BAR_THREADS = " + str(order->namedThreads) +
             ";  // both consumer warpgroups: the owner arrives, the other syncs");
    }
    e.blank();
    e.line("static_assert(WG_ROWS % 64 == 0, \"each consumer warpgroup owns whole m64 blocks\");");
    e.line("static_assert(BK * " + elemBytes + " == 128, \"one K block is one 128-byte swizzled row\");");
    e.blank();
  }

  /// ELEM: the 16-bit kind of wgmma's operands and of D's packed pairs; with
  /// 8-bit operands A_ELEM / B_ELEM are wgmma's kinds and ELEM is D's.
  void emitElementKinds() {
    auto kind = [](ScalarType t) {
      switch (t) {
      case ScalarType::BF16: return "ELEM_BF16";
      case ScalarType::E4M3: return "ELEM_E4M3";
      case ScalarType::E5M2: return "ELEM_E5M2";
      default: return "ELEM_F16";
      }
    };
    if (!k.plan.perTensorScales) {
      e.line("constexpr int ELEM = " + std::string(kind(k.aType)) + ";  // types.a/b/d: " +
             toString(k.aType));
      return;
    }
    e.line("constexpr int A_ELEM = " + std::string(kind(k.aType)) + ";  // types.a: " +
           toString(k.aType) + " (wgmma k32)");
    e.line("constexpr int B_ELEM = " + std::string(kind(k.bType)) + ";  // types.b: " +
           toString(k.bType));
    if (k.dType != ScalarType::F32)
      e.line("constexpr int ELEM = " + std::string(kind(k.dType)) + ";  // types.d: " +
             toString(k.dType) + " (the epilogue's packed pairs)");
  }

  /// An M/N-major operand's boxes (OperandLoadPlan); K-major needs none.
  void emitOperandLoadConstants(const std::string &x, const OperandLoadPlan &l,
                                const std::string &mn) {
    if (l.major != OperandMajor::MN)
      return;
    e.line("constexpr u32 " + x + "_BOXES = " + str(l.boxes) + ";  // " + x + " is " + mn +
           "-major: TMA boxes of " + str(l.boxInner) + " (" + mn + ") x BK per stage");
    e.line("constexpr u32 " + x + "_BOX_BYTES = " + str(l.boxBytes) + ";  // one box; the next " +
           str(l.boxInner) + " " + mn + " elements (wgmma's leading byte offset)");
    e.line("constexpr u32 " + x + "_K_STEP_BYTES = " + str(l.kStepBytes) + ";  // 16 K rows of " +
           str(l.swizzleBytes) + " bytes: one k16 step");
  }


  void emitHelpers() {
    e.comment("Ring cursor: the slot in use and the parity of the phase to wait for.");
    {
      CodeEmitter::Block s(e, "struct PipelineState", "", ";");
      e.line("int stage;");
      e.line("u32 phase;");
      if (pingpong())
        e.line("__device__ __forceinline__ void skip(int n);");
      CodeEmitter::Block f(e, "__device__ __forceinline__ void advance()");
      CodeEmitter::Block i(e, "if (++stage == STAGES)");
      e.line("stage = 0;");
      e.line("phase ^= 1u;");
    }
    if (pingpong()) {
      e.comment("Past n slots at once (ping-pong: the stages of the other consumer's tile).");
      CodeEmitter::Block s(e, "__device__ __forceinline__ void PipelineState::skip(int n)");
      e.line("const int s = stage + n;");
      e.line("phase ^= (u32)((s / STAGES) & 1);");
      e.line("stage = s % STAGES;");
    }
    e.blank();
    if (hasPhaseBitState()) {
      e.comment("A one-slot cursor (cload): every advance flips the phase to wait for.");
      CodeEmitter::Block s(e, "struct PhaseBit", "", ";");
      e.line("u32 phase;");
      e.line("__device__ __forceinline__ void advance() { phase ^= 1u; }");
    }
    e.blank();
    if (!k.epilogueChain.empty()) {
      emitEpilogueChainFunction(e, k);
      e.blank();
    }
    e.line("} // namespace");
    e.blank();
  }

  /// Whether a role has a one-slot cursor (PipelineState's ring is STAGES).
  bool hasPhaseBitState() const {
    for (const Role &r : k.roles)
      for (const PipelineState &s : r.states)
        if (s.depth == 1)
          return true;
    return false;
  }
  bool pingpong() const { return k.plan.schedule.pingpong; }
  const Barrier *orderBarrier() const { return sm90::protocolBarrier(k, ProtocolBarrier::Order); }
  const Barrier *cloadBarrier() const { return sm90::protocolBarrier(k, ProtocolBarrier::CLoad); }

  const Kernel &k;
  const EmitOptions &opts;
  CodeEmitter &e;
};

} // namespace

void sm90::emitPreamble(CodeEmitter &e, const Kernel &k, const EmitOptions &opts) {
  PreamblePrinter(e, k, opts).print();
}

const Barrier *sm90::protocolBarrier(const Kernel &k, ProtocolBarrier role) {
  const BarrierPlan *b = k.plan.findBarrier(role);
  return b ? k.findBarrier(b->name) : nullptr;
}

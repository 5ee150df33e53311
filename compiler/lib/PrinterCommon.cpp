//===- PrinterCommon.cpp - Pieces every target printer emits --------------===//
#include "gemmgen/PrinterCommon.h"

#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/device/tile_schedule.cuh"

#include <string>

using namespace gemmgen;

static std::string str(unsigned v) { return std::to_string(v); }

void gemmgen::emitLaunchContractComment(CodeEmitter &e, const KernelABI &abi) {
  e.comment("Launch contract: " + str(abi.threadsPerBlock) + " threads, " +
            str(abi.sharedMemBytes) + " bytes of dynamic shared memory, cluster (" +
            str(abi.clusterM) + ",1,1),");
  e.comment("  persistent grid (a multiple of the cluster, at most the CTAs the GPU holds at "
            "once);");
  e.comment("  tensor maps: A box " + str(abi.boxA.inner) + "x" + str(abi.boxA.outer) +
            ", B box " + str(abi.boxB.inner) + "x" + str(abi.boxB.outer) + ", D box " +
            str(abi.boxD.inner) + "x" + str(abi.boxD.outer) +
            " (elements, inner first), 128B swizzle;");
  if (abi.boxA.l2PromotionBytes)
    e.comment("  A's and B's maps promote " + str(abi.boxA.l2PromotionBytes) +
              " bytes per L2 request (pipeline.l2_promotion).");
  e.comment("  M, N and K any (TMA zero-fills loads, clips stores); pointers and line strides "
            "16-byte multiples.");
  if (abi.layoutD == MatrixLayout::Col && abi.splitK <= 1)
    e.comment("  D (and C) column-major: N lines of M, the map's inner dimension M.");
  if (abi.grouped) {
    e.comment("  grouped: (problems, problem_count, total_slots, alpha, beta): a device table of "
              "GroupedProblem");
    e.comment("  (tile_schedule.cuh), each entry its M, N, K, slots and 3-D maps of A, B, D, C "
              "(batch extent 1).");
    return;
  }
  if (abi.batched)
    e.comment("  batched: int batch after K; 3-D tensor maps, the batch entry outermost "
              "(stride: the batch stride).");
  if (abi.splitK > 1)
    e.comment("  split_k " + str(abi.splitK) + ": the runtime launches K slices as batch entries "
              "into an f32 workspace and sums them into D (" + toString(abi.splitOut) +
              (abi.layoutD == MatrixLayout::Col ? ", column-major" : "") + ").");
  if (abi.alphaBeta)
    e.comment("  D = alpha * A * B + beta * C: tmC (D's box), alpha, beta after batch; C is read "
              "only when beta != 0.");
  if (abi.perTensorScales && abi.alphaBeta)
    e.comment("  per-tensor scales: const float* scale_a, scale_b after beta (device f32, null = 1); "
              "alpha becomes alpha * sA * sB.");
  else if (abi.perTensorScales)
    e.comment("  per-tensor scales: const float* scale_a, scale_b after K (device f32, null = 1); "
              "D = sA * sB * A * B.");
  if (abi.fp8Output)
    e.comment("  " + std::string(toString(abi.dType)) + " D: const float* d_scale, float* d_amax "
              "after the scales; D = fp8(d_scale * v), *d_amax = max |v| (zeroed before).");
  if (abi.streamK)
    e.comment("  stream-K: float* sk_partials, int* sk_flags last (per CTA and consumer a partial "
              "sum and a flag, zeroed); a co-resident grid.");
  if (abi.hasChain())
    e.comment("  epilogue chain " + describeChain(abi.epilogueChain) +
              ": bias, bias_stride, scale_d after beta (and the scales).");
}

void gemmgen::emitDeviceHeader(CodeEmitter &e, const EmitOptions &opts, llvm::StringRef header,
                               llvm::StringRef text, llvm::StringRef ns, bool epilogueOps) {
  if (opts.debugHangs)
    e.line("#define GEMMGEN_DEBUG_HANGS 1");
  // common_ptx.cuh is the target header's own include: inlined ahead of it
  // by --standalone (whose guard then skips the #include), not named otherwise.
  struct {
    llvm::StringRef header, text;
  } headers[] = {{"common_ptx.cuh", commonPtxDeviceHeader()},
                 {header, text},
                 {"tile_schedule.cuh", tileScheduleDeviceHeader()},
                 {"epilogue_ops.cuh", epilogueOpsDeviceHeader()}};
  for (const auto &h : headers) {
    if ((h.header == "epilogue_ops.cuh" && !epilogueOps) ||
        (h.header == "common_ptx.cuh" && !opts.standalone))
      continue;
    if (opts.standalone) {
      e.comment("---- gemmgen/device/" + h.header + " (inlined by --standalone) ----");
      e.raw(h.text);
      e.comment("---- end of gemmgen/device/" + h.header + " ----");
    } else {
      e.line("#include \"gemmgen/device/" + h.header + "\"");
    }
  }
  e.blank();
  e.line("using namespace " + ns + ";");
  e.line("using namespace gemmgen::schedule;");
  if (epilogueOps)
    e.line("namespace epi = gemmgen::epilogue;");
  e.blank();
}

// The printers name the header's constants; their values are RasterOrder's.
static_assert(int(RasterOrder::AlongM) == schedule::RASTER_ALONG_M &&
                  int(RasterOrder::AlongN) == schedule::RASTER_ALONG_N &&
                  int(RasterOrder::Hilbert) == schedule::RASTER_HILBERT,
              "tile_schedule.cuh's rasters are gemmgen::RasterOrder's");

const char *gemmgen::scheduleRasterName(RasterOrder r) {
  switch (r) {
  case RasterOrder::AlongM: return "RASTER_ALONG_M";
  case RasterOrder::AlongN: return "RASTER_ALONG_N";
  case RasterOrder::Hilbert: return "RASTER_HILBERT";
  }
  return "RASTER_ALONG_M";
}

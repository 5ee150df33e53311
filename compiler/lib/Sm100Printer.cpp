//===- Sm100Printer.cpp - Kernel IR to sm_100a CUDA C++ --------------------===//
//
// Prints a kernel lowered by lowerToIRSm100() as warp-specialized CUDA C++
// for Blackwell, the shape of the seed's hgemm_v7/v8/v9: a TMA producer
// warp, MMA issue warps (one elected thread each, tcgen05.mma with
// cta_group 1 or 2, accumulators in TMEM), writeback warpgroups (tcgen05.ld
// -> registers -> swizzled SMEM -> TMA store, with C's chunk loaded into the
// staging tile first when beta != 0), the four barriers tma2mma / mma2tma /
// mma2ld / ld2mma, the C-load barrier and a persistent grouped scheduler.
// Every PTX instruction is a named wrapper from gemmgen/device/sm100_ptx.cuh;
// this file decides only what is called where. One emitX() per IR construct.
//
// The output is compile-verified (NVRTC / nvcc for sm_100a) and its IR is
// simulated on the CPU; it has not run (no Blackwell GPU was available;
// docs/BLACKWELL.md).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Sm100Printer.h"

#include "EpiloguePrinter.h"

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/PrinterCommon.h"
#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/KernelABI.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Version.h"

#include "llvm/ADT/StringExtras.h"


using namespace gemmgen;
using namespace gemmgen::ir;
using llvm::Twine;

namespace {

std::string str(unsigned v) { return std::to_string(v); }
std::string upper(const std::string &s) { return llvm::StringRef(s).upper(); }

/// The first D row a writeback warpgroup writes (and reads C from): its
/// consumer's block of this CTA's half of the pair's tile.
const std::string kFirstDRow = "((tile_m * CONSUMERS + consumer) * CTA_GROUP + (int)cta_rank) * BM";

class Sm100Printer {
public:
  Sm100Printer(const Kernel &k, const EmitOptions &opts, llvm::raw_ostream &os)
      : k(k), opts(opts), e(os) {}

  llvm::Error print() {
    if (k.roles.size() != 3 || k.barriers.size() != 6)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "kernel '" + k.name + "' is not an sm_100a lowering (it has " +
              std::to_string(k.roles.size()) + " roles and " + std::to_string(k.barriers.size()) +
              " barriers; the sm_100a printer expects the "
              "producer, MMA and writeback roles and six barriers of lowerToIRSm100)");
    emitBanner();
    emitIncludes();
    emitConstants();
    emitHelpers();
    return emitKernel();
  }

private:
  bool pair() const { return k.ctaGroup > 1; }
  bool fp8() const { return k.plan.perTensorScales; }
  const Role &producer() const { return k.roles[0]; }
  const Role &mma() const { return k.roles[1]; }
  const Role &writeback() const { return k.roles[2]; }
  const Barrier &epilogueBarrier() const { return k.barriers[4]; }

  // --- file-level parts ------------------------------------------------------

  void emitBanner() {
    KernelABI abi = deriveKernelABI(k);
    emitBannerHead(e, k);
    e.comment("  D[M,N] = A[M,K] * B[N,K]^T, A/B " + Twine(toString(k.aType)) + " K-major, D " +
              toString(k.dType) + " row-major, " + toString(k.accType) + " accumulate in TMEM");
    e.comment("  per CTA: " + str(k.consumers) + " consumer(s) x " + str(k.tileM) + " rows x " +
              str(k.tileN) + " columns, k-block " + str(k.tileK) + ", " + str(k.depth) +
              " stages; cta_group " + str(k.ctaGroup) + " (tcgen05.mma m" + str(k.mmaM) + "n" +
              str(k.mmaN) + "k" + str(k.mmaK) + ")");
    e.comment("  STATUS: compile-verified only (NVRTC/nvcc, sm_100a); never run: no Blackwell GPU");
    e.comment("  was available. See docs/BLACKWELL.md.");
    emitLaunchContractComment(e, abi);
    e.comment("===----------------------------------------------------------------------===");
  }

  void emitIncludes() {
    emitDeviceHeader(e, opts, "sm100_ptx.cuh", sm100DeviceHeader(), "gemmgen::sm100",
                     !k.epilogueChain.empty());
  }

  void emitConstants() {
    const Buffer *a = k.findBuffer("smemA");
    const Buffer *b = k.findBuffer("smemB");
    const Buffer *d = k.findBuffer("smemD");
    const Barrier &full = k.barriers[0];
    e.line("namespace {");
    e.blank();
    e.comment("---- tile, MMA and pipeline shape (from the spec; the seed's names in brackets) ----");
    e.line("constexpr int BM = " + str(k.tileM) +
           ";           // tile.m: D rows per consumer per CTA = TMEM lanes [BLK_M]");
    e.line("constexpr int BN = " + str(k.tileN) +
           ";           // tile.n: D columns per CTA = MMA N [MMA_N]");
    e.line("constexpr int BK = " + str(k.tileK) + ";            // tile.k: one 128-byte swizzled row of K [BLK_K]");
    e.line("constexpr int CTA_GROUP = " + str(k.ctaGroup) +
           ";      // cta_group: CTAs sharing one tcgen05.mma [CTA_GROUP]");
    e.line("constexpr int B_ROWS = BN / CTA_GROUP;  // B rows this CTA loads [BLK_N]");
    e.line("constexpr int CONSUMERS = " + str(k.consumers) +
           ";      // MMA issue warps = writeback warpgroups [NUM_CONSUMER]");
    e.line("constexpr int CLUSTER_TILE_M = CONSUMERS * CTA_GROUP * BM;  // D rows per cluster tile");
    e.line("constexpr int MMA_M = BM * CTA_GROUP;   // tcgen05.mma M (both CTAs' rows)");
    e.line("constexpr int MMA_K = " + str(k.mmaK) + ";         // tcgen05.mma K: 32 bytes of " +
           str(8 * sizeInBytes(k.aType)) + "-bit operands");
    e.line("constexpr int STAGES = " + str(k.depth) + ";         // pipeline.depth [PIPE_DEPTH]");
    e.line("constexpr int EPI_N = " + str(k.epilogueChunkN) +
           ";         // epilogue.chunk_n: columns per writeback round [EPI_N]");
    e.line("constexpr int GROUP = " + str(k.schedule.group) +
           ";          // scheduler.group: tiles per L2 group [l2_group_size]");
    e.line("constexpr int RASTER = " + std::string(scheduleRasterName(k.schedule.raster)) +
           ";  // scheduler.raster: tile order (gemmgen/device/tile_schedule.cuh)");
    e.line("constexpr int THREADS = " + str(k.threadsPerBlock()) + ";       // every role's warps");
    e.line("constexpr int OPERAND_BYTES = " + str(sizeInBytes(k.aType)) + ";  // bytes per A/B element");
    // D's type packs the writeback (16-bit operands: the operand type too).
    e.line("constexpr int ELEM = " +
           std::string(k.dType == ScalarType::BF16 ? "ELEM_BF16" : "ELEM_F16") + ";  // " +
           (fp8() ? "types.d: " : "types.a/b/d: ") + toString(k.dType));
    if (fp8()) {
      // kind::f8f6f4: the operands' formats in the instruction descriptor.
      auto fmt = [](ScalarType t) { return t == ScalarType::E5M2 ? "1" : "0"; };
      e.line("constexpr int A_FMT = " + std::string(fmt(k.aType)) + ";  // types.a: " +
             toString(k.aType) + " (kind::f8f6f4: E4M3 = 0, E5M2 = 1)");
      e.line("constexpr int B_FMT = " + std::string(fmt(k.bType)) + ";  // types.b: " +
             toString(k.bType));
    }
    e.line(std::string("constexpr u32 IDESC = ") +
           (fp8() ? "make_idesc_f8f6f4_f32(MMA_M, BN, A_FMT, B_FMT)"
                  : "make_idesc_f16_f32(MMA_M, BN, ELEM)") +
           ";  // tcgen05.mma instruction descriptor");
    e.blank();
    e.comment("---- tensor memory ----");
    e.line("constexpr u32 TMEM_COLS = " + str(k.tmemColumns) +
           ";  // columns allocated per CTA (tcgen05.alloc n_cols)");
    e.line("constexpr u32 TMEM_COLS_PER_CONSUMER = " + str(k.tmemColumnsPerConsumer) +
           ";  // tmem_columns: consumer c's accumulator starts at column c * this");
    e.blank();
    e.comment("---- warps of each role (roles.*.warp) ----");
    e.line("constexpr int PRODUCER_WARP = " + str(producer().firstWarp) + ";   // role " +
           producer().name);
    e.line("constexpr int MMA_FIRST_WARP = " + str(mma().firstWarp) + ";  // role " + mma().name +
           ": warp MMA_FIRST_WARP + c issues consumer c's MMAs");
    e.line("constexpr int WB_FIRST_WARP = " + str(writeback().firstWarp) + ";   // role " +
           writeback().name + ": warpgroup c (from here) writes back consumer c");
    e.line("constexpr int ALLOC_WARP = 0;  // allocates and frees TMEM (the seed's warpgroup 0, warp 0)");
    e.blank();
    e.comment("---- shared memory layout (the kernel plan's: bytes from the 1024-aligned base) ----");
    e.line("constexpr u32 A_BLOCK_BYTES = " + str(a->bytesPerStage()) + ";  // BM x BK x OPERAND_BYTES: one consumer's A block");
    e.line("constexpr u32 A_STAGE_BYTES = CONSUMERS * A_BLOCK_BYTES;");
    e.line("constexpr u32 B_STAGE_BYTES = " + str(b->bytesPerStage()) + ";  // B_ROWS x BK x OPERAND_BYTES");
    e.line("constexpr u32 D_SLAB_BYTES = BM * 128;  // 64 output columns x BM rows, swizzled");
    e.line("constexpr u32 D_STAGE_BYTES = " + str(d->bytesPerStage()) + ";  // BM x EPI_N x 2: one consumer's staging");
    e.line("constexpr u32 STAGE_TX_BYTES = " + str(full.txBytes) +
           ";  // " + full.name + ": bytes of both CTAs' loads per stage");
    e.line("constexpr u32 SMEM_A = " + str(a->offset) + ";  // smemA[STAGES][CONSUMERS]");
    e.line("constexpr u32 SMEM_B = " + str(b->offset) + ";  // smemB[STAGES]");
    e.line("constexpr u32 SMEM_D = " + str(d->offset) + ";  // smemD[CONSUMERS]");
    for (const Barrier &bar : k.barriers) {
      if (bar.kind == BarrierKind::Named)
        continue;
      std::string N = upper(bar.name);
      e.line("constexpr u32 SMEM_" + N + "_BAR = " + str(bar.offset) + ";  // " + bar.name + "[" +
             str(bar.slots) + "] (" + toString(bar.kind) + "): " + bar.signaller + " -> " +
             bar.waiter);
      e.line("constexpr int " + N + "_SLOTS = " + str(bar.slots) + ";");
      e.line("constexpr u32 " + N + "_ARRIVALS = " + str(bar.arriveCount) + ";");
      if (bar.kind == BarrierKind::Tma && &bar != &full)
        e.line("constexpr u32 " + N + "_TX_BYTES = " + str(bar.txBytes) +
               ";  // one staging tile of C: BM x EPI_N");
    }
    e.line("constexpr u32 SMEM_TMEM_SLOT = " + str(k.plan.tmemSlotOffset) +
           ";  // the address tcgen05.alloc writes");
    e.line("constexpr u32 SMEM_USED = " + str(k.plan.sharedMemUsed) +
           ";  // launch size minus the 1024 bytes of alignment slack");
    e.comment("The dynamic SMEM base is at least 16-byte aligned, so at least 16 bytes of the slack");
    e.comment("remain after aligning it to 1024: the TMEM address slot always fits.");
    e.line("static_assert(SMEM_TMEM_SLOT + 4 <= SMEM_USED + 16, \"TMEM address slot fits\");");
    e.line("constexpr u32 EPILOGUE_BAR_ID = " + str(epilogueBarrier().namedId) +
           ";  // writeback warpgroup c syncs on bar.sync EPILOGUE_BAR_ID + c [warpgroup_sync(10 + wg_id)]");
    e.blank();
    e.comment("Barrier ids for the GEMMGEN_DEBUG_HANGS report.");
    std::string ids = "enum BarrierId : int { ";
    for (size_t i = 0; i < k.barriers.size(); ++i)
      if (k.barriers[i].kind != BarrierKind::Named)
        ids += (i ? ", " : "") + std::string("BAR_") + upper(k.barriers[i].name) + " = " +
               str(unsigned(i));
    e.line(ids + " };");
    e.blank();
    e.line("static_assert(BK * OPERAND_BYTES == 128, \"one K block is one 128-byte swizzled row\");");
    e.line("static_assert(BM == 128, \"one accumulator row per TMEM lane\");");
    e.line("static_assert(EPI_N % 64 == 0 && BN % EPI_N == 0, \"whole 64-column store slabs\");");
    e.blank();
  }

  void emitHelpers() {
    e.comment("Ring cursor over DEPTH slots: the slot in use and the parity of the phase to wait for");
    e.comment("(the seed's PipelineState).");
    e.line("template <int DEPTH>");
    {
      CodeEmitter::Block s(e, "struct PipelineState", "", ";");
      e.line("int stage;");
      e.line("u32 phase;");
      CodeEmitter::Block f(e, "__device__ __forceinline__ void advance()");
      CodeEmitter::Block i(e, "if (++stage == DEPTH)");
      e.line("stage = 0;");
      e.line("phase ^= 1u;");
    }
    e.blank();
    if (!k.epilogueChain.empty()) {
      emitEpilogueChainFunction(e, k);
      e.blank();
    }
    e.line("} // namespace");
    e.blank();
  }

  // --- the kernel ------------------------------------------------------------

  llvm::Error emitKernel() {
    e.line("extern \"C\" __global__ void __launch_bounds__(THREADS, 1)");
    e.line(k.name + "(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,");
    const std::string indent(k.name.size() + 1, ' ');
    // After K (no batch on sm_100a): C's map, alpha and beta, fp8's scales, the chain's inputs.
    std::vector<std::string> params = {
        "const __grid_constant__ TensorMap tmD", "int M", "int N", "int K",
        "const __grid_constant__ TensorMap tmC, float alpha, float beta"};
    if (fp8())
      params.push_back("const float* __restrict__ scale_a, const float* __restrict__ scale_b");
    if (!k.epilogueChain.empty())
      params.push_back("const void* __restrict__ bias, long long bias_stride, const float* "
                       "__restrict__ scale_d");
    e.line(indent + params[0] + ", " + params[1] + ", " + params[2] + ", " + params[3] +
           (params.size() > 4 ? "," : ")"));
    for (size_t i = 4; i < params.size(); ++i)
      e.line(indent + params[i] + (i + 1 < params.size() ? "," : ")"));
    CodeEmitter::Block fn(e, "", k.name);
    e.line(fp8() ? "const float acc_scale = alpha * (scale_a ? *scale_a : 1.f) * "
                   "(scale_b ? *scale_b : 1.f);  // alpha and the per-tensor scales (null = 1)"
                 : "const float acc_scale = alpha;  // D = alpha * acc + beta * C");
    if (!k.epilogueChain.empty()) {
      e.line("constexpr int entry = 0;  // one problem per launch");
      e.line(chainHas(k.epilogueChain, EpilogueOpKind::Scale)
                 ? "const float chain_scale = scale_d ? *scale_d : 1.f;  // the chain's scale step"
                 : "const float chain_scale = 1.f;  // (the chain has no scale step)");
    }
    e.line("extern __shared__ __align__(1024) unsigned char smem_raw[];");
    e.comment("TMA and tcgen05.mma need 1024-byte aligned swizzled tiles.");
    e.line("const u32 smem = (smem_addr(smem_raw) + 1023u) & ~1023u;");
    for (const Barrier &bar : k.barriers)
      if (bar.kind != BarrierKind::Named)
        e.line("const u32 " + bar.name + "_bar = smem + SMEM_" + upper(bar.name) + "_BAR;");
    e.comment("warp-uniform warp index, so that every role branch is taken by whole warps");
    e.line("const int warp = __shfl_sync(0xffffffffu, (int)threadIdx.x / 32, 0);");
    e.line("const int lane = threadIdx.x % 32;");
    e.line(pair() ? "const u32 cta_rank = cluster_ctarank();  // [cbx]: 0 is the pair's leader"
                  : "const u32 cta_rank = 0;  // no cluster");
    e.blank();
    e.comment("Sizes the host rejects; returning here keeps a bad launch from hanging (K = 0 is valid: D = 0).");
    e.line("if (M <= 0 || N <= 0 || K < 0) return;");
    e.blank();
    emitSetup();
    e.blank();
    e.comment("---- tile bookkeeping shared by every role ----");
    e.line("const int tiles_m = (M + CLUSTER_TILE_M - 1) / CLUSTER_TILE_M;");
    e.line("const int tiles_n = (N + BN - 1) / BN;");
    e.line("const int tiles = tile_slots<RASTER, GROUP>(tiles_m, tiles_n);  // the schedule's walk");
    e.line("const int k_blocks = (K + BK - 1) / BK;");
    e.line("const int cluster_id = blockIdx.x / CTA_GROUP;  // [bx // CTA_GROUP]");
    e.line("const int clusters = gridDim.x / CTA_GROUP;");
    e.blank();
    bool first = true;
    for (const Role &role : k.roles) {
      std::string cond = &role == &producer() ? "warp == PRODUCER_WARP"
                         : &role == &mma()
                             ? "warp >= MMA_FIRST_WARP && warp < MMA_FIRST_WARP + CONSUMERS"
                             : "warp >= WB_FIRST_WARP && warp < WB_FIRST_WARP + 4 * CONSUMERS";
      e.line((first ? "if (" : "} else if (") + cond + ") {");
      first = false;
      e.indent();
      if (llvm::Error err = emitRole(role))
        return err;
      e.dedent();
    }
    e.line("} // roles");
    e.blank();
    emitTeardown();
    return llvm::Error::success();
  }

  void emitSetup() {
    e.comment("---- setup: barriers (one thread), TMEM (one warp), then the whole cluster agrees ----");
    {
      CodeEmitter::Block init(e, "if (threadIdx.x == 0)");
      e.line("prefetch_tensormap(&tmA);");
      e.line("prefetch_tensormap(&tmB);");
      e.line("prefetch_tensormap(&tmD);");
      e.line("prefetch_tensormap(&tmC);");
      for (const Barrier &bar : k.barriers) {
        if (bar.kind == BarrierKind::Named)
          continue;
        std::string N = upper(bar.name);
        e.line("for (int s = 0; s < " + N + "_SLOTS; ++s) mbar_init(" + bar.name + "_bar + 8 * s, " +
               N + "_ARRIVALS);");
      }
      e.line("fence_mbarrier_init();");
    }
    {
      std::string what = pair() ? "the pair's TMEM (cta_group::2: one warp in each CTA)"
                                : "this CTA's TMEM";
      CodeEmitter::Block alloc(e, "if (warp == ALLOC_WARP)", "allocate " + what);
      e.line("tmem_alloc<CTA_GROUP>(smem + SMEM_TMEM_SLOT, TMEM_COLS);");
    }
    e.line("tcgen05_fence_before_thread_sync();");
    e.line(pair() ? "cluster_sync();  // peers' barriers and TMEM exist before any remote use"
                  : "__syncthreads();");
    e.line("tcgen05_fence_after_thread_sync();");
    e.line("const u32 tmem_base = ld_shared_u32(smem + SMEM_TMEM_SLOT);  // lane 0, first column");
  }

  void emitTeardown() {
    e.comment("---- teardown: nobody touches TMEM or a peer's barriers any more, then free TMEM ----");
    e.line("tcgen05_fence_before_thread_sync();");
    e.line(pair() ? "cluster_sync();  // [T.cuda.cluster_sync()]" : "__syncthreads();");
    CodeEmitter::Block fr(e, "if (warp == ALLOC_WARP)", "free TMEM");
    e.line("tcgen05_fence_after_thread_sync();");
    e.line("tmem_relinquish_alloc_permit<CTA_GROUP>();");
    e.line("tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);");
  }

  static bool allElected(const std::vector<Op> &ops) {
    for (const Op &op : ops) {
      switch (op.kind) {
      case OpKind::ForEachTile:
      case OpKind::ForK:
      case OpKind::ForEachChunk:
      case OpKind::IfNotFirstK:
      case OpKind::IfAnyK:
      case OpKind::IfNoK:
        if (!allElected(op.body))
          return false;
        break;
      case OpKind::Advance:
        break;
      default:
        if (op.exec != Exec::Elected)
          return false;
      }
    }
    return true;
  }

  static bool hasChunkLoop(const std::vector<Op> &ops) {
    for (const Op &op : ops)
      if (op.kind == OpKind::ForEachChunk || hasChunkLoop(op.body))
        return true;
    return false;
  }

  llvm::Error emitRole(const Role &role) {
    current = &role;
    std::string warps = role.ownedWarps == 1
                            ? "warp " + str(role.firstWarp)
                            : "warps " + str(role.firstWarp) + ".." +
                                  str(role.firstWarp + role.ownedWarps - 1);
    e.comment("==== role " + role.name + ": " + warps + " ====");
    if (role.leaderCtaOnly) {
      e.comment("cta_group::2: the leader CTA issues the pair's MMAs; the peer's MMA warps idle");
      e.line("if (cta_rank == 0) {");
      e.indent();
    }
    if (&role == &mma())
      e.line("const int consumer = warp - MMA_FIRST_WARP;  // [warp_id]: A block and TMEM range");
    if (&role == &writeback()) {
      e.line("const int consumer = (warp - WB_FIRST_WARP) / 4;  // [wg_id]");
      e.line("const int warp_in_group = warp % 4;  // reads TMEM lanes 32 * warp_in_group .. + 31");
      e.line("const int row = warp_in_group * 32 + lane;  // this thread's accumulator row");
      e.line("const bool leader = (threadIdx.x - WB_FIRST_WARP * 32) % 128 == 0;  // issues the stores");
      e.line("const u32 staging = smem + SMEM_D + consumer * D_STAGE_BYTES;");
      e.line("const u32 acc_tmem = tmem_base + consumer * TMEM_COLS_PER_CONSUMER + "
             "((u32)(warp_in_group * 32) << 16);");
      e.line("float acc[EPI_N];  // one chunk of this thread's accumulator row (f32)");
      if (!hasChunkLoop(role.body))
        e.line("constexpr int chunk = 0;  // one round: the whole accumulator row");
    }
    if (&role == &mma())
      e.line("const u32 acc_tmem = tmem_base + consumer * TMEM_COLS_PER_CONSUMER;");
    if (&role == &producer() && pair())
      e.line("const u32 " + k.barriers[0].name + "_leader = mapa_shared(" + k.barriers[0].name +
             "_bar, 0);  // [" + k.barriers[0].name + ".remote_view(0)]");
    if (allElected(role.body)) {
      e.comment("one elected thread runs the role [T.filter(lane_id, T.ptx.elect_sync())]");
      {
        CodeEmitter::Block g(e, "if (elect_one_sync())");
        electedRole = true;
        emitStates(role);
        if (llvm::Error err = emitOps(role.body))
          return err;
        electedRole = false;
      }
      e.line("__syncwarp();  // reconverge before the aligned barriers at the end");
    } else {
      emitStates(role);
      if (llvm::Error err = emitOps(role.body))
        return err;
    }
    if (role.leaderCtaOnly) {
      e.dedent();
      e.line("}");
    }
    return llvm::Error::success();
  }

  void emitStates(const Role &role) {
    for (const PipelineState &s : role.states)
      e.line("PipelineState<" + std::string(s.depth == k.depth ? "STAGES" : str(s.depth)) +
             "> " + s.name + "{0, " + str(s.initialPhase) + "u};  // " +
             (s.initialPhase ? "phase 1: the first wait passes on the barrier's initial phase"
                             : "phase 0: wait for the first completion"));
  }

  /// Consecutive Elected ops of a role that is not wholly elected share one
  /// `if (leader)` guard.
  llvm::Error emitOps(const std::vector<Op> &ops) {
    for (size_t i = 0; i < ops.size();) {
      if (electedRole || ops[i].exec != Exec::Elected) {
        if (llvm::Error err = emitOp(ops[i++]))
          return err;
        continue;
      }
      CodeEmitter::Block g(e, "if (leader)");
      while (i < ops.size() && ops[i].exec == Exec::Elected)
        if (llvm::Error err = emitOp(ops[i++]))
          return err;
    }
    return llvm::Error::success();
  }

  std::string slot(const Op &op) const {
    return op.slotIsInstance ? "consumer" : op.state + ".stage";
  }
  std::string slotAddr(const Op &op) const {
    return op.barrier + "_bar + 8 * " + slot(op);
  }

  /// One op; an op that has no sm_100a form (a wgmma op in this kernel) is
  /// an error, not an assertion.
  llvm::Error emitOp(const Op &op) {
    switch (op.kind) {
    case OpKind::ForEachTile: return emitForEachTile(op);
    case OpKind::ForK: {
      CodeEmitter::Block loop(e, "for (int kb = 0; kb < k_blocks; ++kb)", "k-block");
      return emitOps(op.body);
    }
    case OpKind::ForEachChunk: {
      e.line("#pragma unroll 1");
      CodeEmitter::Block loop(e, "for (int chunk = 0; chunk < BN / EPI_N; ++chunk)",
                              "EPI_N chunk");
      return emitOps(op.body);
    }
    case OpKind::IfNotFirstK: {
      CodeEmitter::Block cond(e, "if (kb > 0)");
      return emitOps(op.body);
    }
    case OpKind::IfBeta: {
      e.comment("beta != 0: C's chunk into the staging tile, which store_acc reads back");
      CodeEmitter::Block cond(e, "if (beta != 0.f)", "beta != 0");
      return emitOps(op.body);
    }
    case OpKind::PromoteAcc:
      return cannotPrint(op, "fp8 blockwise promotion (built for sm_90a only)");
    case OpKind::IfSkPartial:
    case OpKind::IfSkFinish:
    case OpKind::StorePartial:
    case OpKind::AddPartials:
      return cannotPrint(op, "stream-K's partial-sum hand-over (built for sm_90a only)");
    case OpKind::IfOtherTurn:
    case OpKind::SkipK:
    case OpKind::NamedBarrierArrive:
      return cannotPrint(op, "ping-pong consumers' turns (an sm_90a schedule)");
    case OpKind::IfSecondOfPair:
    case OpKind::IfPairEnds:
      return cannotPrint(op, "blockwise scaling's k-block pairs (built for sm_90a only)");
    case OpKind::EarlyLoads:
      return cannotPrint(op, "loads before the CTA's barrier (built for sm_90a only)");
    case OpKind::IfAnyK: {
      e.comment("the tile had k-blocks (K > 0)");
      CodeEmitter::Block cond(e, "if (k_blocks > 0)", "K > 0");
      return emitOps(op.body);
    }
    case OpKind::IfNoK: {
      e.comment("K = 0: no MMA wrote TMEM in this tile; store zeros, not what it holds");
      CodeEmitter::Block cond(e, "if (k_blocks == 0)", "K = 0");
      return emitOps(op.body);
    }
    case OpKind::ZeroAcc:
      e.line("#pragma unroll");
      e.line("for (int j = 0; j < EPI_N; ++j) acc[j] = 0.f;");
      break;
    case OpKind::Wait:
      e.line("mbar_wait(" + slotAddr(op) + ", " + op.state + ".phase, BAR_" + upper(op.barrier) +
             ", " + slot(op) + ");");
      break;
    case OpKind::ArriveExpectTx:
      if (op.slotIsInstance) { // C's chunk on its warpgroup's own barrier slot
        e.line("mbar_arrive_expect_tx(" + slotAddr(op) + ", " + upper(op.barrier) + "_TX_BYTES);");
      } else if (op.leaderCtaOnly) {
        e.comment("the leader arms its barrier with both CTAs' bytes [if cbx == 0: arrive]");
        e.line("if (cta_rank == 0) mbar_arrive_expect_tx(" + slotAddr(op) + ", STAGE_TX_BYTES);");
      } else {
        e.line("mbar_arrive_expect_tx(" + slotAddr(op) + ", STAGE_TX_BYTES);");
      }
      break;
    case OpKind::Arrive: emitArrive(op); break;
    case OpKind::TmaLoad:
      if (op.operand == Operand::Scales)
        return cannotPrint(op, "a copy of blockwise scales into shared memory (an sm_90a form)");
      emitTmaLoad(op);
      break;
    case OpKind::Fence:
      if (op.fence == FenceKind::MmaOperands)
        return cannotPrint(op, "wgmma.fence (sm_90a)");
      emitFence(op);
      break;
    case OpKind::Mma: emitMma(op); break;
    case OpKind::MmaCommitArrive: emitCommit(op); break;
    case OpKind::Advance: e.line(op.state + ".advance();"); break;
    case OpKind::LoadAcc: emitLoadAcc(op); break;
    case OpKind::StoreAcc: emitStoreAcc(op); break;
    case OpKind::NamedBarrierSync:
      // Writeback group c syncs on id + c % slots (IR.h); with one id per
      // group (slots = consumers) the modulo is the identity and is left out.
      e.line("named_barrier_sync(EPILOGUE_BAR_ID + consumer" +
             std::string(epilogueBarrier().slots < k.consumers
                             ? " % " + str(epilogueBarrier().slots)
                             : "") +
             ", " + str(epilogueBarrier().namedThreads) + ");  // [warpgroup_sync(10 + wg_id)]");
      break;
    case OpKind::TmaStore: emitTmaStore(op); break;
    case OpKind::TmaStoreCommit: e.line("bulk_commit_group();"); break;
    case OpKind::TmaStoreWait:
      e.line("bulk_wait_group<" + str(op.count) + ">();  // the store has finished");
      break;
    case OpKind::MmaCommit:
    case OpKind::MmaWait:
      return cannotPrint(op, "a wgmma group op (sm_90a)");
    }
    return llvm::Error::success();
  }

  llvm::Error cannotPrint(const Op &op, const char *what) const {
    return unprintableOp(k, op, what, Target::SM100a);
  }

  llvm::Error emitForEachTile(const Op &op) {
    e.comment("persistent loop over cluster tiles [while tile_scheduler.valid()]");
    CodeEmitter::Block loop(e, "for (int tile = cluster_id; tile < tiles; tile += clusters)", "tile");
    e.line("int tile_m, tile_n;  // [m_idx, n_idx]");
    e.line("if (!tile_coords<RASTER, GROUP>(tile, tiles_m, tiles_n, tile_m, tile_n)) continue;  // "
           "a Hilbert hole");
    return emitOps(op.body);
  }

  void emitArrive(const Op &op) {
    if (op.scope == CtaScope::Leader && pair()) {
      e.comment("every thread of both CTAs arrives on the leader's barrier [" + op.barrier +
                "_cta0.arrive]");
      return e.line("mbar_arrive_remote_release(" + slotAddr(op) + ", 0);");
    }
    if (op.scope == CtaScope::Cluster) {
      CodeEmitter::Block loop(e, "for (u32 r = 0; r < CTA_GROUP; ++r)");
      return e.line("mbar_arrive_remote_release(" + slotAddr(op) + ", r);");
    }
    e.line("mbar_arrive(" + slotAddr(op) + ");");
  }

  void emitFence(const Op &op) {
    switch (op.fence) {
    case FenceKind::ProxyAsync:
      e.comment("staging writes must be visible to the TMA engine (async proxy)");
      return e.line("fence_proxy_async_smem();");
    case FenceKind::MbarrierInit: return e.line("fence_mbarrier_init();");
    case FenceKind::TcgenBeforeSync: return e.line("tcgen05_fence_before_thread_sync();");
    case FenceKind::TcgenAfterSync: return e.line("tcgen05_fence_after_thread_sync();");
    case FenceKind::MmaOperands:
      break; // refused by emitOp
    }
  }

  void emitTmaLoad(const Op &op) {
    if (op.operand == Operand::C) {
      e.line("#pragma unroll");
      CodeEmitter::Block loop(e, "for (int slab = 0; slab < EPI_N / 64; ++slab)");
      e.line("tma_load_2d(staging + slab * D_SLAB_BYTES, &tmC, " + slotAddr(op) +
             ", tile_n * BN + chunk * EPI_N + slab * 64,");
      e.line("            " + kFirstDRow + ");  // D's box of C");
      return;
    }
    std::string stage = op.state + ".stage";
    std::string rank = " + (int)cta_rank";
    bool toLeader = op.scope == CtaScope::Leader && pair();
    std::string bar = toLeader ? op.barrier + "_leader + 8 * " + stage
                               : op.barrier + "_bar + 8 * " + stage;
    std::string fn = toLeader ? "tma_load_2d_pair(" : "tma_load_2d(";
    if (op.operand == Operand::A) {
      std::string c = op.instance >= 0 ? str(unsigned(op.instance)) : "consumer";
      e.line(fn + "smem + SMEM_A + A_STAGE_BYTES * " + stage + " + " + c + " * A_BLOCK_BYTES, &tmA, " +
             bar + ",");
      e.line("            kb * BK, ((tile_m * CONSUMERS + " + c + ") * CTA_GROUP" + rank +
             ") * BM);  // A rows of consumer " + c);
      return;
    }
    e.line(fn + "smem + SMEM_B + B_STAGE_BYTES * " + stage + ", &tmB, " + bar + ",");
    e.line("            kb * BK, tile_n * BN + (int)cta_rank * B_ROWS);  // this CTA's B rows");
  }

  void emitMma(const Op &op) {
    std::string stage = op.state + ".stage";
    e.line("const u32 a_stage = smem + SMEM_A + A_STAGE_BYTES * " + stage +
           " + consumer * A_BLOCK_BYTES;");
    e.line("const u32 b_stage = smem + SMEM_B + B_STAGE_BYTES * " + stage + ";");
    e.comment("BK / MMA_K MMAs per k-block; the tile's first one overwrites the accumulator");
    e.line("#pragma unroll");
    CodeEmitter::Block ks(e, "for (int ks = 0; ks < BK / MMA_K; ++ks)");
    const std::string mma = fp8() ? "tcgen05_mma_f8f6f4" : "tcgen05_mma_f16";
    const std::string pad(mma.size() + 12, ' ');
    e.line(mma + "<CTA_GROUP>(acc_tmem, make_smem_desc_sw128(a_stage + ks * 32),");
    e.line(pad + "make_smem_desc_sw128(b_stage + ks * 32), IDESC,");
    e.line(pad + "(kb > 0 || ks > 0) ? 1 : 0);");
  }

  void emitCommit(const Op &op) {
    std::string why = op.slotIsInstance ? "accumulator ready" : "stage free again";
    if (op.ctaMask == 0)
      return e.line("tcgen05_commit<CTA_GROUP>(" + slotAddr(op) + ");  // " + why +
                    " [cta_mask=0]");
    e.line("tcgen05_commit_multicast<CTA_GROUP>(" + slotAddr(op) + ", (u16)" + str(op.ctaMask) +
           ");  // " + why + " in CTAs of mask " + str(op.ctaMask) + " [cta_mask=" +
           str(op.ctaMask) + "]");
  }

  void emitLoadAcc(const Op &) {
    e.comment("TMEM -> registers: this warp's 32 lanes, EPI_N columns [Tx.wg.copy_async]");
    e.line("#pragma unroll");
    e.line("for (int j = 0; j < EPI_N / 32; ++j) tmem_ld_32x32b_x32(acc_tmem + chunk * EPI_N + j * 32, "
           "&acc[j * 32]);");
    e.line("tmem_wait_ld();  // [T.ptx.tcgen05.wait.ld()]");
  }

  /// The chain's C arguments of value pair p: beta * C for a residual step.
  std::string cArgs() const {
    return chainHas(k.epilogueChain, EpilogueOpKind::Residual) ? "c[2 * p], c[2 * p + 1]"
                                                               : "0.f, 0.f";
  }

  /// epilogue.chain on this thread's row: its 8 values of the 16-byte column
  /// group c16 in place in acc (one D row per thread, the chunk's columns).
  void emitChainOnRow() {
    const EpilogueStep *bias = nullptr;
    for (const EpilogueStep &s : k.epilogueChain)
      if (s.kind == EpilogueOpKind::Bias)
        bias = &s;
    e.line("const int drow = " + kFirstDRow + " + row;");
    e.line("const int dcol = tile_n * BN + chunk * EPI_N + 8 * c16;  // the group's first column");
    const std::string t = bias ? biasTypeName(bias->biasType) : "";
    e.line("#pragma unroll");
    CodeEmitter::Block ps(e, "for (int p = 0; p < 4; ++p)");
    if (!bias) {
      e.line("apply_epilogue_chain(acc[8 * c16 + 2 * p], acc[8 * c16 + 2 * p + 1], " + cArgs() +
             ", 0.f, 0.f, chain_scale);");
      return;
    }
    if (bias->axis == BiasAxis::Column) {
      e.line("const int col = dcol + 2 * p;");
      e.line("const float b0 = col < N ? epi::load_bias(bias, " + t +
             ", (long long)entry * bias_stride + col) : 0.f;");
      e.line("const float b1 = col + 1 < N ? epi::load_bias(bias, " + t +
             ", (long long)entry * bias_stride + col + 1) : 0.f;");
    } else {
      e.line("const float b0 = drow < M ? epi::load_bias(bias, " + t +
             ", (long long)entry * bias_stride + drow) : 0.f, b1 = b0;");
    }
    e.line("apply_epilogue_chain(acc[8 * c16 + 2 * p], acc[8 * c16 + 2 * p + 1], " + cArgs() +
           ", b0, b1, chain_scale);");
  }

  void emitStoreAcc(const Op &) {
    e.comment("registers -> " + Twine(toString(k.dType)) +
              " -> this thread's row of the 128B-swizzled staging slabs [Tx.cast, Tx.copy]");
    if (!k.epilogueChain.empty())
      e.comment("epilogue.chain " + describeChain(k.epilogueChain) + " first, in registers");
    e.line("#pragma unroll");
    CodeEmitter::Block loop(e, "for (int c16 = 0; c16 < EPI_N / 8; ++c16)");
    e.line("const u32 addr = staging + (c16 / 8) * D_SLAB_BYTES + row * 128 + "
           "(((c16 & 7) ^ (row & 7)) << 4);");
    const bool residual = chainHas(k.epilogueChain, EpilogueOpKind::Residual);
    e.line("float c[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};  // beta * C where D goes");
    {
      CodeEmitter::Block beta(e, "if (beta != 0.f)");
      e.line("u32 cw[4];");
      e.line(
          "ld_shared_v4(addr, cw[0], cw[1], cw[2], cw[3]);  // C's 8 values (if_beta loaded them)");
      e.line("#pragma unroll");
      e.line("for (int i = 0; i < 4; ++i) c[2 * i] = beta * unpack_lo<ELEM>(cw[i]), "
             "c[2 * i + 1] = beta * unpack_hi<ELEM>(cw[i]);");
    }
    e.line("#pragma unroll");
    e.line(residual ? "for (int i = 0; i < 8; ++i) acc[8 * c16 + i] *= acc_scale;  // beta * C "
                      "joins at the chain's residual step"
                    : "for (int i = 0; i < 8; ++i) acc[8 * c16 + i] = fmaf(acc_scale, acc[8 * c16 "
                      "+ i], c[i]);");
    if (!k.epilogueChain.empty())
      emitChainOnRow();
    e.line("st_shared_v4(addr, pack2<ELEM>(acc[8 * c16 + 0], acc[8 * c16 + 1]),");
    e.line("                   pack2<ELEM>(acc[8 * c16 + 2], acc[8 * c16 + 3]),");
    e.line("                   pack2<ELEM>(acc[8 * c16 + 4], acc[8 * c16 + 5]),");
    e.line("                   pack2<ELEM>(acc[8 * c16 + 6], acc[8 * c16 + 7]));");
  }

  void emitTmaStore(const Op &) {
    e.line("#pragma unroll");
    CodeEmitter::Block loop(e, "for (int slab = 0; slab < EPI_N / 64; ++slab)");
    e.line("tma_store_2d(&tmD, staging + slab * D_SLAB_BYTES, tile_n * BN + chunk * EPI_N + slab * 64,");
    e.line("             " + kFirstDRow + ");");
  }

  const Kernel &k;
  const EmitOptions &opts;
  CodeEmitter e;
  const Role *current = nullptr;
  bool electedRole = false;
};

} // namespace

llvm::Error gemmgen::emitSm100(const Kernel &kernel, const EmitOptions &options,
                               llvm::raw_ostream &os) {
  return Sm100Printer(kernel, options, os).print();
}

//===- Sm90Printer.cpp - Kernel IR to sm_90a CUDA C++ ----------------------===//
//
// Prints a lowered kernel as warp-specialized CUDA C++ for Hopper: a TMA
// producer warp, wgmma consumer warpgroups that also write back their tile,
// mbarrier full/empty rings with (stage, phase) cursors, a persistent tile
// scheduler and a TMA-store epilogue. Every PTX instruction is a named
// wrapper from gemmgen/device/sm90_ptx.cuh; this file decides only what is
// called where. One emitX() per IR construct; what the source holds before
// the kernel (banner, constants, cursors) is Sm90Preamble.cpp's.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Sm90Printer.h"

#include "gemmgen/CodeEmitter.h"
#include "gemmgen/PrinterCommon.h"
#include "gemmgen/Lowering.h"

#include "EpiloguePrinter.h"
#include "Sm90Blockwise.h"
#include "Sm90Epilogue.h"
#include "Sm90Preamble.h"

#include "llvm/ADT/StringExtras.h"

#include <cassert>

using namespace gemmgen;
using namespace gemmgen::ir;
using llvm::Twine;

namespace {

std::string str(unsigned v) { return std::to_string(v); }

/// Upper-case identifier for a barrier's base-address constant.
std::string barrierVar(const std::string &name) { return name + "_bar"; }

class Sm90Printer {
public:
  Sm90Printer(const Kernel &k, const EmitOptions &opts, llvm::raw_ostream &os)
      : k(k), opts(opts), e(os) {}

  llvm::Error print() {
    sm90::emitPreamble(e, k, opts);
    return emitKernel();
  }

private:
  // --- the kernel ------------------------------------------------------------

  llvm::Error emitKernel() {
    const Role &producer = k.roles[0], &consumer = k.roles[1];
    // scheduler.ctas_per_sm: ptxas keeps the launch's registers to what that many CTAs share.
    e.line("extern \"C\" __global__ void __launch_bounds__(THREADS, " +
           std::to_string(k.plan.schedule.ctasPerSm) + ")");
    const std::string indent(k.name.size() + 1, ' ');
    if (grouped()) {
      // every problem's tensor maps live in the table (tile_schedule.cuh)
      e.line(k.name + "(const GroupedProblem* __restrict__ problems, int problem_count, int total_slots,");
      e.line(indent + "float alpha, float beta)");
    } else if (cloadBarrier()) {
      e.line(k.name + "(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,");
      e.line(indent + "const __grid_constant__ TensorMap tmD, int M, int N, int K, int batch,");
      // After beta, in KernelABI's order: fp8's per-tensor scales, an 8-bit
      // D's output scale and amax, the epilogue chain's inputs, stream-K's
      // workspace.
      std::vector<std::string> groups = {"const __grid_constant__ TensorMap tmC, float alpha, float beta"};
      if (k.plan.perTensorScales)
        groups.push_back("const float* __restrict__ scale_a, const float* __restrict__ scale_b");
      if (k.plan.fp8Output)
        groups.push_back("const float* __restrict__ d_scale, float* __restrict__ d_amax");
      if (!k.epilogueChain.empty())
        groups.push_back("const void* __restrict__ bias, long long bias_stride, const float* "
                         "__restrict__ scale_d");
      if (streamK())
        groups.push_back("float* __restrict__ sk_partials, int* __restrict__ sk_flags");
      for (size_t i = 0; i < groups.size(); ++i)
        e.line(indent + groups[i] + (i + 1 < groups.size() ? "," : ")"));
    } else {
      e.line(k.name + "(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,");
      e.line(indent + "const __grid_constant__ TensorMap tmD, int M, int N, int K, int batch)");
    }
    CodeEmitter::Block fn(e, "", k.name);
    e.line("extern __shared__ __align__(1024) unsigned char smem_raw[];");
    e.comment("TMA and wgmma need 1024-byte aligned swizzled tiles.");
    e.line("const u32 smem = (smem_addr(smem_raw) + 1023u) & ~1023u;");
    e.line("const u32 " + barrierVar(k.barriers[0].name) + " = smem + SMEM_" +
           llvm::StringRef(k.barriers[0].name).upper() + "_BAR;");
    e.line("const u32 " + barrierVar(k.barriers[1].name) + " = smem + SMEM_" +
           llvm::StringRef(k.barriers[1].name).upper() + "_BAR;");
    if (const Barrier *cload = cloadBarrier())
      e.line("const u32 " + barrierVar(cload->name) + " = smem + SMEM_CLOAD_BAR;");
    if (!k.epilogueChain.empty()) {
      if (chainHas(k.epilogueChain, EpilogueOpKind::Scale))
        e.line("const float chain_scale = scale_d ? *scale_d : 1.f;  // the chain's scale step");
      else
        e.line("const float chain_scale = 1.f;  // (the chain has no scale step)");
    }
    if (k.plan.fp8Output)
      e.line("const float out_scale = d_scale ? *d_scale : 1.f;  // " + std::string(toString(k.dType)) +
             " D = out_scale * v");
    if (k.plan.blockwiseScales) {
      e.comment("blockwise scales (types.scaling): scale_a[entry][kb][row] (1x128 blocks of A),");
      e.comment("scale_b[entry][n / 128][kb] (128x128 blocks of B), applied per k-block by promote_acc");
    } else if (k.plan.perTensorScales) {
      e.comment("per-tensor scales (device f32, null = 1): D = (alpha * sA * sB) * acc + beta * C");
      e.line("alpha = scaled_alpha(alpha, scale_a, scale_b);");
    }
    if (const ChainEntryPlan &entry = k.plan.chainEntry; entry.halved()) {
      e.comment("the chain's gelu_tanh takes D's value halved (KernelPlan's chain entry): the 1/2");
      e.comment("rides on what joins before it (alpha" +
                std::string(entry.halvesBias ? ", the bias" : "") +
                (entry.halvesC ? ", beta" : "") + "), exactly: a power of two");
      e.line("const float chain_alpha = 0.5f * alpha;");
      if (entry.halvesC)
        e.line("const float chain_beta = 0.5f * beta;");
    }
    e.comment("warp-uniform role index, so that every role branch is taken by whole warps");
    e.line("const int warpgroup = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);");
    e.line("const int warp_in_group = (threadIdx.x / 32) % 4;");
    e.line(k.clusterM > 1 ? "const u32 cta_rank = cluster_ctarank();"
                          : "const u32 cta_rank = 0;  // no cluster");
    e.blank();
    if (grouped()) {
      e.comment("An empty table: nothing to walk (the host launches none).");
      e.line("if (problem_count <= 0 || total_slots <= 0) return;");
    } else {
      e.comment("Sizes the host rejects; returning here keeps a bad launch from hanging (K = 0 is valid: D = 0).");
      e.line("if (M <= 0 || N <= 0 || K < 0 || batch <= 0) return;");
    }
    e.blank();
    if (earlyLoads())
      emitBookkeeping(); // the early loads need the first tile before the CTA's barrier
    e.comment("---- barrier setup: one thread initialises, the cluster agrees ----");
    {
      CodeEmitter::Block init(e, "if (threadIdx.x == 0)");
      if (!grouped()) {
        e.line("prefetch_tensormap(&tmA);");
        e.line("prefetch_tensormap(&tmB);");
        e.line("prefetch_tensormap(&tmD);");
      }
      if (const Barrier *cload = cloadBarrier()) {
        if (!grouped())
          e.line("if (beta != 0.f) prefetch_tensormap(&tmC);");
        e.line("for (int c = 0; c < CONSUMERS; ++c) mbar_init(" + barrierVar(cload->name) +
               " + 8 * c, " + str(cload->arriveCount) + ");  // its consumer's expect_tx");
      }
      {
        CodeEmitter::Block loop(e, "for (int s = 0; s < STAGES; ++s)");
        for (unsigned i = 0; i < 2; ++i)
          e.line("mbar_init(" + barrierVar(k.barriers[i].name) + " + 8 * s, " +
                 llvm::StringRef(k.barriers[i].name).upper() + "_ARRIVALS);");
      }
      if (earlyLoads())
        if (llvm::Error err = emitEarlyLoads(producer))
          return err;
    }
    e.line("fence_mbarrier_init();");
    e.line(k.clusterM > 1 ? "cluster_sync();  // peers' barriers are initialised before any remote use"
                          : "__syncthreads();");
    e.blank();
    if (k.plan.schedule.splitK > 1) {
      e.comment("split-K: the runtime launches the slices' reduction as a programmatic dependent;");
      e.comment("it may be scheduled from now on and waits for this grid to finish (griddepcontrol.wait)");
      e.line("grid_launch_dependents();");
      e.blank();
    }
    if (!earlyLoads())
      emitBookkeeping();
    // One if/else branch per role: setmaxnreg needs each warpgroup's role in
    // one branch of a single if/else.
    e.line("if (warpgroup == 0) {");
    e.indent();
    if (llvm::Error err = emitRole(producer, "producer"))
      return err;
    e.dedent();
    e.line("} else {");
    e.indent();
    if (llvm::Error err = emitRole(consumer, "consumer"))
      return err;
    e.dedent();
    e.line("} // roles");
    e.blank();
    if (k.clusterM > 1) {
      e.comment("No CTA leaves while a peer may still arrive on its barriers or multicast into it.");
      e.line("cluster_sync();");
    }
    return llvm::Error::success();
  }

  /// The producer's early_loads op (the IR's; KernelPlan::earlyLoads decides it).
  const Op *earlyLoadsOp() const {
    for (const Role &r : k.roles)
      if (!r.body.empty() && r.body.front().kind == OpKind::EarlyLoads)
        return &r.body.front();
    return nullptr;
  }
  bool earlyLoads() const { return earlyLoadsOp() != nullptr; }

  void emitBookkeeping() {
    e.comment("---- tile bookkeeping shared by every role ----");
    if (!grouped()) {
      emitProblemShape();
      e.line("const int unit_slots = tile_slots<RASTER, GROUP>(units_m, tiles_n);  // the schedule's walk");
      e.line("const int batch_slots = unit_slots * batch;  // every batch entry's walk, one after another");
      e.line("const int k_blocks = (K + BK - 1) / BK;");
    }
    e.line("const int cluster_id = blockIdx.x / CLUSTER_M;");
    e.line("const int clusters = gridDim.x / CLUSTER_M;");
    if (earlyLoads() && streamK())
      emitStreamKFirstUnit();
    else if (earlyLoads()) {
      e.comment("this CTA's first tile, whose first k-blocks (early_blocks) the thread that");
      e.comment("initialises the barriers issues before the CTA's barrier; the producer's loop");
      e.comment("starts after them");
      e.line("int early_blocks = 0, first_entry = 0, first_tile_m = 0, first_tile_n = 0;");
      CodeEmitter::Block first(e, "if (cluster_id < batch_slots)");
      e.line("int unit, unit_m, unit_n;");
      e.line("first_entry = batch_entry(cluster_id, unit_slots, unit);");
      CodeEmitter::Block tile(e, std::string("if (") + kTileCoords + ")");
      e.line("early_blocks = k_blocks < STAGES ? k_blocks : STAGES;");
      e.line("first_tile_m = unit_m * CLUSTER_M + (int)cta_rank;");
      e.line("first_tile_n = unit_n;");
    }
    e.blank();
  }

  // The unit of `slot`'s tile coordinates (false: a Hilbert hole), for every
  // walk: the persistent loops' and the early loads' first unit.
  static constexpr const char *kTileCoords =
      "tile_coords<RASTER, GROUP>(unit, units_m, tiles_n, unit_m, unit_n)";

  /// The stream-K walk `walk` of this CTA (tile_schedule.cuh's sk_walk) and
  /// the variables sk_next fills; returns the sk_next call that steps it.
  std::string emitStreamKWalk(const std::string &walk) {
    e.line("SkWalk " + walk + " = sk_walk(blockIdx.x, gridDim.x, batch_slots, k_blocks);");
    e.line("int slot, kb_begin, kb_end;  // the unit slot and the k-blocks computed of it");
    return "sk_next(" + walk + ", gridDim.x, k_blocks, slot, kb_begin, kb_end)";
  }

  /// Stream-K's early loads: the walk's first step (a whole unit or the
  /// start of the share), its first k-block early_kb and slot early_slot.
  void emitStreamKFirstUnit() {
    e.comment("this CTA's first unit (its walk's first step), whose first k-blocks (early_blocks");
    e.comment("from early_kb) the thread that initialises the barriers issues before the CTA's");
    e.comment("barrier; the producer's loop starts after them in that unit (slot early_slot)");
    e.line(
        "int early_blocks = 0, early_kb = 0, early_slot = -1, first_entry = 0, first_tile_m = 0, "
        "first_tile_n = 0;");
    CodeEmitter::Block scope(e, "");
    const std::string step = emitStreamKWalk("first_walk");
    CodeEmitter::Block first(e, "if (" + step + ")");
    e.line("int unit, unit_m, unit_n;");
    e.line("first_entry = batch_entry(slot, unit_slots, unit);");
    CodeEmitter::Block tile(e, std::string("if (") + kTileCoords + ")");
    e.line("early_slot = slot;");
    e.line("early_kb = kb_begin;");
    e.line("early_blocks = kb_end - kb_begin < STAGES ? kb_end - kb_begin : STAGES;");
    e.line("first_tile_m = unit_m;  // CLUSTER_M is 1");
    e.line("first_tile_n = unit_n;");
  }

  /// The producer's early_loads op: its body (the k-block's loads, their
  /// expect_tx and the state's advance) for the first tile's first
  /// early_blocks k-blocks, in the initialising thread, on a copy of the state.
  llvm::Error emitEarlyLoads(const Role &producer) {
    const Op *earlyP = earlyLoadsOp();
    const PipelineState *stateP = nullptr;
    for (const PipelineState &s : producer.states)
      if (earlyP && s.name == earlyP->state)
        stateP = &s;
    if (producer.body.empty() || earlyP != &producer.body.front() || !stateP)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "kernel '" + k.name + "': early_loads is not first in the "
                                     "producer's body, on one of its pipeline states");
    const Op &early = *earlyP;
    const PipelineState &state = *stateP;
    e.comment("the first tile's first k-blocks, before the CTA's barrier: the producer's first");
    e.comment("waits on empty slots would pass at once (phase 1), so these are its loop's first");
    e.comment("iterations, issued as soon as the barriers they complete on exist");
    e.line("fence_mbarrier_init();  // the inits before the copies' complete_tx");
    CodeEmitter::Block first(e, "if (early_blocks > 0)");
    e.line("const int entry = first_entry, tile_m = first_tile_m, tile_n = first_tile_n;");
    e.line("PipelineState " + state.name + "{0, " + str(state.initialPhase) + "u};");
    CodeEmitter::Block loop(e,
                            streamK()
                                ? "for (int kb = early_kb; kb < early_kb + early_blocks; ++kb)"
                                : "for (int kb = 0; kb < early_blocks; ++kb)",
                            "early k-block");
    isProducer = true;
    ++depthInTileLoop;
    llvm::Error err = emitOps(early.body);
    --depthInTileLoop;
    isProducer = false;
    return err;
  }

  llvm::Error emitRole(const Role &role, const std::string &kind) {
    isProducer = kind == "producer";
    e.comment("==== role " + role.name + ": warps " + str(role.firstWarp) + ".." +
              str(role.firstWarp + role.ownedWarps - 1) + " ====");
    if (role.registers)
      e.line(std::string(role.registersIncrease ? "setmaxnreg_inc<" : "setmaxnreg_dec<") +
             str(role.registers) + ">();");
    if (isProducer) {
      const bool spread = spreadsProducer(k.plan);
      if (spread) {
        e.comment("Each producer warp's elected thread issues part of a stage (each warp on its own");
        e.comment("sub-partition, so that no consumer warp shares one with the whole producer).");
      } else {
        e.comment("One elected thread of warp 0 issues every TMA load; the other warps idle.");
      }
      {
        CodeEmitter::Block guard(e, spread ? "if (warp_in_group < " +
                                                 str(producerIssuingWarps(k.plan)) +
                                                 " && elect_one_sync())"
                                           : std::string("if (warp_in_group == 0 && elect_one_sync())"));
        if (spread)
          e.line(std::string("const int part = warp_in_group;  // 0: the A") +
                 (k.plan.producerBWarp ? "" : " and B") + " tile, 1: A's scales, 2: B's" +
                 (k.plan.producerBWarp ? ", " + str(k.plan.producerBWarp) + ": the B tile" : ""));
        emitStates(role);
        if (llvm::Error err = emitOps(role.body))
          return err;
      }
      e.line(spread
                 ? "__syncwarp();  // reconverge the producer warps before the aligned barrier at the end"
                 : "__syncwarp();  // reconverge warp 0 before the aligned barrier at the end");
      return llvm::Error::success();
    }
    e.line("const int consumer = warpgroup - 1;  // which rows of the tile this warpgroup owns");
    e.line("const bool leader = threadIdx.x % 128 == 0;  // arrives and issues stores for the group");
    e.line("const int lane = threadIdx.x % 32;");
    e.line("float acc[WG_MMAS][BN / 2];  // wgmma accumulator fragments (f32)");
    if (k.plan.partialBuffers == 1)
      e.line("float part[WG_MMAS][BN / 2];  // one k-block's wgmma partial sum (blockwise scales)");
    if (k.plan.fp8Output)
      e.line("float amax_v = 0.f;  // max |v| over this thread's elements of D (before out_scale)");
    if (pingpong())
      e.line("int turn = 0;  // ping-pong: tiles this CTA walked; tile n is consumer n % CONSUMERS's");
    emitStates(role);
    if (llvm::Error err = emitOps(role.body))
      return err;
    if (k.plan.fp8Output) {
      e.comment("the amax of D: a warp's maximum, one red.max per warp (*d_amax was zeroed)");
      e.line("if (d_amax) publish_amax(d_amax, amax_v);");
    }
    return llvm::Error::success();
  }

  static bool waitsOn(const std::vector<Op> &ops, const std::string &state) {
    for (const Op &op : ops)
      if ((op.kind == OpKind::Wait && op.state == state) || waitsOn(op.body, state))
        return true;
    return false;
  }

  void emitStates(const Role &role) {
    for (const PipelineState &s : role.states) {
      std::string why;
      if (!waitsOn(role.body, s.name))
        why = "the next slot to hand back";
      else if (s.initialPhase)
        why = "phase 1: the first wait passes on the barrier's initial phase";
      else
        why = "phase 0: wait for the first completion";
      assert((s.depth == 1 || s.depth == k.depth) && "PipelineState's ring is STAGES slots");
      if (s.depth == 1)
        e.line("PhaseBit " + s.name + "{" + str(s.initialPhase) + "u};  // " + why);
      else
        e.line("PipelineState " + s.name + "{0, " + str(s.initialPhase) + "u};  // " + why);
    }
  }

  /// Consecutive ops marked Elected share one `if (leader)` guard; the
  /// producer's whole body already runs on one elected thread.
  llvm::Error emitOps(const std::vector<Op> &ops) {
    for (size_t i = 0; i < ops.size();) {
      if (isProducer || ops[i].exec != Exec::Elected) {
        if (llvm::Error err = emitOp(ops[i++]))
          return err;
        continue;
      }
      CodeEmitter::Block g(e, "if (leader)");
      inLeaderGuard = true;
      while (i < ops.size() && ops[i].exec == Exec::Elected)
        if (llvm::Error err = emitOp(ops[i++]))
          return err;
      inLeaderGuard = false;
    }
    return llvm::Error::success();
  }

  std::string slotAddr(const std::string &barrier, const std::string &state) {
    return barrierVar(barrier) + " + 8 * " + state + ".stage";
  }
  /// A barrier with one slot per consumer (cload): this consumer's.
  std::string instanceSlotAddr(const std::string &barrier) {
    return barrierVar(barrier) + " + 8 * consumer";
  }
  bool pingpong() const { return k.plan.schedule.pingpong; }
  const Barrier *orderBarrier() const { return sm90::protocolBarrier(k, ProtocolBarrier::Order); }
  bool isOrderBarrier(const std::string &name) const {
    const Barrier *order = orderBarrier();
    return order && order->name == name;
  }
  const Barrier *cloadBarrier() const { return sm90::protocolBarrier(k, ProtocolBarrier::CLoad); }

  int barrierId(const std::string &name) const {
    return name == k.barriers[0].name ? 0 : 1;
  }

  /// One op; an op that has no sm_90a form (an sm_100a op in this kernel)
  /// is an error, not an assertion.
  llvm::Error emitOp(const Op &op) {
    assert((op.exec != Exec::Elected || isProducer || inLeaderGuard) &&
           "elected ops are emitted inside a leader guard");
    switch (op.kind) {
    case OpKind::ForEachTile: return emitForEachTile(op);
    case OpKind::EarlyLoads:
      // Its loads were issued before the CTA's barrier (emitEarlyLoads); the
      // role's own state moves past them.
      e.line("for (int i = 0; i < early_blocks; ++i) " + op.state +
             ".advance();  // issued before the CTA's barrier");
      return llvm::Error::success();
    case OpKind::ForK: {
      if (isProducer && spreadsProducer(k.plan))
        return emitSplitProducerK(op);
      if (!isProducer && k.plan.partialBuffers == 2)
        return emitForKPairs(op);
      if (!isProducer && k.plan.partialBuffers == 1)
        sm90::emitTileScalePointers(e, k, kFirst());
      const std::string first = !isProducer || !earlyLoads() ? kFirst()
                                : streamK()
                                    ? "slot == early_slot ? kb_begin + early_blocks : kb_begin"
                                    : "slot == cluster_id ? early_blocks : 0";
      CodeEmitter::Block loop(e, "for (int kb = " + first + "; kb < " + kEnd() + "; ++kb)",
                              "k-block");
      return emitOps(op.body);
    }
    case OpKind::ForEachChunk: {
      if (!k.plan.chunksOverlap) {
        e.line("#pragma unroll");
        CodeEmitter::Block loop(e, "for (int chunk = 0; chunk < BN / EPI_COLS; ++chunk)",
                                "epilogue chunk");
        return emitOps(op.body);
      }
      e.line("u32 kept[WG_MMAS][KEPT_BLOCKS][2];  // the packed pairs of the columns the last two "
             "chunks share");
      e.line("#pragma unroll");
      CodeEmitter::Block loop(e, "for (int chunk = 0; chunk < EPI_CHUNKS; ++chunk)",
                              "epilogue chunk");
      e.line("const int chunk_col0 = chunk + 1 < EPI_CHUNKS ? chunk * EPI_COLS : LAST_CHUNK_COL0;");
      return emitOps(op.body);
    }
    case OpKind::IfNotFirstK: {
      e.comment("the group just issued may still read its stage: release the previous one");
      CodeEmitter::Block cond(e, "if (kb > " + kFirst() + ")");
      return emitOps(op.body);
    }
    case OpKind::IfBeta: {
      e.comment("beta != 0: C's chunk into the staging tile; store_acc reads it back");
      CodeEmitter::Block cond(e, "if (beta != 0.f)", "beta");
      return emitOps(op.body);
    }
    case OpKind::IfAnyK: {
      e.comment("the tile read stages (K > 0): release the last one once its wgmmas are done");
      CodeEmitter::Block cond(e, streamK() ? "if (kb_end > kb_begin)" : "if (k_blocks > 0)",
                              "K > 0");
      return emitOps(op.body);
    }
    case OpKind::IfNoK: {
      e.comment("K = 0: no wgmma ran, and only a tile's first one overwrites the accumulators");
      CodeEmitter::Block cond(e, streamK() ? "if (kb_end == kb_begin)" : "if (k_blocks == 0)",
                              "K = 0");
      underNoK = true;
      llvm::Error err = emitOps(op.body);
      underNoK = false;
      return err;
    }
    case OpKind::IfSkPartial: {
      e.comment("this share starts inside the unit: hand the partial sum to the CTA holding its "
                "first k-block");
      CodeEmitter::Block cond(e, "if (kb_begin > 0)", "partial unit");
      return emitOps(op.body);
    }
    case OpKind::IfSkFinish: {
      e.comment("this share holds the unit's first k-block: add the later shares', store the tile");
      CodeEmitter::Block cond(e, "if (kb_begin == 0)", "finishing unit");
      return emitOps(op.body);
    }
    case OpKind::StorePartial: emitStorePartial(); break;
    case OpKind::AddPartials: emitAddPartials(); break;
    case OpKind::PromoteAcc: emitPromote(op); break;
    case OpKind::ZeroAcc: {
      e.line("#pragma unroll");
      CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
      e.line("#pragma unroll");
      // Under the K = 0 branch, zero_acc_reg keeps it a branch (not a select on every tile).
      e.line(underNoK ? "for (int i = 0; i < BN / 2; ++i) zero_acc_reg(acc[m][i]);"
                      : "for (int i = 0; i < BN / 2; ++i) acc[m][i] = 0.f;");
      break;
    }
    case OpKind::Wait: emitWait(op); break;
    case OpKind::ArriveExpectTx:
      if (op.slotIsInstance)
        e.line("mbar_arrive_expect_tx(" + instanceSlotAddr(op.barrier) + ", CLOAD_TX_BYTES);");
      else if (k.plan.scalesInSmem && isProducer) {
        sm90::emitScaleCopyBytes(e, op.state + ".stage");
        e.line("mbar_arrive_expect_tx(" + slotAddr(op.barrier, op.state) +
               ", STAGE_TX_BYTES + sa_bytes + sb_total);");
      } else
        e.line("mbar_arrive_expect_tx(" + slotAddr(op.barrier, op.state) + ", STAGE_TX_BYTES);");
      break;
    case OpKind::Arrive: emitArrive(op); break;
    case OpKind::TmaLoad: emitTmaLoad(op); break;
    case OpKind::Fence:
      switch (op.fence) {
      case FenceKind::MmaOperands: e.line("wgmma_fence();"); break;
      case FenceKind::ProxyAsync:
        e.comment("staging writes must be visible to the TMA engine (async proxy)");
        e.line("fence_proxy_async_smem();");
        break;
      case FenceKind::MbarrierInit: e.line("fence_mbarrier_init();"); break;
      case FenceKind::TcgenBeforeSync:
      case FenceKind::TcgenAfterSync:
        return cannotPrint(op, "a tcgen05 fence (sm_100a)");
      }
      break;
    case OpKind::MmaCommitArrive:
    case OpKind::LoadAcc:
      // tcgen05 commit and TMEM loads exist only in sm_100a kernels.
      return cannotPrint(op, "an sm_100a op (tcgen05, tensor memory)");
    case OpKind::Mma: emitMma(op); break;
    case OpKind::MmaCommit: e.line("wgmma_commit_group();"); break;
    case OpKind::MmaWait:
      e.line("wgmma_wait_group<" + str(op.count) + ">();");
      // a pair's first wait finishes the previous k-block's group, the second every one
      emitAccFence(k.plan.partialBuffers == 2 && op.count > 0 ? pair.prev.part : mmaRegs());
      break;
    case OpKind::Advance: e.line(op.state + ".advance();"); break;
    case OpKind::StoreAcc: emitStoreAcc(op); break;
    case OpKind::NamedBarrierSync:
      if (isOrderBarrier(op.barrier))
        e.line(op.slotIsTurnOwner ? "named_barrier_sync(ORDER_BAR_ID + owner, ORDER_BAR_THREADS);  "
                                    "// the owner's mainloop has passed its waits"
                                  : "named_barrier_sync(ORDER_BAR_ID + consumer, ORDER_BAR_THREADS);");
      else
        e.line("named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, "
               "EPILOGUE_BAR_THREADS);");
      break;
    case OpKind::NamedBarrierArrive:
      e.comment("ping-pong: this tile's last stage was waited for; the other consumer's mainloop may begin");
      e.line("named_barrier_arrive(ORDER_BAR_ID + consumer, ORDER_BAR_THREADS);");
      break;
    case OpKind::SkipK: e.line(op.state + ".skip(k_blocks);"); break;
    case OpKind::IfSecondOfPair:
    case OpKind::IfPairEnds:
      return cannotPrint(op, "a k-block pair's branch outside the pairs' loop");
    case OpKind::IfOtherTurn: {
      e.comment("ping-pong: the tile is one consumer's alone; the other steps its cursors past it");
      e.line("const int owner = turn++ % CONSUMERS;");
      CodeEmitter::Block cond(e, "if (owner != consumer)", "other's turn");
      if (llvm::Error err = emitOps(op.body))
        return err;
      e.line("continue;");
      break;
    }
    case OpKind::TmaStore: emitTmaStore(); break;
    case OpKind::TmaStoreCommit: e.line("bulk_commit_group();"); break;
    case OpKind::TmaStoreWait:
      if (depthInTileLoop > 0)
        e.line("bulk_wait_group_read<" + str(op.count) + ">();  // staging tile free again");
      else
        e.line("bulk_wait_group<" + str(op.count) + ">();  // every store of this CTA done");
      break;
    }
    return llvm::Error::success();
  }

  llvm::Error cannotPrint(const Op &op, const char *what) const {
    return unprintableOp(k, op, what, Target::SM90a);
  }

  /// The producer's k-block spread over its warps (KernelPlan::scaleCopyWarps):
  /// each waits for the stage itself; warp 0 announces the tiles' bytes and
  /// loads A (and B unless producerBWarp names another warp), warps 1 and 2
  /// copy the scales and arrive with their bytes. The IR's order is kept:
  /// the wait, the stage's arrive and loads, then the cursor's advance.
  llvm::Error emitSplitProducerK(const Op &forK) {
    CodeEmitter::Block loop(e, "for (int kb = " + kFirst() + "; kb < " + kEnd() + "; ++kb)",
                            "k-block");
    const unsigned bWarp = k.plan.producerBWarp;
    std::vector<const Op *> tiles, scales, after;
    for (const Op &op : forK.body) {
      const bool load = op.kind == OpKind::TmaLoad;
      if (op.kind == OpKind::Wait && tiles.empty() && scales.empty()) {
        if (llvm::Error err = emitOp(op))
          return err;
      } else if (op.kind == OpKind::ArriveExpectTx || (load && op.operand != Operand::Scales)) {
        tiles.push_back(&op);
      } else if (load) {
        scales.push_back(&op);
      } else {
        after.push_back(&op);
      }
    }
    {
      CodeEmitter::Block part0(e, "if (part == 0)", std::string(bWarp ? "the A tile" : "A and B"));
      for (const Op *op : tiles) {
        if (bWarp && op->kind == OpKind::TmaLoad && op->operand == Operand::B)
          continue;
        if (op->kind == OpKind::ArriveExpectTx)
          e.line("mbar_arrive_expect_tx(" + slotAddr(op->barrier, op->state) +
                 (bWarp ? ", STAGE_TX_BYTES - B_STAGE_BYTES);  // A's; the other warps arrive with "
                          "their own bytes"
                        : ", STAGE_TX_BYTES);  // A's and B's; the scale warps arrive with their own"));
        else if (llvm::Error err = emitOp(*op))
          return err;
      }
    }
    if (bWarp) {
      CodeEmitter::Block partB(e, "else if (part == " + str(bWarp) + ")", "the B tile");
      for (const Op *op : tiles)
        if (op->kind == OpKind::TmaLoad && op->operand == Operand::B) {
          e.line("mbar_arrive_expect_tx(" + slotAddr(op->barrier, op->state) +
                 ", B_STAGE_BYTES);  // the whole B tile lands here (a cluster's peers' parts too)");
          if (llvm::Error err = emitOp(*op))
            return err;
        }
    }
    for (const Op *op : scales)
      sm90::emitScaleCopyParts(e, op->state + ".stage", slotAddr(op->barrier, op->state));
    for (const Op *op : after)
      if (llvm::Error err = emitOp(*op))
        return err;
    return llvm::Error::success();
  }

  void emitWait(const Op &op) {
    if (op.slotIsInstance) {
      e.line("mbar_wait(" + instanceSlotAddr(op.barrier) + ", " + op.state +
             ".phase, ROLE_CONSUMER0 + consumer, BAR_CLOAD, consumer);");
      return;
    }
    e.line("mbar_wait(" + slotAddr(op.barrier, op.state) + ", " + op.state + ".phase, " +
           (isProducer ? "ROLE_PRODUCER" : "ROLE_CONSUMER0 + consumer") + ", " +
           (barrierId(op.barrier) == 0 ? "BAR_FULL" : "BAR_EMPTY") + ", " + op.state +
           ".stage);");
  }

  void emitTmaStore() { sm90::emitStagingTmaStore(e, k); }

  /// Stream-K: this CTA's whole units, then its share of the rest's
  /// k-blocks, one unit per step (tile_schedule.cuh's sk_walk / sk_next).
  llvm::Error emitStreamKLoop(const Op &op) {
    e.comment("stream-K: this CTA's whole units (slots c, c + grid, ...), then its share of the");
    e.comment("last waves' k-blocks, one unit per step");
    const std::string step = emitStreamKWalk("sk");
    CodeEmitter::Block loop(e, "while (" + step + ")", "unit");
    e.line("int unit;");
    e.line("const int entry = batch_entry(slot, unit_slots, unit);  // the batch entry: TMA's 3rd coordinate");
    e.line("int unit_m, unit_n;");
    e.line(std::string("if (!") + kTileCoords + ") continue;  // a Hilbert hole");
    e.line("const int tile_m = unit_m;  // CLUSTER_M is 1");
    e.line("const int tile_n = unit_n;");
    ++depthInTileLoop;
    llvm::Error err = emitOps(op.body);
    --depthInTileLoop;
    return err;
  }

  llvm::Error emitForEachTile(const Op &op) {
    if (streamK())
      return emitStreamKLoop(op);
    e.comment("persistent loop: this cluster walks units of CLUSTER_M x 1 tiles");
    CodeEmitter::Block loop(e, grouped() ? "for (int slot = cluster_id, problem = 0; slot < total_slots; slot += clusters)"
                                         : "for (int slot = cluster_id; slot < batch_slots; slot += clusters)",
                            "tile");
    if (grouped()) {
      e.line("const int unit = grouped_slot(problems, slot, problem);  // the problem owning this slot");
      e.line("const GroupedProblem& gp = problems[problem];");
      e.line("const int M = gp.size_m, N = gp.size_n, K = gp.size_k;");
      emitProblemShape();
      e.line("const int k_blocks = (K + BK - 1) / BK;");
      emitGroupedMaps();
      e.line("const int entry = 0;  // each problem's maps have batch extent 1");
    } else {
      e.line("int unit;");
      e.line("const int entry = batch_entry(slot, unit_slots, unit);  // the batch entry: TMA's 3rd coordinate");
    }
    e.line("int unit_m, unit_n;");
    e.line(std::string("if (!") + kTileCoords + ") continue;  // a Hilbert hole");
    e.line("const int tile_m = unit_m * CLUSTER_M + (int)cta_rank;");
    e.line("const int tile_n = unit_n;");
    ++depthInTileLoop;
    llvm::Error err = emitOps(op.body);
    --depthInTileLoop;
    return err;
  }

  bool grouped() const { return k.schedule.grouped; }

  // Tiles and units of an M x N problem: once per kernel, or
  // per tile for a grouped kernel (each problem its own).
  void emitProblemShape() {
    e.line("const int tiles_m = (M + BM - 1) / BM;");
    e.line("const int tiles_n = (N + BN - 1) / BN;");
    e.line("const int units_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M;  // a unit: CLUSTER_M x 1 tiles");
  }

  // A grouped kernel's tensor maps: the table entry's, under the names the
  // loads and stores use, acquired for the TMA unit (the host wrote them).
  void emitGroupedMaps() {
    struct {
      const char *name, *index;
      bool used;
    } maps[] = {{"tmA", "GROUPED_MAP_A", isProducer},
                {"tmB", "GROUPED_MAP_B", isProducer},
                {"tmD", "GROUPED_MAP_D", !isProducer},
                {"tmC", "GROUPED_MAP_C", !isProducer && cloadBarrier()}};
    for (const auto &m : maps) {
      if (!m.used)
        continue;
      e.line(std::string("const TensorMap& ") + m.name +
             " = *reinterpret_cast<const TensorMap*>(gp.maps[" + m.index + "]);");
      if (std::string(m.name) == "tmC")
        e.line("if (beta != 0.f) fence_tensormap_acquire(&tmC);");
      else
        e.line(std::string("fence_tensormap_acquire(&") + m.name + ");");
    }
  }

  void emitArrive(const Op &op) {
    std::string addr = slotAddr(op.barrier, op.state);
    if (op.scope == CtaScope::Cluster) {
      e.comment("every CTA whose multicast filled this stage must hear the release");
      CodeEmitter::Block loop(e, "for (u32 r = 0; r < CLUSTER_M; ++r)");
      e.line("mbar_arrive_remote(" + addr + ", r);");
    } else {
      e.line("mbar_arrive(" + addr + ");");
    }
  }

  void emitTmaLoad(const Op &op) {
    if (op.operand == Operand::C)
      return sm90::emitStagingCLoad(e, k, instanceSlotAddr(op.barrier));
    std::string stage = op.state + ".stage";
    std::string bar = slotAddr(op.barrier, op.state);
    if (op.operand == Operand::Scales)
      return sm90::emitScaleCopy(e, bar);
    if (op.operand == Operand::A) {
      if (sm90::mnMajor(k.plan.loadA)) {
        e.comment("A is M-major: one box per 64 rows of the tile (coordinates: m, k)");
        e.line("#pragma unroll");
        CodeEmitter::Block loop(e, "for (u32 j = 0; j < A_BOXES; ++j)");
        e.line("tma_load_3d(smem + SMEM_A + A_STAGE_BYTES * " + stage + " + j * A_BOX_BYTES, &tmA, " +
               bar + ", tile_m * BM + (int)(j * 64), kb * BK, entry);");
        return;
      }
      e.line("tma_load_3d(smem + SMEM_A + A_STAGE_BYTES * " + stage + ", &tmA, " + bar +
             ", kb * BK, tile_m * BM, entry);");
      return;
    }
    bool multicast = op.scope == CtaScope::Cluster && op.parts > 1;
    if (sm90::mnMajor(k.plan.loadB)) {
      const std::string box = str(k.plan.loadB.boxInner);
      e.comment(multicast ? "B is N-major: this CTA loads its part of the shared B tile, one box per "
                            + box + " columns, into every CTA of the cluster"
                          : "B is N-major: one box per " + box +
                                " columns of the tile (coordinates: n, k)");
      std::string part = multicast ? " + cta_rank * B_PART_ROWS" : "";
      e.line("#pragma unroll");
      CodeEmitter::Block loop(e, "for (u32 j = 0; j < B_BOXES; ++j)");
      std::string dst = "smem + SMEM_B + B_STAGE_BYTES * " + stage +
                        (multicast ? " + (cta_rank * B_BOXES + j) * B_BOX_BYTES"
                                   : " + j * B_BOX_BYTES");
      std::string coords = "tile_n * BN + (int)(" + (multicast ? std::string("cta_rank * B_PART_ROWS + ") : "") +
                           "j * " + box + "), kb * BK, entry";
      if (multicast)
        e.line("tma_load_3d_multicast(" + dst + ", &tmB, " + bar + ", " + coords +
               ", (u16)((1u << CLUSTER_M) - 1));");
      else
        e.line("tma_load_3d(" + dst + ", &tmB, " + bar + ", " + coords + ");");
      return;
    }
    if (multicast) {
      e.comment("this CTA loads its part of the shared B tile into every CTA of the cluster");
      e.line("tma_load_3d_multicast(smem + SMEM_B + B_STAGE_BYTES * " + stage +
             " + cta_rank * B_PART_ROWS * 128, &tmB,");
      e.line("                      " + bar +
             ", kb * BK, tile_n * BN + (int)(cta_rank * B_PART_ROWS), entry, (u16)((1u << CLUSTER_M) - 1));");
      return;
    }
    e.line("tma_load_3d(smem + SMEM_B + B_STAGE_BYTES * " + stage + ", &tmB, " + bar +
           ", kb * BK, tile_n * BN, entry);");
  }

  /// The registers wgmma writes asynchronously, pinned in place around its
  /// issue and waits: the accumulators, or blockwise scaling's partial sums
  /// (in a pair, the buffer the next step touches: the one issued into, or
  /// the one a wait finished).
  void emitAccFence(const std::string &regs) {
    e.line("#pragma unroll");
    CodeEmitter::Block loop(e, "for (int m = 0; m < WG_MMAS; ++m)");
    e.line("#pragma unroll");
    e.line("for (int i = 0; i < BN / 2; ++i) fence_operand(" + regs + "[m][i]);");
  }
  std::string mmaRegs() const {
    return k.plan.partialBuffers == 1 ? "part" : k.plan.partialBuffers == 2 ? pair.cur.part : "acc";
  }

  /// The partial-sum buffer and scales one k-block of a pair uses.
  struct PairBuffer {
    std::string part, sa, sb;
  };
  struct PairBinding {
    PairBuffer cur, prev;
  } pair;

  /// Two partial-sum buffers (blockwise, mma_in_flight 1): the k-loop steps
  /// over pairs, each k-block's ops printed with its buffer's names, so that
  /// every register array index is a constant. The pair's first k-block is
  /// issued; the second one (if the tile has it) is issued, then the first's
  /// sum promoted under its wgmmas (if_second_of_pair), then, every group
  /// done, its own (if_pair_ends); a lone last k-block ends its pair alone.
  llvm::Error emitForKPairs(const Op &op) {
    std::vector<Op> issue;
    const Op *second = nullptr, *ends = nullptr;
    for (const Op &o : op.body) {
      if (o.kind == OpKind::IfSecondOfPair)
        second = &o;
      else if (o.kind == OpKind::IfPairEnds)
        ends = &o;
      else
        issue.push_back(o);
    }
    if (!second || !ends)
      return cannotPrint(op, "a k-loop of pairs without its if_second_of_pair / if_pair_ends");
    const PairBuffer buf0{"part0", "sa0", "sb0"}, buf1{"part1", "sa1", "sb1"};
    e.comment("blockwise scales, two partial sums: k-blocks in pairs; the first one's sum is promoted");
    e.comment("while the second one's wgmmas run, and a pair ends with every group done");
    e.line("float part0[WG_MMAS][BN / 2], part1[WG_MMAS][BN / 2];");
    e.line("float sa0[WG_MMAS][2], sa1[WG_MMAS][2], sb0[SB_BLOCKS], sb1[SB_BLOCKS];");
    sm90::emitTileScalePointers(e, k, kFirst());
    CodeEmitter::Block loop(e, "for (int kb_pair = " + kFirst() + "; kb_pair < " + kEnd() +
                                   "; kb_pair += 2)",
                            "k-block pair");
    pair = {buf0, buf1};
    {
      CodeEmitter::Block first(e, "", "the pair's first k-block");
      e.line("const int kb = kb_pair;");
      if (llvm::Error err = emitOps(issue))
        return err;
    }
    {
      CodeEmitter::Block next(e, "if (kb_pair + 1 < " + kEnd() + ")", "the pair's second k-block");
      e.line("const int kb = kb_pair + 1;");
      pair = {buf1, buf0};
      if (llvm::Error err = emitOps(issue))
        return err;
      if (llvm::Error err = emitOps(second->body))
        return err;
      if (llvm::Error err = emitOps(ends->body))
        return err;
    }
    CodeEmitter::Block alone(e, "else", "the tile's last k-block, alone");
    pair = {buf0, buf1};
    return emitOps(ends->body);
  }

  /// Blockwise scales for promote_acc, read from the stage's smemScales as
  /// the k-block is issued (into the pair's buffer, or the one k-block's).
  void emitBlockScaleLoads(const std::string &stage) {
    e.comment("this k-block's scales; the pointers step to the next k-block's");
    if (k.plan.partialBuffers == 2) {
      sm90::emitPointerScaleLoad(e, pair.cur.sa, pair.cur.sb, stage);
      return;
    }
    e.line("float blk_sa[WG_MMAS][2], blk_sb[SB_BLOCKS];");
    sm90::emitPointerScaleLoad(e, "blk_sa", "blk_sb", stage);
  }

  /// promote_acc: which partial sum, by the op and the k-loop's form.
  void emitPromote(const Op &op) {
    if (k.plan.partialBuffers == 2) {
      const PairBuffer &b = op.previousK ? pair.prev : pair.cur;
      sm90::emitPromoteAcc(e, k, b.part, b.sa, b.sb);
      return;
    }
    sm90::emitPromoteAcc(e, k, "part", "blk_sa", "blk_sb");
  }

  void emitMma(const Op &op) {
    std::string stage = op.state + ".stage";
    bool aMN = sm90::mnMajor(k.plan.loadA), bMN = sm90::mnMajor(k.plan.loadB);
    e.line("const u32 a_stage = smem + SMEM_A + A_STAGE_BYTES * " + stage +
           (pingpong() ? ";  // the whole tile's rows"
            : aMN      ? " + consumer * (WG_ROWS / 64) * A_BOX_BYTES;"
                       : " + consumer * WG_ROWS * 128;"));
    e.line("const u32 b_stage = smem + SMEM_B + B_STAGE_BYTES * " + stage + ";");
    if (op.partial)
      emitBlockScaleLoads(stage);
    emitAccFence(mmaRegs());
    const std::string mmaK = str(k.plan.mmaK);
    const std::string kStepA = str(k.plan.loadA.kStepBytes), kStepB = str(k.plan.loadB.kStepBytes);
    e.comment("the stage's descriptors once; each wgmma's by an add (smem_desc_advance)");
    e.line(aMN ? "const u64 desc_a_stage = make_smem_desc_mnmajor_sw128(a_stage, A_BOX_BYTES);"
               : "const u64 desc_a_stage = make_smem_desc_kmajor_sw128(a_stage);");
    e.line(bMN ? "const u64 desc_b_stage = make_smem_desc_mnmajor_sw" +
                     str(k.plan.loadB.swizzleBytes) + "(b_stage, B_BOX_BYTES);"
               : "const u64 desc_b_stage = make_smem_desc_kmajor_sw128(b_stage);");
    e.comment("BK / " + mmaK + " k-steps; the first step of " +
              std::string(op.partial ? "each k-block's partial sum" : "a tile") +
              " overwrites (scale-d = 0)");
    e.line("#pragma unroll");
    CodeEmitter::Block ks(e, "for (int ks = 0; ks < BK / " + mmaK + "; ++ks)");
    e.line(bMN ? "const u64 desc_b = smem_desc_advance(desc_b_stage, ks * B_K_STEP_BYTES);"
               : "const u64 desc_b = smem_desc_advance(desc_b_stage, ks * " + kStepB + ");");
    e.line("#pragma unroll");
    CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
    e.line(aMN ? "const u64 desc_a = smem_desc_advance(desc_a_stage, m * A_BOX_BYTES + ks * "
                 "A_K_STEP_BYTES);"
               : "const u64 desc_a = smem_desc_advance(desc_a_stage, m * 64 * 128 + ks * " +
                     kStepA + ");");
    std::string wgmma = k.plan.perTensorScales ? "WgmmaF8<BN, A_ELEM, B_ELEM>"
                        : aMN || bMN ? "Wgmma<BN, ELEM, " + str(aMN) + ", " + str(bMN) + ">"
                                     : "Wgmma<BN, ELEM>";
    if (aMN || bMN)
      e.comment("wgmma transposes: A " + std::string(aMN ? "M-major" : "K-major") + ", B " +
                (bMN ? "N-major" : "K-major"));
    if (op.partial)
      e.line(wgmma + "::mma(" + mmaRegs() + "[m], desc_a, desc_b, ks > 0 ? 1 : 0);  // each k-block afresh");
    else
      e.line(wgmma + "::mma(acc[m], desc_a, desc_b, (kb > " + kFirst() + " || ks > 0) ? 1 : 0);");
  }

  // --- stream-K ---------------------------------------------------------------

  bool streamK() const { return k.plan.schedule.streamK(); }
  /// The k-blocks the current unit's loops cover: the share's, or all.
  std::string kFirst() const { return streamK() ? "kb_begin" : "0"; }
  std::string kEnd() const { return streamK() ? "kb_end" : "k_blocks"; }

  /// The accumulator fragment of this consumer in its partial-sum slot:
  /// [slot][m][i][thread of the warpgroup], so a warp's accesses coalesce.
  void emitPartialSlot(const std::string &cta) {
    e.line("float* part_slot = sk_partials + ((long long)(" + cta +
           ") * CONSUMERS + consumer) * (WG_MMAS * (BN / 2) * 128) + threadIdx.x % 128;");
  }

  void emitStorePartial() {
    e.comment("stream-K: the partial sum to this CTA's slot, then its flag (release: the");
    e.comment("warpgroup's stores happen before it, through the named barrier)");
    {
      CodeEmitter::Block b(e, "");
      emitPartialSlot("blockIdx.x");
      e.line("#pragma unroll");
      CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
      e.line("#pragma unroll");
      e.line("for (int i = 0; i < BN / 2; ++i) part_slot[(m * (BN / 2) + i) * 128] = acc[m][i];");
    }
    e.line("named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, EPILOGUE_BAR_THREADS);");
    e.line("if (leader) flag_release(sk_flags + blockIdx.x * CONSUMERS + consumer);");
  }

  void emitAddPartials() {
    e.comment("stream-K: every later CTA whose share starts inside this unit left its partial");
    e.comment("sum; take each one's flag (acquire, then back to 0 for the next launch), add it");
    e.line("const long long unit_end = (long long)(slot + 1) * (k_blocks > 0 ? k_blocks : 1);");
    CodeEmitter::Block loop(e, "for (int c2 = blockIdx.x + 1; c2 < (int)gridDim.x && "
                               "sk_share_begin(c2, gridDim.x, batch_slots, k_blocks) < unit_end; "
                               "++c2)");
    e.line("if (leader) flag_take(sk_flags + c2 * CONSUMERS + consumer);");
    e.line("named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, EPILOGUE_BAR_THREADS);");
    emitPartialSlot("c2");
    e.line("#pragma unroll");
    CodeEmitter::Block ms(e, "for (int m = 0; m < WG_MMAS; ++m)");
    e.line("#pragma unroll");
    e.line("for (int i = 0; i < BN / 2; ++i) acc[m][i] += part_slot[(m * (BN / 2) + i) * 128];");
  }

  void emitStoreAcc(const Op &) { sm90::emitStagingStore(e, k, cloadBarrier() != nullptr); }

  const Kernel &k;
  const EmitOptions &opts;
  CodeEmitter e;
  bool isProducer = false;
  int depthInTileLoop = 0;
  bool inLeaderGuard = false;
  bool underNoK = false; ///< emitting the K = 0 branch's body
};

} // namespace

llvm::Error gemmgen::emitSm90(const Kernel &kernel, const EmitOptions &options,
                              llvm::raw_ostream &os) {
  return Sm90Printer(kernel, options, os).print();
}

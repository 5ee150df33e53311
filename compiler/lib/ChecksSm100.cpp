//===- ChecksSm100.cpp - Target and protocol checks for sm_100a specs -----===//
//
// checkSpecSm100() is checkSpec() for `target: sm_100a`. The model checked
// is the kernel LoweringSm100.cpp builds, the seed's hgemm_v7/v8/v9:
//
//   roles        one tma_load role of 1 warp; one mma role of `consumers`
//                warps (one elected thread each issues tcgen05.mma); one
//                epilogue role of `consumers` warpgroups starting at a
//                multiple of 4 warps (warp w reads TMEM lanes 32·(w % 4)..)
//   tile         tile.m = 128 (TMEM lanes per CTA), tile.n = MMA N (16..256,
//                ×16; ×64 for the TMA store), tile.k = 64 (128-byte swizzle)
//   cta_group    1 (cluster 1×1) or 2 (cluster {m: 2, n: 1}: the CTA pair)
//   TMEM         tmem_columns per consumer: a power of two from 32 to 512,
//                ≥ tile.n, consumers × tmem_columns ≤ 512
//   barriers     tma2mma (tma, depth, 1 arrival + both CTAs' bytes, phase 0)
//                mma2tma (commit, depth, consumers arrivals, phase 1,
//                         cta_mask 0b11 with the pair)
//                mma2ld  (commit, consumers, 1 arrival, phase 0, cta_mask
//                         0b11 with the pair)
//                ld2mma  (mbarrier, consumers, 128 × cta_group arrivals,
//                         phase 1)
//                epilogue (named, consumers, 128 threads, ids id..id+C-1)
//
// Diagnostics follow Checks.cpp: located at the value at fault, naming the
// key, saying what to write and, for barriers, what would go wrong.
//
//===----------------------------------------------------------------------===//
#include "ChecksCommon.h"

#include "gemmgen/Checks.h"
#include "gemmgen/KernelPlan.h"

#include "llvm/ADT/StringRef.h"

#include <string>

using namespace gemmgen;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

constexpr unsigned kMaxTmemColumns = 512;

std::string str(unsigned v) { return std::to_string(v); }
bool isPow2(unsigned v) { return v && (v & (v - 1)) == 0; }

/// The sm_100a protocol's barriers by their seed names.
enum class Bar { Tma2Mma, Mma2Tma, Mma2Ld, Ld2Mma, Epilogue, Unknown };

Bar protocolBarrier(StringRef n) {
  std::optional<ProtocolBarrier> b = protocolBarrierNamed(n, Target::SM100a);
  if (!b)
    return Bar::Unknown;
  switch (*b) {
  case ProtocolBarrier::Full: return Bar::Tma2Mma;
  case ProtocolBarrier::Empty: return Bar::Mma2Tma;
  case ProtocolBarrier::AccReady: return Bar::Mma2Ld;
  case ProtocolBarrier::AccFree: return Bar::Ld2Mma;
  case ProtocolBarrier::Epilogue: return Bar::Epilogue;
  case ProtocolBarrier::CLoad:
  case ProtocolBarrier::Order: return Bar::Unknown; // sm_90a only
  }
  return Bar::Unknown;
}

ProtocolBarrier planBarrier(Bar b) {
  switch (b) {
  case Bar::Tma2Mma: return ProtocolBarrier::Full;
  case Bar::Mma2Tma: return ProtocolBarrier::Empty;
  case Bar::Mma2Ld: return ProtocolBarrier::AccReady;
  case Bar::Ld2Mma: return ProtocolBarrier::AccFree;
  default: return ProtocolBarrier::Epilogue;
  }
}

using checks::findTask;

class Sm100Checker {
public:
  Sm100Checker(const KernelSpec &spec, DiagnosticEngine &diags, const CheckOptions &options)
      : spec(spec), diags(diags), options(options) {}

  bool run() {
    unsigned before = diags.errorCount();
    checkTypes();
    checkCtaGroup();
    checkPipeline();
    checkTile();
    checkTmem();
    checkEpilogue();
    checkRoles();
    if (diags.errorCount() == before)
      checkSharedMemory();
    if (options.protocol)
      checkBarriers();
    else
      checks::checkBarrierEnds(spec, diags);
    return diags.errorCount() == before;
  }

private:
  void error(SMLoc loc, const llvm::Twine &msg) { diags.error(loc, msg); }
  void warning(SMLoc loc, const llvm::Twine &msg) { diags.warning(loc, msg); }

  unsigned G() const { return spec.ctaGroup.value; }
  unsigned C() const { return spec.consumers.value; }

  void checkTypes() {
    const TypesSpec &t = spec.types;
    auto sixteenBit = [](ScalarType x) { return x == ScalarType::F16 || x == ScalarType::BF16; };
    const bool fp8 = isFp8(t.a.value);
    bool aOk = sixteenBit(t.a.value) || fp8;
    if (!aOk)
      error(t.a.loc, std::string("types.a ") + toString(t.a.value) +
                         " is not supported: the sm_100a generator issues tcgen05.mma "
                         "kind::f16 (f16 or bf16 operands) or kind::f8f6f4 (e4m3 or e5m2); use "
                         "a: f16, bf16, e4m3 or e5m2");
    if (aOk && !fp8 && t.b.value != t.a.value)
      error(t.b.loc, std::string("types.b (") + toString(t.b.value) + ") must equal types.a (" +
                         toString(t.a.value) + "); use b: " + toString(t.a.value));
    if (fp8 && !isFp8(t.b.value))
      error(t.b.loc, std::string("types.b ") + toString(t.b.value) + " with types.a " +
                         toString(t.a.value) + ": kind::f8f6f4 takes both operands 8-bit (any "
                         "pair of e4m3 and e5m2); use b: e4m3 or b: e5m2");
    if (aOk && !fp8 && t.d.value != t.a.value)
      error(t.d.loc, std::string("types.d ") + toString(t.d.value) +
                         " is not supported yet: with 16-bit operands the output type must "
                         "equal the operand type; use d: " + toString(t.a.value));
    if (fp8 && !sixteenBit(t.d.value))
      error(t.d.loc, std::string("types.d ") + toString(t.d.value) +
                         " with 8-bit operands is not supported on sm_100a yet: its writeback "
                         "stores 16-bit D (an 8-bit D with output scale and amax is sm_90a's); "
                         "use d: bf16 or d: f16");
    if (fp8 && t.scaling.value == ScalingMode::Blockwise)
      error(t.scaling.loc, "types.scaling: blockwise is not supported on sm_100a yet: its "
                           "accumulator lives in TMEM, where the per-k-block promotion of the "
                           "sm_90a kernels has no form here; use scaling: per_tensor, or an "
                           "sm_90a spec");
    if (t.accumulate.value != ScalarType::F32)
      error(t.accumulate.loc, std::string("types.accumulate ") + toString(t.accumulate.value) +
                                  " is not supported: gemmgen accumulates in f32 (TMEM); use "
                                  "accumulate: f32");
    if (spec.layout.a.value != MatrixLayout::Row)
      error(spec.layout.a.loc, "layout.a: col is not supported yet: gemmgen loads A K-major "
                               "(M×K, row-major); use layout.a: row");
    if (spec.layout.b.value != MatrixLayout::Col)
      error(spec.layout.b.loc, "layout.b: row is not supported yet: gemmgen loads B K-major "
                               "(N×K, row-major, i.e. B^T); use layout.b: col");
    if (spec.layout.d.value != MatrixLayout::Row)
      error(spec.layout.d.loc, "layout.d: col is not supported on sm_100a yet: its writeback "
                               "stores D row-major; use layout.d: row, or target: sm_90a");
    if (spec.epilogue.buffers.value > 1)
      error(spec.epilogue.buffers.loc,
            "epilogue.buffers 2 is not supported on sm_100a yet: its writeback waits for each "
            "TMA store; use buffers: 1");
    if (spec.scheduler.kind.value == SchedulerKind::StreamK)
      error(spec.scheduler.kind.loc,
            "scheduler.kind: stream_k is not supported on sm_100a yet (its writeback has no "
            "partial-sum hand-over); use kind: persistent, or an sm_90a spec");
    if (spec.scheduler.consumers.value == ConsumerMode::PingPong)
      error(spec.scheduler.consumers.loc,
            "scheduler.consumers: pingpong is an sm_90a schedule: on sm_100a the writeback "
            "warpgroups already drain TMEM while the MMA warp works on the next tile; use "
            "consumers: cooperative");
    if (spec.scheduler.splitK.value > 1)
      error(spec.scheduler.splitK.loc,
            "scheduler.split_k is not supported on sm_100a yet (the reduction reads an f32 "
            "batch, which its kernels do not write); use split_k: 1, or an sm_90a spec");
    if (spec.scheduler.simtNarrow.value > 0)
      error(spec.scheduler.simtNarrow.loc,
            "scheduler.simt_narrow is an sm_90a runtime path (measured there only); remove it, "
            "or use an sm_90a spec");
    if (spec.scheduler.ctasPerSm.value > 1)
      error(spec.scheduler.ctasPerSm.loc,
            "scheduler.ctas_per_sm " + std::to_string(spec.scheduler.ctasPerSm.value) +
                " is not supported on sm_100a (its kernels own the SM's tensor memory); use "
                "ctas_per_sm: 1");
    if (spec.scheduler.grouped.value)
      error(spec.scheduler.grouped.loc,
            "scheduler.grouped is not supported on sm_100a yet: its kernels compute one problem "
            "per launch; launch once per problem, or use an sm_90a spec");
  }

  void checkCtaGroup() {
    const ClusterSpec &c = spec.cluster;
    unsigned g = G();
    if (g == 2 && (c.m.value != 2 || c.n.value != 1)) {
      SMLoc at = c.m.given ? c.m.loc : spec.ctaGroup.loc;
      error(at, "cta_group 2 needs cluster { m: 2, n: 1 }: the two CTAs of one cooperative "
                "tcgen05.mma are the two CTAs of the cluster (the seed's CTA_GROUP = 2); got "
                "cluster " + str(c.m.value) + " × " + str(c.n.value) +
                "; write 'cluster: { m: 2, n: 1 }'");
    } else if (g == 1 && (c.m.value != 1 || c.n.value != 1)) {
      SMLoc at = c.m.value != 1 ? c.m.loc : c.n.loc;
      error(at, "cluster " + str(c.m.value) + " × " + str(c.n.value) +
                    " with cta_group 1 is not supported by the sm_100a generator (it does not "
                    "multicast); use cta_group: 2 with cluster { m: 2, n: 1 } (the seed's step "
                    "8) or cluster { m: 1, n: 1 }");
    }
  }

  void checkPipeline() {
    const PipelineSpec &p = spec.pipeline;
    if (p.depth.value < 2)
      error(p.depth.loc, "pipeline.depth " + str(p.depth.value) +
                             " cannot overlap the TMA load of the next k-block with the MMA of "
                             "this one; use depth: 2 or more (the seed uses 2 and 4)");
    if (p.mmaInFlight.given)
      error(p.mmaInFlight.keyLoc,
            "pipeline.mma_in_flight is a wgmma setting (sm_90a); on sm_100a each stage is "
            "released by tcgen05.commit when its MMAs complete: remove it");
    if (C() < 1 || C() > 2)
      error(spec.consumers.loc, "consumers " + str(C()) +
                                    " is not supported on sm_100a: TMEM has 512 columns and "
                                    "the generator gives each consumer at least a 128-column "
                                    "accumulator in one of two writeback warpgroups; use 1 or 2");
  }

  void checkTile() {
    const TileSpec &t = spec.tile;
    const unsigned wantK = tileKFor(spec.types.a.value);
    if (t.k.value != wantK)
      error(t.k.loc, "tile.k must be " + str(wantK) + " for " +
                         str(8 * sizeInBytes(spec.types.a.value)) + "-bit operands: one "
                         "128-byte swizzled TMA box row per k-block (the seed's BLK_K); use k: " +
                         str(wantK));
    if (t.m.value != 128)
      error(t.m.loc, "tile.m " + str(t.m.value) + ": on sm_100a tile.m is the rows of D per "
                     "consumer per CTA, one per TMEM lane; the generator supports 128 (the "
                     "seed's BLK_M); use m: 128");
    unsigned n = t.n.value, minN = G() == 2 ? 32 : 16;
    if (n % 64 != 0 || n < minN || n > 256)
      error(t.n.loc, "tile.n " + str(n) + ": on sm_100a tile.n is the columns of D per CTA "
                     "(tcgen05.mma N, the seed's MMA_N): a multiple of 64 (64-column TMA "
                     "store slabs) up to 256; use 128 or 256");
    else if (G() == 2 && (n / 2) % 64 != 0)
      error(t.n.loc, "tile.n " + str(n) + " with cta_group 2: each CTA loads tile.n / 2 = " +
                         str(n / 2) + " B rows; the generator needs a multiple of 64; use 128 "
                         "or 256");
  }

  void checkTmem() {
    const Located<unsigned> &tc = spec.tmemColumns;
    unsigned cols = tmemColumnsPerConsumer(spec);
    if (tc.given && tc.value != 0) {
      if (!isPow2(cols) || cols < 32 || cols > kMaxTmemColumns) {
        unsigned fix = 32;
        while (fix < cols && fix < kMaxTmemColumns)
          fix <<= 1;
        error(tc.loc, "tmem_columns " + str(cols) + " is not a TMEM allocation: tcgen05.alloc "
                      "takes a power of two from 32 to 512 columns; use " + str(fix));
        return;
      }
      if (cols < spec.tile.n.value) {
        error(tc.loc, "tmem_columns " + str(cols) + " is less than tile.n (" +
                          str(spec.tile.n.value) + "): each consumer's f32 accumulator takes "
                          "one TMEM column per output column; use tmem_columns: " +
                          str(spec.tile.n.value < 32 ? 32 : spec.tile.n.value));
        return;
      }
    }
    if (C() >= 1 && C() <= 2 && cols * C() > kMaxTmemColumns) {
      SMLoc at = tc.given ? tc.loc : spec.tile.n.loc;
      error(at, std::to_string(C()) + " consumers × " + str(cols) + " TMEM columns = " +
                    str(cols * C()) + " columns, more than the 512 of an SM's tensor memory; "
                    "use tmem_columns: " + str(kMaxTmemColumns / C()));
    }
  }

  void checkEpilogue() {
    const EpilogueSpec &e = spec.epilogue;
    if (e.store.value != EpilogueStore::Tma)
      error(e.store.loc, "epilogue.store: direct is not supported on sm_100a yet: the writeback "
                         "warpgroups stage through SMEM and store with TMA (the seed's "
                         "epilogue); use store: tma");
    if (e.overlap.value)
      error(e.overlap.given ? e.overlap.loc : e.store.loc,
            "epilogue.overlap: true is not supported on sm_100a yet: the seed's writeback "
            "waits for each TMA store before reusing its staging tile; write 'overlap: false'");
    if (e.chunkN.given && e.chunkN.value) {
      unsigned c = e.chunkN.value, n = spec.tile.n.value;
      if (c % 64 != 0 || n % c != 0)
        error(e.chunkN.loc, "epilogue.chunk_n " + str(c) + " must be a multiple of 64 that "
                            "divides tile.n (" + str(n) + "): the TMA store writes 64-column "
                            "slabs; use 64 (the seed's EPI_N)");
      else if (c > 128)
        error(e.chunkN.loc, "epilogue.chunk_n " + str(c) + " would hold " + str(c) +
                                " f32 accumulator values per writeback thread; at most 128 fit "
                                "the registers; use 64 or 128");
    } else if (epilogueChunkColumns(spec) > 128) {
      error(spec.tile.n.loc, "tile.n " + str(spec.tile.n.value) + " needs epilogue.chunk_n "
                             "(at most 128 columns per writeback round); add 'epilogue: { "
                             "chunk_n: 64 }'");
    }
  }

  void checkRoles() {
    std::vector<const RoleSpec *> loaders, mmas, epis;
    for (const RoleSpec &r : spec.roles) {
      if (findTask(r, RoleTask::TmaLoad))
        loaders.push_back(&r);
      if (findTask(r, RoleTask::Mma))
        mmas.push_back(&r);
      if (findTask(r, RoleTask::Epilogue))
        epis.push_back(&r);
      if (r.registers.given)
        warning(r.registers.loc, "roles." + r.name.value + ".registers is ignored on sm_100a: "
                                 "the generator emits no setmaxnreg (the seed does not either)");
    }
    SMLoc anchor = spec.rolesLoc.isValid() ? spec.rolesLoc : spec.loc;
    auto exactlyOne = [&](std::vector<const RoleSpec *> &v, const char *task, const char *eg) {
      if (v.empty())
        error(anchor, std::string("no role does ") + task + "; add one, e.g. '" + eg + "'");
      for (size_t i = 1; i < v.size(); ++i)
        error(v[i]->loc, "roles '" + v[0]->name.value + "' and '" + v[i]->name.value +
                             "' both do " + task + "; exactly one role does it");
    };
    exactlyOne(loaders, "tma_load", "producer: { warps: 1, warp: 11, does: tma_load }");
    exactlyOne(mmas, "mma", "mma: { warps: 2, warp: 8, does: mma }");
    exactlyOne(epis, "epilogue", "writeback: { warpgroups: 2, warp: 0, does: epilogue }");
    if (loaders.size() != 1 || mmas.size() != 1 || epis.size() != 1)
      return;
    const RoleSpec &P = *loaders[0], &M = *mmas[0], &W = *epis[0];
    if (&P == &M || &P == &W || &M == &W) {
      const RoleSpec &r = &P == &M || &P == &W ? P : M;
      error(r.loc, "role '" + r.name.value + "' does several of tma_load, mma and epilogue; "
                   "on sm_100a they are three roles on their own warps (producer warp, MMA "
                   "issue warps, writeback warpgroups; the accumulators live in TMEM)");
      return;
    }
    if (P.warpgroups.given || P.warps.value != 1)
      error(P.warpgroups.given ? P.warpgroups.keyLoc : P.warps.loc,
            "roles." + P.name.value + ": the producer is one warp (one elected thread issues "
            "the TMA loads); write 'warps: 1'");
    if (M.warpgroups.given || M.warps.value != C())
      error(M.warpgroups.given ? M.warpgroups.keyLoc : M.warps.loc,
            "roles." + M.name.value + ": one MMA issue warp per consumer (consumers is " +
                str(C()) + "); write 'warps: " + str(C()) + "'");
    if (W.warps.given || W.warpgroups.value != C())
      error(W.warps.given ? W.warps.keyLoc : W.warpgroups.loc,
            "roles." + W.name.value + ": one writeback warpgroup per consumer (consumers is " +
                str(C()) + "); write 'warpgroups: " + str(C()) + "'");
    // Placement (derived: writeback 0.., MMA 4C.., producer 4C+3).
    unsigned wbFirst = W.firstWarp.value.value_or(0);
    unsigned mmaFirst = M.firstWarp.value.value_or(4 * C());
    unsigned pWarp = P.firstWarp.value.value_or(4 * C() + 3);
    if (wbFirst % 4 != 0)
      error(W.firstWarp.loc, "roles." + W.name.value + ".warp " + str(wbFirst) +
                                 ": a writeback warpgroup must start at a multiple of 4 warps "
                                 "(warp w may read only TMEM lanes 32·(w % 4) .. 32·(w % 4) + "
                                 "31); use warp: " + str(wbFirst / 4 * 4));
    struct Span {
      const RoleSpec *role;
      unsigned first, count;
    } spans[] = {{&W, wbFirst, 4 * C()}, {&M, mmaFirst, C()}, {&P, pWarp, 1}};
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j) {
        const Span &a = spans[i], &b = spans[j];
        if (a.first < b.first + b.count && b.first < a.first + a.count) {
          const Span &at = b.role->firstWarp.given ? b : a;
          error(at.role->firstWarp.given ? at.role->firstWarp.loc : at.role->loc,
                "roles '" + a.role->name.value + "' (warps " + str(a.first) + ".." +
                    str(a.first + a.count - 1) + ") and '" + b.role->name.value + "' (warps " +
                    str(b.first) + ".." + str(b.first + b.count - 1) +
                    ") overlap; give each role its own warps (the seed: writeback 0.." +
                    str(4 * C() - 1) + ", MMA " + str(4 * C()) + "..," + " producer " +
                    str(4 * C() + 3) + ")");
        }
      }
    unsigned top = 0;
    for (const Span &s : spans)
      top = std::max(top, s.first + s.count);
    if (top * 32 > 1024)
      error(anchor, "the roles need " + str(top * 32) + " threads per CTA, more than 1024");
    rolesOk = true;
    producer = &P, mma = &M, writeback = &W;
  }

  void checkSharedMemory() {
    unsigned bytes = derivePlan(spec, Declarations::Ignore).sharedMemBytes;
    if (bytes <= kMaxSharedBytesPerBlock)
      return;
    unsigned fits = 0;
    for (unsigned d = spec.pipeline.depth.value; d-- > 2;) {
      KernelSpec copy = spec;
      copy.pipeline.depth.value = d;
      if (derivePlan(copy, Declarations::Ignore).sharedMemBytes <= kMaxSharedBytesPerBlock) {
        fits = d;
        break;
      }
    }
    error(spec.pipeline.depth.loc,
          "the spec needs " + str(bytes) + " bytes of shared memory per block (" +
              str(spec.pipeline.depth.value) + " stages of A and B, the output staging, "
              "barriers and 1024 bytes of alignment slack), more than the " +
              str(kMaxSharedBytesPerBlock) + " bytes (227 KB) an sm_100a block can use; " +
              (fits ? "use pipeline.depth: " + str(fits)
                    : std::string("use a smaller epilogue.chunk_n or tile")));
  }

  bool checkRoleName(const Located<std::string> &ref, const std::string &path) {
    return checks::checkRoleName(spec, diags, ref, path);
  }

  void checkBarriers() {
    const BarrierSpec *seen[kProtocolBarriers] = {};
    for (const BarrierSpec &b : spec.barriers) {
      std::string path = "barriers." + b.name.value;
      bool ok = checkRoleName(b.from, path + ".from") & checkRoleName(b.to, path + ".to");
      Bar which = protocolBarrier(b.name.value);
      if (which == Bar::Unknown) {
        error(b.name.loc, "unknown barrier '" + b.name.value + "' for sm_100a; the sm_100a "
                          "protocol has 'tma2mma' (or 'full'), 'mma2tma' (or 'empty'), "
                          "'mma2ld', 'ld2mma' and 'epilogue': declare one of those or remove "
                          "it");
        continue;
      }
      if (!checks::firstDeclaration(seen[int(which)], b, diags))
        continue;
      if (ok && rolesOk)
        checkBarrier(b, which);
    }
  }

  /// What the plan derives for barrier `which` (declarations ignored).
  struct Want {
    std::string from, to;
    BarrierKind kind;
    unsigned slots;
    const char *slotsWord;
    unsigned arrivals;
    int phase; ///< -1: none (named)
    unsigned txBytes, ctaMask;
  };

  Want want(Bar which) const {
    const BarrierPlan &b = *plan.findBarrier(planBarrier(which));
    return {b.signaller, b.waiter, b.kind, b.slots, b.slotsKey, b.arrivals,
            b.kind == BarrierKind::Named ? -1 : int(b.waiterPhase), b.txBytes, b.ctaMask};
  }

  void checkBarrier(const BarrierSpec &b, Bar which) {
    const std::string path = "barriers." + b.name.value;
    Want w = want(which);
    if (b.from.given && b.from.value != w.from)
      error(b.from.loc, path + ".from must be '" + w.from + "', got '" + b.from.value + "'");
    if (b.to.given && b.to.value != w.to)
      error(b.to.loc, path + ".to must be '" + w.to + "', got '" + b.to.value + "'");
    if (b.kind.given && b.kind.value != w.kind) {
      const char *why = which == Bar::Tma2Mma ? "TMA completes it with transaction bytes"
                        : which == Bar::Ld2Mma ? "the writeback threads arrive on it"
                        : which == Bar::Epilogue ? "one writeback warpgroup syncs with bar.sync"
                                                 : "tcgen05.commit arrives when the MMAs "
                                                   "complete";
      error(b.kind.loc, path + ".kind must be " + toString(w.kind) + " (" + why + "), got " +
                            toString(b.kind.value));
    }
    if (b.slots.given && b.slots.value && *b.slots.value != w.slots)
      error(b.slots.loc, path + ".slots is " + str(*b.slots.value) + " but the protocol needs " +
                             str(w.slots) + " (one per " +
                             (std::string(w.slotsWord) == "depth" ? "pipeline stage"
                                                                  : "consumer") +
                             "); use slots: " + w.slotsWord);
    if (b.arrivals.given && b.arrivals.value && *b.arrivals.value != w.arrivals)
      error(b.arrivals.loc, arrivalsMessage(b, which, *b.arrivals.value, w));
    if (b.initialPhase.given && b.initialPhase.value) {
      unsigned got = *b.initialPhase.value;
      if (w.phase < 0)
        error(b.initialPhase.keyLoc, path + ".phase: a named barrier (bar.sync) has no phase; "
                                            "remove it");
      else if (int(got) != w.phase)
        error(b.initialPhase.loc,
              path + ".phase " + str(got) + ": role '" + w.to + "' " +
                  (w.phase == 0 ? "must wait for the first completion of '" + b.name.value +
                                      "' (phase 0); phase 1 passes at once and reads before "
                                      "role '" + w.from + "' has produced anything (race)"
                                : "starts owning what '" + b.name.value +
                                      "' hands back, so its first wait must pass (phase 1); "
                                      "phase 0 waits for a release that comes only after it "
                                      "has worked (deadlock)") +
                  "; use phase: " + str(unsigned(w.phase)));
    }
    if (b.txBytes.given && b.txBytes.value) {
      unsigned want = w.txBytes;
      if (which != Bar::Tma2Mma)
        error(b.txBytes.keyLoc, path + ".tx_bytes applies only to the TMA barrier; remove it");
      else if (*b.txBytes.value != want)
        error(b.txBytes.loc,
              path + ".tx_bytes is " + str(*b.txBytes.value) + " but each stage receives " +
                  str(want) + " bytes (cta_group × (consumers × tile.m + tile.n / cta_group) × "
                  "tile.k × 2: both CTAs' loads complete on the leader's barrier): " +
                  (*b.txBytes.value < want ? "the MMA could read before all data has landed "
                                             "(race)"
                                           : "the barrier would never complete (deadlock)") +
                  "; use tx_bytes: " + str(want) + " or leave it out");
    }
    if (b.ctaMask.given && b.ctaMask.value) {
      unsigned got = *b.ctaMask.value;
      if (which == Bar::Mma2Tma || which == Bar::Mma2Ld) {
        // With one CTA, mask 1 (this CTA) means the same as 0.
        bool ok = got == w.ctaMask || (w.ctaMask == 0 && got == 1);
        if (!ok)
          error(b.ctaMask.loc,
                path + ".cta_mask " + str(got) + ": " +
                    (G() == 2 ? "the cooperative MMA reads both CTAs' stages and writes both "
                                "CTAs' TMEM, so tcgen05.commit must reach both CTAs' '" +
                                    b.name.value + "'; otherwise role '" + w.to +
                                    "' in the other CTA waits forever (deadlock); use "
                                    "cta_mask: 0b11"
                              : std::string("with cta_group 1 the commit reaches this CTA "
                                            "only; use cta_mask: 0")));
      } else {
        error(b.ctaMask.keyLoc, path + ".cta_mask applies only to the commit barriers "
                                       "(mma2tma, mma2ld); remove it");
      }
    }
    if (b.id.given && b.id.value) {
      if (which != Bar::Epilogue)
        error(b.id.keyLoc, path + ".id applies only to named barriers (kind: named); remove it");
      else if (*b.id.value == 0 || *b.id.value + C() - 1 > 15)
        error(b.id.loc, path + ".id " + str(*b.id.value) + ": the barrier uses ids " +
                            str(*b.id.value) + " to " + str(*b.id.value + C() - 1) +
                            " (one per writeback warpgroup); id 0 is __syncthreads' and ids "
                            "end at 15; use id: 10 (the seed's)");
    }
  }

  std::string arrivalsMessage(const BarrierSpec &b, Bar which, unsigned got, const Want &w) {
    std::string path = "barriers." + b.name.value;
    std::string msg = path + ".arrivals is " + str(got) + " but ";
    bool fewer = got < w.arrivals;
    std::string effect =
        fewer ? "the phase would complete before every arrival, and role '" + w.to +
                    "' would proceed while role '" + w.from + "' still works on it (race)"
              : "the barrier would never complete and role '" + w.to +
                    "' would wait forever (deadlock)";
    switch (which) {
    case Bar::Tma2Mma:
      msg += "only the leader CTA's producer arrives, once per stage (arrive.expect_tx; the "
             "TMA bytes do the rest): ";
      break;
    case Bar::Mma2Tma:
      msg += str(C()) + " MMA warp(s) each commit once per stage (the seed's "
             "mma2tma.init(NUM_CONSUMER)): ";
      break;
    case Bar::Mma2Ld:
      msg += "one MMA warp commits once per tile to its consumer's slot: ";
      break;
    case Bar::Ld2Mma:
      msg += "the 128 threads of the consumer's writeback warpgroup in each of the " + str(G()) +
             " CTA(s) arrive (128 × cta_group): ";
      break;
    default:
      msg += "the named barrier counts the 128 threads of one writeback warpgroup: ";
      break;
    }
    return msg + effect + "; use arrivals: " + str(w.arrivals);
  }

  const KernelSpec &spec;
  DiagnosticEngine &diags;
  const CheckOptions &options;
  bool rolesOk = false;
  const RoleSpec *producer = nullptr, *mma = nullptr, *writeback = nullptr;
  const KernelPlan plan = derivePlan(spec, Declarations::Ignore);
};

} // namespace

bool gemmgen::checkSpecSm100(const KernelSpec &spec, DiagnosticEngine &diags,
                             const CheckOptions &options) {
  return Sm100Checker(spec, diags, options).run();
}

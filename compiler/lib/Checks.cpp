//===- Checks.cpp - Target and resource checks on a KernelSpec ------------===//
//
// checkSpec() takes a spec that parsed cleanly and checks it against what its
// target and gemmgen's generator can do. Every diagnostic is located at the
// value at fault (or at the key of the enclosing mapping when the value was
// left at its default), names the key, and says what to write instead.
//
// The model checked here is the sm_90a kernel that Lowering.cpp builds:
//
//   warpgroup 0            producer role: warp 0 issues TMA (elected lane);
//                          the whole warpgroup runs at the producer's
//                          setmaxnreg (it is per warpgroup)
//   warpgroups 1..C        consumer role, C = `consumers`: each warpgroup owns
//                          tile.m / C rows (64 or 128: one or two m64 wgmmas
//                          per k16 step) and keeps its accumulators in
//                          registers, so it also does the epilogue
//
//   shared memory          the plan's layout (KernelPlan.cpp): depth × (A
//                          stage + B stage), one output staging chunk,
//                          the mbarriers, alignment slack
//
//   barriers               the plan's protocol: full (tma2mma), empty
//                          (mma2tma) and the epilogue's named barrier; a
//                          declared value that differs from the plan is
//                          reported at its line with what would go wrong
//                          (ChecksProtocol.cpp)
//
// sm_100a specs are checked by checkSpecSm100() (ChecksSm100.cpp) against
// the seed's Blackwell kernel instead.
//
//===----------------------------------------------------------------------===//
#include "ChecksSm90.h"

#include "gemmgen/Checks.h"
#include "gemmgen/KernelPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

using namespace gemmgen;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

/// Shared memory of one SM (228 KB), of which each resident CTA reserves 1 KB.
constexpr unsigned kSharedBytesPerSM = 233472, kReservedSharedBytesPerCta = 1024;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxClusterCtas = 8;      ///< portable cluster size
/// Registers a consumer thread needs beside its accumulators (addresses,
/// descriptors, loop state). Less, and ptxas serialises wgmma (C7511).
constexpr unsigned kRegisterHeadroom = 32;
/// setmaxnreg values the lowering uses when a role gives none.
constexpr unsigned kDefaultProducerRegisters = 40;
constexpr unsigned kDefaultConsumerRegisters = 232;

std::string str(unsigned v) { return std::to_string(v); }

SMLoc rolesAnchor(const KernelSpec &spec) {
  return spec.rolesLoc.isValid() ? spec.rolesLoc : spec.loc;
}

using checks::findTask;
using checks::roleList;

unsigned producerRegisters(const RoleSpec &r) {
  return r.registers.value ? r.registers.value : kDefaultProducerRegisters;
}
unsigned consumerRegisters(const RoleSpec &r) {
  return r.registers.value ? r.registers.value : kDefaultConsumerRegisters;
}

} // namespace

namespace gemmgen::checks {

void Checker::checkTypesAndLayout() {
  const TypesSpec &t = spec.types;
  if (t.scaling.given && t.scaling.value == ScalingMode::Blockwise && !isFp8(t.a.value))
    error(t.scaling.loc, std::string("types.scaling: blockwise scales 8-bit operands (A per row "
                                     "per 128 K, B per 128x128 block), but types.a is ") +
                             toString(t.a.value) + "; use a: e4m3 or remove scaling");
  if (isFp8(t.a.value) || isFp8(t.b.value)) {
    checkFp8TypesAndLayout();
    return;
  }
  bool aOk = t.a.value == ScalarType::F16 || t.a.value == ScalarType::BF16;
  if (!aOk)
    error(t.a.loc, std::string("types.a ") + toString(t.a.value) +
                       " is not supported: wgmma takes f16, bf16, e4m3 or e5m2 operands here; "
                       "use a: f16 or a: bf16");
  if (aOk && t.b.value != t.a.value)
    error(t.b.loc, std::string("types.b (") + toString(t.b.value) + ") must equal types.a (" +
                       toString(t.a.value) + "): one wgmma takes both operands in one type; " +
                       "use b: " + toString(t.a.value));
  const bool f32Out = t.d.value == ScalarType::F32;
  if (aOk && t.d.value != t.a.value && !f32Out)
    error(t.d.loc, std::string("types.d ") + toString(t.d.value) +
                       " is not supported: the output type is the operand type or f32" +
                       (isFp8(t.d.value) ? " (an 8-bit D is written by kernels with 8-bit "
                                           "operands: a: e4m3 or e5m2)"
                                         : "") +
                       "; use d: " + toString(t.a.value) + " or d: f32");
  // (sm_100a specs are checked by ChecksSm100.cpp, which keeps d = a.)
  if (t.accumulate.value != ScalarType::F32)
    error(t.accumulate.loc, std::string("types.accumulate ") + toString(t.accumulate.value) +
                                " is not supported: gemmgen accumulates in f32; use "
                                "accumulate: f32");
  // A column-major or B row-major tile is loaded N-major in boxes of 64
  // elements, or one box of 16 or 32 (OperandLoadPlan); each CTA's B part
  // must be whole boxes.
  unsigned bRows = spec.tile.n.value / std::max(1u, spec.cluster.m.value);
  if (spec.layout.b.value == MatrixLayout::Row &&
      mnMajorSwizzleBytes(bRows, sizeInBytes(t.b.value)) == 0)
    error(spec.layout.b.loc,
          "layout.b: row loads B N-major in boxes of 64 columns, or one box of 16 or 32, but "
          "each CTA loads " +
              str(bRows) + " columns of B (tile.n " + str(spec.tile.n.value) + " / cluster.m " +
              str(spec.cluster.m.value) +
              "); use a tile.n that is a multiple of 64 × cluster.m (or 16 or 32 × cluster.m), "
              "or layout.b: col");
}

/// layout.d: col. The consumers write the staging tile transposed (stmatrix
/// .trans: a 128-byte row per output column, 64 rows of D along it) and the
/// TMA store boxes run along M; with split_k the slices store row-major f32
/// and the runtime's reduction writes D column-major; stream-K adds the
/// partial sums in registers before the same store. Built for a 16-bit D
/// computed from 16-bit operands by one problem's walk (persistent, split or
/// stream-K); the rest is refused here.
void Checker::checkOutputLayout() {
  const Located<MatrixLayout> &d = spec.layout.d;
  if (d.value != MatrixLayout::Col)
    return;
  const std::string what = "layout.d: col";
  const SchedulerSpec &s = spec.scheduler;
  const ScalarType out = s.splitK.value > 1 ? s.splitOut : spec.types.d.value;
  if (sizeInBytes(out) != 2 || isFp8(spec.types.a.value))
    error(d.loc, what + " with types " + toString(spec.types.a.value) + " -> " + toString(out) +
                     ": the transposed store is built for 16-bit operands and a 16-bit D "
                     "(stmatrix .trans); use f16 or bf16 throughout, or layout.d: row");
  if (s.grouped.value)
    error(s.grouped.loc, what + " with scheduler.grouped: the problems' table describes "
                                "row-major outputs; use layout.d: row");
  if (!spec.epilogue.chain.empty())
    error(spec.epilogue.chainLoc.isValid() ? spec.epilogue.chainLoc : d.loc,
          what + " with epilogue.chain: the chain's bias axes are not transposed yet; remove "
                 "the chain or use layout.d: row");
}

/// 8-bit operands: wgmma's k32 forms take any pair of e4m3/e5m2, read both
/// K-major (imm-trans is for 16-bit types only), and the per-tensor scales
/// fold into alpha in the TMA-store epilogue of one problem.
void Checker::checkFp8TypesAndLayout() {
  const TypesSpec &t = spec.types;
  if (!isFp8(t.a.value))
    error(t.a.loc, std::string("types.a ") + toString(t.a.value) + " with types.b " +
                       toString(t.b.value) + ": one wgmma takes both operands 8-bit or both "
                       "16-bit; use a: e4m3 or a: e5m2");
  if (!isFp8(t.b.value))
    error(t.b.loc, std::string("types.b ") + toString(t.b.value) + " with types.a " +
                       toString(t.a.value) + ": one wgmma takes both operands 8-bit or both "
                       "16-bit; use b: e4m3 or b: e5m2");
  if (isFp8(t.d.value))
    checkFp8Output();
  if (t.accumulate.value != ScalarType::F32)
    error(t.accumulate.loc, std::string("types.accumulate ") + toString(t.accumulate.value) +
                                " is not supported: gemmgen accumulates in f32; use "
                                "accumulate: f32");
  if (spec.layout.a.value == MatrixLayout::Col)
    error(spec.layout.a.loc,
          "layout.a: col with 8-bit types.a: wgmma reads 8-bit operands K-major only (its "
          "transpose flags are for 16-bit types), so fp8 kernels are compiled with layout.a: "
          "row and the runtime copies a column-major A transposed before the GEMM "
          "(GemmArgs::layoutA Col: one more read and write of A); use layout.a: row");
  if (spec.layout.b.value == MatrixLayout::Row)
    error(spec.layout.b.loc,
          "layout.b: row with 8-bit types.b: wgmma reads 8-bit operands K-major only (its "
          "transpose flags are for 16-bit types), so fp8 kernels are compiled with layout.b: "
          "col and the runtime copies a row-major B transposed before the GEMM "
          "(GemmArgs::layoutB Row: one more read and write of B); use layout.b: col");
  const SchedulerSpec &s = spec.scheduler;
  // Split-K: the slices' kernel applies the scales (per tensor: in alpha;
  // blockwise: per k-block, with B's scales laid out per slice by the
  // runtime) to f32 partial sums, and the reduction writes a 16-bit or f32 D.
  if (s.splitK.value > 1 && isFp8(s.splitOut))
    error(s.splitK.loc, "scheduler.split_k " + str(s.splitK.value) + " with types.d " +
                            toString(s.splitOut) + ": the split-K reduction writes bf16, f16 or "
                            "f32, and an 8-bit D's output scale and amax are the GEMM kernel's; "
                            "use d: bf16 or split_k: 1");
  if (s.grouped.value)
    error(s.grouped.loc, "scheduler.grouped with 8-bit operands: the problems' table has no "
                         "per-problem scales yet; use grouped: false");
  // Blockwise scales take any tile.n (a multiple of 64): a tile starts at a
  // 128-column scale block's edge or halfway into one, and the promotion has
  // a form for each.
}

/// An 8-bit D: the consumers convert pairs with cvt.rn.satfinite to fp8 after
/// the output scale (GemmArgs::scaleD) and keep the amax of the values before
/// it; the staging slab is 128 fp8 columns (one 128-byte swizzled row).
void Checker::checkFp8Output() {
  const TypesSpec &t = spec.types;
  const std::string d = std::string("types.d ") + toString(t.d.value);
  if (spec.tile.n.value % 128 != 0)
    error(spec.tile.n.loc, "tile.n " + str(spec.tile.n.value) + " with " + d +
                               ": the TMA store writes 128-column slabs of an 8-bit D (one "
                               "128-byte swizzled row), and a tile holds whole slabs; use "
                               "tile.n: 128 or 256");
  for (const EpilogueOpSpec &op : spec.epilogue.chain)
    if (op.kind.value == EpilogueOpKind::Scale)
      error(op.loc, "'scale' with " + d + ": an 8-bit D is already multiplied by its output "
                    "scale (GemmArgs::scaleD) at the conversion, after the amax is taken; "
                    "remove the chain's scale step");
}

void Checker::checkCluster() {
  const ClusterSpec &c = spec.cluster;
  unsigned ctas = c.m.value * c.n.value;
  if (ctas > kMaxClusterCtas) {
    error(c.m.loc, "cluster is " + str(c.m.value) + " × " + str(c.n.value) + " = " + str(ctas) +
                       " CTAs; at most " + str(kMaxClusterCtas) +
                       " CTAs per cluster are portable; use { m: 2, n: 1 }");
    return;
  }
  if (c.n.value != 1)
    error(c.n.loc, "cluster.n " + str(c.n.value) +
                       " is not supported by the sm_90a generator yet (it multicasts B "
                       "between CTAs along M only); use n: 1");
  if (c.m.value != 1 && c.m.value != 2)
    error(c.m.loc, "cluster.m " + str(c.m.value) +
                       " is not supported by the sm_90a generator yet (larger clusters were "
                       "slower on Hopper); use m: 1 or m: 2");
  if (spec.ctaGroup.value != 1)
    error(spec.ctaGroup.loc, "cta_group " + str(spec.ctaGroup.value) +
                                 " is an sm_100a feature (tcgen05 pair MMA); on sm_90a use "
                                 "cta_group: 1 or leave it out");
  if (spec.tmemColumns.given)
    error(spec.tmemColumns.keyLoc,
          "tmem_columns is an sm_100a key: sm_90a has no tensor memory (accumulators live in "
          "registers); remove it");
}

void Checker::checkPipeline() {
  const PipelineSpec &p = spec.pipeline;
  // A ring too shallow for the MMAs left in flight is a protocol error (it
  // deadlocks); with protocol checks off it reaches the simulator, which
  // shows the deadlock.
  if (options.protocol && p.depth.value < 2)
    error(p.depth.loc, "pipeline.depth " + str(p.depth.value) +
                           " cannot overlap the TMA load of the next k-block with the MMA of "
                           "this one (the producer waits until the only stage is released); "
                           "use depth: 2 or more (4 is typical)");
  else if (options.protocol && p.mmaInFlight.value >= p.depth.value)
    error(p.mmaInFlight.loc, "pipeline.mma_in_flight " + str(p.mmaInFlight.value) +
                                 " must be less than pipeline.depth (" + str(p.depth.value) +
                                 "): a stage read by an unfinished wgmma cannot be refilled; "
                                 "use mma_in_flight: 1 with depth 2 or more");
  else if (p.mmaInFlight.value == 0 && !blockwiseScaling())
    warning(p.mmaInFlight.loc, "pipeline.mma_in_flight 0 waits for every wgmma to finish before "
                               "the next k-block is issued, which leaves the tensor cores idle; "
                               "use mma_in_flight: 1");
  if (spec.consumers.value > 2)
    error(spec.consumers.loc, "consumers " + str(spec.consumers.value) +
                                  " is not supported on sm_90a: with the producer warpgroup "
                                  "and 232 registers per consumer thread only 2 consumer "
                                  "warpgroups fit an SM's 65536 registers; use 1 or 2");
}

void Checker::checkRoles() {
  // Who does what.
  std::vector<const RoleSpec *> loaders, mmas, epilogues;
  for (const RoleSpec &r : spec.roles) {
    if (findTask(r, RoleTask::TmaLoad))
      loaders.push_back(&r);
    if (findTask(r, RoleTask::Mma))
      mmas.push_back(&r);
    if (findTask(r, RoleTask::Epilogue))
      epilogues.push_back(&r);
  }
  if (loaders.empty())
    error(rolesAnchor(spec), "no role does tma_load; add a producer role, e.g. 'producer: { "
                             "warps: 1, registers: 40, does: tma_load }'");
  for (size_t i = 1; i < loaders.size(); ++i)
    error(findTask(*loaders[i], RoleTask::TmaLoad)->loc,
          "roles '" + loaders[0]->name.value + "' and '" + loaders[i]->name.value +
              "' both do tma_load; exactly one role loads the stages: remove 'tma_load' from "
              "'roles." + loaders[i]->name.value + ".does'");
  if (mmas.empty())
    error(rolesAnchor(spec), "no role does mma; add a consumer role, e.g. 'consumer: { "
                             "warpgroups: 1, registers: 232, does: [mma, epilogue] }'");
  for (size_t i = 1; i < mmas.size(); ++i)
    error(findTask(*mmas[i], RoleTask::Mma)->loc,
          "roles '" + mmas[0]->name.value + "' and '" + mmas[i]->name.value +
              "' both do mma; use one consumer role with 'warpgroups: N' (and 'consumers: N') "
              "for several MMA warpgroups");
  if (epilogues.empty() && !mmas.empty())
    error(mmas[0]->loc, "no role does epilogue; on sm_90a add it to the consumer: 'roles." +
                            mmas[0]->name.value + ".does: [mma, epilogue]'");
  else if (epilogues.empty())
    error(rolesAnchor(spec), "no role does epilogue; on sm_90a the consumer does it: 'does: "
                             "[mma, epilogue]'");

  for (const RoleSpec *e : epilogues)
    if (!mmas.empty() && !findTask(*e, RoleTask::Mma))
      error(findTask(*e, RoleTask::Epilogue)->loc,
            "on sm_90a the role that does mma ('" + mmas[0]->name.value +
                "') must also do the epilogue: its accumulators live in the consumer "
                "warpgroups' registers; write 'roles." + mmas[0]->name.value +
                ".does: [mma, epilogue]' and remove 'epilogue' from role '" + e->name.value +
                "'");
  for (const RoleSpec *l : loaders)
    if (findTask(*l, RoleTask::Mma))
      error(findTask(*l, RoleTask::Mma)->loc,
            "role '" + l->name.value + "' does both tma_load and mma; on sm_90a they are "
            "separate roles (the producer warpgroup gives its registers to the consumers): "
            "move 'mma' to a consumer role");
  for (const RoleSpec &r : spec.roles)
    if (r.does.empty())
      error(r.loc, "role '" + r.name.value + "' does nothing; give it 'does: tma_load', 'mma' "
                   "or 'epilogue', or remove it");

  if (loaders.size() != 1 || mmas.size() != 1 || loaders[0] == mmas[0])
    return;
  producer = loaders[0];
  consumer = mmas[0];
  bool ok = true;

  // The producer: one warp (its warpgroup idles at the lowered setmaxnreg),
  // or with blockwise scales four, a part of each stage per warp.
  const bool spread = blockwiseScaling() && producer->warps.value == kSpreadProducerWarps;
  if (producer->warps.given && producer->warps.value != 1 && !spread) {
    error(producer->warps.loc,
          "roles." + producer->name.value + ".warps " + str(producer->warps.value) +
              (blockwiseScaling()
                   ? ": the sm_90a producer is one warp (one elected thread issues every copy) "
                     "or, with blockwise scales, four (the A tile, A's scales, B's scales and "
                     "the B tile, a warp each); use warps: 4 or warps: 1"
                   : ": the sm_90a producer is one warp (one elected thread issues the TMA "
                     "loads; four warps split the copies of blockwise-scaled kernels only); "
                     "use warps: 1"));
    ok = false;
  }
  if (producer->warpgroups.given && producer->warpgroups.value != 1) {
    error(producer->warpgroups.loc,
          "roles." + producer->name.value + ".warpgroups " + str(producer->warpgroups.value) +
              ": the producer is one warp of one warpgroup on sm_90a; use warps: 1");
    ok = false;
  }
  // The consumers: whole warpgroups, one per consumer.
  if (consumer->warps.given) {
    error(consumer->warps.keyLoc,
          "roles." + consumer->name.value + ": wgmma is issued by whole warpgroups on sm_90a; "
          "write 'warpgroups: " + str(spec.consumers.value) + "' instead of 'warps'");
    ok = false;
  } else if (consumer->warpgroups.value != spec.consumers.value) {
    error(consumer->warpgroups.loc,
          "roles." + consumer->name.value + ".warpgroups is " +
              str(consumer->warpgroups.value) + " but consumers is " +
              str(spec.consumers.value) + ": each consumer is one warpgroup; make them equal "
              "(consumers: " + str(consumer->warpgroups.value) + " or warpgroups: " +
              str(spec.consumers.value) + ")");
    ok = false;
  }
  // Placement: fixed by the sm_90a generator.
  if (producer->firstWarp.given && producer->firstWarp.value != 0u) {
    error(producer->firstWarp.loc,
          "roles." + producer->name.value + ".warp " + str(*producer->firstWarp.value) +
              ": on sm_90a the producer is warp 0 (warpgroup 0) and the consumers start at "
              "warp 4; use warp: 0 or leave it out");
    ok = false;
  }
  if (consumer->firstWarp.given && consumer->firstWarp.value != 4u) {
    error(consumer->firstWarp.loc,
          "roles." + consumer->name.value + ".warp " + str(*consumer->firstWarp.value) +
              ": on sm_90a the consumer warpgroups start at warp 4 (after the producer's "
              "warpgroup); use warp: 4 or leave it out");
    ok = false;
  }
  // setmaxnreg values.
  for (const RoleSpec &r : spec.roles) {
    if (!r.registers.given)
      continue;
    unsigned v = r.registers.value;
    if (v < 24 || v > 256 || v % 8 != 0) {
      unsigned near = std::min(256u, std::max(24u, v / 8 * 8));
      error(r.registers.loc, "roles." + r.name.value + ".registers " + str(v) +
                                 " is not a valid setmaxnreg value (a multiple of 8 from 24 "
                                 "to 256); use " + str(near));
      ok = false;
    }
  }
  rolesOk = ok;
}

void Checker::checkTile() {
  const TileSpec &t = spec.tile;
  unsigned elem = sizeInBytes(spec.types.a.value);
  unsigned wantK = tileKFor(spec.types.a.value);
  if (elem <= 2 && t.k.value != wantK) {
    const std::string k = str(wantK);
    error(t.k.loc, "tile.k must be " + k + " for " + str(8 * elem) + "-bit operands: with "
                   "128-byte swizzle one TMA box row holds at most 128 bytes (" + k +
                   " elements) and wgmma reads one swizzle atom per k-block; use k: " + k);
    tileOk = false;
  }
  unsigned C = spec.consumers.value;
  if (t.m.value % 64 != 0) {
    error(t.m.loc, "tile.m must be a multiple of 64 (wgmma M is 64); use 64, 128, 192 or 256");
    tileOk = false;
  } else if (C >= 1 && C <= 2 && pingpong()) {
    if (t.m.value > 128) {
      error(t.m.loc, "tile.m " + str(t.m.value) + " with scheduler.consumers: pingpong gives "
                     "each consumer warpgroup the whole tile, but a consumer owns 64 or 128 rows "
                     "(one or two m64 wgmmas per k-step); use tile.m: 128, or consumers: "
                     "cooperative");
      tileOk = false;
    }
  } else if (C >= 1 && C <= 2) {
    unsigned rows = t.m.value / C;
    if (t.m.value % C != 0 || (rows != 64 && rows != 128)) {
      std::string fix = rows > 128 ? "use consumers: " + str(t.m.value / 128) + " or tile.m: " +
                                         str(128 * C)
                                   : "use consumers: 1 or tile.m: " + str(64 * C);
      error(t.m.loc, "tile.m " + str(t.m.value) + " with consumers " + str(C) +
                         " gives each consumer warpgroup " + str(rows) +
                         " rows, but a consumer owns 64 or 128 rows (one or two m64 wgmmas "
                         "per k-step); " + fix);
      tileOk = false;
    }
  }
  bool tmaStore = spec.epilogue.store.value == EpilogueStore::Tma;
  // The TMA store writes slabs of 8 to 64 16-bit columns, or 8 to 32 f32
  // ones (an 8-bit D's 128-column slabs are checked with its types); 8 where
  // the kernel takes an odd number of n8 blocks (takesOddN8Blocks).
  const ScalarType d = spec.types.d.value;
  unsigned nStep = tileNStep(spec);
  if (t.n.value % nStep != 0 || t.n.value > 256) {
    // A width of 8 mod 16 is refused for a reason the user can change.
    const std::string why =
        t.n.value % 8 == 0 && nStep == 16 && tmaStore
            ? std::string(isFp8(spec.types.a.value)          ? "; 8-bit operands take"
                          : problemDColumnMajor(spec)        ? "; a column-major D takes"
                          : spec.cluster.m.value > 1         ? "; a cluster along M takes"
                          : spec.scheduler.splitK.value > 1  ? "; split_k's f32 partial sums take"
                                                             : "; an " + std::string(toString(d)) +
                                                                   " D takes") +
                  " only whole 16-column blocks"
            : std::string();
    error(t.n.loc, "tile.n must be a multiple of " + str(nStep) + " up to 256 (wgmma N is at "
                   "most 256" +
                       std::string(tmaStore ? "; the TMA store writes slabs of at least " +
                                                  str(nStep) + " " + toString(d) + " columns"
                                            : "") +
                       why + "); use 64, 128, 192 or 256" +
                       (nStep < 64 ? " (or another multiple of " + str(nStep) + ")"
                                   : std::string()));
    tileOk = false;
  }
}

void Checker::checkRegisters() {
  if (!rolesOk)
    return;
  // Accumulators of one consumer warpgroup, in f32 registers per thread.
  unsigned C = spec.consumers.value;
  unsigned rows = derivePlan(spec, Declarations::Ignore).rowsPerConsumer;
  unsigned acc = rows * spec.tile.n.value / 128;
  // Blockwise scaling keeps each k-block's partial sum beside the accumulators.
  const bool blockwise = spec.types.scaling.value == ScalingMode::Blockwise &&
                         isFp8(spec.types.a.value);
  if (blockwise) // the partial sums: one buffer, or two with mma_in_flight 1
    acc *= spec.pipeline.mmaInFlight.value == 0 ? 2 : 3;
  unsigned creg = consumerRegisters(*consumer);
  if (tileOk && acc + kRegisterHeadroom > creg) {
    SMLoc at = consumer->registers.given ? consumer->registers.loc : spec.tile.n.loc;
    std::string fix = rows == 128 && C == 1
                          ? "use consumers: 2 (and warpgroups: 2) so each warpgroup owns 64 "
                            "rows, or a smaller tile.n"
                      : creg + 8 > 256 ? std::string("use a smaller tile.n")
                                       : "use a smaller tile.n or more registers for role '" +
                                             consumer->name.value + "'";
    error(at, "each consumer thread needs " + str(acc) + " f32 accumulator registers (" +
                  str(rows) + " rows × " + str(spec.tile.n.value) + " columns / 128 threads" +
                  (blockwise ? std::string(", with blockwise scaling's partial sums beside "
                                           "them: ") +
                                   (spec.pipeline.mmaInFlight.value == 0
                                        ? "one k-block's"
                                        : "two k-blocks' (mma_in_flight 1; 0 keeps one)")
                             : std::string()) +
                  ") " +
                  "plus about " + str(kRegisterHeadroom) + " for addresses and loop state, " +
                  "more than the " + str(creg) + " registers of role '" +
                  consumer->name.value + "'; ptxas would serialise the wgmmas (warning C7511) " +
                  "or spill; " + fix);
  }

  // The whole CTA. setmaxnreg is per warpgroup: the producer's warpgroup
  // runs at the producer's count even though one warp issues loads.
  unsigned pThreads = 128, cThreads = 128 * consumer->warpgroups.value;
  unsigned threads = pThreads + cThreads;
  if (threads > kMaxThreads)
    error(consumer->warpgroups.loc, "the CTA would have " + str(threads) +
                                        " threads, more than 1024; use fewer warpgroups");
  unsigned preg = producerRegisters(*producer);
  // The producer gives registers away (setmaxnreg.dec) and the consumers
  // take them (setmaxnreg.inc); ptxas refuses a dec to more than the
  // largest count in the kernel (error C7406).
  if (preg > creg) {
    SMLoc at = producer->registers.given ? producer->registers.loc : consumer->registers.loc;
    error(at, "role '" + producer->name.value + "' has " + str(preg) +
                  " registers, more than the " + str(creg) + " of role '" +
                  consumer->name.value + "': the producer gives registers to the consumers "
                  "(setmaxnreg.dec), it cannot end with more (ptxas error C7406); use "
                  "registers: 40 for '" + producer->name.value + "' or at most " + str(creg));
  }
  // The roles' registers must fit the pool the CTA is launched with.
  const unsigned ctas = std::max(1u, spec.scheduler.ctasPerSm.value);
  const unsigned launched = launchedRegistersPerThread(ctas, threads);
  const unsigned pool = launched * threads;
  unsigned total = pThreads * preg + cThreads * creg;
  if (total > pool) {
    unsigned maxC = pool > pThreads * preg ? (pool - pThreads * preg) / cThreads / 8 * 8 : 0;
    SMLoc at = consumer->registers.given ? consumer->registers.loc : consumer->loc;
    std::string why = ctas > 1 ? "the " + str(pool) + " a CTA is launched with when " +
                                     str(ctas) + " share an SM (scheduler.ctas_per_sm; " +
                                     str(launched) + " per thread)"
                               : "the " + str(pool) + " a CTA of " + str(threads) +
                                     " threads is launched with (65536 per SM, " +
                                     str(launched) + " per thread in steps of 8)";
    error(at, "the roles need " + str(total) + " registers per CTA (" + producer->name.value +
                  ": " + str(pThreads) + " threads × " + str(preg) + " + " +
                  consumer->name.value + ": " + str(cThreads) + " threads × " + str(creg) +
                  "), more than " + why + "; use registers: " + str(maxC) +
                  " or less for role '" + consumer->name.value + "'");
  }
}

void Checker::checkEpilogue() {
  const EpilogueSpec &e = spec.epilogue;
  // The sm_90a printer has one writeback: stmatrix into SMEM staging, then
  // a TMA store. Refused here so that check and the printer agree.
  if (e.store.value == EpilogueStore::Direct)
    error(e.store.loc, "epilogue.store: direct is not supported on sm_90a yet: the emitted "
                       "kernel writes D through SMEM staging and a TMA store; use store: tma "
                       "(or leave it out)");
  // (The default chunk is tile.n or a divisor of it of 128 bytes or more.)
  if (!e.chunkN.given || e.chunkN.value == 0)
    return;
  bool tma = e.store.value == EpilogueStore::Tma;
  // A TMA store box row is a slab: 64 to 8 16-bit columns, 32 to 8 f32 ones.
  // Where the kernel takes odd n8 blocks chunk_n need not divide tile.n (the
  // last chunk overlaps the one before); elsewhere chunks divide tile.n.
  const bool chunksMayOverlap = takesOddN8Blocks(spec);
  unsigned step = tma ? tileNStep(spec) : 16;
  unsigned n = spec.tile.n.value, c = e.chunkN.value;
  // The suggestion: two 128-byte slabs, the default's width where it divides.
  unsigned wide = 256 / sizeInBytes(spec.types.d.value);
  // A tile.n that is itself no multiple of the step has its own error: no chunk fits it.
  const std::string fix = n % step != 0
                              ? "; fix tile.n first (a multiple of " + str(step) + ")"
                              : "; use " + str(n % wide == 0 ? wide : n) + " or leave it out";
  if (c % step == 0 && c <= n && (chunksMayOverlap || n % c == 0) && tma &&
      outputSlabBytes(spec) == 16)
    warning(e.chunkN.loc,
            "epilogue.chunk_n " + str(c) + " with tile.n " + str(n) +
                " stores D in 16-byte slabs (8-column TMA store boxes), which ran 19% slower "
                "than 64-byte ones at 3000x5000x2048 on the H200 (docs/PERF.md \"Tiles of 8 "
                "columns mod 16\"); a chunk_n of 16 columns or more leaves in wider boxes");
  if (c % step != 0 || (chunksMayOverlap ? c > n : n % c != 0))
    error(e.chunkN.loc, "epilogue.chunk_n " + str(c) + " must be a multiple of " + str(step) +
                            (chunksMayOverlap ? " up to tile.n (" : " that divides tile.n (") +
                            str(n) + ")" +
                            (tma ? ": the TMA store writes slabs of at least " + str(step) +
                                       " columns"
                                 : std::string()) +
                            fix);
}

void Checker::checkSharedMemory() {
  if (!tileOk)
    return;
  KernelPlan plan = derivePlan(spec, Declarations::Ignore);
  unsigned bytes = plan.sharedMemBytes;
  unsigned depth = spec.pipeline.depth.value;
  auto withDepth = [&](unsigned d) {
    KernelSpec copy = spec;
    copy.pipeline.depth.value = d;
    return derivePlan(copy, Declarations::Ignore).sharedMemBytes;
  };
  unsigned stageBytes =
      plan.findBuffer("smemA")->bytesPerStage() + plan.findBuffer("smemB")->bytesPerStage();
  const BufferPlan *scales = plan.findBuffer("smemScales");
  const std::string scalesText =
      scales ? " (" + str(scales->bytesPerStage()) + " of them blockwise scales)" : "";
  if (scales)
    stageBytes += scales->bytesPerStage();
  const BufferPlan *staging = plan.findBuffer("smemD");
  if (bytes > kMaxSharedBytesPerBlock) {
    unsigned fits = 0;
    for (unsigned d = depth; d-- > 2;)
      if (withDepth(d) <= kMaxSharedBytesPerBlock) {
        fits = d;
        break;
      }
    std::string stagingText =
        staging ? " and a " + str(staging->totalBytes()) + "-byte output staging chunk" : "";
    std::string fix = fits ? "use pipeline.depth: " + str(fits) + " (" + str(withDepth(fits)) +
                                 " bytes)"
                           : "no pipeline.depth of 2 or more fits: use a smaller tile.n or "
                             "tile.m";
    // A narrower staging chunk may keep the depth.
    // (Where chunks may overlap, any multiple of 8 columns.)
    const bool chunksMayOverlap = takesOddN8Blocks(spec);
    const int slab = chunksMayOverlap ? 8 : int(128 / sizeInBytes(spec.types.d.value));
    if (staging && spec.tile.n.value % slab == 0) {
      KernelSpec narrow = spec;
      for (int c = int(plan.epilogueChunkN) - slab; c >= slab; c -= slab) {
        if (!chunksMayOverlap && spec.tile.n.value % c != 0)
          continue;
        narrow.epilogue.chunkN.value = c;
        unsigned b = derivePlan(narrow, Declarations::Ignore).sharedMemBytes;
        if (b <= kMaxSharedBytesPerBlock) {
          fix += std::string(fits ? ", or" : "; or use") + " epilogue.chunk_n: " + str(c) +
                 " (" + str(b) + " bytes)";
          break;
        }
      }
    }
    error(spec.pipeline.depth.loc,
          "the spec needs " + str(bytes) + " bytes of shared memory per block (" + str(depth) +
              " stages of " + str(stageBytes) + " bytes" + scalesText + stagingText +
              ", barriers and 1024 bytes of alignment slack), more than the " +
              str(kMaxSharedBytesPerBlock) + " bytes (227 KB) an sm_90a block can use; " + fix);
    return;
  }
  // scheduler.ctas_per_sm: every resident CTA holds its own shared memory.
  const unsigned ctas = std::max(1u, spec.scheduler.ctasPerSm.value);
  auto fitsSm = [&](unsigned b) {
    return ctas * (b + kReservedSharedBytesPerCta) <= kSharedBytesPerSM;
  };
  if (ctas > 1 && !fitsSm(bytes)) {
    unsigned fits = 0;
    for (unsigned d = depth; d-- > 2;)
      if (fitsSm(withDepth(d))) {
        fits = d;
        break;
      }
    error(spec.scheduler.ctasPerSm.loc,
          "scheduler.ctas_per_sm " + str(ctas) + " needs " + str(ctas) + " × (" + str(bytes) +
              " + " + str(kReservedSharedBytesPerCta) + " reserved) bytes of shared memory, " +
              "more than the " + str(kSharedBytesPerSM) + " (228 KB) of an SM; " +
              (fits ? "use pipeline.depth: " + str(fits) + " (" + str(withDepth(fits)) +
                          " bytes per CTA)"
                    : std::string("use ctas_per_sm: 1")));
    return;
  }
  if (depth == 2 && withDepth(3) <= kMaxSharedBytesPerBlock)
    warning(spec.pipeline.depth.loc,
            "pipeline.depth 2 keeps one TMA load in flight while the consumers read the other "
            "stage, which is usually too little to hide memory latency for a " +
                str(spec.tile.m.value) + "×" + str(spec.tile.n.value) +
                " tile; use depth: 3 or more (3 fits in shared memory)");
}


void Checker::checkEpilogueBuffers() {
  const EpilogueSpec &e = spec.epilogue;
  if (e.buffers.value < 2)
    return;
  if (e.store.value != EpilogueStore::Tma || !e.overlap.value) {
    error(e.buffers.loc, "epilogue.buffers 2 alternates the TMA store's staging tiles while "
                         "stores overlap; it needs store: tma and overlap: true");
    return;
  }
  const unsigned chunk = e.chunkN.value ? e.chunkN.value : spec.tile.n.value;
  const unsigned chunks = chunk ? (spec.tile.n.value + chunk - 1) / chunk : 0;
  if (chunk && chunks % 2 != 0)
    error(e.buffers.loc, "epilogue.buffers 2 needs an even number of chunks per tile (tile.n " +
                             std::to_string(spec.tile.n.value) + " / chunk_n " +
                             std::to_string(chunk) + " makes " + std::to_string(chunks) +
                             "): a tile's first chunk would reuse the tile the previous "
                             "tile's last store still reads; halve chunk_n");
}

bool Checker::pingpong() const {
  return spec.scheduler.consumers.value == ConsumerMode::PingPong;
}

void Checker::checkScheduler() {
  const SchedulerSpec &s = spec.scheduler;
  // The SIMT path computes chain(alpha·A·B, beta·C) of 16-bit operands into
  // a 16-bit or f32 D, one problem per launch.
  if (s.simtNarrow.value > 0) {
    const std::string sn = "scheduler.simt_narrow " + std::to_string(s.simtNarrow.value);
    if (isFp8(spec.types.a.value) || isFp8(spec.types.b.value))
      error(s.simtNarrow.loc, sn + " with " + toString(spec.types.a.value) +
                                  " operands: the SIMT path multiplies 16-bit operands only; "
                                  "remove simt_narrow");
    else if (s.grouped.value)
      error(s.simtNarrow.loc, sn + " with scheduler.grouped: a grouped launch's problems are not "
                                   "routed one by one; remove simt_narrow");
  }
  // Stream-K: every CTA of one co-resident persistent grid takes an equal
  // share of all tiles' k-blocks; a tile split between CTAs is finished by
  // the one holding its first k-block, after the others' partial sums.
  if (s.kind.value == SchedulerKind::StreamK) {
    const std::string sk = "scheduler.kind: stream_k";
    if (spec.cluster.m.value != 1)
      error(spec.cluster.m.loc, sk + " with cluster.m " + std::to_string(spec.cluster.m.value) +
                                    ": a cluster's CTAs share B tiles, and stream-K splits a "
                                    "tile's k-blocks between CTAs; use cluster.m: 1");
    if (s.grouped.value)
      error(s.grouped.loc, sk + " with scheduler.grouped: a grouped walk is not split along K "
                                "yet; use kind: persistent");
    if (s.splitK.value > 1)
      error(s.splitK.loc, sk + " with split_k " + std::to_string(s.splitK.value) +
                              ": stream-K already splits K where tiles are too few; use one "
                              "of them");
    if (spec.types.scaling.value == ScalingMode::Blockwise)
      error(spec.types.scaling.loc, sk + " with types.scaling: blockwise: the promoted partial "
                                         "sums are not handed between CTAs yet; use kind: "
                                         "persistent");
    if (s.ctasPerSm.value > 1)
      error(s.ctasPerSm.loc, sk + " with ctas_per_sm " + std::to_string(s.ctasPerSm.value) +
                                 ": its shares and flags are laid out for one CTA per SM and "
                                 "were not measured with more; use ctas_per_sm: 1");
  }
  if (pingpong()) {
    // Ping-pong: two consumer warpgroups take turns on whole tiles of one
    // CTA's persistent walk, handing the mainloop over on the order barrier.
    const std::string pp = "scheduler.consumers: pingpong";
    if (spec.consumers.value != 2)
      error(s.consumers.loc, pp + " with consumers " + std::to_string(spec.consumers.value) +
                                 ": two consumer warpgroups take turns on whole tiles; use "
                                 "consumers: 2 (and warpgroups: 2), or consumers: cooperative");
    if (s.kind.value != SchedulerKind::Persistent)
      error(s.kind.loc, pp + " with kind: " + toString(s.kind.value) +
                            ": the turns follow a CTA's persistent walk over whole tiles; use "
                            "kind: persistent");
  }
  if (s.splitK.value > 1 && s.grouped.value)
    error(s.splitK.loc, "scheduler.split_k " + std::to_string(s.splitK.value) +
                            " with scheduler.grouped: a grouped kernel's problems are not split "
                            "yet; use one of them");
}

bool Checker::run() {
  unsigned before = diags.errorCount();
  if (spec.target.value == Target::SM100a)
    return checkSpecSm100(spec, diags, options); // ChecksSm100.cpp
  checkTypesAndLayout();
  checkOutputLayout();
  checkCluster();
  checkPipeline();
  checkRoles();
  checkTile();
  checkEpilogue();
  checkEpilogueBuffers();
  checkScheduler();
  checkRegisters();
  checkSharedMemory();
  if (options.protocol)
    checkBarriers();
  else
    checks::checkBarrierEnds(spec, diags);
  return diags.errorCount() == before;
}

} // namespace gemmgen::checks

bool gemmgen::checkSpec(const KernelSpec &spec, DiagnosticEngine &diags,
                        const CheckOptions &options) {
  const bool chainOk = checkEpilogueChain(spec, diags);
  return checks::Checker(spec, diags, options).run() && chainOk;
}

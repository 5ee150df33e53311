//===- KernelPlan.cpp - Every derived fact of a kernel, derived once ------===//
//
// derivePlan(): buffers, the barrier protocol, the shared-memory layout and
// the tile schedule of the kernel a spec's target lowering builds. Each
// number here is computed nowhere else; the checks explain a difference
// between a declaration and the plan, they do not recompute it.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelPlan.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace gemmgen;
using llvm::StringRef;

namespace {

unsigned roundUp(unsigned v, unsigned to) { return (v + to - 1) / to * to; }

unsigned nextPow2(unsigned v) {
  unsigned p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

/// A divisor that is never 0 (a spec with structural errors still derives).
unsigned atLeast1(unsigned v) { return v ? v : 1; }

std::string roleName(const KernelSpec &spec, RoleTask task, const char *fallback) {
  const RoleSpec *r = spec.roleDoing(task);
  return r ? r->name.value : fallback;
}

class PlanBuilder {
public:
  PlanBuilder(const KernelSpec &spec, Declarations decls) : spec(spec), decls(decls) {}

  KernelPlan run() {
    p.target = spec.target.value;
    p.tileM = spec.tile.m.value;
    p.tileN = spec.tile.n.value;
    p.tileK = spec.tile.k.value;
    p.consumers = spec.consumers.value;
    p.depth = spec.pipeline.depth.value;
    p.clusterM = spec.cluster.m.value;
    p.clusterN = spec.cluster.n.value;
    p.ctaGroup = sm100() ? spec.ctaGroup.value : 1;
    p.mmaK = mmaKFor(spec.types.a.value);
    p.perTensorScales = isFp8(spec.types.a.value) || isFp8(spec.types.b.value);
    p.blockwiseScales = p.perTensorScales && spec.types.scaling.value == ScalingMode::Blockwise;
    p.fp8Output = isFp8(spec.types.d.value);
    p.partialBuffers = !p.blockwiseScales ? 0 : spec.pipeline.mmaInFlight.value == 0 ? 1 : 2;
    p.scalesInSmem = p.blockwiseScales && !sm100();
    p.scaleBlocksN = p.blockwiseScales ? p.tileN / 128 + (p.tileN % 128 ? 1 : 0) : 0;
    p.epilogueChunkN = epilogueChunkColumns(spec);
    p.dSlabBytes = outputSlabBytes(spec);
    p.chunksOverlap = lastChunkOverlaps(spec);
    p.dProblemColMajor = problemDColumnMajor(spec);
    p.dColMajor = storesDColumnMajor(spec);
    p.epilogueBuffers = std::max(1u, spec.epilogue.buffers.value);
    p.schedule.pingpong = !sm100() && spec.scheduler.consumers.value == ConsumerMode::PingPong;
    p.rowsPerConsumer = p.schedule.pingpong ? p.tileM : p.tileM / atLeast1(p.consumers);
    if (sm100()) {
      p.tmemColumnsPerConsumer = tmemColumnsPerConsumer(spec);
      p.tmemColumns = std::max(32u, nextPow2(p.tmemColumnsPerConsumer * p.consumers));
      addBuffersSm100();
      addBarriersSm100();
    } else {
      addBuffersSm90();
      addBarriersSm90();
    }
    if (decls == Declarations::Apply)
      for (BarrierPlan &bar : p.barriers)
        applyDeclaration(bar);
    layOut();
    deriveOperandLoads();
    deriveSchedule();
    deriveChainEntry();
    return std::move(p);
  }

private:
  bool sm100() const { return spec.target.value == Target::SM100a; }
  unsigned elemA() const { return sizeInBytes(spec.types.a.value); }

  // --- the chain's entry -----------------------------------------------------

  /// ChainEntryPlan: on sm_90a kernels with alpha and beta (the C path),
  /// which the chain's entry folds; sm_100a's writeback applies the chain as
  /// written.
  void deriveChainEntry() {
    if (sm100() || !p.findBarrier(ProtocolBarrier::CLoad))
      return;
    const std::vector<EpilogueStep> steps = spec.epilogue.steps(spec.types.d.value);
    if (steps.empty())
      return;
    ChainEntryPlan &entry = p.chainEntry;
    entry.biasInAlpha = steps[0].kind == EpilogueOpKind::Bias;
    // Without a residual step beta·C joins before the chain.
    bool biasSeen = false, cSeen = !chainHas(steps, EpilogueOpKind::Residual);
    for (size_t s = 0; s < steps.size(); ++s) {
      const EpilogueOpKind kind = steps[s].kind;
      if (kind == EpilogueOpKind::GeluTanh) {
        entry.halfGeluStep = int(s);
        entry.halvesBias = biasSeen;
        entry.halvesC = cSeen;
        return;
      }
      // Halving commutes with adds of halved terms and with a scale; not
      // with a clamp's bounds or another activation.
      if (kind != EpilogueOpKind::Bias && kind != EpilogueOpKind::Residual &&
          kind != EpilogueOpKind::Scale)
        return;
      biasSeen = biasSeen || kind == EpilogueOpKind::Bias;
      cSeen = cSeen || kind == EpilogueOpKind::Residual;
    }
  }

  // --- buffers ---------------------------------------------------------------

  BufferPlan smem(const char *name, ScalarType type, unsigned rows, unsigned cols,
                  unsigned stages, unsigned instances) const {
    BufferPlan b;
    b.name = name;
    b.space = MemSpace::Shared;
    b.type = type;
    b.rows = rows, b.cols = cols, b.stages = stages, b.instances = instances;
    b.swizzleBytes = 128;
    b.alignment = kSmemAlignment;
    return b;
  }

  BufferPlan accumulator(MemSpace space, unsigned rows, unsigned instances) const {
    BufferPlan b;
    b.name = "acc";
    b.space = space;
    b.type = spec.types.accumulate.value;
    b.rows = rows, b.cols = p.tileN, b.instances = instances;
    return b;
  }

  void addBuffersSm90() {
    const TypesSpec &t = spec.types;
    unsigned rowsPerConsumer = p.rowsPerConsumer;
    p.buffers = {smem("smemA", t.a.value, p.tileM, p.tileK, p.depth, 1),
                 smem("smemB", t.b.value, p.tileN, p.tileK, p.depth, 1),
                 accumulator(MemSpace::Registers, rowsPerConsumer, p.consumers)};
    // The scales per stage: A's for the tile's rows plus 4 floats (a copy
    // that starts up to 3 floats early, 16-byte aligned, and ends rounded
    // up), then B's, 16 bytes per scale block (the aligned 4 holding it).
    if (p.scalesInSmem) {
      // roles.producer.warps 4: the A tile, A's scales, B's and the B tile on
      // a warp each (1: one elected thread does it all).
      const RoleSpec *producer = spec.roleDoing(RoleTask::TmaLoad);
      if (producer && producer->warps.value == kSpreadProducerWarps) {
        p.scaleCopyWarps = 2;
        p.producerBWarp = 3;
      }
      p.scaleBOffsetBytes = (p.tileM + 4) * 4;
      BufferPlan scales = smem("smemScales", ScalarType::F32,
                               p.scaleBOffsetBytes / 4 + 4 * p.scaleBlocksN, 1, p.depth, 1);
      scales.swizzleBytes = 0;
      p.scaleTxBytes = scales.bytesPerStage();
      p.buffers.push_back(scales);
    }
    // Output staging for one epilogue chunk, in 64-column slabs with 128B
    // swizzle (the TMA store box is 64 columns wide), one per consumer.
    if (spec.epilogue.store.value == EpilogueStore::Tma)
      p.buffers.push_back(
          smem("smemD", t.d.value, rowsPerConsumer, p.epilogueChunkN, p.epilogueBuffers,
               p.consumers));
  }

  void addBuffersSm100() {
    const TypesSpec &t = spec.types;
    // smemA: each consumer's A block; smemB: this CTA's half of the B rows
    // (the pair MMA reads both halves).
    p.buffers = {smem("smemA", t.a.value, p.tileM, p.tileK, p.depth, p.consumers),
                 smem("smemB", t.b.value, p.tileN / atLeast1(p.ctaGroup), p.tileK, p.depth, 1),
                 accumulator(MemSpace::Tensor, p.tileM, p.consumers),
                 smem("smemD", t.d.value, p.tileM, p.epilogueChunkN, 1, p.consumers)};
  }

  // --- barriers --------------------------------------------------------------

  BarrierPlan barrier(ProtocolBarrier role, BarrierKind kind, unsigned slots,
                      const char *slotsKey, std::string from, std::string to,
                      unsigned arrivals) const {
    BarrierPlan b;
    b.role = role;
    b.name = declaredName(role);
    b.kind = kind;
    b.slots = slots;
    b.slotsKey = slotsKey;
    b.signaller = std::move(from);
    b.waiter = std::move(to);
    b.arrivals = arrivals;
    return b;
  }

  /// β ≠ 0: each epilogue warpgroup (`writer`) loads C's chunk into its own
  /// staging tile and waits for it: one arrival (its own expect_tx), one
  /// staging tile's bytes. Both targets; call after the buffers.
  BarrierPlan cLoadBarrier(const std::string &writer) const {
    BarrierPlan b = barrier(ProtocolBarrier::CLoad, BarrierKind::Tma, p.consumers, "consumers",
                            writer, writer, 1);
    b.txBytes = p.findBuffer("smemD")->bytesPerStage();
    b.waiterPhase = 0;
    return b;
  }

  void addBarriersSm90() {
    std::string P = roleName(spec, RoleTask::TmaLoad, "producer");
    std::string C = roleName(spec, RoleTask::Mma, "consumer");
    unsigned ctas = p.clusterM * p.clusterN;
    // full: one expect_tx arrival by the producer; completes when all stage
    // bytes landed, including the B half that the peer CTA multicasts here.
    BarrierPlan full = barrier(ProtocolBarrier::Full, BarrierKind::Tma, p.depth, "depth", P, C, 1);
    full.txBytes = (p.tileM + p.tileN) * p.tileK * elemA() + p.scaleTxBytes;
    full.waiterPhase = 0;
    // empty: one elected thread per consumer warpgroup that read the stage
    // (every consumer, or a ping-pong tile's one), in every CTA that reads it
    // (the multicast source must hear from both). The stages start empty:
    // the producer's first wait passes.
    unsigned readers = p.schedule.pingpong ? 1 : p.consumers;
    BarrierPlan empty =
        barrier(ProtocolBarrier::Empty, BarrierKind::Mbarrier, p.depth, "depth", C, P,
                readers * ctas);
    empty.waiterPhase = 1;
    empty.ctaMask = ctas < 32 ? (1u << ctas) - 1 : ~0u;
    p.barriers = {full, empty};
    if (spec.epilogue.store.value == EpilogueStore::Tma) {
      // One named barrier per consumer warpgroup guards its staging tile.
      BarrierPlan epi = barrier(ProtocolBarrier::Epilogue, BarrierKind::Named, p.consumers,
                                "consumers", C, C, 128);
      epi.namedId = 1;
      p.barriers.push_back(epi);
      p.barriers.push_back(cLoadBarrier(C));
    }
    if (p.schedule.pingpong) {
      // Both consumer warpgroups meet on slot c when consumer c's mainloop
      // has waited for its tile's last stage: before then the other's
      // parity waits on later stages could pass on a phase two behind.
      BarrierPlan order = barrier(ProtocolBarrier::Order, BarrierKind::Named, 2, "consumers", C,
                                  C, 256);
      order.namedId = 1 + p.consumers; // after the epilogue barriers
      p.barriers.push_back(order);
    }
  }

  void addBarriersSm100() {
    std::string P = roleName(spec, RoleTask::TmaLoad, "producer");
    std::string M = roleName(spec, RoleTask::Mma, "mma");
    std::string W = roleName(spec, RoleTask::Epilogue, "writeback");
    unsigned G = p.ctaGroup, C = p.consumers;
    unsigned pairMask = G > 1 ? (1u << G) - 1 : 0;
    // Both CTAs' A blocks and B halves complete on the leader's barrier.
    BarrierPlan full = barrier(ProtocolBarrier::Full, BarrierKind::Tma, p.depth, "depth", P, M, 1);
    full.txBytes = G * (C * p.tileM + p.tileN / atLeast1(G)) * p.tileK * elemA();
    full.waiterPhase = 0;
    // One tcgen05.commit per MMA warp per stage, to every CTA of the pair.
    BarrierPlan empty =
        barrier(ProtocolBarrier::Empty, BarrierKind::Commit, p.depth, "depth", M, P, C);
    empty.waiterPhase = 1;
    empty.ctaMask = pairMask;
    // One slot per consumer: consumer c's accumulator is ready.
    BarrierPlan ready =
        barrier(ProtocolBarrier::AccReady, BarrierKind::Commit, C, "consumers", M, W, 1);
    ready.waiterPhase = 0;
    ready.ctaMask = pairMask;
    // Every writeback thread of every CTA of the pair frees the accumulator.
    BarrierPlan freed =
        barrier(ProtocolBarrier::AccFree, BarrierKind::Mbarrier, C, "consumers", W, M, 128 * G);
    freed.waiterPhase = 1;
    // The writeback warpgroup's bar.sync (the seed's warpgroup_sync(10 + c)).
    BarrierPlan epi =
        barrier(ProtocolBarrier::Epilogue, BarrierKind::Named, C, "consumers", W, W, 128);
    epi.namedId = 10;
    p.barriers = {full, empty, ready, freed, epi, cLoadBarrier(W)};
  }

  /// The declaration that stands for `role`, if the spec has one: by its
  /// name, or (sm_90a, any other name) by its direction.
  const BarrierSpec *declaration(ProtocolBarrier role) const {
    for (const BarrierSpec &b : spec.barriers)
      if (protocolBarrierNamed(b.name.value, spec.target.value) == role)
        return &b;
    if (sm100() || (role != ProtocolBarrier::Full && role != ProtocolBarrier::Empty))
      return nullptr;
    // With protocol checks off an unknown name reaches here: its `from` says
    // which ring it is.
    const RoleSpec *loader = spec.roleDoing(RoleTask::TmaLoad);
    for (const BarrierSpec &b : spec.barriers) {
      if (protocolBarrierNamed(b.name.value, spec.target.value) || !b.from.given ||
          (b.kind.given && b.kind.value == BarrierKind::Named))
        continue;
      bool fromProducer = spec.findRole(b.from.value) == loader;
      if (fromProducer == (role == ProtocolBarrier::Full))
        return &b;
    }
    return nullptr;
  }

  std::string declaredName(ProtocolBarrier role) const {
    if (const BarrierSpec *b = declaration(role))
      return b->name.value;
    switch (role) {
    case ProtocolBarrier::Full: return sm100() ? "tma2mma" : "full";
    case ProtocolBarrier::Empty: return sm100() ? "mma2tma" : "empty";
    case ProtocolBarrier::AccReady: return "mma2ld";
    case ProtocolBarrier::AccFree: return "ld2mma";
    case ProtocolBarrier::Epilogue: return "epilogue";
    case ProtocolBarrier::CLoad: return "cload";
    case ProtocolBarrier::Order: return "order";
    }
    return "?";
  }

  /// Declared values replace derived ones. For a checked spec they are
  /// equal; with protocol checks off this is how a deliberately wrong
  /// protocol reaches the simulator (and the GPU under --debug-hangs).
  void applyDeclaration(BarrierPlan &bar) const {
    const BarrierSpec *d = declaration(bar.role);
    if (!d)
      return;
    auto given = [](const Located<std::optional<unsigned>> &f) {
      return f.given && f.value.has_value();
    };
    if (given(d->slots))
      bar.slots = *d->slots.value;
    if (given(d->arrivals))
      bar.arrivals = *d->arrivals.value;
    if (given(d->txBytes))
      bar.txBytes = *d->txBytes.value;
    if (given(d->id))
      bar.namedId = *d->id.value;
    if (given(d->initialPhase))
      bar.waiterPhase = *d->initialPhase.value;
    if (given(d->ctaMask) && sm100())
      bar.ctaMask = *d->ctaMask.value;
  }

  // --- layout and schedule ---------------------------------------------------

  /// Buffers in order, each 1024-aligned; then the mbarrier slots in protocol
  /// order (8 bytes each, the block rounded to 128); sm_100a keeps the TMEM
  /// address right after the last slot (inside the rounding or the slack).
  void layOut() {
    unsigned offset = 0;
    for (BufferPlan &b : p.buffers) {
      if (b.space != MemSpace::Shared)
        continue;
      offset = roundUp(offset, b.alignment);
      b.offset = offset;
      offset += b.totalBytes();
    }
    p.barrierOffset = roundUp(offset, kSmemAlignment);
    unsigned slots = p.barrierOffset;
    for (BarrierPlan &bar : p.barriers) {
      if (!bar.inSharedMemory())
        continue;
      bar.offset = slots;
      slots += kMbarrierBytes * bar.slots;
    }
    p.tmemSlotOffset = sm100() ? slots : 0;
    p.barrierBytes = roundUp(slots - p.barrierOffset, 128);
    p.sharedMemUsed = p.barrierOffset + p.barrierBytes;
    p.sharedMemBytes = p.sharedMemUsed + kSmemAlignment;
  }

  /// A's M rows and this CTA's B rows, K-major or (stored column-major A,
  /// row-major B) MN-major; see OperandLoadPlan.
  OperandLoadPlan operandLoad(OperandMajor major, unsigned rows) const {
    OperandLoadPlan l;
    l.major = major;
    l.rows = rows;
    unsigned elem = elemA();
    if (major == OperandMajor::K) {
      l.boxInner = p.tileK, l.boxOuter = rows, l.boxes = 1;
      l.kStepBytes = p.mmaK * elem; // 32 bytes: k16 of 16-bit, k32 of 8-bit elements
    } else {
      l.swizzleBytes = atLeast1(mnMajorSwizzleBytes(rows, elem));
      l.boxInner = l.swizzleBytes / atLeast1(elem), l.boxOuter = p.tileK;
      l.boxes = rows / atLeast1(l.boxInner);
      l.kStepBytes = p.mmaK * l.swizzleBytes; // mmaK K rows of one swizzle row each
    }
    l.boxBytes = l.boxInner * l.boxOuter * elem;
    l.l2PromotionBytes = spec.pipeline.l2Promotion.value;
    return l;
  }

  void deriveOperandLoads() {
    // sm_100a loads K-major only (its checks refuse other layouts).
    bool aMN = !sm100() && spec.layout.a.value == MatrixLayout::Col;
    bool bMN = !sm100() && spec.layout.b.value == MatrixLayout::Row;
    unsigned bRows = p.tileN / atLeast1(p.clusterM); // the B rows one CTA loads
    p.loadA = operandLoad(aMN ? OperandMajor::MN : OperandMajor::K, p.tileM);
    p.loadB = operandLoad(bMN ? OperandMajor::MN : OperandMajor::K, bRows);
    for (BufferPlan &b : p.buffers)
      if (b.name == "smemB")
        b.swizzleBytes = p.loadB.swizzleBytes;
  }

  void deriveSchedule() {
    SchedulePlan &s = p.schedule;
    s.kind = spec.scheduler.kind.value;
    s.raster = spec.scheduler.raster.value;
    s.group = spec.scheduler.group.value;
    s.grouped = spec.scheduler.grouped.value;
    s.splitK = std::max(1u, spec.scheduler.splitK.value);
    s.splitOut = s.splitK > 1 ? spec.scheduler.splitOut : spec.types.d.value;
    s.ctasPerSm = std::max(1u, spec.scheduler.ctasPerSm.value);
    s.simtNarrow = spec.scheduler.simtNarrow.value;
    s.unitCols = atLeast1(p.tileN);
    // Early loads skip the producer's first waits on the empty barrier, which
    // is right only where those waits pass at once (its waiter starts at
    // phase 1); a declared phase 0 keeps them (and the hang it teaches).
    const BarrierPlan *empty = p.findBarrier(ProtocolBarrier::Empty);
    s.earlyLoads = !sm100() && p.clusterM == 1 && p.clusterN == 1 && !s.grouped &&
                   !p.scalesInSmem && !spreadsProducer(p) && empty && empty->waiterPhase == 1;
    if (sm100()) {
      // A cluster tile: every consumer of both CTAs of the pair.
      s.unitRows = atLeast1(p.consumers * p.ctaGroup * p.tileM);
      s.ctasPerUnit = atLeast1(p.ctaGroup);
    } else {
      // CLUSTER_M vertically adjacent tiles sharing B through multicast.
      s.unitRows = atLeast1(p.tileM * p.clusterM);
      s.ctasPerUnit = atLeast1(p.clusterM);
    }
  }

  const KernelSpec &spec;
  Declarations decls;
  KernelPlan p;
};

template <typename T>
const T *findByName(const std::vector<T> &items, const std::string &name) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const T &item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

} // namespace

const BufferPlan *KernelPlan::findBuffer(const std::string &name) const {
  return findByName(buffers, name);
}
const BarrierPlan *KernelPlan::findBarrier(const std::string &name) const {
  return findByName(barriers, name);
}
const BarrierPlan *KernelPlan::findBarrier(ProtocolBarrier role) const {
  for (const BarrierPlan &b : barriers)
    if (b.role == role)
      return &b;
  return nullptr;
}

KernelPlan gemmgen::derivePlan(const KernelSpec &spec, Declarations decls) {
  return PlanBuilder(spec, decls).run();
}

std::optional<ProtocolBarrier> gemmgen::protocolBarrierNamed(StringRef name, Target target) {
  if (name == "full" || name == "tma2mma")
    return ProtocolBarrier::Full;
  if (name == "empty" || name == "mma2tma")
    return ProtocolBarrier::Empty;
  if (name == "epilogue")
    return ProtocolBarrier::Epilogue;
  if (target == Target::SM90a && name == "order")
    return ProtocolBarrier::Order;
  if (target == Target::SM100a && name == "mma2ld")
    return ProtocolBarrier::AccReady;
  if (target == Target::SM100a && name == "ld2mma")
    return ProtocolBarrier::AccFree;
  return std::nullopt;
}

unsigned gemmgen::tileKFor(ScalarType t) {
  return kSwizzleRowBytes / std::max(1u, sizeInBytes(t));
}

unsigned gemmgen::mnMajorSwizzleBytes(unsigned rows, unsigned elemBytes) {
  const unsigned bytes = rows * elemBytes;
  if (bytes % kSwizzleRowBytes == 0)
    return kSwizzleRowBytes;
  // One box of a part narrower than a 128-byte row (the tall twins' 16 and
  // 32 columns of an N-major B); wider ones stay whole 128-byte boxes.
  return bytes == 32 || bytes == 64 ? bytes : 0;
}

unsigned gemmgen::mmaKFor(ScalarType t) {
  return kMmaKBytes / std::max(1u, sizeInBytes(t));
}

unsigned gemmgen::epilogueChunkColumns(const KernelSpec &spec) {
  if (spec.epilogue.chunkN.value)
    return spec.epilogue.chunkN.value;
  // Default: 256-byte rows (128 16-bit or 64 f32 columns: two 128-byte TMA
  // boxes) keep the staging tile small enough for a 4-stage 128x256 ring
  // within 227 KB.
  unsigned n = spec.tile.n.value;
  unsigned cols = 256 / sizeInBytes(spec.types.d.value);
  return n % cols == 0 ? cols : n;
}

unsigned gemmgen::producerWarpArrivals(const KernelPlan &p) {
  return p.scaleCopyWarps + (p.producerBWarp ? 1 : 0);
}

bool gemmgen::spreadsProducer(const KernelPlan &p) { return producerWarpArrivals(p) > 0; }

unsigned gemmgen::producerIssuingWarps(const KernelPlan &p) { return 1 + producerWarpArrivals(p); }

unsigned gemmgen::outputSlabBytes(const KernelSpec &spec) {
  const unsigned elem = sizeInBytes(spec.types.d.value);
  const unsigned bytes = epilogueChunkColumns(spec) * elem;
  // A column-major D's slab rows are 64 rows of D along M: 128 bytes.
  if (spec.target.value != Target::SM90a || (elem != 2 && elem != 4) || storesDColumnMajor(spec))
    return 128;
  // Every chunk is chunk_n wide (a last one that does not fit overlaps the one
  // before): one unswizzled slab where the chunk is an odd number of 16-byte
  // columns, else the widest swizzled span that divides it.
  if (bytes % 32 == 16)
    return bytes;
  for (unsigned span : {128u, 64u, 32u})
    if (bytes % span == 0)
      return span;
  return 128; // the checks refuse such a chunk
}

unsigned gemmgen::outputSlabSwizzleBytes(unsigned slabBytes) {
  return slabBytes % 32 == 0 ? slabBytes : 0;
}

bool gemmgen::lastChunkOverlaps(const KernelSpec &spec) {
  const unsigned chunk = epilogueChunkColumns(spec);
  return spec.target.value == Target::SM90a && chunk && spec.tile.n.value % chunk != 0;
}

bool gemmgen::problemDColumnMajor(const KernelSpec &spec) {
  return spec.target.value == Target::SM90a && spec.layout.d.value == MatrixLayout::Col;
}

bool gemmgen::storesDColumnMajor(const KernelSpec &spec) {
  return problemDColumnMajor(spec) && spec.scheduler.splitK.value <= 1;
}

unsigned gemmgen::minSlabColumns(ScalarType d, Target target) {
  const unsigned elem = sizeInBytes(d);
  // sm_90a: 32-byte slabs of a 16-bit D, 64-byte ones of an f32 D (tile.n
  // is a multiple of 16 in any case: the wgmma shapes the kernels use).
  return target == Target::SM90a && elem >= 2 ? 16 : 128 / elem;
}

bool gemmgen::takesOddN8Blocks(const KernelSpec &spec) {
  // 16-bit operands (the printer emits wgmma of any width of 16-bit kinds), a
  // row-major 16-bit D through the TMA store (16-byte slabs of 8 columns;
  // the stmatrix of an odd n8 block), and B's rows whole 8-row swizzle atoms
  // in every CTA.
  return spec.target.value == Target::SM90a && !isFp8(spec.types.a.value) &&
         sizeInBytes(spec.types.d.value) == 2 && !problemDColumnMajor(spec) &&
         spec.epilogue.store.value == EpilogueStore::Tma && spec.cluster.m.value <= 1;
}

unsigned gemmgen::tileNStep(const KernelSpec &spec) {
  if (takesOddN8Blocks(spec))
    return 8;
  return spec.epilogue.store.value == EpilogueStore::Tma
             ? std::min(64u, minSlabColumns(spec.types.d.value, Target::SM90a))
             : 16;
}

unsigned gemmgen::tmemColumnsPerConsumer(const KernelSpec &spec) {
  if (spec.tmemColumns.value)
    return spec.tmemColumns.value;
  return std::max(32u, nextPow2(spec.tile.n.value));
}

unsigned gemmgen::launchedRegistersPerThread(unsigned ctasPerSm, unsigned threads) {
  constexpr unsigned kRegistersPerSM = 65536;
  const unsigned perThread = kRegistersPerSM / (std::max(1u, ctasPerSm) * std::max(1u, threads));
  return std::min(256u, perThread / 8 * 8);
}

const char *gemmgen::toString(MemSpace s) {
  switch (s) {
  case MemSpace::Shared: return "smem";
  case MemSpace::Tensor: return "tmem";
  case MemSpace::Registers: return "regs";
  }
  return "?";
}

const char *gemmgen::toString(OperandMajor m) {
  return m == OperandMajor::K ? "k_major" : "mn_major";
}

const char *gemmgen::toString(ProtocolBarrier b) {
  switch (b) {
  case ProtocolBarrier::Full: return "full";
  case ProtocolBarrier::Empty: return "empty";
  case ProtocolBarrier::AccReady: return "mma2ld";
  case ProtocolBarrier::AccFree: return "ld2mma";
  case ProtocolBarrier::Epilogue: return "epilogue";
  case ProtocolBarrier::CLoad: return "cload";
  case ProtocolBarrier::Order: return "order";
  }
  return "?";
}

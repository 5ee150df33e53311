//===- LoweringCommon.h - Helpers shared by the target lowerings -*- C++ -*-===//
//
// Internal to compiler/lib: the op builders that keep role programs readable,
// the kernel fields every target copies from the spec, and how a declared
// barrier overrides a derived one.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_LOWERINGCOMMON_H
#define GEMMGEN_LIB_LOWERINGCOMMON_H

#include "gemmgen/IR.h"
#include "gemmgen/Lowering.h"
#include "gemmgen/Spec.h"

#include <string>
#include <vector>

namespace gemmgen::lowering {

inline ir::Op makeOp(ir::OpKind kind, ir::Exec exec = ir::Exec::All) {
  ir::Op op;
  op.kind = kind;
  op.exec = exec;
  return op;
}

inline ir::Op loop(ir::OpKind kind, std::vector<ir::Op> body) {
  ir::Op op = makeOp(kind);
  op.body = std::move(body);
  return op;
}

inline ir::Op advance(const std::string &state) {
  ir::Op op = makeOp(ir::OpKind::Advance);
  op.state = state;
  return op;
}

/// The kernel fields that come straight from the spec (name, target, types,
/// tile, cluster, depth, consumers, schedule, epilogue chunk). Each target
/// sets its MMA shape, cta_group and epilogue overlap itself.
inline ir::Kernel kernelFromSpec(const KernelSpec &spec) {
  ir::Kernel k;
  k.name = spec.kernel.value;
  k.sourcePath = spec.path;
  k.target = spec.target.value;
  k.aType = spec.types.a.value;
  k.bType = spec.types.b.value;
  k.dType = spec.types.d.value;
  k.accType = spec.types.accumulate.value;
  k.tileM = spec.tile.m.value;
  k.tileN = spec.tile.n.value;
  k.tileK = spec.tile.k.value;
  k.clusterM = spec.cluster.m.value;
  k.clusterN = spec.cluster.n.value;
  k.depth = spec.pipeline.depth.value;
  k.consumers = spec.consumers.value;
  k.schedule = {spec.scheduler.kind.value, spec.scheduler.raster.value,
                spec.scheduler.group.value};
  k.epilogueChunkN = epilogueChunkColumns(spec);
  return k;
}

/// Declared barrier values replace derived ones. On the normal path the
/// checks have rejected any declaration that disagrees with the protocol;
/// with protocol checks off (`gemmgen simulate --no-protocol-checks`) this is
/// how a deliberately wrong protocol reaches the simulator.
inline void applyBarrierDeclaration(ir::Barrier &bar, const BarrierSpec *decl) {
  if (!decl)
    return;
  if (decl->slots.given && decl->slots.value)
    bar.slots = *decl->slots.value;
  if (decl->arrivals.given && decl->arrivals.value) {
    if (bar.kind == BarrierKind::Named)
      bar.namedThreads = *decl->arrivals.value;
    else
      bar.arriveCount = *decl->arrivals.value;
  }
  if (decl->txBytes.given && decl->txBytes.value)
    bar.txBytes = *decl->txBytes.value;
  if (decl->id.given && decl->id.value)
    bar.namedId = *decl->id.value;
}

} // namespace gemmgen::lowering

#endif // GEMMGEN_LIB_LOWERINGCOMMON_H

//===- LoweringCommon.h - Helpers shared by the target lowerings -*- C++ -*-===//
//
// Internal to compiler/lib: the op builders that keep role programs readable
// and the kernel fields every target takes from the spec and its plan.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_LOWERINGCOMMON_H
#define GEMMGEN_LIB_LOWERINGCOMMON_H

#include "gemmgen/IR.h"
#include "gemmgen/KernelPlan.h"
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

/// β ≠ 0: C's chunk of this consumer's rows lands in its (free) staging
/// tile `smemD` on the C-load barrier `cload` (slot: the consumer, cursor
/// "cload"); store_acc reads it back and overwrites it with the result.
inline ir::Op readCChunk(const BarrierPlan &cload) {
  ir::Op arm = makeOp(ir::OpKind::ArriveExpectTx, ir::Exec::Elected);
  arm.barrier = cload.name;
  arm.state = "cload";
  arm.slotIsInstance = true;
  arm.txBytes = cload.txBytes;
  ir::Op load = makeOp(ir::OpKind::TmaLoad, ir::Exec::Elected);
  load.operand = ir::Operand::C;
  load.buffer = "smemD";
  load.barrier = cload.name;
  load.state = "cload";
  load.slotIsInstance = true;
  ir::Op wait = makeOp(ir::OpKind::Wait);
  wait.barrier = cload.name;
  wait.state = "cload";
  wait.slotIsInstance = true;
  return loop(ir::OpKind::IfBeta, {arm, load, wait, advance("cload")});
}

/// An IR barrier array: the plan's barrier (declared values applied).
inline ir::Barrier barrierFromPlan(const BarrierPlan &p) {
  ir::Barrier b;
  b.name = p.name;
  b.kind = p.kind;
  b.slots = p.slots;
  b.arriveCount = p.arrivals;
  b.txBytes = p.txBytes;
  b.signaller = p.signaller;
  b.waiter = p.waiter;
  if (p.kind == BarrierKind::Named) {
    b.namedId = p.namedId;
    b.namedThreads = p.arrivals;
  }
  b.offset = p.offset;
  return b;
}

/// The kernel fields that come from the spec and its plan (name, target,
/// types, tile, cluster, depth, consumers, schedule, epilogue chunk, TMEM,
/// buffers, barriers). Each target sets its MMA shape and epilogue overlap.
inline ir::Kernel kernelFromPlan(const KernelSpec &spec, KernelPlan plan) {
  ir::Kernel k;
  k.name = spec.kernel.value;
  k.sourcePath = spec.path;
  k.target = plan.target;
  k.aType = spec.types.a.value;
  k.bType = spec.types.b.value;
  k.dType = spec.types.d.value;
  k.epilogueChain = spec.epilogue.steps(spec.types.d.value);
  k.accType = spec.types.accumulate.value;
  k.tileM = plan.tileM;
  k.tileN = plan.tileN;
  k.tileK = plan.tileK;
  k.clusterM = plan.clusterM;
  k.clusterN = plan.clusterN;
  k.ctaGroup = plan.ctaGroup;
  k.depth = plan.depth;
  k.consumers = plan.consumers;
  k.schedule = {plan.schedule.kind, plan.schedule.raster, plan.schedule.group, plan.schedule.grouped,
                plan.schedule.splitK};
  k.epilogueChunkN = plan.epilogueChunkN;
  k.tmemColumns = plan.tmemColumns;
  k.tmemColumnsPerConsumer = plan.tmemColumnsPerConsumer;
  k.buffers = plan.buffers;
  for (const BarrierPlan &b : plan.barriers)
    k.barriers.push_back(barrierFromPlan(b));
  k.plan = std::move(plan);
  return k;
}

} // namespace gemmgen::lowering

#endif // GEMMGEN_LIB_LOWERINGCOMMON_H

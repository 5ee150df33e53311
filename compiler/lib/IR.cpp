//===- IR.cpp - Kernel IR helpers ------------------------------------------===//
#include "gemmgen/IR.h"

#include <algorithm>

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {
template <typename T>
const T *findByName(const std::vector<T> &items, const std::string &name) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const T &item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}
} // namespace

unsigned Kernel::threadsPerBlock() const {
  unsigned warps = 0;
  for (const Role &role : roles)
    warps = std::max(warps, role.firstWarp + role.ownedWarps);
  return warps * 32;
}

const Buffer *Kernel::findBuffer(const std::string &name) const {
  return findByName(buffers, name);
}
const Barrier *Kernel::findBarrier(const std::string &name) const {
  return findByName(barriers, name);
}
const Role *Kernel::findRole(const std::string &name) const {
  return findByName(roles, name);
}

const char *ir::toString(OpKind k) {
  switch (k) {
  case OpKind::ForEachTile: return "for_each_tile";
  case OpKind::ForK: return "for_k";
  case OpKind::IfNotFirstK: return "if_not_first_k";
  case OpKind::ForEachChunk: return "for_each_chunk";
  case OpKind::Wait: return "wait";
  case OpKind::Arrive: return "arrive";
  case OpKind::ArriveExpectTx: return "arrive_expect_tx";
  case OpKind::TmaLoad: return "tma_load";
  case OpKind::Mma: return "mma";
  case OpKind::MmaCommit: return "mma_commit";
  case OpKind::MmaWait: return "mma_wait";
  case OpKind::Advance: return "advance";
  case OpKind::StoreAcc: return "store_acc";
  case OpKind::Fence: return "fence";
  case OpKind::NamedBarrierSync: return "named_barrier";
  case OpKind::TmaStore: return "tma_store";
  case OpKind::TmaStoreCommit: return "tma_store_commit";
  case OpKind::TmaStoreWait: return "tma_store_wait";
  case OpKind::MmaCommitArrive: return "tcgen05_commit";
  case OpKind::LoadAcc: return "load_acc";
  case OpKind::IfAnyK: return "if_any_k";
  case OpKind::IfNoK: return "if_no_k";
  case OpKind::ZeroAcc: return "zero_acc";
  case OpKind::IfBeta: return "if_beta";
  case OpKind::PromoteAcc: return "promote_acc";
  case OpKind::IfSkPartial: return "if_sk_partial";
  case OpKind::IfSkFinish: return "if_sk_finish";
  case OpKind::StorePartial: return "store_partial";
  case OpKind::AddPartials: return "add_partials";
  case OpKind::IfOtherTurn: return "if_other_turn";
  case OpKind::IfSecondOfPair: return "if_second_of_pair";
  case OpKind::IfPairEnds: return "if_pair_ends";
  case OpKind::EarlyLoads: return "early_loads";
  case OpKind::SkipK: return "skip_k";
  case OpKind::NamedBarrierArrive: return "named_barrier_arrive";
  }
  return "?";
}

const char *ir::toString(CtaScope s) {
  switch (s) {
  case CtaScope::Local: return "local";
  case CtaScope::Cluster: return "cluster";
  case CtaScope::Leader: return "leader";
  }
  return "?";
}

const char *ir::toString(FenceKind f) {
  switch (f) {
  case FenceKind::ProxyAsync: return "proxy_async";
  case FenceKind::MbarrierInit: return "mbarrier_init";
  case FenceKind::MmaOperands: return "mma_operands";
  case FenceKind::TcgenBeforeSync: return "tcgen05_before_thread_sync";
  case FenceKind::TcgenAfterSync: return "tcgen05_after_thread_sync";
  }
  return "?";
}

const char *ir::toString(Operand o) {
  switch (o) {
  case Operand::A: return "A";
  case Operand::B: return "B";
  case Operand::D: return "D";
  case Operand::C: return "C";
  case Operand::Scales: return "scales";
  }
  return "?";
}

//===- IRPrinter.cpp - Deterministic text form of the Kernel IR -----------===//
//
// Format (one object per line, role programs indented by nesting):
//
//   kernel NAME target=sm_90a
//     types a=f16 b=f16 d=f16 acc=f32
//     tile 128x128x64 cluster 1x1 depth 4 consumers 1 mma m64n128k16
//     schedule persistent raster=along_m group=8 epilogue_overlap=1
//     buffer smemA : smem f16 [4 x 128x64] x1 swizzle=128
//     barrier full : tma slots=4 arrive=1 tx=32768 producer -> consumer
//     role producer warps=0..3 run=1x1 regs=40 dec tasks=tma_load
//       state load depth=4 phase=1
//       for_each_tile {
//         ...
//
//===----------------------------------------------------------------------===//
#include "gemmgen/IRPrinter.h"

using namespace gemmgen;
using namespace gemmgen::ir;

namespace {

class IRPrinter {
public:
  explicit IRPrinter(llvm::raw_ostream &os) : os(os) {}

  void print(const Kernel &k) {
    chain = &k.epilogueChain;
    fp8Output = k.plan.fp8Output;
    streamK = k.plan.schedule.streamK();
    scalesInSmem = k.plan.scalesInSmem;
    os << "kernel " << k.name << " target=" << toString(k.target) << "\n";
    os << "  types a=" << toString(k.aType) << " b=" << toString(k.bType)
       << " d=" << toString(k.dType) << " acc=" << toString(k.accType) << "\n";
    os << "  tile " << k.tileM << "x" << k.tileN << "x" << k.tileK << " cluster "
       << k.clusterM << "x" << k.clusterN << " cta_group " << k.ctaGroup << " depth "
       << k.depth << " consumers " << k.consumers << " mma m" << k.mmaM << "n" << k.mmaN
       << "k" << k.mmaK << "\n";
    os << "  schedule " << toString(k.schedule.kind) << " raster="
       << toString(k.schedule.raster) << " group=" << k.schedule.group
       << (k.schedule.grouped ? " problems=grouped" : "")
       << (k.schedule.splitK > 1 ? " split_k=" + std::to_string(k.schedule.splitK) : "")
       << (k.plan.schedule.ctasPerSm > 1
               ? " ctas_per_sm=" + std::to_string(k.plan.schedule.ctasPerSm)
               : "")
       << (k.plan.schedule.simtNarrow
               ? " simt_narrow=" + std::to_string(k.plan.schedule.simtNarrow)
               : "")
       << " epilogue_overlap=" << (k.epilogueOverlap ? 1 : 0)
       << " epilogue_chunk_n=" << k.epilogueChunkN
       << (k.plan.dProblemColMajor ? " d=col_major" : "") << "\n";
    if (!k.epilogueChain.empty())
      os << "  epilogue chain " << describeChain(k.epilogueChain) << "\n";
    if (const ChainEntryPlan &entry = k.plan.chainEntry; entry.biasInAlpha || entry.halved()) {
      os << "  epilogue entry bias_in_alpha_fma=" << (entry.biasInAlpha ? 1 : 0);
      if (entry.halved())
        os << " halved_into_step=" << entry.halfGeluStep + 1
           << " halves=alpha" << (entry.halvesBias ? ",bias" : "") << (entry.halvesC ? ",beta" : "");
      os << "\n";
    }
    os << "  launch threads=" << k.threadsPerBlock() << " smem=" << k.sharedMemBytes() << "\n";
    if (k.tmemColumns)
      os << "  tmem columns=" << k.tmemColumns << " per_consumer=" << k.tmemColumnsPerConsumer
         << "\n";
    for (const Buffer &b : k.buffers) {
      os << "  buffer " << b.name << " : " << toString(b.space) << " " << toString(b.type)
         << " [" << b.stages << " x " << b.rows << "x" << b.cols << "] x" << b.instances;
      if (b.swizzleBytes)
        os << " swizzle=" << b.swizzleBytes;
      // Operands stored M- or N-major: how their stage is loaded (K-major,
      // the default, prints nothing).
      const OperandLoadPlan *load = b.name == "smemA"   ? &k.plan.loadA
                                    : b.name == "smemB" ? &k.plan.loadB
                                                        : nullptr;
      if (load && load->major == OperandMajor::MN)
        os << " " << toString(load->major) << " boxes=" << load->boxes << "x" << load->boxInner
           << "x" << load->boxOuter;
      if (load && load->l2PromotionBytes)
        os << " l2_promotion=" << load->l2PromotionBytes;
      os << "\n";
    }
    for (const Barrier &b : k.barriers) {
      os << "  barrier " << b.name << " : " << toString(b.kind) << " slots=" << b.slots;
      if (b.kind == BarrierKind::Named)
        os << " id=" << b.namedId << " threads=" << b.namedThreads;
      else
        os << " arrive=" << b.arriveCount;
      if (b.txBytes)
        os << " tx=" << b.txBytes;
      os << " " << b.signaller << " -> " << b.waiter << "\n";
    }
    for (const Role &r : k.roles)
      printRole(r);
  }

private:
  const std::vector<EpilogueStep> *chain = nullptr;
  bool fp8Output = false; ///< store_acc scales to an 8-bit D and keeps its amax
  bool streamK = false;   ///< k-loops cover the share's k-blocks [kb_begin, kb_end)
  bool scalesInSmem = false; ///< a partial MMA's issue reads the stage's smemScales

  void printRole(const Role &r) {
    os << "  role " << r.name << " warps=" << r.firstWarp << ".."
       << (r.firstWarp + r.ownedWarps - 1) << " run=" << r.instances << "x"
       << r.warpsPerInstance << "w";
    if (r.leaderCtaOnly)
      os << " leader_cta_only";
    if (r.registers)
      os << " regs=" << r.registers << (r.registersIncrease ? " inc" : " dec");
    os << " tasks=";
    for (size_t i = 0; i < r.tasks.size(); ++i)
      os << (i ? "," : "") << toString(r.tasks[i]);
    os << "\n";
    for (const PipelineState &s : r.states)
      os << "    state " << s.name << " depth=" << s.depth << " phase=" << s.initialPhase
         << "\n";
    for (const Op &op : r.body)
      printOp(op, 4);
  }

  void printOp(const Op &op, unsigned indent) {
    os.indent(indent) << toString(op.kind);
    switch (op.kind) {
    case OpKind::ForEachTile:
    case OpKind::ForK:
    case OpKind::IfNotFirstK:
    case OpKind::ForEachChunk:
    case OpKind::IfAnyK:
    case OpKind::IfNoK:
    case OpKind::IfBeta:
    case OpKind::IfSkPartial:
    case OpKind::IfSkFinish:
    case OpKind::IfOtherTurn:
    case OpKind::IfSecondOfPair:
    case OpKind::IfPairEnds:
    case OpKind::EarlyLoads:
      if (op.kind == OpKind::EarlyLoads)
        os << " first_tile k<min(k_blocks," << op.state << ".depth) before_cta_barrier";
      os << " {\n";
      for (const Op &child : op.body)
        printOp(child, indent + 2);
      os.indent(indent) << "}\n";
      return;
    case OpKind::Wait:
    case OpKind::Arrive:
      if (op.slotIsInstance)
        os << " " << op.barrier << "[instance] phase=" << op.state;
      else
        os << " " << op.barrier << "[" << op.state << "]";
      if (op.scope != CtaScope::Local)
        os << " scope=" << toString(op.scope);
      break;
    case OpKind::ArriveExpectTx:
      if (op.slotIsInstance)
        os << " " << op.barrier << "[instance] tx=" << op.txBytes;
      else
        os << " " << op.barrier << "[" << op.state << "] tx=" << op.txBytes;
      if (op.leaderCtaOnly)
        os << " leader_cta_only";
      break;
    case OpKind::TmaLoad:
      os << " " << toString(op.operand);
      if (op.instance >= 0)
        os << "." << op.instance;
      os << " -> " << op.buffer;
      if (op.instance >= 0)
        os << "." << op.instance;
      if (op.slotIsInstance)
        os << "[instance] on " << op.barrier << "[instance]";
      else
        os << "[" << op.state << "] on " << op.barrier << "[" << op.state << "]";
      if (op.parts > 1)
        os << " part=rank/" << op.parts;
      if (op.scope == CtaScope::Leader)
        os << " barrier_cta=leader";
      else if (op.scope != CtaScope::Local)
        os << " multicast=" << toString(op.scope);
      break;
    case OpKind::MmaCommitArrive:
      if (op.slotIsInstance)
        os << " " << op.barrier << "[instance]";
      else
        os << " " << op.barrier << "[" << op.state << "]";
      os << " cta_mask=" << op.ctaMask;
      break;
    case OpKind::LoadAcc:
      os << " " << op.acc << " -> regs";
      break;
    case OpKind::ZeroAcc:
      os << " " << op.acc;
      break;
    case OpKind::StorePartial:
      os << " " << op.acc << " -> workspace[cta][instance], release flag[cta][instance]";
      break;
    case OpKind::AddPartials:
      os << " " << op.acc << " += workspace[c][instance] for each later cta c in this unit "
            "(acquire flag[c][instance])";
      break;
    case OpKind::PromoteAcc:
      os << " " << op.acc << " += partial(" << op.acc << (op.previousK ? ", kb-1" : "")
         << ") * scaleA[row, " << (op.previousK ? "kb-1" : "kb") << "] * scaleB[col / 128, "
         << (op.previousK ? "kb-1" : "kb") << "]";
      break;
    case OpKind::Mma:
      if (op.partial)
        os << " partial(" << op.acc << ") = " << op.a << "[" << op.state << "] * " << op.b << "["
           << op.state << "]^T" << (scalesInSmem ? "; scales <- smemScales[" + op.state + "]" : "");
      else
        os << " " << op.acc << " += " << op.a << "[" << op.state << "] * " << op.b << "["
           << op.state << "]^T scale_d=(k>" << (streamK ? "kb_begin" : "0") << ")";
      break;
    case OpKind::MmaWait:
    case OpKind::TmaStoreWait:
      os << " pending<=" << op.count;
      break;
    case OpKind::Advance:
    case OpKind::SkipK:
      os << " " << op.state;
      break;
    case OpKind::StoreAcc:
      os << " " << op.acc << " -> " << (op.buffer.empty() ? "global D" : op.buffer);
      if (chain && !chain->empty())
        os << " chain=[" << describeChain(*chain) << "]";
      if (fp8Output)
        os << " out_scale amax";
      break;
    case OpKind::Fence:
      os << " " << toString(op.fence);
      break;
    case OpKind::NamedBarrierSync:
    case OpKind::NamedBarrierArrive:
      os << " " << op.barrier << (op.slotIsTurnOwner ? "[turn_owner]" : "[instance]");
      break;
    case OpKind::TmaStore:
      os << " " << op.buffer << " -> " << toString(op.operand);
      break;
    case OpKind::MmaCommit:
    case OpKind::TmaStoreCommit:
      break;
    }
    if (op.exec == Exec::Elected)
      os << " (elected)";
    os << "\n";
  }

  llvm::raw_ostream &os;
};

} // namespace

void gemmgen::printIR(const Kernel &kernel, llvm::raw_ostream &os) {
  IRPrinter(os).print(kernel);
}

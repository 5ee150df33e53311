//===- ChecksProtocol.cpp - sm_90a barriers against the plan's protocol ---===//
//
// The declared barriers of an sm_90a spec (names, ends, kind, slots,
// arrivals, tx bytes, phases, cta mask, named ids) compared with the
// protocol derivePlan derives without them: each difference at its line,
// with what would go wrong on the GPU (deadlock, race, a wrong sum) and the
// value to write. CheckOptions::protocol turns this off (then only the
// barriers' roles are checked, checks::checkBarrierEnds).
//
//===----------------------------------------------------------------------===//
#include "ChecksSm90.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace gemmgen;
using llvm::StringRef;

namespace {
std::string str(unsigned v) { return std::to_string(v); }
} // namespace

namespace gemmgen::checks {

void Checker::checkBarriers() {
  const KernelPlan plan = derivePlan(spec, Declarations::Ignore);
  const BarrierSpec *seen[kProtocolBarriers] = {};
  for (const BarrierSpec &b : spec.barriers) {
    std::string path = "barriers." + b.name.value;
    bool fromOk = checkRoleName(b.from, path + ".from");
    bool toOk = checkRoleName(b.to, path + ".to");
    std::optional<ProtocolBarrier> named = protocolBarrierNamed(b.name.value, Target::SM90a);
    if (!named) {
      // The barriers this spec's protocol has (the plan's): 'epilogue' with
      // a TMA store, 'order' with ping-pong consumers.
      std::vector<std::string> known = {"'full' (or 'tma2mma')", "'empty' (or 'mma2tma')"};
      std::vector<StringRef> names = {"full", "tma2mma", "empty", "mma2tma"};
      for (auto [barrier, name] : {std::pair{ProtocolBarrier::Epilogue, "epilogue"},
                                   std::pair{ProtocolBarrier::Order, "order"}})
        if (plan.findBarrier(barrier)) {
          known.push_back("'" + std::string(name) + "'");
          names.push_back(name);
        }
      std::optional<StringRef> hint = closestMatch(b.name.value, names);
      if (b.name.value == "mma2ld" || b.name.value == "ld2mma")
        error(b.name.loc, "barrier '" + b.name.value +
                              "' belongs to the sm_100a protocol (the "
                              "TMEM handoff between MMA and a writeback role); on sm_90a the "
                              "consumer writes back its own registers: remove it (the sm_90a "
                              "protocol has " +
                              sentenceList(known) + ")");
      else if (hint)
        error(b.name.loc, "unknown barrier '" + b.name.value + "' for sm_90a; did you mean '" +
                              *hint + "'? (the sm_90a protocol has " + sentenceList(known) + ")");
      else
        error(b.name.loc, "unknown barrier '" + b.name.value + "' for sm_90a; the sm_90a " +
                              "protocol has " + sentenceList(known) +
                              ": declare one of those or remove it");
      continue;
    }
    ProtocolBarrier which = *named;
    const BarrierPlan *derived = plan.findBarrier(which);
    if (which == ProtocolBarrier::Epilogue && !derived) {
      error(b.name.loc, "barrier 'epilogue' guards the output staging tile, which exists only "
                        "with epilogue.store: tma; remove the declaration");
      continue;
    }
    if (which == ProtocolBarrier::Order && !derived) {
      error(b.name.loc, "barrier 'order' hands the mainloop's turn from one ping-pong consumer to "
                        "the other, which exists only with scheduler.consumers: pingpong; remove "
                        "the declaration");
      continue;
    }
    if (!firstDeclaration(seen[int(which)], b, diags))
      continue;
    if (fromOk && toOk && rolesOk && derived)
      checkBarrier(b, which, *derived);
  }
}

/// A declaration against the plan's barrier `want` (derived without
/// declarations): each difference at its line, with what would go wrong.
void Checker::checkBarrier(const BarrierSpec &b, ProtocolBarrier which, const BarrierPlan &want) {
  const std::string path = "barriers." + b.name.value;
  const std::string &P = producer->name.value, &C = consumer->name.value;
  unsigned depth = spec.pipeline.depth.value;
  unsigned consumers = spec.consumers.value;
  unsigned ctas = spec.cluster.m.value * spec.cluster.n.value;
  const BarrierKind wantKind = want.kind;
  const unsigned wantSlots = want.slots, wantArrivals = want.arrivals;

  // Ends of the barrier.
  auto checkEnd = [&](const Located<std::string> &end, const char *key, const std::string &role,
                      const char *why) {
    if (end.given && end.value != role)
      error(end.loc, path + "." + key + " must be '" + role + "' (" + why + "), got '" +
                         end.value + "'");
  };
  const char *fromWhy = which == ProtocolBarrier::Full
                            ? "the role that does tma_load arrives with the stage's bytes"
                        : which == ProtocolBarrier::Empty
                            ? "the role that does mma releases the stage"
                            : "the consumer warpgroup syncs its own threads";
  const char *toWhy = which == ProtocolBarrier::Full ? "the role that does mma waits for the stage"
                      : which == ProtocolBarrier::Empty
                          ? "the role that does tma_load waits to refill it"
                          : "the consumer warpgroup syncs its own threads";
  checkEnd(b.from, "from", want.signaller, fromWhy);
  checkEnd(b.to, "to", want.waiter, toWhy);

  if (b.kind.given && b.kind.value != wantKind) {
    std::string why = which == ProtocolBarrier::Full
                          ? "the stage is complete when the TMA transaction bytes land"
                      : which == ProtocolBarrier::Empty
                          ? (b.kind.value == BarrierKind::Commit
                                 ? "commit is tcgen05.commit, an sm_100a instruction; on sm_90a "
                                   "each consumer warpgroup releases a stage with a plain arrive"
                                 : "each consumer warpgroup releases a stage with one arrive")
                          : "one consumer warpgroup syncs with bar.sync";
    error(b.kind.loc, path + ".kind must be " + toString(wantKind) + " (" + why + "), got " +
                          toString(b.kind.value));
  }

  if (b.slots.given && b.slots.value && *b.slots.value != wantSlots) {
    std::string use = want.slotsKey;
    std::string what = which == ProtocolBarrier::Epilogue
                           ? "consumers is " + str(consumers) +
                                 ": one barrier per consumer warpgroup"
                           : "pipeline.depth is " + str(depth) + ": the ring needs one barrier "
                                                                 "per stage";
    error(b.slots.loc, path + ".slots is " + str(*b.slots.value) + " but " + what +
                           "; use slots: " + use);
  }

  if (b.arrivals.given && b.arrivals.value && *b.arrivals.value != wantArrivals) {
    unsigned got = *b.arrivals.value;
    std::string msg = path + ".arrivals is " + str(got) + " but ";
    switch (which) {
    case ProtocolBarrier::Full:
      msg += "only role '" + P + "' arrives, once per stage (one elected thread with "
             "arrive.expect_tx; the TMA bytes do the rest): ";
      msg += got > 1 ? "the barrier would never complete and role '" + C +
                           "' would wait forever (deadlock)"
                     : "";
      break;
    case ProtocolBarrier::Empty:
      msg += str(consumers) + " consumer warpgroup" + (consumers > 1 ? "s" : "") + " × " +
             str(ctas) + " CTA" + (ctas > 1 ? "s" : "") + " release each stage (one elected "
             "thread of each warpgroup of role '" + C + "', in every CTA that reads the "
             "stage): ";
      msg += got < wantArrivals
                 ? "the stage would be released when the first of them finishes, and role '" +
                       P + "' would overwrite data the others still read (race)"
                 : "the barrier would never complete and role '" + P +
                       "' would wait forever (deadlock)";
      break;
    default:
      msg += "the named barrier counts the 128 threads of one consumer warpgroup: ";
      msg += got < 128 ? "threads would pass before the staging tile is written (race)"
                       : "it would never complete (deadlock)";
      break;
    }
    error(b.arrivals.loc, msg + "; use arrivals: " + str(wantArrivals));
  }

  if (b.initialPhase.given && b.initialPhase.value) {
    unsigned got = *b.initialPhase.value;
    if (which == ProtocolBarrier::Epilogue)
      error(b.initialPhase.keyLoc, path + ".phase: a named barrier (bar.sync) has no phase; "
                                          "remove it");
    else if (which == ProtocolBarrier::Full && got != want.waiterPhase)
      error(b.initialPhase.loc,
            path + ".phase 1 would let role '" + C + "' pass its first wait on '" +
                b.name.value + "' before role '" + P + "' has loaded anything (the barrier "
                "starts in phase 0, so waiting for phase 1 returns at once): the consumers "
                "would read empty stages (race); the waiting side starts at phase 0: use "
                "phase: 0 or leave it out");
    else if (which == ProtocolBarrier::Empty && got != want.waiterPhase)
      error(b.initialPhase.loc,
            path + ".phase 0 makes role '" + P + "' wait for phase 0 of '" + b.name.value +
                "' to complete before any consumer has arrived, while role '" + C +
                "' waits for the first full stage: deadlock; the producer starts at phase 1 "
                "(the stages start empty, so its first wait passes): use phase: 1 or leave it "
                "out");
  }

  if (b.txBytes.given && b.txBytes.value) {
    unsigned stage = want.txBytes;
    if (which != ProtocolBarrier::Full)
      error(b.txBytes.keyLoc, path + ".tx_bytes applies only to the TMA barrier (kind: tma); "
                                     "remove it");
    else if (*b.txBytes.value != stage)
      error(b.txBytes.loc,
            path + ".tx_bytes is " + str(*b.txBytes.value) + " but each stage receives " +
                str(stage) + " bytes ((tile.m + tile.n) × tile.k × " +
                str(sizeInBytes(spec.types.a.value)) + ", including B bytes multicast by the "
                "other CTA): " +
                (*b.txBytes.value < stage
                     ? "role '" + C + "' could read before all data has landed (race)"
                     : "the barrier would never complete (deadlock)") +
                "; use tx_bytes: " + str(stage) + " or leave it out");
  }

  if (b.ctaMask.given && b.ctaMask.value) {
    unsigned all = want.ctaMask;
    if (which == ProtocolBarrier::Empty) {
      if (*b.ctaMask.value != all)
        error(b.ctaMask.loc,
              path + ".cta_mask " + str(*b.ctaMask.value) + " does not reach every CTA of the " +
                  str(ctas) + "-CTA cluster: " +
                  (ctas > 1 ? "with B multicast each stage is filled by both CTAs' producers, "
                              "so the consumers release it in both"
                            : "there is one CTA") +
                  "; use cta_mask: " + str(all));
    } else {
      error(b.ctaMask.keyLoc,
            path + ".cta_mask is not used on sm_90a by this barrier (" +
                (which == ProtocolBarrier::Full ? "each CTA's producer arms its own full barrier "
                                               "and the multicast bytes complete it"
                                             : "a named barrier is local to the CTA") +
                "); remove it");
    }
  }

  if (b.id.given && b.id.value) {
    if (which != ProtocolBarrier::Epilogue)
      error(b.id.keyLoc, path + ".id applies only to named barriers (kind: named); remove it");
    else if (*b.id.value == 0 || *b.id.value + consumers - 1 > 15)
      error(b.id.loc, path + ".id " + str(*b.id.value) + ": the barrier uses ids " +
                          str(*b.id.value) + " to " + str(*b.id.value + consumers - 1) +
                          " (one per consumer); id 0 is __syncthreads' and ids end at 15; "
                          "use id: 1");
  }
}

} // namespace gemmgen::checks

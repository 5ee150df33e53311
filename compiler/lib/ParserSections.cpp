//===- ParserSections.cpp - Roles, barriers and the epilogue chain --------===//
//
// SpecParser's members for the spec's lists of named things: `roles`,
// `barriers` (and their symbolic slot counts) and `epilogue.chain`. Each
// value keeps its location; every problem is reported, not only the first.
//
//===----------------------------------------------------------------------===//
#include "SpecParser.h"

#include "gemmgen/Names.h"

#include "llvm/ADT/SmallString.h"

#include <string>

using namespace gemmgen;
using namespace gemmgen::specparser;

namespace {

const Word<RoleTask> kTasks[] = {
    {"tma_load", RoleTask::TmaLoad}, {"mma", RoleTask::Mma}, {"epilogue", RoleTask::Epilogue}};
const StringRef kRoleKeys[] = {"warps", "warpgroups", "registers", "does", "warp", "first_warp"};
const StringRef kBarrierKeys[] = {"from",          "to",       "kind",     "slots", "arrivals",
                                  "phase",         "initial_phase", "tx_bytes", "cta_mask", "id"};
const Word<BarrierKind> kBarrierKinds[] = {{"tma", BarrierKind::Tma},
                                           {"mbarrier", BarrierKind::Mbarrier},
                                           {"commit", BarrierKind::Commit},
                                           {"named", BarrierKind::Named}};
const Word<EpilogueOpKind> kEpilogueOps[] = {
    {"bias", EpilogueOpKind::Bias},          {"relu", EpilogueOpKind::Relu},
    {"gelu_tanh", EpilogueOpKind::GeluTanh}, {"gelu_erf", EpilogueOpKind::GeluErf},
    {"silu", EpilogueOpKind::Silu},          {"residual", EpilogueOpKind::Residual},
    {"clamp", EpilogueOpKind::Clamp},        {"scale", EpilogueOpKind::Scale}};
const Word<BiasAxis> kBiasAxes[] = {{"row", BiasAxis::Row}, {"column", BiasAxis::Column}};
const StringRef kBiasKeys[] = {"per", "type"};
const StringRef kClampKeys[] = {"min", "max"};

} // namespace

namespace gemmgen::specparser {

/// epilogue.chain: a list whose entries are an op word (`relu`) or a
/// one-key mapping of the op to its parameters (`bias: { per: row }`).
void SpecParser::parseChain(yaml::Node *node) {
  auto *seq = llvm::dyn_cast<yaml::SequenceNode>(node);
  if (!seq) {
    error(locOf(node), "expected a list for 'epilogue.chain', got " + describe(node) +
                           "; write it as 'chain: [bias, gelu_tanh]'");
    return;
  }
  unsigned index = 0;
  for (yaml::Node &entry : *seq)
    parseChainOp(&entry, index++);
}

void SpecParser::parseChainOp(yaml::Node *node, unsigned index) {
  const std::string path = "epilogue.chain[" + std::to_string(index) + "]";
  EpilogueOpSpec op;
  op.loc = locOf(node);
  // LLVM's YAML collections are read once, in order: an op's parameters are
  // parsed while its key is current.
  auto parseParams = [&](yaml::Node *params) {
    if (!params || llvm::isa<yaml::NullNode>(params))
      return;
    const std::string name = toString(op.kind.value);
    if (op.kind.value == EpilogueOpKind::Bias)
      walkMapping(params, path + ".bias", kBiasKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        if (k == "per")
          parseEnum(x, kl, path + ".bias.per", op.per, kBiasAxes);
        else
          parseEnum(x, kl, path + ".bias.type", op.type, kScalarTypes);
      });
    else if (op.kind.value == EpilogueOpKind::Clamp)
      walkMapping(params, path + ".clamp", kClampKeys,
                  [&](StringRef k, SMLoc kl, yaml::Node *x) {
                    parseFloat(x, kl, path + ".clamp." + k.str(), k == "min" ? op.min : op.max);
                  });
    else
      error(locOf(params), "'" + name + "' takes no parameters; write it as '- " + name + "'");
  };
  bool ok = false;
  if (auto *map = llvm::dyn_cast<yaml::MappingNode>(node)) {
    unsigned keys = 0;
    for (yaml::KeyValueNode &kv : *map) {
      yaml::Node *key = kv.getKey();
      if (!key)
        continue;
      if (++keys > 1) {
        error(locOf(key), "an entry of 'epilogue.chain' names one op; put " + describe(key) +
                              " in an entry of its own");
        ok = false;
        continue;
      }
      op.loc = locOf(key);
      if (auto v = enumWord(key, path, kEpilogueOps)) {
        setGiven(op.kind, *v, key, op.loc);
        ok = true;
        parseParams(kv.getValue());
      }
    }
    if (!keys)
      error(op.loc, "empty entry in 'epilogue.chain'; write an op such as 'relu'");
  } else if (auto v = enumWord(node, path, kEpilogueOps)) {
    setGiven(op.kind, *v, node, op.loc);
    ok = true;
  }
  if (!ok)
    return;
  op.per.loc = op.per.given ? op.per.loc : op.loc;
  op.type.loc = op.type.given ? op.type.loc : op.loc;
  op.min.loc = op.min.given ? op.min.loc : op.loc;
  op.max.loc = op.max.given ? op.max.loc : op.loc;
  spec.epilogue.chain.push_back(op);
}

void SpecParser::parseRoles(yaml::Node *node) {
  if (auto *map = llvm::dyn_cast<yaml::MappingNode>(node)) {
    (void)map;
    walkMapping(node, "roles", {}, [&](StringRef name, SMLoc nameLoc, yaml::Node *v) {
      parseRole(name, nameLoc, v);
    });
    return;
  }
  error(locOf(node), "expected a mapping of role names for 'roles', got " + describe(node) +
                         "; write e.g. 'roles: { producer: { warps: 1, does: tma_load }, ... }'");
}

void SpecParser::parseRole(StringRef name, SMLoc nameLoc, yaml::Node *node) {
  RoleSpec role;
  role.name.value = name.str();
  role.name.loc = role.name.keyLoc = nameLoc;
  role.name.given = true;
  role.loc = nameLoc;
  std::string path = "roles." + name.str();
  checkName(nameLoc, "role name", name);
  SMLoc warpLoc;  // where `warp`/`first_warp` was first given
  bool sawTasks = false;
  walkMapping(node, path, kRoleKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
    std::string p = path + "." + k.str();
    if (k == "warps") {
      parseUnsigned(x, kl, p, role.warps, 1, 32, "a CTA has at most 32 warps");
    } else if (k == "warpgroups") {
      parseUnsigned(x, kl, p, role.warpgroups, 1, 8, "a CTA has at most 8 warpgroups");
    } else if (k == "registers") {
      parseUnsigned(x, kl, p, role.registers, 24, 256, "setmaxnreg takes 24 to 256");
    } else if (k == "warp" || k == "first_warp") {
      if (warpLoc.isValid()) {
        error(kl, "give either 'warp' or 'first_warp' for role '" + name +
                      "', not both (they mean the same)");
        return;
      }
      warpLoc = kl;
      if (auto v = integer(x, p, 0, 31, "a CTA has at most 32 warps"))
        setGiven(role.firstWarp, std::optional<unsigned>(unsigned(*v)), x, kl);
    } else if (k == "does") {
      sawTasks = true;
      role.does.clear();
      auto addTask = [&](yaml::Node *t) {
        auto task = enumWord(t, p, kTasks);
        if (!task)
          return;
        for (const Located<RoleTask> &prev : role.does)
          if (prev.value == *task) {
            diags.warning(locOf(t), "task '" + std::string(toString(*task)) +
                                        "' is listed twice in '" + p + "'; remove one");
            return;
          }
        Located<RoleTask> lt;
        setGiven(lt, *task, t, kl);
        role.does.push_back(lt);
      };
      if (auto *seq = llvm::dyn_cast<yaml::SequenceNode>(x)) {
        unsigned count = 0;
        for (yaml::Node &t : *seq) {
          ++count;
          addTask(&t);
        }
        if (count == 0)
          error(locOf(x), "role '" + name + "' does nothing; list at least one of " +
                              "tma_load, mma, epilogue in '" + p + "'");
      } else {
        addTask(x);
      }
    }
  });
  if (!llvm::isa<yaml::MappingNode>(node))
    return;
  if (role.warps.given && role.warpgroups.given)
    error(std::max(role.warps.keyLoc.getPointer(), role.warpgroups.keyLoc.getPointer()) ==
                  role.warps.keyLoc.getPointer()
              ? role.warps.keyLoc
              : role.warpgroups.keyLoc,
          "give either 'warps' or 'warpgroups' for role '" + name +
                                      "', not both");
  else if (!role.warps.given && !role.warpgroups.given && !yamlFailed)
    error(nameLoc, "role '" + name + "' needs 'warps' or 'warpgroups'; add e.g. " +
                       "'warps: 1' (a producer) or 'warpgroups: 1' (an MMA consumer)");
  if (!sawTasks && !yamlFailed)
    error(nameLoc, "role '" + name + "' needs 'does'; add one of tma_load, mma, epilogue " +
                       "(or a list such as '[mma, epilogue]')");
  // Defaults point at the role's name.
  for (Located<unsigned> *f : {&role.warps, &role.warpgroups, &role.registers})
    if (!f->given)
      f->loc = f->keyLoc = nameLoc;
  if (!role.firstWarp.given)
    role.firstWarp.loc = role.firstWarp.keyLoc = nameLoc;

  for (RoleSpec &prev : spec.roles)
    if (prev.name.value == role.name.value) {
      prev = std::move(role);  // duplicate key: already warned, later wins
      return;
    }
  spec.roles.push_back(std::move(role));
}

void SpecParser::parseBarriers(yaml::Node *node) {
  if (!llvm::isa<yaml::MappingNode>(node)) {
    error(locOf(node), "expected a mapping of barrier names for 'barriers', got " +
                           describe(node) +
                           "; write e.g. 'barriers: { full: { kind: tma, slots: depth } }'");
    return;
  }
  walkMapping(node, "barriers", {}, [&](StringRef name, SMLoc nameLoc, yaml::Node *v) {
    parseBarrier(name, nameLoc, v);
  });
}

void SpecParser::parseBarrier(StringRef name, SMLoc nameLoc, yaml::Node *node) {
  BarrierSpec bar;
  bar.name.value = name.str();
  bar.name.loc = bar.name.keyLoc = nameLoc;
  bar.name.given = true;
  bar.loc = nameLoc;
  std::string symbol;
  std::string path = "barriers." + name.str();
  checkName(nameLoc, "barrier name", name);
  SMLoc phaseLoc;
  walkMapping(node, path, kBarrierKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
    std::string p = path + "." + k.str();
    if (k == "from" || k == "to") {
      parseIdentifier(x, kl, p, "role name", k == "from" ? bar.from : bar.to);
    } else if (k == "kind") {
      parseEnum(x, kl, p, bar.kind, kBarrierKinds);
    } else if (k == "slots") {
      if (auto *s = llvm::dyn_cast<yaml::ScalarNode>(x)) {
        llvm::SmallString<16> storage;
        StringRef t = s->getValue(storage);
        if (t == "depth" || t == "consumers") {
          symbol = t.str();
          setGiven(bar.slots, std::optional<unsigned>(0u), x, kl);  // resolved at the end
          return;
        }
        int64_t ignored;
        if (t.getAsInteger(10, ignored)) {
          error(locOf(x), "expected an integer, 'depth' or 'consumers' for '" + p + "', got '" +
                              t + "'");
          return;
        }
      }
      symbol.clear();
      parseOptUnsigned(x, kl, p, bar.slots, 1, 32);
    } else if (k == "arrivals") {
      parseOptUnsigned(x, kl, p, bar.arrivals, 1, (1 << 20) - 1,
                       "an mbarrier counts at most 2^20 - 1 arrivals");
    } else if (k == "phase" || k == "initial_phase") {
      if (phaseLoc.isValid()) {
        error(kl, "give either 'phase' or 'initial_phase' for barrier '" + name +
                      "', not both (they mean the same)");
        return;
      }
      phaseLoc = kl;
      parseOptUnsigned(x, kl, p, bar.initialPhase, 0, 1, "a phase is a parity bit");
    } else if (k == "tx_bytes") {
      parseOptUnsigned(x, kl, p, bar.txBytes, 1, (1 << 20) - 1,
                       "an mbarrier's transaction count is below 2^20");
    } else if (k == "cta_mask") {
      parseOptUnsigned(x, kl, p, bar.ctaMask, 0, 0xffff, "one bit per CTA of the cluster");
    } else if (k == "id") {
      parseOptUnsigned(x, kl, p, bar.id, 0, 15, "a CTA has 16 named barriers");
    }
  });
  if (!llvm::isa<yaml::MappingNode>(node))
    return;
  for (Located<std::string> *f : {&bar.from, &bar.to})
    if (!f->given)
      f->loc = f->keyLoc = nameLoc;
  if (!bar.kind.given)
    bar.kind.loc = bar.kind.keyLoc = nameLoc;
  for (auto *f : {&bar.slots, &bar.arrivals, &bar.initialPhase, &bar.txBytes, &bar.ctaMask,
                  &bar.id})
    if (!f->given)
      f->loc = f->keyLoc = nameLoc;

  for (size_t i = 0; i < spec.barriers.size(); ++i)
    if (spec.barriers[i].name.value == bar.name.value) {
      spec.barriers[i] = std::move(bar);
      slotSymbols[i] = symbol;
      return;
    }
  spec.barriers.push_back(std::move(bar));
  slotSymbols.push_back(symbol);
}

/// `slots: depth` and `slots: consumers` name other keys of the spec, which
/// may come later in the file; they are replaced by numbers once all is read.
void SpecParser::resolveSymbolicSlots() {
  for (size_t i = 0; i < spec.barriers.size(); ++i) {
    if (slotSymbols[i] == "depth")
      spec.barriers[i].slots.value = spec.pipeline.depth.value;
    else if (slotSymbols[i] == "consumers")
      spec.barriers[i].slots.value = spec.consumers.value;
  }
}

} // namespace gemmgen::specparser

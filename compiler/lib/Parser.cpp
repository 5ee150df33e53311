//===- Parser.cpp - YAML spec text to KernelSpec --------------------------===//
//
// parseSpec() walks the llvm::yaml::Stream node tree itself (as clangd's
// config parser does) instead of using yaml::IO: yaml::IO stops at the first
// error and drops locations, while a spec author wants every problem of a
// file in one run, each pointing at its line and column.
//
// What this stage reports:
//   - malformed YAML (the YAML parser's own message, located; the YAML
//     parser stops at its first error, so that is reported once),
//   - unknown keys, with "did you mean 'X'?" (edit distance) or the list of
//     accepted keys,
//   - values of the wrong type ("expected an integer for 'tile.m', got 'abc'"),
//   - integers outside the key's documented range, enum words outside the
//     accepted list,
//   - duplicate keys (a warning; the later value is used, a note points at
//     the first),
//   - missing required keys (`kernel`, `roles`) and names that are not C
//     identifiers.
// Checks that relate several fields, or depend on the target, are in
// Checks.cpp. The key-by-key reference is docs/SPEC.md.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Parser.h"

#include "SpecParser.h"

#include "gemmgen/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace gemmgen;
using namespace gemmgen::specparser;
using llvm::SMLoc;
using llvm::StringRef;
namespace yaml = llvm::yaml;

namespace {


const Word<Target> kTargets[] = {{"sm_90a", Target::SM90a}, {"sm_100a", Target::SM100a}};
const Word<MatrixLayout> kLayouts[] = {{"row", MatrixLayout::Row}, {"col", MatrixLayout::Col}};
const Word<SchedulerKind> kSchedulerKinds[] = {{"persistent", SchedulerKind::Persistent},
                                               {"data_parallel", SchedulerKind::DataParallel},
                                               {"stream_k", SchedulerKind::StreamK}};
const Word<RasterOrder> kRasters[] = {{"along_m", RasterOrder::AlongM},
                                      {"along_n", RasterOrder::AlongN},
                                      {"hilbert", RasterOrder::Hilbert}};
const Word<ConsumerMode> kConsumerModes[] = {{"cooperative", ConsumerMode::Cooperative},
                                             {"pingpong", ConsumerMode::PingPong}};
const Word<EpilogueStore> kStores[] = {{"tma", EpilogueStore::Tma},
                                       {"direct", EpilogueStore::Direct}};

/// Keys of each mapping, in the order docs/SPEC.md lists them.
const StringRef kTopKeys[] = {"kernel",    "description", "target",    "types",
                              "layout",    "tile",        "cluster",   "pipeline",
                              "consumers", "scheduler",   "roles",     "barriers",
                              "epilogue",  "cta_group",   "tmem_columns"};
const StringRef kTypesKeys[] = {"a", "b", "d", "accumulate", "scaling"};
const Word<ScalingMode> kScalingModes[] = {{"per_tensor", ScalingMode::PerTensor},
                                           {"blockwise", ScalingMode::Blockwise}};
const StringRef kLayoutKeys[] = {"a", "b", "d"};
const StringRef kTileKeys[] = {"m", "n", "k"};
const StringRef kClusterKeys[] = {"m", "n"};
const StringRef kPipelineKeys[] = {"depth", "mma_in_flight", "l2_promotion"};
const StringRef kSchedulerKeys[] = {"kind",    "raster",    "group",      "grouped",
                                    "split_k", "consumers", "ctas_per_sm",
                                    "simt_narrow"};
const StringRef kEpilogueKeys[] = {"store", "overlap", "chunk_n", "buffers", "chain"};

/// Words people coming from other GEMM code bases write for our keys
/// (closestMatch suggests them even when far in edit distance).
const Synonym kSynonyms[] = {
    {"stages", "depth"},         {"num_stages", "depth"},      {"pipe_depth", "depth"},
    {"warp_groups", "warpgroups"}, {"wgs", "warpgroups"},      {"regs", "registers"},
    {"maxnreg", "registers"},    {"count", "arrivals"},        {"arrive_count", "arrivals"},
    {"arrival_count", "arrivals"}, {"task", "does"},           {"tasks", "does"},
    {"arch", "target"},          {"name", "kernel"},           {"dtype", "types"},
    {"dtypes", "types"},         {"block", "tile"},            {"cta_tile", "tile"},
    {"num_consumers", "consumers"}, {"epi_n", "chunk_n"},      {"stmt", "store"},
    {"wait_group", "mma_in_flight"}, {"waiter", "to"},         {"signaller", "from"},
    {"ctamask", "cta_mask"},     {"mask", "cta_mask"},
    {"col", "column"},           {"gelu", "gelu_tanh"}};

} // namespace

namespace gemmgen::specparser {

std::optional<StringRef> closest(StringRef word, llvm::ArrayRef<StringRef> candidates) {
  return closestMatch(word, candidates, kSynonyms);
}


void SpecParser::onYamlDiag(const llvm::SMDiagnostic &d, void *ctx) {
  auto *self = static_cast<SpecParser *>(ctx);
  if (d.getKind() != llvm::SourceMgr::DK_Error) {
    self->diags.warning(d.getLoc(), "YAML: " + d.getMessage());
    return;
  }
  self->yamlFailed = true;
  // LLVM's YAML messages are capitalised and sometimes end in '!' or '.';
  // bring them to our style.
  std::string msg = d.getMessage().str();
  while (!msg.empty() && (msg.back() == '!' || msg.back() == '.' || msg.back() == ' '))
    msg.pop_back();
  if (!msg.empty() && std::isupper((unsigned char)msg[0]) &&
      !(msg.size() > 1 && std::isupper((unsigned char)msg[1])))
    msg[0] = std::tolower((unsigned char)msg[0]);
  // "Unexpected token. Expected Key, ..." -> "unexpected token; expected Key, ..."
  for (size_t i = 0; i + 2 < msg.size(); ++i)
    if (msg[i] == '.' && msg[i + 1] == ' ' && std::isupper((unsigned char)msg[i + 2])) {
      msg.replace(i, 2, "; ");
      msg[i + 2] = std::tolower((unsigned char)msg[i + 2]);
    }
  self->diags.error(d.getLoc(), "malformed YAML: " + msg +
                                    "; check the indentation, brackets and quotes here");
}

std::string SpecParser::describe(yaml::Node *n) {
  if (auto *s = llvm::dyn_cast<yaml::ScalarNode>(n)) {
    llvm::SmallString<32> storage;
    return "'" + s->getValue(storage).str() + "'";
  }
  if (llvm::isa<yaml::NullNode>(n))
    return "nothing";
  if (llvm::isa<yaml::MappingNode>(n))
    return "a mapping";
  if (llvm::isa<yaml::SequenceNode>(n))
    return "a list";
  if (llvm::isa<yaml::BlockScalarNode>(n))
    return "a block of text";
  if (llvm::isa<yaml::AliasNode>(n))
    return "an alias";
  return "something else";
}

void SpecParser::walkMapping(yaml::Node *node, StringRef path, llvm::ArrayRef<StringRef> known,
                             const Handler &handle) {
  auto *map = llvm::dyn_cast<yaml::MappingNode>(node);
  if (!map) {
    if (llvm::isa<yaml::AliasNode>(node)) {
      error(locOf(node), "YAML aliases are not supported in a spec; write '" + path +
                             "' out in full");
      return;
    }
    error(locOf(node), "expected a mapping for '" + path + "', got " + describe(node) +
                           (known.empty() ? std::string()
                                          : "; write it as '" + path.str() + ": { " +
                                                known.front().str() + ": ... }'"));
    return;
  }
  std::string where = path.empty() ? std::string("in the spec") : "in '" + path.str() + "'";
  llvm::StringMap<SMLoc> seen;
  for (yaml::KeyValueNode &kv : *map) {
    yaml::Node *keyNode = kv.getKey();
    if (!keyNode)
      continue;
    auto *keyScalar = llvm::dyn_cast<yaml::ScalarNode>(keyNode);
    if (!keyScalar) {
      if (!llvm::isa<yaml::NullNode>(keyNode) || !yamlFailed)
        error(locOf(keyNode), "expected a plain key " + where + ", got " + describe(keyNode));
      continue;
    }
    llvm::SmallString<32> storage;
    std::string key = keyScalar->getValue(storage).str();
    SMLoc keyLoc = locOf(keyNode);
    yaml::Node *value = kv.getValue();
    if (!value)
      continue;

    if (!known.empty() && !llvm::is_contained(known, StringRef(key))) {
      if (auto best = closest(key, known))
        error(keyLoc, "unknown key '" + key + "' " + where + "; did you mean '" + *best + "'?");
      else
        error(keyLoc, "unknown key '" + key + "' " + where + "; the keys are " +
                          sentenceList(known, /*quoted=*/true));
      continue;
    }
    auto [it, inserted] = seen.try_emplace(key, keyLoc);
    if (!inserted) {
      diags.warning(keyLoc, "duplicate key '" + key + "' " + where +
                                "; the later value is used");
      diags.note(it->second, "'" + key + "' first given here");
      it->second = keyLoc;
    }
    handle(key, keyLoc, value);
  }
}

std::optional<std::string> SpecParser::scalarText(yaml::Node *n, StringRef path, StringRef what) {
  if (auto *s = llvm::dyn_cast<yaml::ScalarNode>(n)) {
    llvm::SmallString<32> storage;
    return s->getValue(storage).str();
  }
  if (llvm::isa<yaml::AliasNode>(n)) {
    error(locOf(n), "YAML aliases are not supported in a spec; write '" + path + "' out in full");
    return std::nullopt;
  }
  error(locOf(n), "expected " + what + " for '" + path + "', got " + describe(n));
  return std::nullopt;
}

std::optional<int64_t> SpecParser::integer(yaml::Node *n, StringRef path, int64_t min,
                                           int64_t max, StringRef why) {
  auto text = scalarText(n, path, "an integer");
  if (!text)
    return std::nullopt;
  StringRef t(*text);
  int64_t v = 0;
  bool bad;
  if (t.startswith_insensitive("0x"))
    bad = t.drop_front(2).getAsInteger(16, v);
  else if (t.startswith_insensitive("0b"))
    bad = t.drop_front(2).getAsInteger(2, v);
  else
    bad = t.getAsInteger(10, v);
  if (bad) {
    error(locOf(n), "expected an integer for '" + path + "', got '" + t + "'");
    return std::nullopt;
  }
  if (v < min || v > max) {
    std::string range = max == min + 1 ? std::to_string(min) + " or " + std::to_string(max)
                                       : "between " + std::to_string(min) + " and " +
                                             std::to_string(max);
    error(locOf(n), path + " must be " + range + (why.empty() ? "" : " (" + why.str() + ")") +
                        ", got " + t);
    return std::nullopt;
  }
  return v;
}

void SpecParser::parseUnsigned(yaml::Node *n, SMLoc keyLoc, StringRef path,
                               Located<unsigned> &out, int64_t min, int64_t max, StringRef why) {
  if (auto v = integer(n, path, min, max, why))
    setGiven(out, unsigned(*v), n, keyLoc);
}

void SpecParser::parseOptUnsigned(yaml::Node *n, SMLoc keyLoc, StringRef path,
                                  Located<std::optional<unsigned>> &out, int64_t min,
                                  int64_t max, StringRef why) {
  if (auto v = integer(n, path, min, max, why))
    setGiven(out, std::optional<unsigned>(unsigned(*v)), n, keyLoc);
}


void SpecParser::parseBool(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<bool> &out) {
  auto text = scalarText(n, path, "true or false");
  if (!text)
    return;
  StringRef t(*text);
  if (t == "true" || t == "True" || t == "yes" || t == "on")
    setGiven(out, true, n, keyLoc);
  else if (t == "false" || t == "False" || t == "no" || t == "off")
    setGiven(out, false, n, keyLoc);
  else
    error(locOf(n), "expected true or false for '" + path + "', got '" + t + "'");
}

void SpecParser::parseFloat(yaml::Node *n, SMLoc keyLoc, StringRef path, Located<float> &out) {
  auto text = scalarText(n, path, "a number");
  if (!text)
    return;
  errno = 0;
  char *end = nullptr;
  const float v = std::strtof(text->c_str(), &end);
  if (text->empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    error(locOf(n), "expected a finite number for '" + path + "', got '" + *text + "'");
    return;
  }
  setGiven(out, v, n, keyLoc);
}

/// A name for messages: long names are cut (the caret shows where it is).
static std::string shown(StringRef name) {
  return name.size() <= 60 ? name.str() : name.take_front(40).str() + "...";
}

bool SpecParser::checkName(SMLoc loc, StringRef what, StringRef name) {
  if (name.size() > kMaxNameLength) {
    error(loc, what + " '" + shown(name) + "' is " + std::to_string(name.size()) +
                   " characters long; use at most " + std::to_string(kMaxNameLength));
    return false;
  }
  if (!isIdentifier(name)) {
    error(loc, what + " '" + name + "' is not a valid C identifier; use letters, digits " +
                   "and '_', not starting with a digit (e.g. '" + toIdentifier(name) + "')");
    return false;
  }
  return true;
}

void SpecParser::parseIdentifier(yaml::Node *n, SMLoc keyLoc, StringRef path, StringRef what,
                                 Located<std::string> &out) {
  auto text = scalarText(n, path, "a name");
  if (!text || !checkName(locOf(n), what, *text))
    return;
  setGiven(out, *text, n, keyLoc);
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

void SpecParser::parseTop(yaml::Node *root) {
  spec.loc = locOf(root);
  walkMapping(root, "", kTopKeys, [&](StringRef key, SMLoc keyLoc, yaml::Node *v) {
    sectionLoc[key] = keyLoc;
    if (key == "kernel") {
      parseIdentifier(v, keyLoc, "kernel", "kernel name", spec.kernel);
      if (spec.kernel.given) {
        std::string why = kernelNameProblem(spec.kernel.value);
        if (!why.empty())
          error(spec.kernel.loc, "kernel name '" + spec.kernel.value + "' " + why);
      }
    } else if (key == "description") {
      if (auto *b = llvm::dyn_cast<yaml::BlockScalarNode>(v))
        setGiven(spec.description, b->getValue().str(), v, keyLoc);
      else if (auto t = scalarText(v, "description", "text"))
        setGiven(spec.description, *t, v, keyLoc);
    } else if (key == "target") {
      parseEnum(v, keyLoc, "target", spec.target, kTargets);
    } else if (key == "types") {
      walkMapping(v, "types", kTypesKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        std::string p = "types." + k.str();
        if (k == "scaling")
          return parseEnum(x, kl, p, spec.types.scaling, kScalingModes);
        Located<ScalarType> &f = k == "a"   ? spec.types.a
                                 : k == "b" ? spec.types.b
                                 : k == "d" ? spec.types.d
                                            : spec.types.accumulate;
        parseEnum(x, kl, p, f, kScalarTypes);
      });
    } else if (key == "layout") {
      walkMapping(v, "layout", kLayoutKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        parseEnum(x, kl, "layout." + k.str(),
                  k == "a" ? spec.layout.a : k == "b" ? spec.layout.b : spec.layout.d, kLayouts);
      });
    } else if (key == "tile") {
      walkMapping(v, "tile", kTileKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        if (k == "m")
          parseUnsigned(x, kl, "tile.m", spec.tile.m, 64, 256,
                        "an MMA's M is 64 to 256 rows per CTA");
        else if (k == "n")
          parseUnsigned(x, kl, "tile.n", spec.tile.n, 8, 256,
                        "an MMA's N and a TMA box are at most 256");
        else
          parseUnsigned(x, kl, "tile.k", spec.tile.k, 16, 256, "a TMA box is at most 256");
      });
    } else if (key == "cluster") {
      walkMapping(v, "cluster", kClusterKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        parseUnsigned(x, kl, "cluster." + k.str(), k == "m" ? spec.cluster.m : spec.cluster.n,
                      1, 16, "CTAs along one side of a cluster");
      });
    } else if (key == "pipeline") {
      walkMapping(v, "pipeline", kPipelineKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        if (k == "depth")
          parseUnsigned(x, kl, "pipeline.depth", spec.pipeline.depth, 1, 32,
                        "stages in the SMEM ring");
        else if (k == "mma_in_flight")
          parseUnsigned(x, kl, "pipeline.mma_in_flight", spec.pipeline.mmaInFlight, 0, 1,
                        "wgmma groups left running: wait_group 0 or 1");
        else if (auto bytes = integer(x, "pipeline.l2_promotion", 64, 256,
                                      "bytes the L2 fetches per operand load request")) {
          if (*bytes == 64 || *bytes == 128 || *bytes == 256)
            setGiven(spec.pipeline.l2Promotion, unsigned(*bytes), x, kl);
          else
            error(locOf(x), "pipeline.l2_promotion " + std::to_string(*bytes) +
                                " is not a size TMA promotes to; use 64, 128 or 256 (or leave "
                                "it out: 256 on rows that start on 128-byte lines, else 128)");
        }
      });
    } else if (key == "consumers") {
      parseUnsigned(v, keyLoc, "consumers", spec.consumers, 1, 4, "MMA consumer warpgroups");
    } else if (key == "scheduler") {
      walkMapping(v, "scheduler", kSchedulerKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        if (k == "kind")
          parseEnum(x, kl, "scheduler.kind", spec.scheduler.kind, kSchedulerKinds);
        else if (k == "raster")
          parseEnum(x, kl, "scheduler.raster", spec.scheduler.raster, kRasters);
        else if (k == "grouped")
          parseBool(x, kl, "scheduler.grouped", spec.scheduler.grouped);
        else if (k == "consumers")
          parseEnum(x, kl, "scheduler.consumers", spec.scheduler.consumers, kConsumerModes);
        else if (k == "split_k")
          parseUnsigned(x, kl, "scheduler.split_k", spec.scheduler.splitK, 1, 64,
                        "K slices summed after the GEMM");
        else if (k == "ctas_per_sm")
          parseUnsigned(x, kl, "scheduler.ctas_per_sm", spec.scheduler.ctasPerSm, 1, 4,
                        "CTAs resident on one SM");
        else if (k == "simt_narrow")
          parseUnsigned(x, kl, "scheduler.simt_narrow", spec.scheduler.simtNarrow, 0,
                        kSimtNarrowMaxColumns,
                        "the most rows or columns of D the SIMT path takes; 0: none");
        else
          parseUnsigned(x, kl, "scheduler.group", spec.scheduler.group, 1, 1024);
      });
    } else if (key == "roles") {
      spec.rolesLoc = keyLoc;
      parseRoles(v);
    } else if (key == "barriers") {
      spec.barriersLoc = keyLoc;
      parseBarriers(v);
    } else if (key == "epilogue") {
      walkMapping(v, "epilogue", kEpilogueKeys, [&](StringRef k, SMLoc kl, yaml::Node *x) {
        if (k == "store")
          parseEnum(x, kl, "epilogue.store", spec.epilogue.store, kStores);
        else if (k == "overlap")
          parseBool(x, kl, "epilogue.overlap", spec.epilogue.overlap);
        else if (k == "buffers")
          parseUnsigned(x, kl, "epilogue.buffers", spec.epilogue.buffers, 1, 2,
                        "staging tiles per consumer");
        else if (k == "chain") {
          spec.epilogue.chainLoc = kl;
          parseChain(x);
        }
        else
          parseUnsigned(x, kl, "epilogue.chunk_n", spec.epilogue.chunkN, 0, 256);
      });
    } else if (key == "cta_group") {
      parseUnsigned(v, keyLoc, "cta_group", spec.ctaGroup, 1, 2);
    } else if (key == "tmem_columns") {
      parseUnsigned(v, keyLoc, "tmem_columns", spec.tmemColumns, 0, 512);
    }
  });
}

/// Fields left at their default point at the enclosing mapping's key (or at
/// the top of the spec when the whole section is absent).
void SpecParser::fillDefaultLocations() {
  auto at = [&](StringRef section) {
    auto it = sectionLoc.find(section);
    return it != sectionLoc.end() ? it->second : spec.loc;
  };
  auto fill = [](auto &f, SMLoc loc) {
    if (!f.given)
      f.loc = f.keyLoc = loc;
  };
  fill(spec.kernel, spec.loc);
  fill(spec.target, spec.loc);
  fill(spec.description, spec.loc);
  fill(spec.types.scaling, at("types"));
  for (auto *f : {&spec.types.a, &spec.types.b, &spec.types.d, &spec.types.accumulate})
    fill(*f, at("types"));
  fill(spec.layout.a, at("layout"));
  fill(spec.layout.b, at("layout"));
  fill(spec.layout.d, at("layout"));
  for (auto *f : {&spec.tile.m, &spec.tile.n, &spec.tile.k})
    fill(*f, at("tile"));
  fill(spec.cluster.m, at("cluster"));
  fill(spec.cluster.n, at("cluster"));
  fill(spec.pipeline.depth, at("pipeline"));
  fill(spec.pipeline.mmaInFlight, at("pipeline"));
  fill(spec.pipeline.l2Promotion, at("pipeline"));
  fill(spec.consumers, spec.loc);
  fill(spec.scheduler.kind, at("scheduler"));
  fill(spec.scheduler.raster, at("scheduler"));
  fill(spec.scheduler.group, at("scheduler"));
  fill(spec.scheduler.grouped, at("scheduler"));
  fill(spec.scheduler.splitK, at("scheduler"));
  fill(spec.scheduler.consumers, at("scheduler"));
  fill(spec.scheduler.ctasPerSm, at("scheduler"));
  fill(spec.scheduler.simtNarrow, at("scheduler"));
  fill(spec.epilogue.store, at("epilogue"));
  fill(spec.epilogue.overlap, at("epilogue"));
  fill(spec.epilogue.chunkN, at("epilogue"));
  fill(spec.epilogue.buffers, at("epilogue"));
  fill(spec.ctaGroup, spec.loc);
  fill(spec.tmemColumns, spec.loc);
}

bool SpecParser::checkSyntaxAndNesting(llvm::MemoryBufferRef buffer) {
  llvm::SourceMgr syntaxSM;
  syntaxSM.setDiagHandler(&SpecParser::onYamlDiag, this);
  yaml::Stream syntax(buffer, syntaxSM, /*ShowColors=*/false);
  // LLVM's Node::skip() recurses once per level of nesting, and a line of
  // a few hundred thousand '[' (or '- ') overflows the stack. This walk
  // keeps its own stack and visits each child fully before the parser moves
  // on, so LLVM never has an unvisited collection to skip.
  struct Frame {
    yaml::Node *node;  ///< a mapping, a sequence or one key: value entry
    bool started = false;
    unsigned kvStep = 0;  ///< key: value entries: 0 key next, 1 value next, 2 done
    yaml::MappingNode::iterator mapIt{};
    yaml::SequenceNode::iterator seqIt{};
  };
  std::vector<Frame> stack;
  unsigned collections = 0;
  // Pushes a collection (nothing to do for scalars); false past the limit.
  auto enter = [&](yaml::Node *n) {
    if (!n || !(llvm::isa<yaml::MappingNode>(n) || llvm::isa<yaml::SequenceNode>(n)))
      return true;
    if (++collections > kMaxSpecNesting) {
      error(locOf(n), "the spec nests more than " + std::to_string(kMaxSpecNesting) +
                          " levels deep here; a spec needs 4 (roles: { name: { does: [...] } "
                          "}); check the brackets and indentation");
      return false;
    }
    stack.push_back(Frame{n});
    return true;
  };
  for (yaml::Document &doc : syntax) {
    if (yamlFailed)
      return false;
    if (!enter(doc.getRoot()))
      return false;
    while (!stack.empty() && !yamlFailed) {
      Frame &f = stack.back();
      yaml::Node *next = nullptr;
      bool done = false;
      if (auto *map = llvm::dyn_cast<yaml::MappingNode>(f.node)) {
        if (!f.started)
          f.mapIt = map->begin(), f.started = true;
        else
          ++f.mapIt;
        if (f.mapIt == map->end())
          done = true;
        else
          stack.push_back(Frame{&*f.mapIt});  // visited fully before ++mapIt
        if (!done)
          continue;
      } else if (auto *seq = llvm::dyn_cast<yaml::SequenceNode>(f.node)) {
        if (!f.started)
          f.seqIt = seq->begin(), f.started = true;
        else
          ++f.seqIt;
        if (f.seqIt == seq->end())
          done = true;
        else
          next = &*f.seqIt;
      } else {
        auto *kv = llvm::cast<yaml::KeyValueNode>(f.node);
        // The key first: getValue() skips an unvisited key (recursively).
        if (f.kvStep == 0)
          next = kv->getKey();
        else if (f.kvStep == 1)
          next = kv->getValue();
        else
          done = true;
        ++f.kvStep;
      }
      if (done) {
        if (!llvm::isa<yaml::KeyValueNode>(stack.back().node))
          --collections;
        stack.pop_back();
        continue;
      }
      if (!enter(next))
        return false;
    }
    if (yamlFailed)
      return false;
    stack.clear();
    collections = 0;
  }
  return !yamlFailed;
}

std::optional<KernelSpec> SpecParser::run(llvm::MemoryBufferRef buffer) {
  unsigned errorsBefore = diags.errorCount();
  text = buffer.getBuffer();
  spec.path = buffer.getBufferIdentifier().str();
  spec.loc = SMLoc::getFromPointer(buffer.getBufferStart());

  // The YAML parser reports through its own SourceMgr; its handler forwards
  // each message to the DiagnosticEngine. The locations point into the same
  // memory, which the engine's SourceMgr owns.
  //
  if (text.size() > kMaxSpecBytes) {
    error(spec.loc, "the spec is " + std::to_string(text.size()) + " bytes; a spec is at most " +
                        std::to_string(kMaxSpecBytes) + " bytes (1 MiB)");
    return std::nullopt;
  }
  // First pass: only syntax. The YAML parser stops at its first error, and
  // what it built up to there would produce follow-on noise ("expected an
  // integer, got '128\nroles'"), so a malformed file reports only that.
  if (!checkSyntaxAndNesting(buffer))
    return std::nullopt;
  llvm::SourceMgr yamlSM;
  yamlSM.setDiagHandler(&SpecParser::onYamlDiag, this);
  yaml::Stream stream(buffer, yamlSM, /*ShowColors=*/false);

  bool sawDocument = false;
  for (yaml::document_iterator di = stream.begin(), de = stream.end(); di != de; ++di) {
    yaml::Node *root = di->getRoot();
    if (!root)
      break;
    if (sawDocument) {
      if (!llvm::isa<yaml::NullNode>(root))
        error(locOf(root), "a spec file holds one YAML document; move what follows '---' to "
                           "its own file");
      root->skip();
      continue;
    }
    sawDocument = true;
    if (llvm::isa<yaml::NullNode>(root)) {
      if (!yamlFailed)
        error(spec.loc, "the spec is empty; it needs at least 'kernel' and 'roles' (see "
                        "docs/SPEC.md)");
      continue;
    }
    if (!llvm::isa<yaml::MappingNode>(root)) {
      if (!yamlFailed)
        error(locOf(root), "expected a mapping of keys at the top of the spec, got " +
                               describe(root) + "; start with 'kernel: my_gemm'");
      root->skip();
      continue;
    }
    parseTop(root);
    if (yamlFailed)
      break;
    if (!spec.kernel.given && !sectionLoc.count("kernel"))
      error(spec.loc, "missing required key 'kernel' (the kernel's name, a C identifier); add "
                      "e.g. 'kernel: my_gemm'");
    if (!sectionLoc.count("roles"))
      error(spec.loc, "missing required key 'roles'; add e.g. 'roles: { producer: { warps: 1, "
                      "registers: 40, does: tma_load }, consumer: { warpgroups: 1, registers: "
                      "232, does: [mma, epilogue] } }'");
  }
  if (!sawDocument && !yamlFailed)
    error(spec.loc, "the spec is empty; it needs at least 'kernel' and 'roles' (see docs/SPEC.md)");

  resolveSymbolicSlots();
  fillDefaultLocations();
  if (diags.errorCount() != errorsBefore)
    return std::nullopt;
  return std::move(spec);
}

} // namespace gemmgen::specparser

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> gemmgen::readSpecFile(StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(std::make_error_code(std::errc::invalid_argument), why);
  };
  // Non-blocking: opening a FIFO for reading would otherwise wait for a
  // writer forever. fstat on the opened file, not stat on the path, so the
  // checks hold for what is read.
  llvm::SmallString<256> cpath(path);
  int fd = ::open(cpath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return llvm::errorCodeToError(std::error_code(errno, std::generic_category()));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return llvm::errorCodeToError(std::error_code(errno, std::generic_category()));
  if (S_ISDIR(st.st_mode))
    return fail("it is a directory; give the path of a spec file (.yaml)");
  if (!S_ISREG(st.st_mode))
    return fail(std::string("it is not a regular file (") +
                (S_ISFIFO(st.st_mode)  ? "a FIFO"
                 : S_ISCHR(st.st_mode) ? "a character device"
                 : S_ISBLK(st.st_mode) ? "a block device"
                 : S_ISSOCK(st.st_mode) ? "a socket"
                                       : "not a file") +
                "); give the path of a spec file (.yaml)");
  if (uint64_t(st.st_size) > kMaxSpecBytes)
    return fail("it is " + llvm::Twine(uint64_t(st.st_size)) + " bytes; a spec is at most " +
                llvm::Twine(kMaxSpecBytes) + " bytes (1 MiB)");
  auto buffer = llvm::MemoryBuffer::getOpenFile(fd, path, uint64_t(st.st_size),
                                                /*RequiresNullTerminator=*/true);
  if (!buffer)
    return llvm::errorCodeToError(buffer.getError());
  return std::move(*buffer);
}

std::optional<KernelSpec> gemmgen::parseSpec(StringRef text, StringRef bufferName,
                                             DiagnosticEngine &diags) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, bufferName);
  llvm::MemoryBufferRef ref = buffer->getMemBufferRef();
  diags.addBuffer(std::move(buffer));  // keeps the text alive for later diagnostics
  specparser::SpecParser parser(diags);
  return parser.run(ref);
}

std::optional<KernelSpec> gemmgen::parseSpecFile(StringRef path, DiagnosticEngine &diags) {
  auto buffer = readSpecFile(path);
  if (!buffer) {
    diags.error("cannot read spec '" + path + "': " + llvm::toString(buffer.takeError()));
    return std::nullopt;
  }
  llvm::MemoryBufferRef ref = (*buffer)->getMemBufferRef();
  diags.addBuffer(std::move(*buffer));
  specparser::SpecParser parser(diags);
  return parser.run(ref);
}

//===- TuneSpace.cpp - Autotuning search spaces and spec variants ---------===//
//
// Entry points: parseSpaceText/addSpaceArgs (the space), enumerate (the
// candidates), applyCandidate (a candidate as a variant spec's YAML) and
// checkVariant (parse + checkSpec, for pruning). See TuneSpace.h.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/TuneSpace.h"

#include "gemmgen/Checks.h"
#include "gemmgen/Parser.h"
#include "gemmgen/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace gemmgen;
using namespace gemmgen::tune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string tune::shortHash(StringRef text, unsigned bytes) {
  std::array<uint8_t, 32> h = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return llvm::toHex(llvm::ArrayRef<uint8_t>(h.data(), std::min(bytes, 32u)), /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The search space
//===----------------------------------------------------------------------===//

size_t SearchSpace::size() const {
  size_t n = 1;
  for (const Param &p : params)
    n *= p.values.size();
  return n;
}

const Param *SearchSpace::find(StringRef key) const {
  for (const Param &p : params)
    if (p.key == key)
      return &p;
  return nullptr;
}

std::string SearchSpace::str() const {
  auto root = YamlNode::makeMapping();
  for (const Param &p : params) {
    auto list = std::make_unique<YamlNode>();
    list->kind = YamlNode::Sequence;
    for (const std::string &v : p.values)
      list->items.push_back(YamlNode::makeScalar(v));
    root->set(p.key, std::move(list));
  }
  return writeYamlTree(*root);
}

const std::vector<std::string> &tune::tunableKeys() {
  static const std::vector<std::string> keys = {
      "tile.m",           "tile.n",
      "pipeline.depth",   "pipeline.mma_in_flight", "pipeline.l2_promotion",
      "consumers",        "cluster.m",
      "cluster.n",        "scheduler.kind",
      "scheduler.raster", "scheduler.group",
      "scheduler.split_k", "scheduler.ctas_per_sm",
      "epilogue.store",   "epilogue.chunk_n",
      "epilogue.overlap", "roles.producer.registers",
      "roles.consumer.registers"};
  return keys;
}

static bool isSimpleValue(StringRef v) {
  return !v.empty() && llvm::all_of(v, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '.';
  });
}

llvm::Error tune::validateSpace(const SearchSpace &space) {
  const auto &known = tunableKeys();
  for (const Param &p : space.params) {
    StringRef key = p.key;
    bool ok = llvm::is_contained(known, p.key);
    if (!ok && key.startswith("roles.")) {
      // roles.NAME.{registers,warps,warpgroups}: NAME is checked when applied.
      llvm::SmallVector<StringRef, 4> parts;
      key.split(parts, '.');
      ok = parts.size() == 3 && !parts[1].empty() &&
           (parts[2] == "registers" || parts[2] == "warps" || parts[2] == "warpgroups");
    }
    if (!ok) {
      std::vector<StringRef> names(known.begin(), known.end());
      std::optional<StringRef> best = closestMatch(key, names);
      return makeError("'" + p.key + "' is not a tunable spec key" +
                       (best ? "; did you mean '" + best->str() + "'?" : "") +
                       " (tunable: " + llvm::join(known, ", ") + ", roles.NAME.registers)");
    }
    if (p.values.empty())
      return makeError("'" + p.key + "' has no values; give at least one");
    for (const std::string &v : p.values)
      if (!isSimpleValue(v))
        return makeError("'" + p.key + "': value '" + v +
                         "' is not a plain word or number (letters, digits, _ - + .)");
  }
  return llvm::Error::success();
}

static void addParam(SearchSpace &space, std::string key, std::vector<std::string> values) {
  // Keep the first occurrence of each value.
  std::vector<std::string> uniq;
  for (std::string &v : values)
    if (!llvm::is_contained(uniq, v))
      uniq.push_back(std::move(v));
  for (Param &p : space.params)
    if (p.key == key) {
      p.values = std::move(uniq);
      return;
    }
  space.params.push_back(Param{std::move(key), std::move(uniq)});
}

/// Flattens a space file's mapping into dotted keys.
static llvm::Error flattenSpace(const YamlNode &n, const std::string &prefix, SearchSpace &out) {
  for (const auto &[k, v] : n.entries) {
    std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v->kind == YamlNode::Mapping) {
      if (llvm::Error e = flattenSpace(*v, key, out))
        return e;
      continue;
    }
    std::vector<std::string> values;
    if (v->kind == YamlNode::Scalar) {
      values.push_back(v->text());
    } else {
      for (const auto &item : v->items) {
        if (item->kind != YamlNode::Scalar)
          return makeError("'" + key + "': values must be scalars");
        values.push_back(item->text());
      }
    }
    addParam(out, key, std::move(values));
  }
  return llvm::Error::success();
}

llvm::Expected<SearchSpace> tune::parseSpaceText(StringRef text, StringRef name) {
  auto tree = parseYamlTree(text, name);
  if (!tree)
    return tree.takeError();
  SearchSpace space;
  if ((*tree)->kind != YamlNode::Mapping)
    return makeError(name + ": a space file is a mapping of 'key: [values]'");
  if (llvm::Error e = flattenSpace(**tree, "", space))
    return makeError(name + ": " + llvm::toString(std::move(e)));
  if (llvm::Error e = validateSpace(space))
    return makeError(name + ": " + llvm::toString(std::move(e)));
  return space;
}

llvm::Expected<SearchSpace> tune::parseSpaceFile(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return makeError("cannot read space file '" + path + "': " + buf.getError().message());
  return parseSpaceText((*buf)->getBuffer(), path);
}

llvm::Error tune::addSpaceArgs(SearchSpace &space, const std::vector<std::string> &args) {
  for (const std::string &arg : args) {
    auto [key, rest] = StringRef(arg).split('=');
    if (rest.empty() || key.trim().empty())
      return makeError("'" + arg + "' is not KEY=V1,V2,... (e.g. tile.n=128,256)");
    llvm::SmallVector<StringRef, 8> parts;
    rest.split(parts, ',', -1, false);
    std::vector<std::string> values;
    for (StringRef p : parts)
      values.push_back(p.trim().str());
    addParam(space, key.trim().str(), std::move(values));
  }
  return validateSpace(space);
}

SearchSpace tune::defaultSpace() {
  SearchSpace s;
  s.params = {
      {"tile.m", {"128", "256"}},
      {"tile.n", {"128", "192", "256"}},
      {"consumers", {"1", "2"}},
      {"pipeline.depth", {"3", "4", "5"}},
      {"cluster.m", {"1", "2"}},
      {"scheduler.raster", {"along_m", "hilbert"}},
  };
  return s;
}

//===----------------------------------------------------------------------===//
// Candidates
//===----------------------------------------------------------------------===//

std::string tune::candidateId(const std::vector<std::pair<std::string, std::string>> &values) {
  std::vector<std::string> lines;
  for (const auto &[k, v] : values)
    lines.push_back(k + "=" + v);
  llvm::sort(lines);
  return shortHash(llvm::join(lines, "\n"), 6);
}

std::string Candidate::describe() const {
  std::string out;
  for (const auto &[k, v] : values)
    out += (out.empty() ? "" : " ") + k + "=" + v;
  return out.empty() ? "(base)" : out;
}

const std::string *Candidate::value(StringRef key) const {
  for (const auto &kv : values)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

std::vector<Candidate> tune::enumerate(const SearchSpace &space) {
  std::vector<Candidate> out;
  const size_t n = space.size();
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Candidate c;
    c.index = i;
    size_t rem = i;
    c.values.resize(space.params.size());
    for (size_t p = space.params.size(); p-- > 0;) {
      const Param &param = space.params[p];
      c.values[p] = {param.key, param.values[rem % param.values.size()]};
      rem /= param.values.size();
    }
    c.id = candidateId(c.values);
    out.push_back(std::move(c));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Applying a candidate
//===----------------------------------------------------------------------===//

static bool roleDoes(const YamlNode &role, StringRef task) {
  const YamlNode *does = role.get("does");
  if (!does)
    return false;
  if (does->kind == YamlNode::Scalar)
    return does->text() == task;
  return llvm::any_of(does->items, [&](const auto &i) {
    return i->kind == YamlNode::Scalar && i->text() == task;
  });
}

/// The role a `roles.NAME` path means: a role of that name, else for
/// "producer"/"consumer" the role doing tma_load/mma.
static YamlNode *findRole(YamlNode &root, StringRef name) {
  YamlNode *roles = root.get("roles");
  if (!roles || roles->kind != YamlNode::Mapping)
    return nullptr;
  if (YamlNode *r = roles->get(name))
    return r;
  StringRef task = name == "producer" ? "tma_load" : name == "consumer" ? "mma" : "";
  if (task.empty())
    return nullptr;
  for (auto &[k, v] : roles->entries)
    if (v->kind == YamlNode::Mapping && roleDoes(*v, task))
      return v.get();
  return nullptr;
}

static llvm::Error setPath(YamlNode &root, StringRef path, StringRef value) {
  llvm::SmallVector<StringRef, 4> parts;
  path.split(parts, '.');
  YamlNode *node = &root;
  size_t i = 0;
  if (parts[0] == "roles") {
    if (parts.size() != 3)
      return makeError("'" + path + "': a role key is roles.NAME.KEY");
    node = findRole(root, parts[1]);
    if (!node || node->kind != YamlNode::Mapping)
      return makeError("'" + path + "': the base spec has no role '" + parts[1] + "'");
    i = 2;
  }
  for (; i + 1 < parts.size(); ++i) {
    YamlNode *next = node->get(parts[i]);
    if (!next)
      next = node->set(parts[i], YamlNode::makeMapping());
    if (next->kind != YamlNode::Mapping)
      return makeError("'" + path + "': '" + parts[i] + "' in the base spec is not a mapping");
    node = next;
  }
  node->set(parts.back(), YamlNode::makeScalar(value.str()));
  return llvm::Error::success();
}

llvm::Expected<Variant> tune::applyCandidate(StringRef baseYaml, const Candidate &cand,
                                             const ApplyOptions &options) {
  auto tree = parseYamlTree(baseYaml, options.basePath.empty() ? "base" : options.basePath);
  if (!tree)
    return tree.takeError();
  YamlNode &root = **tree;
  if (root.kind != YamlNode::Mapping)
    return makeError("the base spec is not a YAML mapping");

  for (const auto &[k, v] : cand.values)
    if (llvm::Error e = setPath(root, k, v))
      return e;
  // consumers and the consumer role's warpgroups must agree.
  if (const std::string *c = cand.value("consumers")) {
    bool explicitWg = llvm::any_of(cand.values, [](const auto &kv) {
      return StringRef(kv.first).startswith("roles.") &&
             StringRef(kv.first).endswith(".warpgroups");
    });
    if (!explicitWg)
      if (YamlNode *role = findRole(root, "consumer"))
        role->set("warpgroups", YamlNode::makeScalar(*c));
  }
  // A base epilogue.chunk_n that no longer divides a tuned tile.n becomes
  // the largest chunk below it that does (unless the space sets chunk_n).
  if (cand.value("tile.n") && !cand.value("epilogue.chunk_n")) {
    YamlNode *epi = root.get("epilogue");
    YamlNode *chunk = epi && epi->kind == YamlNode::Mapping ? epi->get("chunk_n") : nullptr;
    unsigned c = 0, n = 0;
    if (chunk && !StringRef(chunk->text()).getAsInteger(10, c) && c &&
        !StringRef(*cand.value("tile.n")).getAsInteger(10, n) && n && n % c != 0) {
      // 16 columns: the narrowest 16-bit output slab (and the direct store's
      // step); the checks prune what D's type does not allow.
      const unsigned step = 16;
      unsigned fit = step;
      for (unsigned x = c / step * step; x >= step; x -= step)
        if (n % x == 0) {
          fit = x;
          break;
        }
      chunk->scalar = std::to_string(fit);
    }
  }
  if (!options.dtype.empty()) {
    for (const char *k : {"types.a", "types.b", "types.d"})
      if (llvm::Error e = setPath(root, k, options.dtype))
        return e;
  }
  // The derived protocol fits every variant; declared barriers fit the base.
  root.erase("barriers");

  std::string baseKernel = "gemm";
  if (YamlNode *k = root.get("kernel"); k && k->kind == YamlNode::Scalar)
    baseKernel = k->text();
  Variant v;
  v.kernelName = baseKernel + "_t" + cand.id;
  root.set("kernel", YamlNode::makeScalar(v.kernelName));
  std::string desc;
  if (YamlNode *d = root.get("description"); d && d->kind == YamlNode::Scalar)
    desc = d->text();
  std::string tuned = "tuned variant " + cand.id + ": " + cand.describe() +
                      (options.dtype.empty() ? "" : " dtype=" + options.dtype);
  root.set("description", YamlNode::makeScalar(doubleQuote(tuned)));

  v.body = writeYamlTree(root);
  v.specHash = shortHash(v.body, 8);
  std::string header = "# Generated by `gemmgen tune` — a variant of " +
                       (options.basePath.empty() ? std::string("the base spec")
                                                 : options.basePath) +
                       (desc.empty() ? "" : " (" + desc + ")") +
                       "\n#   candidate " + cand.id + ": " + cand.describe() +
                       (options.dtype.empty() ? "" : "  dtype=" + options.dtype) +
                       "\n#   spec hash " + v.specHash +
                       "\n# The base's comments are not kept; its declared barriers are left to "
                       "gemmgen\n# to derive (they were written for the base's consumers and "
                       "cluster).\n";
  v.yaml = header + v.body;
  return v;
}

//===----------------------------------------------------------------------===//
// Pruning
//===----------------------------------------------------------------------===//

std::string tune::reasonKind(StringRef message) {
  size_t cut = message.size();
  for (StringRef brk : {" (", ";", ", but", ": ", ", more than"})
    cut = std::min(cut, message.find(brk));
  StringRef head = message.substr(0, cut).rtrim(" ,.");
  std::string out;
  for (size_t i = 0; i < head.size(); ++i) {
    // A number on its own ("263296", "0b11"), not part of a word ("f32").
    bool wordStart = i == 0 || !(llvm::isAlnum(head[i - 1]) || head[i - 1] == '_');
    if (llvm::isDigit(head[i]) && wordStart) {
      out += '#';
      while (i + 1 < head.size() && (llvm::isAlnum(head[i + 1])))
        ++i;
    } else {
      out += head[i];
    }
  }
  return out;
}

PruneResult tune::checkVariant(const Variant &v) {
  PruneResult r;
  DiagnosticEngine diags(nullptr);
  std::optional<KernelSpec> spec = parseSpec(v.yaml, v.kernelName + ".yaml", diags);
  if (spec) { // judged as the compile judges it (split-K's f32 kernel output)
    prepareSpec(*spec, EmitOptions{});
    checkSpec(*spec, diags);
  }
  for (const Diagnostic &d : diags.diagnostics()) {
    if (d.severity != Severity::Error)
      continue;
    r.errors.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " +
                       d.message);
    if (r.reason.empty())
      r.reason = reasonKind(d.message);
  }
  r.ok = !diags.hasErrors();
  if (!r.ok && r.reason.empty())
    r.reason = "the spec has errors";
  return r;
}

void PruneStats::add(const PruneResult &r) {
  ++total;
  if (r.ok)
    ++kept;
  else
    ++byReason[r.reason];
}

std::vector<std::pair<std::string, size_t>> PruneStats::sorted() const {
  std::vector<std::pair<std::string, size_t>> v(byReason.begin(), byReason.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto &a, const auto &b) { return a.second > b.second; });
  return v;
}

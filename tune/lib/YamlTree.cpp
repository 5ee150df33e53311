//===- YamlTree.cpp - The YAML tree gemmgen edits and writes --------------===//
//
// Entry points: parseYamlTree, writeYamlTree (YamlTree.h).
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/YamlTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <optional>

using namespace gemmgen;
using namespace gemmgen::tune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}


std::unique_ptr<YamlNode> YamlNode::makeScalar(std::string text) {
  auto n = std::make_unique<YamlNode>();
  n->kind = Scalar;
  n->scalar = std::move(text);
  return n;
}

std::unique_ptr<YamlNode> YamlNode::makeMapping() {
  auto n = std::make_unique<YamlNode>();
  n->kind = Mapping;
  return n;
}

std::unique_ptr<YamlNode> YamlNode::clone() const {
  auto n = std::make_unique<YamlNode>();
  n->kind = kind;
  n->scalar = scalar;
  for (const auto &i : items)
    n->items.push_back(i->clone());
  for (const auto &[k, v] : entries)
    n->entries.emplace_back(k, v->clone());
  return n;
}

YamlNode *YamlNode::get(StringRef key) const {
  for (const auto &[k, v] : entries)
    if (k == key)
      return v.get();
  return nullptr;
}

YamlNode *YamlNode::set(StringRef key, std::unique_ptr<YamlNode> value) {
  for (auto &[k, v] : entries)
    if (k == key) {
      v = std::move(value);
      return v.get();
    }
  entries.emplace_back(key.str(), std::move(value));
  return entries.back().second.get();
}

bool YamlNode::erase(StringRef key) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->first == key) {
      entries.erase(it);
      return true;
    }
  return false;
}

std::string YamlNode::text() const {
  StringRef s = scalar;
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') ||
                        (s.front() == '\'' && s.back() == '\'')))
    return s.substr(1, s.size() - 2).str();
  return scalar;
}

std::string tune::doubleQuote(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

namespace {
struct TreeBuilder {
  StringRef name;
  llvm::SourceMgr &sm;
  std::string error;

  void fail(llvm::yaml::Node *n, const llvm::Twine &msg) {
    if (!error.empty())
      return;
    auto lc = sm.getLineAndColumn(n->getSourceRange().Start);
    error = (name + ":" + llvm::Twine(lc.first) + ":" + llvm::Twine(lc.second) + ": " + msg).str();
  }

  std::unique_ptr<YamlNode> build(llvm::yaml::Node *n) {
    using namespace llvm::yaml;
    if (!n)
      return YamlNode::makeScalar("");
    if (auto *s = llvm::dyn_cast<ScalarNode>(n)) {
      return YamlNode::makeScalar(s->getRawValue().trim().str());
    }
    if (auto *b = llvm::dyn_cast<BlockScalarNode>(n))
      return YamlNode::makeScalar(doubleQuote(b->getValue().rtrim("\n")));
    if (llvm::isa<NullNode>(n))
      return YamlNode::makeScalar("");
    if (auto *seq = llvm::dyn_cast<SequenceNode>(n)) {
      auto out = std::make_unique<YamlNode>();
      out->kind = YamlNode::Sequence;
      for (Node &item : *seq)
        out->items.push_back(build(&item));
      return out;
    }
    if (auto *map = llvm::dyn_cast<MappingNode>(n)) {
      auto out = YamlNode::makeMapping();
      for (KeyValueNode &kv : *map) {
        auto *key = llvm::dyn_cast_or_null<ScalarNode>(kv.getKey());
        if (!key) {
          fail(kv.getKey() ? kv.getKey() : n, "mapping keys must be plain words");
          return out;
        }
        llvm::SmallString<32> storage;
        std::string k = key->getValue(storage).str();
        if (out->get(k)) {
          fail(key, "duplicate key '" + k + "'");
          return out;
        }
        out->entries.emplace_back(k, build(kv.getValue()));
      }
      return out;
    }
    fail(n, "unsupported YAML construct (aliases and anchors are not supported)");
    return YamlNode::makeScalar("");
  }
};
} // namespace

llvm::Expected<std::unique_ptr<YamlNode>> tune::parseYamlTree(StringRef text, StringRef name) {
  llvm::SourceMgr sm;
  std::string diag;
  sm.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *ctx) {
        auto *out = static_cast<std::string *>(ctx);
        if (out->empty())
          *out = (d.getFilename() + ":" + llvm::Twine(d.getLineNo()) + ":" +
                  llvm::Twine(d.getColumnNo() + 1) + ": " + d.getMessage())
                     .str();
      },
      &diag);
  llvm::yaml::Stream stream(llvm::MemoryBufferRef(text, name), sm);
  TreeBuilder b{name, sm, {}};
  std::unique_ptr<YamlNode> root;
  auto it = stream.begin();
  if (it != stream.end())
    root = b.build(it->getRoot());
  if (!diag.empty())
    return makeError(diag);
  if (!b.error.empty())
    return makeError(b.error);
  if (!root)
    return makeError(name + ": empty document");
  if (++it != stream.end() && !diag.empty())
    return makeError(diag);
  return std::move(root);
}

/// Whether a plain scalar would need quotes to be read back the same.
static std::string safeScalar(StringRef raw, bool flow) {
  if (raw.empty())
    return "\"\"";
  if (raw.front() == '"' || raw.front() == '\'')
    return raw.str();
  bool bad = raw.contains(": ") || raw.contains(" #") || raw.endswith(":") ||
             StringRef("-?:,[]{}#&*!|>'\"%@`").contains(raw.front());
  if (flow)
    bad |= raw.find_first_of(",[]{}") != StringRef::npos;
  return bad ? doubleQuote(raw) : raw.str();
}

static bool isScalarList(const YamlNode &n) {
  return n.kind == YamlNode::Sequence &&
         llvm::all_of(n.items, [](const auto &i) { return i->kind == YamlNode::Scalar; });
}

/// `{ a: 1, b: [x, y] }` when every value is a scalar or a scalar list.
static std::optional<std::string> flowForm(const YamlNode &n) {
  if (n.kind == YamlNode::Scalar)
    return safeScalar(n.scalar, true);
  if (isScalarList(n)) {
    std::string out = "[";
    for (size_t i = 0; i < n.items.size(); ++i)
      out += (i ? ", " : "") + safeScalar(n.items[i]->scalar, true);
    return out + "]";
  }
  if (n.kind != YamlNode::Mapping || n.entries.empty())
    return n.kind == YamlNode::Mapping ? std::optional<std::string>("{}") : std::nullopt;
  std::string out = "{ ";
  for (size_t i = 0; i < n.entries.size(); ++i) {
    const YamlNode &v = *n.entries[i].second;
    if (v.kind == YamlNode::Mapping)
      return std::nullopt;
    auto f = flowForm(v);
    if (!f)
      return std::nullopt;
    out += (i ? ", " : "") + n.entries[i].first + ": " + *f;
  }
  return out + " }";
}

static void writeNode(const YamlNode &n, unsigned indent, std::string &out) {
  std::string pad(indent, ' ');
  if (n.kind == YamlNode::Mapping) {
    for (const auto &[k, v] : n.entries) {
      std::string head = pad + k + ":";
      if (v->kind == YamlNode::Scalar) {
        out += head + " " + safeScalar(v->scalar, false) + "\n";
        continue;
      }
      auto flow = flowForm(*v);
      if (flow && head.size() + 1 + flow->size() <= 100) {
        out += head + " " + *flow + "\n";
        continue;
      }
      out += head + "\n";
      writeNode(*v, indent + 2, out);
    }
  } else if (n.kind == YamlNode::Sequence) {
    for (const auto &item : n.items) {
      auto flow = flowForm(*item);
      if (flow) {
        out += pad + "- " + *flow + "\n";
      } else {
        out += pad + "-\n";
        writeNode(*item, indent + 2, out);
      }
    }
  } else {
    out += pad + safeScalar(n.scalar, false) + "\n";
  }
}

std::string tune::writeYamlTree(const YamlNode &root) {
  std::string out;
  writeNode(root, 0, out);
  return out;
}


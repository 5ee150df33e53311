//===- TunedDefaults.cpp - The tuned-defaults file: shape -> best spec ----===//
//
// Entry points: TunedDefaults::lookup, parseTunedDefaults, loadTunedDefaults
// (TuneDB.h; docs/TUNING.md "Tuned defaults").
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/TuneSpace.h"
#include "gemmgen/tune/YamlTree.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>

using namespace gemmgen;
using namespace gemmgen::tune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// Tuned defaults
//===----------------------------------------------------------------------===//

const TunedEntry *TunedDefaults::lookup(long long M, long long N, long long K, StringRef dtype,
                                        bool exactOnly) const {
  const TunedEntry *bestE = nullptr;
  double bestD = 1e300;
  for (const TunedEntry &e : entries) {
    if (e.dtype != dtype)
      continue;
    if (e.M == M && e.N == N && e.K == K)
      return &e;
    if (exactOnly)
      continue;
    double d = std::fabs(std::log2((double)e.M / M)) + std::fabs(std::log2((double)e.N / N)) +
               std::fabs(std::log2((double)e.K / K));
    if (d < bestD)
      bestD = d, bestE = &e;
  }
  return bestE;
}

std::string TunedDefaults::specPath(const TunedEntry &e) const {
  if (llvm::sys::path::is_absolute(e.spec) || directory.empty())
    return e.spec;
  llvm::SmallString<256> p(directory);
  llvm::sys::path::append(p, e.spec);
  return std::string(p);
}

std::string TunedDefaults::str() const {
  auto scalar = [](std::string s) { return YamlNode::makeScalar(std::move(s)); };
  auto root = YamlNode::makeMapping();
  root->set("version", scalar(std::to_string(version)));
  root->set("gpu", scalar(doubleQuote(gpu)));
  auto shapes = std::make_unique<YamlNode>();
  shapes->kind = YamlNode::Sequence;
  for (const TunedEntry &e : entries) {
    auto m = YamlNode::makeMapping();
    m->set("m", scalar(std::to_string(e.M)));
    m->set("n", scalar(std::to_string(e.N)));
    m->set("k", scalar(std::to_string(e.K)));
    m->set("dtype", scalar(e.dtype));
    m->set("spec", scalar(e.spec));
    m->set("tflops", scalar(llvm::formatv("{0:f1}", e.tflops).str()));
    m->set("cublas_tflops", scalar(llvm::formatv("{0:f1}", e.cublasTflops).str()));
    shapes->items.push_back(std::move(m));
  }
  root->set("shapes", std::move(shapes));
  return "# gemmgen tuned defaults: the best spec known for each shape (docs/TUNING.md)\n"
         "# Written by `gemmgen tune-db defaults`; spec paths are relative to this file.\n" +
         writeYamlTree(*root);
}

llvm::Expected<TunedDefaults> tune::parseTunedDefaults(StringRef text, StringRef name,
                                                       StringRef directory) {
  auto tree = parseYamlTree(text, name);
  if (!tree)
    return tree.takeError();
  const YamlNode &root = **tree;
  if (root.kind != YamlNode::Mapping)
    return makeError(name + ": a tuned-defaults file is a mapping (version, gpu, shapes)");
  TunedDefaults d;
  d.directory = directory.str();
  auto asInt = [&](const YamlNode *n, StringRef what, long long &out) -> llvm::Error {
    if (!n || n->kind != YamlNode::Scalar || StringRef(n->text()).getAsInteger(10, out))
      return makeError(name + ": '" + what + "' must be an integer");
    return llvm::Error::success();
  };
  long long version = 0;
  if (llvm::Error e = asInt(root.get("version"), "version", version))
    return e;
  if (version != 1)
    return makeError(name + ": tuned-defaults version " + std::to_string(version) +
                     " is not supported (this gemmgen reads version 1)");
  d.version = (int)version;
  if (const YamlNode *g = root.get("gpu"))
    d.gpu = g->text();
  const YamlNode *shapes = root.get("shapes");
  if (shapes && shapes->kind == YamlNode::Scalar && shapes->text().empty())
    return d; // "shapes:" with nothing yet
  if (!shapes || shapes->kind != YamlNode::Sequence)
    return makeError(name + ": 'shapes' must be a list of { m, n, k, dtype, spec }");
  for (const auto &item : shapes->items) {
    if (item->kind != YamlNode::Mapping)
      return makeError(name + ": each entry of 'shapes' is a mapping { m, n, k, dtype, spec }");
    TunedEntry e;
    if (llvm::Error err = asInt(item->get("m"), "m", e.M))
      return err;
    if (llvm::Error err = asInt(item->get("n"), "n", e.N))
      return err;
    if (llvm::Error err = asInt(item->get("k"), "k", e.K))
      return err;
    const YamlNode *dt = item->get("dtype"), *spec = item->get("spec");
    if (!dt || !spec || dt->kind != YamlNode::Scalar || spec->kind != YamlNode::Scalar)
      return makeError(name + ": each entry of 'shapes' needs dtype and spec");
    e.dtype = dt->text();
    e.spec = spec->text();
    if (e.dtype != "f16" && e.dtype != "bf16")
      return makeError(name + ": dtype must be f16 or bf16 (got '" + e.dtype + "')");
    if (const YamlNode *t = item->get("tflops"))
      StringRef(t->text()).getAsDouble(e.tflops);
    if (const YamlNode *t = item->get("cublas_tflops"))
      StringRef(t->text()).getAsDouble(e.cublasTflops);
    d.entries.push_back(std::move(e));
  }
  return d;
}

llvm::Expected<TunedDefaults> tune::loadTunedDefaults(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return makeError("cannot read tuned defaults '" + path + "': " + buf.getError().message());
  return parseTunedDefaults((*buf)->getBuffer(), path, llvm::sys::path::parent_path(path));
}

std::string tune::defaultTunedDefaultsPath() {
  if (const char *e = std::getenv("GEMMGEN_TUNED_DEFAULTS"); e && *e)
    return e;
  // Installed: PREFIX/bin/gemmgen reads PREFIX/share/gemmgen/tuned.
  llvm::SmallString<256> exe;
  if (!llvm::sys::fs::real_path("/proc/self/exe", exe)) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
    llvm::sys::path::append(p, "share", "gemmgen", "tuned", "defaults.yaml");
    if (llvm::sys::fs::exists(p))
      return std::string(p);
  }
  // A build tree: the source tree it was configured from.
  const std::string source = GEMMGEN_SOURCE_TUNED_DEFAULTS;
  return llvm::sys::fs::exists(source) ? source : "";
}

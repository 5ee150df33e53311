//===- YamlTree.h - The YAML tree gemmgen edits and writes ------*- C++ -*-===//
//
// Specs are read by the parser (llvm::yaml, with locations). What gemmgen
// *writes* as YAML goes through this one small ordered tree and writer:
// variant specs (a base spec's document with tuned keys set), tuned-defaults
// files, search spaces. Reading builds the tree from llvm::yaml's nodes.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_YAMLTREE_H
#define GEMMGEN_TUNE_YAMLTREE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen::tune {


/// A small ordered YAML tree (mappings keep key order; scalars keep the text
/// as written, quotes included). Enough for kernel specs and space files.
struct YamlNode {
  enum Kind { Scalar, Sequence, Mapping } kind = Scalar;
  std::string scalar; ///< raw text (Scalar)
  std::vector<std::unique_ptr<YamlNode>> items; ///< Sequence
  std::vector<std::pair<std::string, std::unique_ptr<YamlNode>>> entries; ///< Mapping

  static std::unique_ptr<YamlNode> makeScalar(std::string text);
  static std::unique_ptr<YamlNode> makeMapping();
  std::unique_ptr<YamlNode> clone() const;
  YamlNode *get(llvm::StringRef key) const; ///< Mapping lookup, or nullptr
  /// Sets a mapping entry (replacing, or appending at the end).
  YamlNode *set(llvm::StringRef key, std::unique_ptr<YamlNode> value);
  bool erase(llvm::StringRef key);
  /// The scalar's value with surrounding quotes removed.
  std::string text() const;
};

/// Parses YAML text into a tree (one document; anchors and tags are not
/// supported). Errors carry `name:line:col`.
llvm::Expected<std::unique_ptr<YamlNode>> parseYamlTree(llvm::StringRef text,
                                                        llvm::StringRef name);
/// Writes a tree as block-style YAML. Small mappings of scalars, and lists
/// of scalars, are written in flow style (`tile: { m: 128, n: 256, k: 64 }`)
/// as the specs in specs/ are.
std::string writeYamlTree(const YamlNode &root);

/// `s` in double quotes, with `"`, `\` and newlines escaped.
std::string doubleQuote(llvm::StringRef s);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_YAMLTREE_H

//===- TuneSpace.h - Autotuning search spaces and spec variants -*- C++ -*-===//
//
// The search space of `gemmgen tune`: a list of spec keys, each with the
// values to try (from a space file or `key=v1,v2` arguments); the cartesian
// product of those values (the candidates); applying a candidate to a base
// spec's YAML text (a variant spec, itself a readable YAML spec); and pruning
// the variants with the parser and checkSpec before anything is compiled.
//
// A variant is made by editing the base spec's YAML *document* (not the
// KernelSpec): the base is read into the ordered YAML tree of YamlTree.h, the
// candidate's keys are set in it, and the tree is written back as YAML. So a
// variant keeps every key of the base (including keys this file does not
// know), parses with the real parser, and is a spec a person can read and
// reuse. Comments of the base are not kept; a header comment says where the
// variant came from. The base's `barriers:` section is dropped: declared
// arrival counts are written for the base's consumers and cluster, and the
// protocol gemmgen derives is what every variant needs.
//
// docs/TUNING.md describes the space file format.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_TUNESPACE_H
#define GEMMGEN_TUNE_TUNESPACE_H

#include "gemmgen/tune/YamlTree.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen::tune {

/// One tuned key and the values to try, spelt as in a spec ("256", "hilbert").
struct Param {
  std::string key;                 ///< dotted spec path: "tile.n", "roles.consumer.registers"
  std::vector<std::string> values; ///< in the order given, duplicates removed
};

/// The search space: the cartesian product of its parameters' values.
struct SearchSpace {
  std::vector<Param> params;
  /// Number of candidates (product of value counts; 1 for an empty space).
  size_t size() const;
  /// "tile.n: [128, 256]\n..." — the space file form (round-trips).
  std::string str() const;
  const Param *find(llvm::StringRef key) const;
};

/// The keys a space may name. `roles.producer.*` and `roles.consumer.*`
/// mean the role that does tma_load / mma, whatever the base spec calls it;
/// `roles.NAME.*` names a role of the base directly.
const std::vector<std::string> &tunableKeys();

/// Checks that every key is tunable (with "did you mean" for misspellings)
/// and every value is non-empty.
llvm::Error validateSpace(const SearchSpace &space);

/// Parses a space file: a YAML mapping from key to a value or a list of
/// values. Nested mappings are flattened to dotted keys, so
/// `tile: { n: [128, 256] }` is `tile.n: [128, 256]`.
llvm::Expected<SearchSpace> parseSpaceText(llvm::StringRef text, llvm::StringRef name);
llvm::Expected<SearchSpace> parseSpaceFile(llvm::StringRef path);
/// Parses `key=v1,v2,...` arguments (a later argument for the same key
/// replaces the earlier one). Used on top of a space file, if any.
llvm::Error addSpaceArgs(SearchSpace &space, const std::vector<std::string> &args);

/// The space `gemmgen tune` uses when none is given: tile shapes, consumers,
/// depth, cluster and tile order for sm_90a (docs/TUNING.md lists it).
SearchSpace defaultSpace();

/// One point of the space.
struct Candidate {
  size_t index = 0; ///< position in enumeration order
  /// (key, value) in the space's key order.
  std::vector<std::pair<std::string, std::string>> values;
  /// Deterministic id: 12 hex digits of SHA-256 over the sorted
  /// "key=value" lines. Independent of the order keys were given in.
  std::string id;
  std::string describe() const; ///< "tile.n=256 pipeline.depth=4"
  const std::string *value(llvm::StringRef key) const;
};

std::string candidateId(const std::vector<std::pair<std::string, std::string>> &values);

/// All candidates, the last key varying fastest.
std::vector<Candidate> enumerate(const SearchSpace &space);

//===----------------------------------------------------------------------===//
// Variants and pruning
//===----------------------------------------------------------------------===//

struct ApplyOptions {
  /// "f16" or "bf16": sets types.a, types.b and types.d. Empty: keep.
  std::string dtype;
  /// Where the base came from (for the header comment only; not hashed).
  std::string basePath;
};

/// A candidate applied to a base spec.
struct Variant {
  std::string kernelName; ///< base kernel name + "_t" + candidate id
  /// The variant spec: a header comment, then `body`.
  std::string yaml;
  /// The YAML without the header comment: what the spec hash is over.
  std::string body;
  /// 16 hex digits of SHA-256 over `body`: the results DB key for the spec.
  std::string specHash;
};

/// Applies `cand` to the base spec text. Setting `consumers` also sets the
/// consumer role's `warpgroups` (they must be equal) unless the candidate
/// sets that too; a base `epilogue.chunk_n` that does not divide a tuned
/// `tile.n` becomes the largest chunk that does. Fails when a key cannot be placed (no such role, or a key
/// whose parent is not a mapping).
llvm::Expected<Variant> applyCandidate(llvm::StringRef baseYaml, const Candidate &cand,
                                       const ApplyOptions &options = ApplyOptions());

/// Reduces a diagnostic message to a reason kind for counting: the text up
/// to the first clause break with numbers replaced by '#'
/// ("the spec needs # bytes of shared memory per block").
std::string reasonKind(llvm::StringRef message);

/// The outcome of the static checks on one variant.
struct PruneResult {
  bool ok = false;
  std::vector<std::string> errors; ///< "line:col: message" of each error
  std::string reason;              ///< reasonKind of the first error
};

/// Parses the variant and runs checkSpec on it, collecting (not printing)
/// the diagnostics.
PruneResult checkVariant(const Variant &v);

/// "NAME: count" per reason kind, most frequent first.
struct PruneStats {
  size_t total = 0, kept = 0;
  std::map<std::string, size_t> byReason;
  void add(const PruneResult &r);
  std::vector<std::pair<std::string, size_t>> sorted() const;
};

/// Lowercase hex of the first `bytes` bytes of SHA-256(text).
std::string shortHash(llvm::StringRef text, unsigned bytes = 8);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_TUNESPACE_H

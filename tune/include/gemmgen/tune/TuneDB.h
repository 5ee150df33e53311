//===- TuneDB.h - The tuning results database and tuned defaults -*- C++ -*-===//
//
// The results database of `gemmgen tune` is a JSON-lines file: a header
// line {"gemmgen_tune_db": 1}, then one JSON object per measured candidate
// (or per cuBLAS reference time). It is append-only: a finished candidate is
// one line written and flushed at once, so an interrupted tune loses at most
// the candidate in flight, and a torn last line is skipped on reading. A
// later line for the same key replaces an earlier one. Files merge by
// concatenation (`gemmgen tune-db import`). docs/TUNING.md says why this
// format and lists the fields.
//
// A record's key: GPU name, driver version, M, N, K, dtype, the variant
// spec's hash, and the host and GPU ordinal that measured it: the same
// candidate measured on two GPUs or hosts is two records (a tuning farm's
// DBs merge without losing either, `gemmgen tune-db merge`). A record is
// reused only when the generated CUDA source hash matches too (a newer
// gemmgen that emits different code re-measures).
//
// The tuned-defaults file (specs/tuned/*.yaml) maps shapes to spec files.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TUNE_TUNEDB_H
#define GEMMGEN_TUNE_TUNEDB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gemmgen::tune {

constexpr int kDbVersion = 1;

/// What a record is about: the GPU, the driver and the problem.
struct ShapeKey {
  std::string gpu;
  int driver = 0;
  long long M = 0, N = 0, K = 0;
  std::string dtype; ///< "f16" | "bf16"
  std::string str() const; ///< "NVIDIA H200|13000|4096x4096x4096|f16"
  bool operator<(const ShapeKey &o) const { return str() < o.str(); }
  bool operator==(const ShapeKey &o) const { return str() == o.str(); }
};

/// One line of the database.
struct Record {
  int version = kDbVersion;
  /// "candidate" (a variant, timed), "cublas" (the cuBLAS time of the shape).
  std::string kind = "candidate";
  ShapeKey shape;
  std::string specHash;   ///< Variant::specHash ("" for cublas)
  std::string sourceHash; ///< hash of the generated CUDA source
  std::string candidate;  ///< Candidate::id
  std::string base;       ///< base spec path as given
  std::string kernel;
  std::vector<std::pair<std::string, std::string>> params;
  /// "ok", or why it does not count: "failed" (launch/driver error),
  /// "timeout" (watchdog), "wrong" (verification), "crashed" (child died),
  /// "spills", "compile_error".
  std::string status = "ok";
  std::string error;
  double msMedian = 0, msP25 = 0, msP75 = 0, msMin = 0, msMax = 0;
  double tflops = 0;
  /// The base spec timed interleaved with the candidate in the same process
  /// (DESIGN.md §10: compare only figures from one run); 0 if none.
  double baselineMs = 0;
  double relErr = 0;
  int registers = 0;
  unsigned smemBytes = 0;
  unsigned long long seed = 0;
  /// cublasGetVersion of a "cublas" record (0: unknown). Files written
  /// before this field kept it in `error` as "cuBLAS N"; reading moves it.
  int cublasVersion = 0;
  /// When, and the commit of the gemmgen that measured it (baked in at
  /// build time: tune/BuildInfo.h).
  std::string date, commit, nvrtc;
  /// Where it was measured: the host name and the GPU's ordinal on it (as
  /// the measuring process saw it, i.e. within CUDA_VISIBLE_DEVICES). Files
  /// written before these fields read as host "" and ordinal 0 (tunes then
  /// always ran on ordinal 0).
  std::string host;
  int gpuOrdinal = 0;
  std::string specYaml; ///< the whole variant spec (so the DB alone can write it)

  bool ok() const { return status == "ok"; }
  /// baselineMs / msMedian (> 1: faster than the base), 0 if unknown.
  double speedup() const { return ok() && msMedian > 0 && baselineMs > 0 ? baselineMs / msMedian : 0; }
  std::string toJson() const; ///< one line, no newline
  static llvm::Expected<Record> fromJson(llvm::StringRef line);
};

/// The database file.
class ResultsDB {
public:
  /// Reads `path` (missing: an empty DB that `append` creates). Lines that
  /// do not parse (a torn last line) are skipped and counted.
  static llvm::Expected<ResultsDB> open(const std::string &path);
  /// An in-memory DB (no file): append only records.
  ResultsDB() = default;

  const std::string &path() const { return path_; }
  size_t skippedLines() const { return skipped_; }
  /// The record for (shape, specHash): of the latest record of each
  /// host/GPU that measured it, the best "ok" one, else the latest; nullptr
  /// if none.
  const Record *find(const ShapeKey &shape, const std::string &specHash) const;
  /// Latest cuBLAS record for the shape (any host/GPU), or nullptr.
  const Record *cublas(const ShapeKey &shape) const;
  /// Latest record of each key, in first-seen order, optionally filtered.
  std::vector<Record> latest(const std::optional<ShapeKey> &shape = std::nullopt) const;
  /// Shapes present, sorted.
  std::vector<ShapeKey> shapes() const;
  /// Appends (and flushes) one record; the file and its header are created
  /// on first use.
  llvm::Error append(const Record &r);
  /// Appends the records of another DB file whose lines are not already
  /// present (same JSON text). Returns how many were added.
  llvm::Expected<size_t> import(const std::string &otherPath);
  /// The best "ok" candidate record of a shape (GPU name, driver, M, N, K,
  /// dtype) over every host and GPU that measured it: the largest speedup
  /// over the base measured in the same process, else the smallest median;
  /// nullptr if none.
  const Record *best(const ShapeKey &shape) const;
  /// Every record read or appended, in file order (superseded ones too).
  const std::vector<Record> &all() const { return records_; }
  /// Each record's JSON line as read or written (parallel to all()).
  const std::vector<std::string> &lines() const { return lines_; }

  /// A record's identity: kind, shape, spec hash, host, GPU ordinal. A later
  /// record with the same identity replaces an earlier one.
  static std::string keyOf(const Record &r);

private:
  std::string path_;
  std::vector<Record> records_;
  std::vector<std::string> lines_;
  std::map<std::string, size_t> index_; ///< key -> latest record
  /// kind|shape|specHash -> the keys of the hosts/GPUs that measured it.
  std::map<std::string, std::vector<std::string>> groups_;
  size_t skipped_ = 0;
  void add(Record r, std::string line);
};

/// What `mergeDbFiles` read and wrote.
struct MergeStats {
  size_t inputs = 0, read = 0, duplicates = 0, written = 0;
  size_t tornLines = 0;      ///< interrupted last lines skipped (with a note)
  size_t multiMeasured = 0;  ///< (kind, shape, spec) measured on > 1 host/GPU
  std::vector<std::string> notes; ///< "FILE:LINE: ..." for each skipped torn line
};

/// Merges results DB files into `outPath` (docs/TUNING.md "Merging DBs"):
/// every distinct record of every input is kept (a candidate measured on
/// several hosts/GPUs stays one record per host/GPU); identical lines are
/// written once; the output is sorted by shape, kind, spec hash, host,
/// ordinal, date and line text, so it does not depend on the inputs' order.
/// Inputs are read strictly: a line that is not a valid record is an error
/// "FILE:LINE: what; what to do", and nothing is written. Only a file's
/// last line may be torn (an interrupted write, no newline after it): it is
/// skipped with a note. `outPath` may be one of the inputs; it is replaced
/// atomically (written next to it, then renamed).
llvm::Expected<MergeStats> mergeDbFiles(const std::vector<std::string> &inputs,
                                        const std::string &outPath);

/// Reads one record line strictly (the merge's reader): the JSON must be an
/// object with a supported "v", "kind" candidate|cublas, a GPU name, M, N,
/// K > 0 (K >= 0), dtype f16|bf16 and a status; a candidate needs its
/// spec_hash. The error says which field is wrong.
llvm::Expected<Record> parseRecordStrict(llvm::StringRef line);

/// CSV summary: one row per record (header included).
void writeCsv(llvm::raw_ostream &os, const std::vector<Record> &records);

//===----------------------------------------------------------------------===//
// Tuned defaults: shape -> spec file
//===----------------------------------------------------------------------===//

struct TunedEntry {
  long long M = 0, N = 0, K = 0;
  std::string dtype;
  std::string spec; ///< spec path, relative to the defaults file's directory
  double tflops = 0, cublasTflops = 0;
};

struct TunedDefaults {
  int version = 1;
  std::string gpu;
  std::string directory; ///< where the file is (spec paths are relative to it)
  std::vector<TunedEntry> entries;

  /// The entry for exactly this shape and dtype; else (unless `exactOnly`)
  /// the nearest shape of that dtype (smallest sum of |log2| ratios of M, N
  /// and K). nullptr when there is none.
  const TunedEntry *lookup(long long M, long long N, long long K, llvm::StringRef dtype,
                           bool exactOnly = false) const;
  /// The entry's spec path (joined with `directory`).
  std::string specPath(const TunedEntry &e) const;
  /// The file's text (YAML; see docs/TUNING.md).
  std::string str() const;
};

llvm::Expected<TunedDefaults> parseTunedDefaults(llvm::StringRef text, llvm::StringRef name,
                                                 llvm::StringRef directory);
llvm::Expected<TunedDefaults> loadTunedDefaults(const std::string &path);

/// The defaults file gemmgen looks in when a command asks for tuned
/// defaults: $GEMMGEN_TUNED_DEFAULTS, else the one installed beside the
/// executable (PREFIX/share/gemmgen/tuned/defaults.yaml for PREFIX/bin), else
/// the source tree's specs/tuned/defaults.yaml (a build tree); never one
/// found relative to the working directory. "" when none exists.
std::string defaultTunedDefaultsPath();

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_TUNEDB_H

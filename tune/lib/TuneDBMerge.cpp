//===- TuneDBMerge.cpp - Merging results DBs from several hosts -----------===//
//
// Entry points: parseRecordStrict, mergeDbFiles (TuneDB.h). The tuner's own
// reader (ResultsDB::open) is lenient, since it must resume after a crash;
// the merge reads strictly, since its inputs come from other machines and a
// bad line would otherwise vanish without a word.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/tune/TuneDB.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <tuple>

using namespace gemmgen;
using namespace gemmgen::tune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<Record> tune::parseRecordStrict(StringRef line) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
  if (!v)
    return makeError("not valid JSON (" + llvm::toString(v.takeError()) + ")");
  const llvm::json::Object *o = v->getAsObject();
  if (!o)
    return makeError("not a JSON object (a record is one {...} per line)");
  auto integer = [&](StringRef k, bool required) -> llvm::Expected<std::optional<int64_t>> {
    const llvm::json::Value *f = o->get(k);
    if (!f) {
      if (required)
        return makeError("the record has no \"" + k + "\"");
      return std::nullopt;
    }
    if (std::optional<int64_t> i = f->getAsInteger())
      return i;
    return makeError("\"" + k + "\" must be an integer");
  };
  auto string = [&](StringRef k, bool required) -> llvm::Expected<std::string> {
    const llvm::json::Value *f = o->get(k);
    if (!f) {
      if (required)
        return makeError("the record has no \"" + k + "\"");
      return std::string();
    }
    if (std::optional<StringRef> s = f->getAsString())
      return s->str();
    return makeError("\"" + k + "\" must be a string");
  };
  llvm::Expected<std::optional<int64_t>> ver = integer("v", true);
  if (!ver)
    return ver.takeError();
  if (**ver < 1 || **ver > kDbVersion)
    return makeError("record version " + std::to_string(**ver) + " is not supported (this " +
                     "gemmgen reads version " + std::to_string(kDbVersion) +
                     "; merge with the gemmgen that wrote it)");
  llvm::Expected<std::string> kind = string("kind", true);
  if (!kind)
    return kind.takeError();
  if (*kind != "candidate" && *kind != "cublas")
    return makeError("\"kind\" must be \"candidate\" or \"cublas\" (got \"" + *kind + "\")");
  llvm::Expected<std::string> gpu = string("gpu", true);
  if (!gpu)
    return gpu.takeError();
  if (gpu->empty())
    return makeError("\"gpu\" is empty (the GPU name the record was measured on)");
  for (const char *k : {"driver", "M", "N", "K"}) {
    llvm::Expected<std::optional<int64_t>> i = integer(k, true);
    if (!i)
      return i.takeError();
    bool isK = StringRef(k) == "K", isDriver = StringRef(k) == "driver";
    if (**i < 0 || (!isK && !isDriver && **i == 0))
      return makeError("\"" + llvm::Twine(k) + "\" is " + std::to_string(**i) + "; it must be " +
                       (isK || isDriver ? "0 or more" : "positive"));
  }
  llvm::Expected<std::string> dtype = string("dtype", true);
  if (!dtype)
    return dtype.takeError();
  if (*dtype != "f16" && *dtype != "bf16")
    return makeError("\"dtype\" must be \"f16\" or \"bf16\" (got \"" + *dtype + "\")");
  llvm::Expected<std::string> status = string("status", true);
  if (!status)
    return status.takeError();
  static const std::set<std::string> kStatuses = {"ok",     "failed", "timeout",      "wrong",
                                                  "crashed", "spills", "compile_error"};
  if (!kStatuses.count(*status))
    return makeError("\"status\" \"" + *status +
                     "\" is not one of ok, failed, timeout, wrong, crashed, spills, "
                     "compile_error");
  if (*kind == "candidate") {
    llvm::Expected<std::string> hash = string("spec_hash", true);
    if (!hash)
      return hash.takeError();
    if (hash->empty())
      return makeError("a candidate record needs its \"spec_hash\"");
  }
  if (llvm::Expected<std::string> host = string("host", false); !host)
    return host.takeError();
  llvm::Expected<std::optional<int64_t>> ord = integer("gpu_ordinal", false);
  if (!ord)
    return ord.takeError();
  if (*ord && **ord < 0)
    return makeError("\"gpu_ordinal\" is " + std::to_string(**ord) + "; it must be 0 or more");
  if (*status == "ok") {
    const llvm::json::Object *ms = o->getObject("ms");
    std::optional<double> median = ms ? ms->getNumber("median") : std::nullopt;
    if (!median || !(*median > 0))
      return makeError("an \"ok\" record needs \"ms\": {\"median\": a time > 0}");
  }
  return Record::fromJson(line);
}

namespace {
struct Entry {
  Record record;
  std::string line; ///< as read (trimmed): written back unchanged
};
} // namespace

/// Reads one input strictly into `out`.
static llvm::Error readInput(const std::string &path, std::vector<Entry> &out,
                             MergeStats &stats) {
  if (llvm::sys::fs::is_directory(path))
    return makeError("cannot read '" + path + "': it is a directory; give results DB files");
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return makeError("cannot read '" + path + "': " + buf.getError().message());
  StringRef text = (*buf)->getBuffer();
  llvm::SmallVector<StringRef, 64> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/true);
  // The last line with text, and whether a newline ended it.
  size_t last = lines.size();
  while (last > 0 && lines[last - 1].trim().empty())
    --last;
  const bool tornPossible = !text.empty() && !text.endswith("\n");
  bool header = false;
  for (size_t i = 0; i < last; ++i) {
    StringRef line = lines[i].trim();
    std::string where = path + ":" + std::to_string(i + 1);
    if (line.empty())
      continue;
    if (!header) {
      header = true;
      llvm::Expected<llvm::json::Value> h = llvm::json::parse(line);
      const llvm::json::Object *ho = h ? h->getAsObject() : nullptr;
      if (!h)
        llvm::consumeError(h.takeError());
      std::optional<int64_t> ver = ho ? ho->getInteger("gemmgen_tune_db") : std::nullopt;
      if (!ver)
        return makeError(where + ": not a gemmgen results DB (its first line must be "
                                 "{\"gemmgen_tune_db\":1}); give the .jsonl files "
                                 "`gemmgen tune --db` wrote");
      if (*ver < 1 || *ver > kDbVersion)
        return makeError(where + ": results DB version " + std::to_string(*ver) +
                         "; this gemmgen reads version " + std::to_string(kDbVersion));
      continue;
    }
    llvm::Expected<Record> r = parseRecordStrict(line);
    if (!r) {
      std::string why = llvm::toString(r.takeError());
      if (i + 1 == last && tornPossible) { // an interrupted append: the tuner skips it too
        stats.notes.push_back(where + ": skipped an interrupted last line (" + why + ")");
        ++stats.tornLines;
        continue;
      }
      return makeError(where + ": " + why + "; fix or delete this line (nothing was written)");
    }
    out.push_back({std::move(*r), line.str()});
    ++stats.read;
  }
  if (!header)
    return makeError(path + ": empty; not a gemmgen results DB (a DB starts with the line "
                            "{\"gemmgen_tune_db\":1})");
  return llvm::Error::success();
}

llvm::Expected<MergeStats> tune::mergeDbFiles(const std::vector<std::string> &inputs,
                                              const std::string &outPath) {
  if (inputs.empty())
    return makeError("nothing to merge: give at least one input DB");
  MergeStats stats;
  stats.inputs = inputs.size();
  // Never clobber a file that is not being merged.
  if (llvm::sys::fs::exists(outPath)) {
    bool isInput = false;
    for (const std::string &in : inputs) {
      bool same = false;
      if (!llvm::sys::fs::equivalent(in, outPath, same) && same)
        isInput = true;
    }
    if (!isInput)
      return makeError("'" + outPath + "' exists and is not one of the inputs; list it as an "
                       "input to merge into it, or give a new output file");
  }
  std::vector<Entry> entries;
  for (const std::string &in : inputs)
    if (llvm::Error e = readInput(in, entries, stats))
      return e;

  // A fixed order, whatever the order of the inputs: the same records give
  // the same file. Within one host/GPU's key the latest date comes last, so
  // it is the one ResultsDB reads as current.
  auto order = [](const Entry &e) {
    const Record &r = e.record;
    return std::make_tuple(r.shape.str(), r.kind, r.specHash, r.host, r.gpuOrdinal, r.date,
                           llvm::StringRef(e.line));
  };
  llvm::stable_sort(entries, [&](const Entry &a, const Entry &b) { return order(a) < order(b); });
  std::vector<const Entry *> kept;
  for (const Entry &e : entries) {
    if (!kept.empty() && kept.back()->line == e.line) {
      ++stats.duplicates;
      continue;
    }
    kept.push_back(&e);
  }
  std::map<std::string, std::set<std::pair<std::string, int>>> where;
  for (const Entry *e : kept)
    where[e->record.kind + "|" + e->record.shape.str() + "|" + e->record.specHash].insert(
        {e->record.host, e->record.gpuOrdinal});
  for (const auto &kv : where)
    stats.multiMeasured += kv.second.size() > 1;

  std::string tmp = outPath + ".merge-tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(tmp, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot write '" + tmp + "': " + ec.message());
    f << "{\"gemmgen_tune_db\":" << kDbVersion << "}\n";
    for (const Entry *e : kept)
      f << e->line << "\n";
    f.close();
    if (f.has_error()) {
      f.clear_error();
      llvm::sys::fs::remove(tmp);
      return makeError("cannot write '" + tmp + "'");
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, outPath)) {
    llvm::sys::fs::remove(tmp);
    return makeError("cannot write '" + outPath + "': " + ec.message());
  }
  stats.written = kept.size();
  return stats;
}

//===- TuneDB.cpp - The tuning results database and tuned defaults --------===//
//
// Entry point: ResultsDB (a JSON-lines file of measured candidates). The
// tuned defaults are in TunedDefaults.cpp, merging files in TuneDBMerge.cpp.
// See TuneDB.h and docs/TUNING.md.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/TuneDB.h"
#include "gemmgen/tune/TuneSpace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

using namespace gemmgen;
using namespace gemmgen::tune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string ShapeKey::str() const {
  return gpu + "|" + std::to_string(driver) + "|" + std::to_string(M) + "x" + std::to_string(N) +
         "x" + std::to_string(K) + "|" + dtype;
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

/// JSON has no NaN or infinity: a value that is not finite is written as 0.
static double finiteOr0(double v) { return std::isfinite(v) ? v : 0; }

std::string Record::toJson() const {
  llvm::json::Object params_;
  llvm::json::Array order;
  for (const auto &[k, v] : params) {
    params_[k] = v;
    order.push_back(k);
  }
  llvm::json::Object o{
      {"v", version},
      {"kind", kind},
      {"gpu", shape.gpu},
      {"driver", shape.driver},
      {"M", shape.M},
      {"N", shape.N},
      {"K", shape.K},
      {"dtype", shape.dtype},
      {"spec_hash", specHash},
      {"source_hash", sourceHash},
      {"candidate", candidate},
      {"base", base},
      {"kernel", kernel},
      {"params", std::move(params_)},
      {"param_order", std::move(order)},
      {"status", status},
      {"error", error},
      {"ms", llvm::json::Object{{"median", finiteOr0(msMedian)},
                                {"p25", finiteOr0(msP25)},
                                {"p75", finiteOr0(msP75)},
                                {"min", finiteOr0(msMin)},
                                {"max", finiteOr0(msMax)}}},
      {"tflops", finiteOr0(tflops)},
      {"baseline_ms", finiteOr0(baselineMs)},
      {"rel_err", finiteOr0(relErr)},
      {"registers", registers},
      {"smem_bytes", (int64_t)smemBytes},
      {"seed", std::to_string(seed)},
      {"date", date},
      {"commit", commit},
      {"cublas_version", cublasVersion},
      {"nvrtc", nvrtc},
      {"host", host},
      {"gpu_ordinal", gpuOrdinal},
      {"spec_yaml", specYaml},
  };
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(o));
  os.flush();
  return out;
}

llvm::Expected<Record> Record::fromJson(StringRef line) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
  if (!v)
    return v.takeError();
  const llvm::json::Object *o = v->getAsObject();
  if (!o)
    return makeError("not a JSON object");
  Record r;
  auto str = [&](StringRef k, std::string &out) {
    if (auto s = o->getString(k))
      out = s->str();
  };
  auto num = [&](const llvm::json::Object *obj, StringRef k, double &out) {
    if (obj)
      if (auto d = obj->getNumber(k))
        out = *d;
  };
  auto integer = [&](StringRef k, long long &out) {
    if (auto i = o->getInteger(k))
      out = *i;
  };
  long long version = 0, driver = 0, regs = 0, smem = 0;
  integer("v", version);
  if (version < 1 || version > kDbVersion)
    return makeError("record version " + std::to_string(version) + " is not supported (this "
                     "gemmgen reads version " + std::to_string(kDbVersion) + ")");
  r.version = (int)version;
  str("kind", r.kind);
  str("gpu", r.shape.gpu);
  integer("driver", driver);
  r.shape.driver = (int)driver;
  integer("M", r.shape.M);
  integer("N", r.shape.N);
  integer("K", r.shape.K);
  str("dtype", r.shape.dtype);
  str("spec_hash", r.specHash);
  str("source_hash", r.sourceHash);
  str("candidate", r.candidate);
  str("base", r.base);
  str("kernel", r.kernel);
  if (const llvm::json::Object *p = o->getObject("params")) {
    std::vector<std::string> keys;
    if (const llvm::json::Array *order = o->getArray("param_order")) {
      for (const llvm::json::Value &k : *order)
        if (auto s = k.getAsString())
          keys.push_back(s->str());
    } else {
      for (const auto &kv : *p)
        keys.push_back(kv.first.str());
      llvm::sort(keys);
    }
    for (const std::string &k : keys)
      if (auto s = p->getString(k))
        r.params.emplace_back(k, s->str());
  }
  str("status", r.status);
  str("error", r.error);
  const llvm::json::Object *ms = o->getObject("ms");
  num(ms, "median", r.msMedian);
  num(ms, "p25", r.msP25);
  num(ms, "p75", r.msP75);
  num(ms, "min", r.msMin);
  num(ms, "max", r.msMax);
  num(o, "tflops", r.tflops);
  num(o, "baseline_ms", r.baselineMs);
  num(o, "rel_err", r.relErr);
  integer("registers", regs);
  integer("smem_bytes", smem);
  r.registers = (int)regs;
  r.smemBytes = (unsigned)smem;
  std::string seed;
  str("seed", seed);
  r.seed = seed.empty() ? 0 : std::strtoull(seed.c_str(), nullptr, 10);
  str("date", r.date);
  str("commit", r.commit);
  if (auto v = o->getInteger("cublas_version"))
    r.cublasVersion = (int)*v;
  // Files written before cublas_version had its own field kept it in error.
  StringRef legacy = r.error;
  if (r.kind == "cublas" && r.ok() && legacy.consume_front("cuBLAS ")) {
    int v = 0;
    if (!legacy.getAsInteger(10, v)) {
      r.cublasVersion = r.cublasVersion ? r.cublasVersion : v;
      r.error.clear();
    }
  }
  str("nvrtc", r.nvrtc);
  str("host", r.host);
  if (auto g = o->getInteger("gpu_ordinal"))
    r.gpuOrdinal = (int)*g;
  str("spec_yaml", r.specYaml);
  return r;
}

//===----------------------------------------------------------------------===//
// The database
//===----------------------------------------------------------------------===//

static constexpr const char *kHeader = "{\"gemmgen_tune_db\":1}";

static std::string groupOf(const Record &r) {
  return r.kind + "|" + r.shape.str() + "|" + r.specHash;
}

std::string ResultsDB::keyOf(const Record &r) {
  return groupOf(r) + "|" + r.host + "|" + std::to_string(r.gpuOrdinal);
}

void ResultsDB::add(Record r, std::string line) {
  std::string key = keyOf(r);
  if (!index_.count(key))
    groups_[groupOf(r)].push_back(key);
  index_[key] = records_.size();
  records_.push_back(std::move(r));
  lines_.push_back(std::move(line));
}

llvm::Expected<ResultsDB> ResultsDB::open(const std::string &path) {
  ResultsDB db;
  db.path_ = path;
  if (!llvm::sys::fs::exists(path))
    return db;
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return makeError("cannot read results DB '" + path + "': " + buf.getError().message());
  llvm::SmallVector<StringRef, 64> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  bool first = true;
  for (StringRef line : lines) {
    line = line.trim();
    if (line.empty())
      continue;
    if (first) {
      first = false;
      llvm::Expected<llvm::json::Value> h = llvm::json::parse(line);
      const llvm::json::Object *ho = h ? h->getAsObject() : nullptr;
      if (!h)
        llvm::consumeError(h.takeError());
      std::optional<int64_t> ver = ho ? ho->getInteger("gemmgen_tune_db") : std::nullopt;
      if (!ver)
        return makeError("'" + path + "' is not a gemmgen results DB (its first line is not "
                         "{\"gemmgen_tune_db\": VERSION})");
      if (*ver > kDbVersion)
        return makeError("'" + path + "' is results DB version " + std::to_string(*ver) +
                         "; this gemmgen reads up to version " + std::to_string(kDbVersion));
      continue;
    }
    llvm::Expected<Record> r = Record::fromJson(line);
    if (!r) {
      llvm::consumeError(r.takeError());
      ++db.skipped_;
      continue;
    }
    db.add(std::move(*r), line.str());
  }
  return db;
}

/// Ranks "ok" records: by the in-process ratio to the base when both have
/// one (figures from one run, DESIGN.md §10), else by the median time.
static bool betterOk(const Record &a, const Record &b) {
  return a.speedup() && b.speedup() ? a.speedup() > b.speedup() : a.msMedian < b.msMedian;
}

const Record *ResultsDB::find(const ShapeKey &shape, const std::string &specHash) const {
  Record probe;
  probe.shape = shape;
  probe.specHash = specHash;
  auto g = groups_.find(groupOf(probe));
  if (g == groups_.end())
    return nullptr;
  const Record *bestOk = nullptr, *latest = nullptr;
  size_t latestAt = 0;
  for (const std::string &key : g->second) {
    size_t i = index_.at(key);
    const Record &r = records_[i];
    if (r.ok() && r.msMedian > 0 && (!bestOk || betterOk(r, *bestOk)))
      bestOk = &r;
    if (!latest || i > latestAt)
      latest = &r, latestAt = i;
  }
  return bestOk ? bestOk : latest;
}

const Record *ResultsDB::cublas(const ShapeKey &shape) const {
  Record probe;
  probe.kind = "cublas";
  probe.shape = shape;
  auto g = groups_.find(groupOf(probe));
  if (g == groups_.end())
    return nullptr;
  size_t latest = 0;
  for (const std::string &key : g->second)
    latest = std::max(latest, index_.at(key));
  return &records_[latest];
}

std::vector<Record> ResultsDB::latest(const std::optional<ShapeKey> &shape) const {
  std::vector<Record> out;
  std::set<size_t> seen;
  for (size_t i = 0; i < records_.size(); ++i) {
    size_t last = index_.at(keyOf(records_[i]));
    if (!seen.insert(last).second)
      continue;
    if (shape && !(records_[last].shape == *shape))
      continue;
    out.push_back(records_[last]);
  }
  return out;
}

std::vector<ShapeKey> ResultsDB::shapes() const {
  std::map<std::string, ShapeKey> m;
  for (const Record &r : records_)
    m.emplace(r.shape.str(), r.shape);
  std::vector<ShapeKey> out;
  for (auto &kv : m)
    out.push_back(kv.second);
  return out;
}

const Record *ResultsDB::best(const ShapeKey &shape) const {
  const Record *b = nullptr;
  for (const auto &[key, i] : index_) {
    const Record &r = records_[i];
    if (r.kind != "candidate" || !r.ok() || !(r.shape == shape) || r.msMedian <= 0)
      continue;
    if (!b || betterOk(r, *b))
      b = &r;
  }
  return b;
}

llvm::Error ResultsDB::append(const Record &r) {
  if (path_.empty()) {
    add(r, r.toJson());
    return llvm::Error::success();
  }
  bool fresh = !llvm::sys::fs::exists(path_);
  if (fresh) {
    StringRef dir = llvm::sys::path::parent_path(path_);
    if (!dir.empty())
      if (std::error_code ec = llvm::sys::fs::create_directories(dir))
        return makeError("cannot create '" + dir + "': " + ec.message());
  }
  std::string line = r.toJson();
  // One write per record (O_APPEND), so concurrent writers never interleave
  // inside a line; a crash leaves at most one torn last line.
  FILE *f = std::fopen(path_.c_str(), "a");
  if (!f)
    return makeError("cannot write results DB '" + path_ + "'");
  // After a torn last line (no newline), start on a fresh line.
  bool needNewline = false;
  if (!fresh) {
    if (FILE *rf = std::fopen(path_.c_str(), "rb")) {
      if (std::fseek(rf, -1, SEEK_END) == 0)
        needNewline = std::fgetc(rf) != '\n';
      std::fclose(rf);
    }
  }
  std::string text = (fresh ? std::string(kHeader) + "\n" : std::string()) +
                     (needNewline ? "\n" : "") + line + "\n";
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    return makeError("cannot write results DB '" + path_ + "'");
  add(r, std::move(line));
  return llvm::Error::success();
}

llvm::Expected<size_t> ResultsDB::import(const std::string &otherPath) {
  llvm::Expected<ResultsDB> other = ResultsDB::open(otherPath);
  if (!other)
    return other.takeError();
  if (!llvm::sys::fs::exists(otherPath))
    return makeError("cannot read '" + otherPath + "': no such file");
  std::set<std::string> have(lines_.begin(), lines_.end());
  size_t added = 0;
  for (size_t i = 0; i < other->records_.size(); ++i) {
    if (have.count(other->lines_[i]))
      continue;
    if (llvm::Error e = append(other->records_[i]))
      return e;
    ++added;
  }
  return added;
}

static std::string csvField(StringRef s) {
  if (s.find_first_of(",\"\n") == StringRef::npos)
    return s.str();
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return out + "\"";
}

void tune::writeCsv(llvm::raw_ostream &os, const std::vector<Record> &records) {
  os << "kind,gpu,driver,M,N,K,dtype,candidate,spec_hash,params,status,ms_median,ms_p25,ms_p75,"
        "tflops,baseline_ms,speedup_vs_base,rel_err,registers,smem_bytes,date,commit,base,"
        "error,cublas_version\n";
  for (const Record &r : records) {
    std::string params;
    for (const auto &[k, v] : r.params)
      params += (params.empty() ? "" : " ") + k + "=" + v;
    os << csvField(r.kind) << "," << csvField(r.shape.gpu) << "," << r.shape.driver << ","
       << r.shape.M << "," << r.shape.N << "," << r.shape.K << "," << r.shape.dtype << ","
       << r.candidate << "," << r.specHash << "," << csvField(params) << "," << r.status << ","
       << llvm::formatv("{0:f5},{1:f5},{2:f5},{3:f1},{4:f5},{5:f4},{6:e2}", r.msMedian, r.msP25,
                        r.msP75, r.tflops, r.baselineMs, r.speedup(), r.relErr)
       << "," << r.registers << "," << r.smemBytes << "," << r.date << "," << r.commit << ","
       << csvField(r.base) << "," << csvField(r.error) << "," << r.cublasVersion << "\n";
  }
}

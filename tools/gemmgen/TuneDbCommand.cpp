//===- TuneDbCommand.cpp - `gemmgen tune-db`: the results database --------===//
//
//   gemmgen tune-db export|import|best|defaults|report [--db FILE] [filters]
//   gemmgen tune-db merge OUT IN...
//
// Thin verbs over the tune library's ResultsDB and TunedDefaults
// (gemmgen/tune/TuneDB.h); docs/TUNING.md describes each.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "TuneCommand.h"
#include "OutputFile.h"
#include "TuneCommon.h"

#include "gemmgen/tune/Report.h"
#include "gemmgen/tune/TuneDB.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <CLI/CLI.hpp>

using namespace gemmgen;
using namespace gemmgen::cli;
using namespace gemmgen::cli::tunecli;
using namespace gemmgen::tune;

namespace {


struct DbOptions {
  std::string db = "gemmgen-tune.jsonl";
  std::vector<std::string> inputs;
  std::string csv, jsonl, out, outDir, report, gpu, dtype;
  long long m = 0, n = 0, k = 0;
};

bool matches(const DbOptions &o, const ShapeKey &s) {
  return (o.gpu.empty() || llvm::StringRef(s.gpu).contains_insensitive(o.gpu)) &&
         (!o.m || o.m == s.M) && (!o.n || o.n == s.N) && (!o.k || o.k == s.K) &&
         (o.dtype.empty() || o.dtype == s.dtype);
}

std::optional<ResultsDB> openDb(const DbOptions &o, bool mustExist = true) {
  if (mustExist && !llvm::sys::fs::exists(o.db)) {
    error("no results DB '" + o.db + "'", ExitFailure);
    return std::nullopt;
  }
  llvm::Expected<ResultsDB> db = ResultsDB::open(o.db);
  if (!db) {
    error(llvm::toString(db.takeError()), ExitFailure);
    return std::nullopt;
  }
  noteSkippedLines(db->skippedLines(), o.db);
  return std::move(*db);
}

std::string slug(llvm::StringRef s) {
  std::string out;
  for (char c : s.lower())
    out += llvm::isAlnum(c) ? c : '_';
  return out;
}

void addFilters(CLI::App *cmd, const std::shared_ptr<DbOptions> &o) {
  cmd->add_option("--db", o->db, "Results DB (JSON lines)")->capture_default_str();
  cmd->add_option("--gpu", o->gpu, "Only records of GPUs whose name contains this");
  cmd->add_option("--m", o->m, "Only this M");
  cmd->add_option("--n", o->n, "Only this N");
  cmd->add_option("--k", o->k, "Only this K");
  cmd->add_option("--dtype", o->dtype, "Only this dtype (f16|bf16)");
}

void registerTuneDb(CLI::App &app) {
  CLI::App *db = app.add_subcommand(
      "tune-db", "Export, import and use the results DB of `gemmgen tune` (docs/TUNING.md)");
  db->require_subcommand(1);

  auto ex = std::make_shared<DbOptions>();
  CLI::App *exp = db->add_subcommand("export", "Write the latest record of every key as CSV "
                                               "(default: stdout) or JSON lines");
  addFilters(exp, ex);
  exp->add_option("--csv", ex->csv, "CSV file");
  exp->add_option("--jsonl", ex->jsonl, "JSON-lines file (a DB itself: importable)");
  exp->callback([ex] {
    std::optional<ResultsDB> d = openDb(*ex);
    if (!d)
      return;
    std::vector<Record> recs;
    for (const Record &r : d->latest())
      if (matches(*ex, r.shape))
        recs.push_back(r);
    if (!ex->jsonl.empty()) {
      llvm::sys::fs::remove(ex->jsonl);
      llvm::Expected<ResultsDB> outDb = ResultsDB::open(ex->jsonl);
      if (!outDb)
        return error(llvm::toString(outDb.takeError()), ExitFailure);
      for (const Record &r : recs)
        if (llvm::Error e = outDb->append(r))
          return error(llvm::toString(std::move(e)), ExitFailure);
    }
    if (!ex->csv.empty()) {
      if (!writeOutputFile(ex->csv, [&](llvm::raw_ostream &f) { writeCsv(f, recs); }))
        return;
    }
    if (ex->csv.empty() && ex->jsonl.empty())
      writeCsv(llvm::outs(), recs);
  });

  auto im = std::make_shared<DbOptions>();
  CLI::App *imp = db->add_subcommand("import", "Merge other DB files into --db (records "
                                               "already present are skipped)");
  imp->add_option("--db", im->db, "Results DB to merge into")->capture_default_str();
  imp->add_option("inputs", im->inputs, "DB files to import")->required();
  imp->callback([im] {
    std::optional<ResultsDB> d = openDb(*im, false);
    if (!d)
      return;
    for (const std::string &in : im->inputs) {
      llvm::Expected<size_t> n = d->import(in);
      if (!n)
        return error(llvm::toString(n.takeError()), ExitFailure);
      llvm::outs() << in << ": " << *n << " records added\n";
    }
  });

  auto me = std::make_shared<DbOptions>();
  CLI::App *mrg = db->add_subcommand(
      "merge", "Merge DB files of several hosts/GPUs into OUT: every record kept, tagged by "
               "host and GPU; a fixed order whatever the inputs' order; a malformed line is "
               "an error (FILE:LINE) and nothing is written");
  mrg->add_option("out", me->out, "Output DB (may be one of the inputs)")->required();
  mrg->add_option("inputs", me->inputs, "Input DB files")->required();
  mrg->callback([me] {
    llvm::Expected<MergeStats> st = mergeDbFiles(me->inputs, me->out);
    if (!st)
      return error(llvm::toString(st.takeError()), ExitFailure);
    for (const std::string &n : st->notes)
      llvm::outs() << "note: " << n << "\n";
    llvm::outs() << llvm::formatv("{0}: {1} records from {2} files ({3} identical lines "
                                  "dropped); {4} measured on more than one host/GPU, kept "
                                  "apart\n",
                                  me->out, st->written, st->inputs, st->duplicates,
                                  st->multiMeasured);
  });

  auto be = std::make_shared<DbOptions>();
  CLI::App *bst = db->add_subcommand("best", "Print the best candidate of each shape; with "
                                             "--out, write the (single) best spec");
  addFilters(bst, be);
  bst->add_option("--out", be->out, "Write the best spec (YAML) here");
  bst->callback([be] {
    std::optional<ResultsDB> d = openDb(*be);
    if (!d)
      return;
    const Record *chosen = nullptr;
    size_t n = 0;
    for (const ShapeKey &s : d->shapes()) {
      if (!matches(*be, s))
        continue;
      const Record *b = d->best(s);
      if (!b)
        continue;
      ++n;
      chosen = b;
      const Record *c = d->cublas(s);
      llvm::outs() << llvm::formatv("{0}  best {1} {2:f4} ms {3:f1} TFLOP/s{4}  {5}\n", s.str(),
                                    b->candidate, b->msMedian, b->tflops,
                                    c ? llvm::formatv(" (cuBLAS {0:f1})", c->tflops).str() : "",
                                    b->base);
    }
    if (!be->out.empty()) {
      if (n != 1)
        return error(llvm::formatv("--out needs exactly one shape; {0} match (use --gpu --m "
                                   "--n --k --dtype)",
                                   n)
                         .str(),
                     ExitFailure);
      if (writeText(be->out, chosen->specYaml))
        llvm::outs() << "best spec written to " << be->out << "\n";
    }
  });

  auto de = std::make_shared<DbOptions>();
  CLI::App *def = db->add_subcommand(
      "defaults", "Write a tuned-defaults file (shape -> best spec) and the spec files");
  addFilters(def, de);
  def->add_option("--out-dir", de->outDir, "Directory (e.g. specs/tuned)")->required();
  def->callback([de] {
    std::optional<ResultsDB> d = openDb(*de);
    if (!d)
      return;
    TunedDefaults td;
    std::string defaults = de->outDir + "/defaults.yaml";
    if (llvm::sys::fs::exists(defaults)) { // update, keeping other entries
      llvm::Expected<TunedDefaults> old = loadTunedDefaults(defaults);
      if (!old)
        return error(llvm::toString(old.takeError()), ExitFailure);
      td = std::move(*old);
    }
    for (const ShapeKey &s : d->shapes()) {
      if (!matches(*de, s))
        continue;
      const Record *b = d->best(s);
      if (!b)
        continue;
      if (td.gpu.empty())
        td.gpu = s.gpu;
      std::string rel = slug(s.gpu) + "/" + s.dtype + "_" + std::to_string(s.M) + "x" +
                        std::to_string(s.N) + "x" + std::to_string(s.K) + ".yaml";
      if (!writeText(de->outDir + "/" + rel, b->specYaml))
        return;
      TunedEntry e{s.M, s.N, s.K, s.dtype, rel, b->tflops, 0};
      if (const Record *c = d->cublas(s))
        e.cublasTflops = c->tflops;
      bool replaced = false;
      for (TunedEntry &x : td.entries)
        if (x.M == e.M && x.N == e.N && x.K == e.K && x.dtype == e.dtype)
          x = e, replaced = true;
      if (!replaced)
        td.entries.push_back(e);
      llvm::outs() << rel << "  " << llvm::formatv("{0:f1}", b->tflops) << " TFLOP/s\n";
    }
    if (writeText(defaults, td.str()))
      llvm::outs() << "wrote " << defaults << " (" << td.entries.size() << " shapes)\n";
  });

  auto re = std::make_shared<DbOptions>();
  CLI::App *rep = db->add_subcommand("report", "Write a report (SVG, CSV, table) per shape");
  addFilters(rep, re);
  rep->add_option("--report", re->report, "Directory")->required();
  rep->callback([re] {
    std::optional<ResultsDB> d = openDb(*re);
    if (!d)
      return;
    for (const ShapeKey &s : d->shapes()) {
      if (!matches(*re, s))
        continue;
      std::vector<Record> recs;
      for (const Record &r : d->latest(s))
        if (r.kind == "candidate")
          recs.push_back(r);
      if (recs.empty())
        continue;
      ReportOptions ro;
      ro.title = llvm::formatv("{0}x{1}x{2} {3}  {4}", s.M, s.N, s.K, s.dtype, s.gpu).str();
      if (const Record *c = d->cublas(s))
        ro.cublasMs = c->msMedian;
      std::string dir = re->report + "/" + slug(s.gpu) + "_" + s.dtype + "_" +
                        std::to_string(s.M) + "x" + std::to_string(s.N) + "x" +
                        std::to_string(s.K);
      printTable(llvm::outs(), recs, ro);
      if (llvm::Error e = writeReport(dir, recs, ro))
        return error(llvm::toString(std::move(e)), ExitFailure);
      llvm::outs() << "report: " << dir << "/report.svg\n\n";
    }
  });
}

} // namespace

void cli::registerTuneDbCommand(CLI::App &app) { registerTuneDb(app); }

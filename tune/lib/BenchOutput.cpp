//===- BenchOutput.cpp - What `gemmgen bench` writes, and reading it back -===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/BenchOutput.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace gemmgen;
using namespace gemmgen::tune;

static llvm::json::Object spreadJson(const Spread &s) {
  return llvm::json::Object{
      {"median", s.median}, {"min", s.min}, {"max", s.max}, {"p25", s.p25}, {"p75", s.p75}};
}

/// A cuBLASLt comparison's row: the plain row's keys for what ran, the
/// unfused contender's, and why a contender did not run.
static void ltResultJson(const BenchResult &r, llvm::json::Object &row) {
  const long long rows = r.M * r.batch;
  row["gemmgen_ms"] = spreadJson(r.gemmgen);
  row["gemmgen_tflops"] = tflops(rows, r.N, r.K, r.gemmgen.median);
  row["rel_err_gemmgen_vs_ref"] = r.errG;
  if (!std::isnan(r.amaxErrG))
    row["amax_rel_err_gemmgen"] = r.amaxErrG;
  if (!std::isnan(r.amaxErrC))
    row["amax_rel_err_cublas"] = r.amaxErrC;
  if (r.fused) {
    row["cublas_ms"] = spreadJson(r.cublas);
    row["cublas_tflops"] = tflops(rows, r.N, r.K, r.cublas.median);
    row["ratio_cublas_over_gemmgen"] = r.ratio;
    row["rel_err_cublas_vs_ref"] = r.errC;
    row["rel_err_gemmgen_vs_cublas"] = r.errGC;
  } else {
    row["cublas_unavailable"] = r.fusedNote;
  }
  if (r.hasUnfused) {
    row["unfused_impl"] = r.unfusedName;
    row["unfused_ms"] = spreadJson(r.unfused);
    row["unfused_tflops"] = tflops(rows, r.N, r.K, r.unfused.median);
    row["ratio_unfused_over_gemmgen"] = r.ratioUnfused;
    row["rel_err_unfused_vs_ref"] = r.errU;
    row["rel_err_gemmgen_vs_unfused"] = r.errGU;
  } else if (!r.unfusedNote.empty()) {
    row["unfused_unavailable"] = r.unfusedNote;
  }
  row["verified"] = r.pass;
  row["input_sets"] = r.sets;
  row["launches_per_sample"] = r.reps;
  row["rounds"] = r.rounds;
}

llvm::json::Value tune::benchJson(const BenchRun &run) {
  llvm::json::Array rows;
  for (const BenchResult &r : run.results) {
    llvm::json::Object row{{"M", r.M}, {"N", r.N}, {"K", r.K}, {"batch", r.batch}, {"alpha", r.alpha}, {"beta", r.beta}, {"dtype", run.dtype},
                            {"layout", run.layout}};
    if (r.lt) {
      row["epilogue"] = r.epilogue;
      row["cublas_impl"] = r.cublasName;
    }
    if (!r.error.empty()) {
      row["error"] = r.error;
    } else if (r.lt) {
      ltResultJson(r, row);
    } else {
      row["gemmgen_ms"] = spreadJson(r.gemmgen);
      row["cublas_ms"] = spreadJson(r.cublas);
      row["gemmgen_tflops"] = tflops(r.M * r.batch, r.N, r.K, r.gemmgen.median);
      row["cublas_tflops"] = tflops(r.M * r.batch, r.N, r.K, r.cublas.median);
      row["ratio_cublas_over_gemmgen"] = r.ratio;
      row["rel_err_gemmgen_vs_ref"] = r.errG;
      row["rel_err_cublas_vs_ref"] = r.errC;
      row["rel_err_gemmgen_vs_cublas"] = r.errGC;
      row["verified"] = r.pass;
      row["input_sets"] = r.sets;
      row["launches_per_sample"] = r.reps;
      row["rounds"] = r.rounds;
    }
    rows.push_back(std::move(row));
  }
  const DeviceInfo &dev = run.device;
  llvm::json::Object doc{
      {"spec", run.spec},
      {"kernel", run.kernel},
      {"target", run.target},
      {"commit", run.commit},
      {"date", run.date},
      {"gpu", dev.name},
      {"arch", dev.archName()},
      {"sm_count", dev.smCount},
      {"sm_clock_max_khz", dev.smClockKHz},
      {"mem_clock_khz", dev.memClockKHz},
      {"driver_version", dev.driverVersion},
      {"nvrtc", run.nvrtc},
      {"cublas_version", run.cublasVersion},
      {"protocol", llvm::json::Object{{"warmup", run.settings.warmup},
                                      {"rounds", run.settings.rounds},
                                      {"timing", "cuda events, median of rounds"},
                                      {"order", "interleaved, alternating"},
                                      {"inputs", "random normal, rotating sets > 4x L2"}}},
      {"results", std::move(rows)},
  };
  if (run.cublasLtVersion) // chain and fp8 runs only: plain runs keep their keys
    doc["cublaslt_version"] = (int64_t)run.cublasLtVersion;
  return doc;
}

void tune::writeBenchCsv(llvm::raw_ostream &f, const BenchRun &run) {
  f << "spec,kernel,gpu,commit,date,M,N,K,batch,dtype,gemmgen_ms_median,gemmgen_ms_min,"
       "gemmgen_ms_max,cublas_ms_median,cublas_ms_min,cublas_ms_max,gemmgen_tflops,"
       "cublas_tflops,ratio,rel_err_g,rel_err_c,rel_err_gc,verified,error";
  bool lt = false;
  for (const BenchResult &r : run.results)
    lt |= r.lt;
  // Chain and fp8 runs only: plain runs keep their columns.
  f << (lt ? ",epilogue,cublas_impl,unfused_impl,unfused_ms_median,unfused_tflops,"
             "ratio_unfused,rel_err_u,rel_err_gu,note\n"
           : "\n");
  for (const BenchResult &r : run.results) {
    f << llvm::formatv("{0},{1},\"{2}\",{3},{4},{5},{6},{7},{23},{8},{9},{10},{11},{12},{13},"
                       "{14},{15},{16},{17},{18},{19},{20},{21},\"{22}\"\n",
                       run.spec, run.kernel, run.device.name, run.commit, run.date, r.M, r.N,
                       r.K, run.dtype, r.gemmgen.median, r.gemmgen.min, r.gemmgen.max,
                       r.cublas.median, r.cublas.min, r.cublas.max,
                       tflops(r.M * r.batch, r.N, r.K, r.gemmgen.median),
                       tflops(r.M * r.batch, r.N, r.K, r.cublas.median), r.ratio, r.errG, r.errC,
                       r.errGC, r.pass ? 1 : 0, r.error, r.batch);
    if (lt)
      f << llvm::formatv(",\"{0}\",\"{1}\",\"{2}\",{3},{4},{5},{6},{7},\"{8}\"", r.epilogue,
                         r.cublasName, r.unfusedName, r.unfused.median,
                         tflops(r.M * r.batch, r.N, r.K, r.unfused.median), r.ratioUnfused, r.errU,
                         r.errGU, r.fusedNote + (r.fusedNote.empty() ? "" : "; ") + r.unfusedNote);
  }
}

std::string tune::ltBenchHeaderText() {
  return llvm::formatv("{0,-20} {1,-10} {2,-22} {3,-22} {4,6} {5,-22} {6,6}  {7}\n", "shape",
                       "dtype", "gemmgen ms (TFLOP/s)", "cuBLASLt ms (TFLOP/s)", "ratio",
                       "unfused ms (TFLOP/s)", "ratio", "rel.err g/lt/u, g-lt/g-u")
      .str();
}

std::string tune::ltBenchRowText(const BenchResult &r, llvm::StringRef dtype) {
  std::string shape = llvm::formatv("{0}x{1}x{2}", r.M, r.N, r.K);
  if (r.batch > 1)
    shape = std::to_string(r.batch) + "*" + shape;
  if (r.alpha != 1.0f || r.beta != 0.0f)
    shape += llvm::formatv(" a{0}b{1}", r.alpha, r.beta).str();
  if (!r.error.empty())
    return llvm::formatv("{0,-20} {1,-10} error: {2}\n", shape, dtype, r.error).str();
  const long long rows = r.M * r.batch;
  auto cell = [&](const Spread &s) {
    return llvm::formatv("{0:f4} ({1:f1})", s.median, tflops(rows, r.N, r.K, s.median)).str();
  };
  auto ratio = [](double v) { return llvm::formatv("{0:f3}", v).str(); };
  std::string text = llvm::formatv(
      "{0,-20} {1,-10} {2,-22} {3,-22} {4,6} {5,-22} {6,6}  {7:e1}/{8}/{9}, {10}/{11}{12}\n",
      shape, dtype, cell(r.gemmgen), r.fused ? cell(r.cublas) : "n/a", r.fused ? ratio(r.ratio) : "-",
      r.hasUnfused ? cell(r.unfused) : "n/a", r.hasUnfused ? ratio(r.ratioUnfused) : "-", r.errG,
      r.fused ? llvm::formatv("{0:e1}", r.errC).str() : "-",
      r.hasUnfused ? llvm::formatv("{0:e1}", r.errU).str() : "-",
      r.fused ? llvm::formatv("{0:e1}", r.errGC).str() : "-",
      r.hasUnfused ? llvm::formatv("{0:e1}", r.errGU).str() : "-", r.pass ? "" : " FAIL");
  // An 8-bit D's amax (each contender's own): relative error against the reference's.
  if (!std::isnan(r.amaxErrG) || !std::isnan(r.amaxErrC))
    text += "  amax rel. err: gemmgen " +
            (std::isnan(r.amaxErrG) ? std::string("-") : llvm::formatv("{0:e1}", r.amaxErrG).str()) +
            ", cuBLASLt " +
            (std::isnan(r.amaxErrC) ? std::string("-") : llvm::formatv("{0:e1}", r.amaxErrC).str()) +
            "\n";
  if (!r.fused)
    text += "  cuBLASLt fused: " + r.fusedNote + "\n";
  if (!r.hasUnfused && !r.unfusedNote.empty())
    text += "  unfused: " + r.unfusedNote + "\n";
  return text;
}

std::optional<Record> tune::cublasRecordFromBench(llvm::StringRef text, const ShapeKey &shape,
                                                  const std::string &basePath) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *doc = v->getAsObject();
  const llvm::json::Array *results = doc ? doc->getArray("results") : nullptr;
  if (!results || results->empty())
    return std::nullopt;
  const llvm::json::Object *r = (*results)[0].getAsObject();
  const llvm::json::Object *c = r ? r->getObject("cublas_ms") : nullptr;
  if (!c || !c->getNumber("median") || *c->getNumber("median") <= 0)
    return std::nullopt;
  Record rec;
  rec.kind = "cublas";
  rec.shape = shape;
  rec.base = basePath;
  rec.kernel = "cublasGemmEx";
  rec.msMedian = *c->getNumber("median");
  rec.msP25 = c->getNumber("p25").value_or(0);
  rec.msP75 = c->getNumber("p75").value_or(0);
  rec.msMin = c->getNumber("min").value_or(0);
  rec.msMax = c->getNumber("max").value_or(0);
  rec.tflops = tflops(shape.M, shape.N, shape.K, rec.msMedian);
  if (const llvm::json::Object *g = r->getObject("gemmgen_ms"))
    rec.baselineMs = g->getNumber("median").value_or(0); // the base spec, same run
  rec.cublasVersion = (int)doc->getInteger("cublas_version").value_or(0);
  rec.commit = doc->getString("commit").value_or("").str();
  rec.date = doc->getString("date").value_or("").str();
  rec.status = "ok";
  return rec;
}

//===- BenchOutput.cpp - What `gemmgen bench` writes, and reading it back -===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/BenchOutput.h"

#include "llvm/Support/FormatVariadic.h"

using namespace gemmgen;
using namespace gemmgen::tune;

static llvm::json::Object spreadJson(const Spread &s) {
  return llvm::json::Object{
      {"median", s.median}, {"min", s.min}, {"max", s.max}, {"p25", s.p25}, {"p75", s.p75}};
}

llvm::json::Value tune::benchJson(const BenchRun &run) {
  llvm::json::Array rows;
  for (const BenchResult &r : run.results) {
    llvm::json::Object row{{"M", r.M}, {"N", r.N}, {"K", r.K}, {"batch", r.batch}, {"alpha", r.alpha}, {"beta", r.beta}, {"dtype", run.dtype},
                            {"layout", run.layout}};
    if (!r.error.empty()) {
      row["error"] = r.error;
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
  return llvm::json::Object{
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
}

void tune::writeBenchCsv(llvm::raw_ostream &f, const BenchRun &run) {
  f << "spec,kernel,gpu,commit,date,M,N,K,batch,dtype,gemmgen_ms_median,gemmgen_ms_min,"
       "gemmgen_ms_max,cublas_ms_median,cublas_ms_min,cublas_ms_max,gemmgen_tflops,"
       "cublas_tflops,ratio,rel_err_g,rel_err_c,rel_err_gc,verified,error\n";
  for (const BenchResult &r : run.results)
    f << llvm::formatv("{0},{1},\"{2}\",{3},{4},{5},{6},{7},{23},{8},{9},{10},{11},{12},{13},"
                       "{14},{15},{16},{17},{18},{19},{20},{21},\"{22}\"\n",
                       run.spec, run.kernel, run.device.name, run.commit, run.date, r.M, r.N,
                       r.K, run.dtype, r.gemmgen.median, r.gemmgen.min, r.gemmgen.max,
                       r.cublas.median, r.cublas.min, r.cublas.max,
                       tflops(r.M * r.batch, r.N, r.K, r.gemmgen.median),
                       tflops(r.M * r.batch, r.N, r.K, r.cublas.median), r.ratio, r.errG, r.errC,
                       r.errGC, r.pass ? 1 : 0, r.error, r.batch);
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

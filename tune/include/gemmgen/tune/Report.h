//===- Report.h - The tune report: table, SVG, CSV --------------*- C++ -*-===//
#ifndef GEMMGEN_TUNE_REPORT_H
#define GEMMGEN_TUNE_REPORT_H

#include "gemmgen/tune/TuneDB.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace gemmgen::tune {


struct ReportOptions {
  std::string title;
  /// The parameter that colours the points (default: the space key with the
  /// most distinct values among the records).
  std::string colorBy;
  double cublasMs = 0; ///< drawn as a reference line when > 0
  size_t tableRows = 15;
};

/// A terminal table: the best `tableRows` ok records (by time), then the
/// failures with their reasons.
void printTable(llvm::raw_ostream &os, const std::vector<Record> &records,
                const ReportOptions &options);

/// An SVG: TFLOP/s of every ok candidate ranked (coloured by one parameter),
/// and one strip per parameter (TFLOP/s against that parameter's values).
/// With no timed records (compile-only) it plots registers and shared
/// memory instead.
std::string renderSvg(const std::vector<Record> &records, const ReportOptions &options);

/// Writes DIR/report.svg, DIR/results.csv and DIR/summary.txt.
llvm::Error writeReport(const std::string &dir, const std::vector<Record> &records,
                        const ReportOptions &options);

} // namespace gemmgen::tune

#endif // GEMMGEN_TUNE_REPORT_H

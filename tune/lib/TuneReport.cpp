//===- TuneReport.cpp - The tuning report: a table and an SVG plot --------===//
//
// Entry points: printTable, renderSvg, writeReport (see Tuner.h). The SVG is
// written by a small writer here (no plotting dependency): a ranked scatter
// of every timed candidate coloured by one parameter, reference lines for
// cuBLAS and the base spec, and one strip plot per tuned parameter.
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/Report.h"
#include "gemmgen/tune/Timing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <map>
#include <set>

using namespace gemmgen;
using namespace gemmgen::tune;

static std::string paramsOf(const Record &r) {
  std::string s;
  for (const auto &[k, v] : r.params)
    s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

static const std::string *paramValue(const Record &r, const std::string &key) {
  for (const auto &kv : r.params)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

void tune::printTable(llvm::raw_ostream &os, const std::vector<Record> &records,
                      const ReportOptions &o) {
  std::vector<const Record *> ok, bad;
  for (const Record &r : records)
    (r.ok() ? ok : bad).push_back(&r);
  llvm::stable_sort(ok, [](const Record *a, const Record *b) { return a->msMedian < b->msMedian; });
  if (!o.title.empty())
    os << o.title << "\n";
  if (!ok.empty()) {
    os << llvm::formatv("{0,-4} {1,-13} {2,10} {3,9} {4,8} {5,9} {6,5}  {7}\n", "rank",
                        "candidate", "median ms", "TFLOP/s", "vs base", "vs cuBLAS", "regs",
                        "parameters");
    for (size_t i = 0; i < ok.size() && i < o.tableRows; ++i) {
      const Record &r = *ok[i];
      std::string vsBase = r.speedup() ? llvm::formatv("x{0:f3}", r.speedup()).str() : "-";
      std::string vsCublas =
          o.cublasMs > 0 ? llvm::formatv("{0:f3}", o.cublasMs / r.msMedian).str() : "-";
      os << llvm::formatv("{0,-4} {1,-13} {2,10:f4} {3,9:f1} {4,8} {5,9} {6,5}  {7}\n", i + 1,
                          r.candidate, r.msMedian, r.tflops, vsBase, vsCublas, r.registers,
                          paramsOf(r));
    }
    if (ok.size() > o.tableRows)
      os << "     ... " << ok.size() - o.tableRows << " more (results.csv has all)\n";
  }
  std::vector<const Record *> compiled;
  for (const Record *r : bad)
    if (r->status == "compiled")
      compiled.push_back(r);
  if (!compiled.empty()) {
    os << compiled.size() << " candidates compiled, would be timed:\n";
    os << llvm::formatv("{0,-13} {1,5} {2,10}  {3}\n", "candidate", "regs", "smem B",
                        "parameters");
    for (size_t i = 0; i < compiled.size() && i < o.tableRows; ++i)
      os << llvm::formatv("{0,-13} {1,5} {2,10}  {3}\n", compiled[i]->candidate,
                          compiled[i]->registers, compiled[i]->smemBytes, paramsOf(*compiled[i]));
    if (compiled.size() > o.tableRows)
      os << "     ... " << compiled.size() - o.tableRows << " more (results.csv has all)\n";
  }
  for (const Record *r : bad)
    if (r->status != "compiled")
      os << llvm::formatv("{0,-13} {1,-8} {2}: {3}\n", r->candidate, r->status, paramsOf(*r),
                          llvm::StringRef(r->error).split('\n').first);
}

//===----------------------------------------------------------------------===//
// SVG
//===----------------------------------------------------------------------===//

namespace {

std::string xmlEscape(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// A minimal SVG writer: shapes and text in user units.
class SvgWriter {
public:
  SvgWriter(double w, double h) : w(w), h(h) {}
  void rect(double x, double y, double rw, double rh, llvm::StringRef fill,
            llvm::StringRef stroke = "none") {
    body += llvm::formatv("<rect x=\"{0:f1}\" y=\"{1:f1}\" width=\"{2:f1}\" height=\"{3:f1}\" "
                          "fill=\"{4}\" stroke=\"{5}\"/>\n",
                          x, y, rw, rh, fill, stroke);
  }
  void line(double x1, double y1, double x2, double y2, llvm::StringRef stroke,
            double width = 1, llvm::StringRef dash = "") {
    body += llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{2:f1}\" y2=\"{3:f1}\" "
                          "stroke=\"{4}\" stroke-width=\"{5:f1}\"{6}/>\n",
                          x1, y1, x2, y2, stroke, width,
                          dash.empty() ? std::string() : " stroke-dasharray=\"" + dash.str() + "\"");
  }
  void circle(double cx, double cy, double r, llvm::StringRef fill, llvm::StringRef tooltip) {
    body += llvm::formatv("<circle cx=\"{0:f1}\" cy=\"{1:f1}\" r=\"{2:f1}\" fill=\"{3}\" "
                          "fill-opacity=\"0.85\" stroke=\"#333\" stroke-width=\"0.5\">"
                          "<title>{4}</title></circle>\n",
                          cx, cy, r, fill, xmlEscape(tooltip));
  }
  void text(double x, double y, llvm::StringRef s, double size = 12,
            llvm::StringRef anchor = "start", llvm::StringRef fill = "#222", double rotate = 0) {
    std::string rot = rotate != 0 ? llvm::formatv(" transform=\"rotate({0:f0} {1:f1} {2:f1})\"",
                                                  rotate, x, y)
                                        .str()
                                  : "";
    body += llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" font-size=\"{2:f0}\" "
                          "text-anchor=\"{3}\" fill=\"{4}\"{5}>{6}</text>\n",
                          x, y, size, anchor, fill, rot, xmlEscape(s));
  }
  std::string str() const {
    return llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:f0}\" "
                         "height=\"{1:f0}\" viewBox=\"0 0 {0:f0} {1:f0}\" "
                         "font-family=\"sans-serif\">\n"
                         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                         w, h)
               .str() +
           body + "</svg>\n";
  }

private:
  double w, h;
  std::string body;
};

const char *kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/// Round tick step for a range.
double niceStep(double range, int ticks) {
  double raw = range / std::max(1, ticks);
  double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag)
      return m * mag;
  return 10 * mag;
}

struct Axis {
  double lo = 0, hi = 1, step = 0.2;
  static Axis fit(double mn, double mx) {
    Axis a;
    if (!(mx > mn)) {
      mn = mx > 0 ? mx * 0.5 : 0;
      mx = mx > 0 ? mx * 1.1 : 1;
    }
    double pad = 0.08 * (mx - mn);
    a.step = niceStep(mx - mn + 2 * pad, 5);
    a.lo = std::max(0.0, std::floor((mn - pad) / a.step) * a.step);
    a.hi = std::ceil((mx + pad) / a.step) * a.step;
    return a;
  }
};

} // namespace

std::string tune::renderSvg(const std::vector<Record> &records, const ReportOptions &o) {
  // What to plot: TFLOP/s of timed candidates, else (compile-only) shared
  // memory of compiled ones.
  std::vector<const Record *> pts;
  for (const Record &r : records)
    if (r.ok() && r.tflops > 0)
      pts.push_back(&r);
  bool timed = !pts.empty();
  if (!timed)
    for (const Record &r : records)
      if (r.status == "compiled")
        pts.push_back(&r);
  auto metric = [&](const Record &r) {
    return timed ? r.tflops : (double)r.smemBytes / 1024.0;
  };
  std::string yLabel = timed ? "TFLOP/s" : "smem KiB";

  // Parameters, in first-seen order, with their values.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::string>> values;
  for (const Record *r : pts)
    for (const auto &[k, v] : r->params) {
      if (!values.count(k))
        keys.push_back(k);
      auto &vs = values[k];
      if (!llvm::is_contained(vs, v))
        vs.push_back(v);
    }
  for (auto &[k, vs] : values)
    llvm::stable_sort(vs, [](const std::string &a, const std::string &b) {
      long long x, y;
      bool na = !llvm::StringRef(a).getAsInteger(10, x), nb = !llvm::StringRef(b).getAsInteger(10, y);
      return na && nb ? x < y : a < b;
    });
  std::string colorBy = o.colorBy;
  if (colorBy.empty() || !values.count(colorBy)) {
    colorBy.clear();
    size_t most = 0;
    for (const std::string &k : keys)
      if (values[k].size() > most)
        most = values[k].size(), colorBy = k;
  }
  auto colorOf = [&](const Record &r) -> std::string {
    const std::string *v = colorBy.empty() ? nullptr : paramValue(r, colorBy);
    if (!v)
      return "#555";
    auto &vs = values[colorBy];
    size_t i = std::find(vs.begin(), vs.end(), *v) - vs.begin();
    return kPalette[i % 10];
  };

  // Layout: the ranked plot on top, strips below, three per row.
  const double W = 1000, topH = 380, stripW = 310, stripH = 230;
  const size_t stripRows = (keys.size() + 2) / 3;
  const double H = 70 + topH + 30 + stripRows * (stripH + 30) + 20;
  SvgWriter svg(W, H);
  svg.text(20, 28, o.title.empty() ? "gemmgen tune" : o.title, 18);
  svg.text(20, 48,
           timed ? llvm::formatv("{0} candidates timed; coloured by {1}; hover a point for its "
                                 "parameters",
                                 pts.size(), colorBy.empty() ? "-" : colorBy)
                       .str()
                 : llvm::formatv("compile-only: {0} candidates compiled (not timed); shared "
                                 "memory per candidate, coloured by {1}",
                                 pts.size(), colorBy.empty() ? "-" : colorBy)
                       .str(),
           12, "start", "#555");
  if (pts.empty()) {
    svg.text(W / 2, 120, "no candidate to plot", 16, "middle");
    return svg.str();
  }

  double mn = 1e300, mx = 0;
  for (const Record *r : pts)
    mn = std::min(mn, metric(*r)), mx = std::max(mx, metric(*r));
  double cublasT = 0, baseT = 0;
  if (timed && o.cublasMs > 0) {
    cublasT = tflops(pts[0]->shape.M, pts[0]->shape.N, pts[0]->shape.K, o.cublasMs);
    mx = std::max(mx, cublasT);
  }
  if (timed) {
    std::vector<double> b;
    for (const Record *r : pts)
      if (r->baselineMs > 0)
        b.push_back(r->baselineMs);
    if (!b.empty()) {
      llvm::sort(b);
      double ms = b[b.size() / 2];
      baseT = tflops(pts[0]->shape.M, pts[0]->shape.N, pts[0]->shape.K, ms);
      mn = std::min(mn, baseT), mx = std::max(mx, baseT);
    }
  }
  Axis ay = Axis::fit(mn, mx);

  auto panel = [&](double x0, double y0, double pw, double ph, const std::string &title,
                   const std::vector<std::string> &xLabels, auto xOf, bool showRefs) {
    const double l = 55, r = 10, t = 22, b = 40;
    double px = x0 + l, py = y0 + t, iw = pw - l - r, ih = ph - t - b;
    svg.rect(x0, y0, pw, ph, "#fafafa", "#ddd");
    svg.text(x0 + 8, y0 + 16, title, 13);
    auto yPix = [&](double v) { return py + ih - (v - ay.lo) / (ay.hi - ay.lo) * ih; };
    for (double v = ay.lo; v <= ay.hi + 1e-9; v += ay.step) {
      svg.line(px, yPix(v), px + iw, yPix(v), "#e4e4e4");
      svg.text(px - 6, yPix(v) + 4,
               (ay.step >= 1 ? llvm::formatv("{0:f0}", v) : llvm::formatv("{0:f2}", v)).str(),
               10, "end", "#555");
    }
    svg.line(px, py, px, py + ih, "#888");
    svg.line(px, py + ih, px + iw, py + ih, "#888");
    svg.text(x0 + 14, py + ih / 2, yLabel, 11, "middle", "#555", -90);
    if (showRefs && cublasT > 0) {
      svg.line(px, yPix(cublasT), px + iw, yPix(cublasT), "#d62728", 1.5, "6,4");
      svg.text(px + iw - 4, yPix(cublasT) - 4,
               llvm::formatv("cuBLAS {0:f0}", cublasT).str(), 11, "end", "#d62728");
    }
    if (showRefs && baseT > 0) {
      svg.line(px, yPix(baseT), px + iw, yPix(baseT), "#555", 1.2, "3,3");
      svg.text(px + 4, yPix(baseT) - 4, llvm::formatv("base spec {0:f0}", baseT).str(), 11,
               "start", "#555");
    }
    for (size_t i = 0; i < xLabels.size(); ++i) {
      double x = px + (i + 0.5) * iw / xLabels.size();
      svg.text(x, py + ih + 16, xLabels[i], 11, "middle", "#333");
    }
    for (const Record *rec : pts) {
      std::optional<double> xf = xOf(*rec);
      if (!xf)
        continue;
      std::string tip = rec->candidate + "  " + paramsOf(*rec) +
                        llvm::formatv(timed ? "  {0:f4} ms, {1:f1} TFLOP/s"
                                            : "  {2} registers, {3} B smem",
                                      rec->msMedian, rec->tflops, rec->registers, rec->smemBytes)
                            .str();
      svg.circle(px + *xf * iw, yPix(metric(*rec)), 4.5, colorOf(*rec), tip);
    }
  };

  // Ranked: best first.
  std::vector<const Record *> ranked = pts;
  llvm::stable_sort(ranked, [&](const Record *a, const Record *b) { return metric(*a) > metric(*b); });
  std::map<const Record *, size_t> rank;
  for (size_t i = 0; i < ranked.size(); ++i)
    rank[ranked[i]] = i;
  panel(20, 60, W - 40, topH,
        timed ? "all timed candidates, best first (x: rank)" : "all compiled candidates (x: rank)",
        {}, [&](const Record &r) -> std::optional<double> {
          return (rank[&r] + 0.5) / ranked.size();
        },
        true);
  // Legend for the colour parameter.
  if (!colorBy.empty()) {
    double lx = 80, ly = 60 + topH + 18;
    svg.text(lx, ly, colorBy + ":", 12);
    lx += 8 * colorBy.size() + 20;
    for (size_t i = 0; i < values[colorBy].size(); ++i) {
      svg.circle(lx, ly - 4, 5, kPalette[i % 10], values[colorBy][i]);
      svg.text(lx + 9, ly, values[colorBy][i], 12);
      lx += 24 + 8 * values[colorBy][i].size();
    }
  }
  // One strip per parameter.
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string &key = keys[k];
    const auto &vs = values[key];
    double x0 = 20 + (k % 3) * (stripW + 15), y0 = 60 + topH + 35 + (k / 3) * (stripH + 30);
    panel(x0, y0, stripW, stripH, yLabel + " vs " + key, vs,
          [&](const Record &r) -> std::optional<double> {
            const std::string *v = paramValue(r, key);
            if (!v)
              return std::nullopt;
            size_t i = std::find(vs.begin(), vs.end(), *v) - vs.begin();
            // Deterministic jitter from the candidate id spreads the points.
            double j = ((std::hash<std::string>()(r.candidate) % 1000) / 1000.0 - 0.5) * 0.5;
            return (i + 0.5 + j) / vs.size();
          },
          false);
  }
  return svg.str();
}

llvm::Error tune::writeReport(const std::string &dir, const std::vector<Record> &records,
                              const ReportOptions &options) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create report directory '" + dir + "'");
  auto write = [&](llvm::StringRef name, auto fn) -> llvm::Error {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(p, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return llvm::createStringError(ec, "cannot write '" + p + "'");
    fn(os);
    os.close(); // a full disk shows at the flush
    if (os.has_error()) {
      ec = os.error();
      os.clear_error();
      return llvm::createStringError(ec, "cannot write '" + p + "': " + ec.message());
    }
    return llvm::Error::success();
  };
  if (llvm::Error e = write("report.svg", [&](llvm::raw_ostream &os) {
        os << renderSvg(records, options);
      }))
    return e;
  if (llvm::Error e = write("results.csv",
                            [&](llvm::raw_ostream &os) { writeCsv(os, records); }))
    return e;
  ReportOptions all = options;
  all.tableRows = records.size();
  return write("summary.txt", [&](llvm::raw_ostream &os) { printTable(os, records, all); });
}

//===- ChooseCommand.cpp - `gemmgen choose` ---------------------------------===//
//
//   gemmgen choose --m M --n N --k K | --shapes MxNxK,...  [--dtype T]
//                  [--scaling S] [--out-dtype T] [--layout A,B[,D]]
//                  [--l2-mib N] [--sms N] [--tuned] [--spec | -o FILE]
//
// What `run auto` / `bench auto` would compile for each shape, without a GPU:
// the family, its K split, the model's time against the default's, the
// kernel's name, and (one shape) why; --spec prints the spec, -o writes it;
// --tuned: what `tuned` would take (a tuned-defaults entry first); --l2-mib:
// the L2 of the GPU to choose for, --sms its multiprocessors (`auto` reads
// the GPU's; 0, the default, the H200's).
// The same call as `auto` (gpu::chooseFor), so a table of it is the table
// of what `auto` runs.
//
//===----------------------------------------------------------------------===//
#include "GpuCommon.h"
#include "OutputFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace gemmgen;
using namespace gemmgen::cli;

namespace {

struct ChooseOptions {
  std::optional<long long> m, n, k;
  std::string shapes;
  std::string dtype, scaling, outDtype, layout;
  int l2Mib = 0;      ///< the GPU's L2 (ChoiceOptions::l2Bytes); 0: the H200's
  int sms = 0;        ///< the GPU's SMs (ChoiceOptions::smCount); 0: the H200's
  bool tuned = false; ///< what `tuned` takes: a tuned-defaults entry first
  bool printSpec = false;
  std::string output;
};

void error(const std::string &message) {
  llvm::errs() << "gemmgen: error: " << message << "\n";
  setExitCode(ExitFailure);
}

/// One shape's row: what was chosen, the spec, and why.
struct Row {
  std::string shape, family, split, model, defaultUs, kernel, why, specYaml;
};

/// A model time in µs, or "rule" where a measured rule chose (predictedUs 0).
std::string micros(double us) { return us > 0 ? llvm::formatv("{0:f1}", us).str() : "rule"; }

void runChoose(const ChooseOptions &o) {
  using namespace gpu;
  std::optional<DType> dtype;
  if (!parseDTypeOption(o.dtype, dtype))
    return;
  std::optional<DType> outDtype;
  if (!parseOutDTypeOption(o.outDtype, outDtype, "auto", dtype))
    return;
  bool blockwise = false;
  if (!parseScalingOption(o.scaling, "auto", dtype, blockwise))
    return;
  LayoutOption layout;
  if (!parseLayoutOption(o.layout, layout))
    return;
  std::vector<std::array<long long, 3>> shapes;
  if (!o.shapes.empty()) {
    auto parsed = parseShapeList(o.shapes, LLONG_MAX);
    if (!parsed)
      return error("--shapes wants MxNxK[,MxNxK...] (got '" + o.shapes + "')");
    shapes = *parsed;
  }
  if (o.m || o.n || o.k) {
    if (!o.m || !o.n || !o.k)
      return error("give all of --m, --n and --k (or --shapes MxNxK,...)");
    shapes.push_back({*o.m, *o.n, *o.k});
  }
  if (shapes.empty())
    return error("give a shape: --m M --n N --k K, or --shapes MxNxK[,MxNxK...]");
  if (o.l2Mib < 0 || o.l2Mib > 1024)
    return error("--l2-mib is the GPU's L2 in MiB, 1-1024 (50 for the H100, 60 for the H200), "
                 "or 0 for the H200's (got " +
                 std::to_string(o.l2Mib) + ")");
  if (o.sms < 0 || o.sms > 4096)
    return error("--sms is the GPU's multiprocessor count, 1-4096 (132 for the H100 SXM and the "
                 "H200), or 0 for the H200's (got " +
                 std::to_string(o.sms) + ")");
  if ((o.printSpec || !o.output.empty()) && shapes.size() != 1)
    return error(std::string(o.printSpec ? "--spec" : "-o") + " writes one spec: give one shape");

  const DType t = dtype.value_or(DType::F16);
  std::vector<Row> rows;
  for (const auto &s : shapes) {
    Row r;
    r.shape = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    // The row-major problem (N×M for a column-major D), as run asks about it.
    ChoiceProblem asked = choiceProblemFor(layout, s[0], s[1], s[2], outDtype);
    asked.options.l2Bytes = o.l2Mib << 20;
    asked.options.smCount = o.sms;
    if (o.tuned) { // `tuned`: the tuned-defaults entry for exactly this shape, if any
      llvm::Expected<std::optional<TunedSpec>> tuned =
          tunedSpecFor(asked.M, asked.N, asked.K, t);
      if (!tuned)
        return error(llvm::toString(tuned.takeError()));
      if (*tuned) {
        auto text = llvm::MemoryBuffer::getFile((*tuned)->path);
        if (!text)
          return error("cannot read the tuned spec '" + (*tuned)->path + "': " +
                       text.getError().message());
        r.family = "tuned", r.split = r.model = r.defaultUs = "-", r.kernel = (*tuned)->path;
        r.why = "tuned for " + (*tuned)->tunedFor + " (" + (*tuned)->defaultsFile + ")";
        r.specYaml = (*text)->getBuffer().str();
        rows.push_back(r);
        continue;
      }
    }
    Expected<KernelChoice> c =
        chooseFor(asked.M, asked.N, asked.K, t, blockwise, outDtype, asked.options);
    if (!c)
      return fail(c.status());
    r.family = c->family, r.split = std::to_string(c->splitK), r.kernel = c->name;
    r.model = micros(c->predictedUs), r.defaultUs = micros(c->defaultUs);
    r.why = c->reason, r.specYaml = c->specYaml;
    rows.push_back(r);
  }
  if (!o.output.empty()) { // before any output: a failed write leaves none
    if (!writeOutputFile(o.output, rows[0].specYaml))
      return;
  }
  if (o.printSpec) {
    llvm::outs() << rows[0].specYaml;
    return;
  }
  auto line = [](const std::string &shape, const std::string &dtype, const std::string &family,
                 const std::string &split, const std::string &model, const std::string &def,
                 const std::string &kernel) {
    llvm::outs() << llvm::formatv("{0,-20} {1,-5} {2,-12} {3,5} {4,10} {5,11}  {6}\n", shape,
                                  dtype, family, split, model, def, kernel);
  };
  line("shape", "dtype", "family", "split", "model us", "default us", "kernel");
  for (const Row &r : rows)
    line(r.shape, toString(t), r.family, r.split, r.model, r.defaultUs, r.kernel);
  if (layout.d == Layout::Col)
    llvm::outs() << "D column-major: each shape MxNxK is chosen as the problem with D row-major, "
                    "D^T = B^T·A^T, NxMxK\n";
  if (rows.size() == 1)
    llvm::outs() << "why: " << rows[0].why << "\n";
  if (!o.output.empty())
    llvm::outs() << "spec: " << o.output << "\n";
}

} // namespace

void gemmgen::cli::registerChooseCommand(CLI::App &app) {
  auto opts = std::make_shared<ChooseOptions>();
  CLI::App *cmd = app.add_subcommand(
      "choose", "Print the kernel `run auto` / `bench auto` would compile for each shape (the "
                "family, its K split, the model's time, why), or its spec; no GPU needed");
  cmd->add_option("--m", opts->m, "M of a single shape");
  cmd->add_option("--n", opts->n, "N of a single shape");
  cmd->add_option("--k", opts->k, "K of a single shape");
  cmd->add_option("--shapes", opts->shapes, "Comma-separated MxNxK list");
  cmd->add_option("--dtype", opts->dtype, "f16 (the default), bf16, e4m3 or e5m2");
  cmd->add_option("--scaling", opts->scaling,
                  "per_tensor (the default) or blockwise: the fp8 kernel's scales");
  cmd->add_option("--out-dtype", opts->outDtype,
                  "f32 for 16-bit operands; with --dtype e4m3|e5m2 also bf16 (the default), "
                  "f16, e4m3 or e5m2");
  cmd->add_option("--layout", opts->layout,
                  "Operand layouts A,B[,D] (each row or col; default row,col,row)");
  cmd->add_option("--l2-mib", opts->l2Mib,
                  "The L2 of the GPU to choose for, in MiB (`auto` reads the GPU's; default 0: "
                  "the H200's 60, where the rules were measured)");
  cmd->add_option("--sms", opts->sms,
                  "The multiprocessors of the GPU to choose for (`auto` reads the GPU's; default "
                  "0: the H200's 132): split-K runs in one launch only where it cuts each tile "
                  "into aligned shares on that many");
  cmd->add_flag("--tuned", opts->tuned,
                 "What `tuned` takes: the spec tuned for exactly the shape (16-bit), else the "
                 "cost model's choice");
  cmd->add_flag("--spec", opts->printSpec, "Print the chosen spec (YAML) instead of the table");
  cmd->add_option("-o,--output", opts->output, "Also write the chosen spec to FILE");
  cmd->callback([opts] { runChoose(*opts); });
}

//===- KernelChoice.cpp - A kernel for a shape, chosen by a cost model ----===//
//
// Three tile families (the fixed default and the two smaller tiles tuning
// found for small shapes), each with K cut into 1-8 slices, ranked by a model
// of persistent tiles on 132 SMs whose constants were fitted to the H200's
// measurements (bench/model/fit_cost_model.py: 372 points of the sweeps, the
// per-shape tunes, the split-K and 128x192 runs; rms log error 0.081). docs/RUNTIME.md
// "Choosing a kernel for a shape" says what it sees and what it does not.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

using namespace gemmgen;

namespace {

struct TileFamily {
  const char *name;
  int tileM, tileN, consumers, depth, group;
  const char *chunkN;    ///< epilogue.chunk_n ("" : the printer's default)
  double microsPerKBlock; ///< one 64-deep k-block of one tile on one SM (fitted)
};

// The constants from `python3 bench/model/fit_cost_model.py` (2026-12-01).
constexpr TileFamily kFamilies[] = {
    // specs/sm90/05_fast_f16.yaml / 06_fast_bf16.yaml: the fixed default.
    {"large", 128, 256, 2, 4, 16, "128", 0.6905},
    // bench/families/wide_d5_c64.yaml: fewer columns per tile where 128x256
    // tiles fall just past a wave (bench/h200-wide.sh, docs/PERF.md).
    {"wide", 128, 192, 2, 5, 16, "64", 0.5186},
    // specs/tuned/nvidia_h200/f16_2048x2048x2048.yaml (tuned for 2048^3).
    {"medium", 128, 128, 1, 6, 8, "", 0.3572},
    // specs/tuned/nvidia_h200/f16_128x8192x8192.yaml, spec 12's tile.
    {"small", 64, 128, 1, 8, 16, "", 0.2082},
};
constexpr int kSms = 132;
constexpr double kTileMicros = 1.3286;   ///< per tile: prologue, epilogue
constexpr double kLaunchMicros = 2.6784; ///< per kernel launch
constexpr double kReduceMicros = 5.9787; ///< split-K: the reduction's launch
constexpr double kDramGBs = 3966.94;     ///< operands streamed once
constexpr double kSplitGBs = 4550.55;    ///< a split-K workspace that stays in the L2
constexpr double kOverlapP = 3.6465;     ///< smooth maximum of tile work and operand stream
constexpr double kL2Bytes = 32.0 * (1 << 20); ///< larger workspaces go to DRAM (60 MiB L2)
constexpr int kSplits[] = {1, 2, 3, 4, 6, 8};
constexpr double kLeaveDefaultGain = 1.10;

long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }

const TileFamily *findFamily(const std::string &name) {
  for (const TileFamily &f : kFamilies)
    if (name == f.name)
      return &f;
  return nullptr;
}

// Tiles run in rounds of one per SM; each round costs its longest tile.
double predict(const TileFamily &f, int split, long long M, long long N, long long K) {
  const long long kBlocks = ceilDiv(K, 64);
  const long long slices = std::min<long long>(split, std::max<long long>(kBlocks, 1));
  const long long perSlice = ceilDiv(kBlocks, slices);
  const long long units = ceilDiv(M, f.tileM) * ceilDiv(N, f.tileN) * slices;
  const double rounds = (double)ceilDiv(units, kSms);
  const double main = rounds * (kTileMicros + (double)perSlice * f.microsPerKBlock);
  const double bytes = 2.0 * ((double)M * K + (double)N * K + (double)M * N);
  const double stream = bytes / (kDramGBs * 1e3);
  // Tile work and operand stream overlap, not perfectly: a smooth maximum.
  double us = std::pow(std::pow(main, kOverlapP) + std::pow(stream, kOverlapP), 1 / kOverlapP) +
              kLaunchMicros;
  if (slices > 1) {
    const double workspace = 4.0 * slices * (double)M * N; // written, then read back
    us += kReduceMicros + 2 * workspace / ((workspace <= kL2Bytes ? kSplitGBs : kDramGBs) * 1e3);
  }
  return us;
}

// One spec per family, split and type: the family's spec file with its
// name, type and split filled in.
std::string specFor(const TileFamily &f, int split, const std::string &type,
                    const std::string &name) {
  std::string s;
  s += "# Chosen by gemmgen's cost model (docs/RUNTIME.md, \"Choosing a kernel for a shape\")\n";
  s += "kernel: " + name + "\n";
  s += "description: " + std::string(f.name) + " " + std::to_string(f.tileM) + "x" +
       std::to_string(f.tileN) + "x64, " + std::to_string(f.consumers) + " consumer(s), " +
       std::to_string(f.depth) + " stages" +
       (split > 1 ? ", K in up to " + std::to_string(split) + " slices" : std::string()) +
       ", " + type + "\n";
  s += "target: sm_90a\n";
  s += "types: { a: " + type + ", b: " + type + ", d: " + type + ", accumulate: f32 }\n";
  s += "layout: { a: row, b: col }\n";
  s += "tile: { m: " + std::to_string(f.tileM) + ", n: " + std::to_string(f.tileN) +
       ", k: 64 }\n";
  s += "pipeline: { depth: " + std::to_string(f.depth) + ", mma_in_flight: 1 }\n";
  s += "consumers: " + std::to_string(f.consumers) + "\n";
  s += "scheduler: { kind: persistent, raster: along_m, group: " + std::to_string(f.group) +
       (split > 1 ? ", split_k: " + std::to_string(split) : std::string()) + " }\n";
  s += "roles:\n";
  s += "  producer: { warps: 1, registers: 40, does: tma_load }\n";
  s += "  consumer: { warpgroups: " + std::to_string(f.consumers) +
       ", registers: 232, does: [mma, epilogue] }\n";
  s += std::string("epilogue: { store: tma") +
       (*f.chunkN ? std::string(", chunk_n: ") + f.chunkN : std::string()) +
       ", overlap: true }\n";
  return s;
}

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

} // namespace

double gemmgen::predictKernelMicros(const std::string &family, int splitK, long long M,
                                    long long N, long long K) {
  const TileFamily *f = findFamily(family);
  if (!f || splitK < 1 || M <= 0 || N <= 0 || K <= 0)
    return -1;
  return predict(*f, splitK, M, N, K);
}

Expected<KernelChoice> gemmgen::chooseKernel(long long M, long long N, long long K, DType t) {
  if (M <= 0 || N <= 0 || K <= 0)
    return Status::error(ErrorCode::InvalidArgument,
                         "chooseKernel needs M, N and K of at least 1 (got " + std::to_string(M) +
                             "x" + std::to_string(N) + "x" + std::to_string(K) + ")");
  if (t != DType::F16 && t != DType::BF16)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string("chooseKernel chooses among f16 and bf16 kernels (got ") +
                             toString(t) + "); give a spec file for other types");
  const TileFamily &fallback = kFamilies[0];
  const double defaultUs = predict(fallback, 1, M, N, K);
  // Fewer than 64 rows: the default's 128-row tile is mostly padding, where
  // the model never saw it (its points there are the small tile's); on the
  // H200 the 64-row tile was faster on every such shape measured, 1x57344x8192
  // and 4x28672x4096 among them (docs/PERF.md), so the default is no
  // candidate and no margin protects it.
  const bool defaultIsPadding = fallback.tileM > 2 * M;
  const TileFamily *best = defaultIsPadding ? nullptr : &fallback;
  int bestSplit = 1;
  double bestUs = defaultIsPadding ? HUGE_VAL : defaultUs;
  const long long kBlocks = ceilDiv(K, 64);
  for (const TileFamily &f : kFamilies) {
    // A tile of more than twice M's rows is mostly padding: the model never
    // saw such a tile but the smallest (what tuning chose for decode).
    if (f.tileM > 2 * M && &f != &kFamilies[std::size(kFamilies) - 1])
      continue;
    for (int split : kSplits) {
      // A slice of fewer than 4 k-blocks is mostly pipeline fill; a split
      // the runtime would run as fewer slices is not offered.
      if (split > 1 && (kBlocks < 4LL * split || splitKSlices(K, 64, split) != split))
        continue;
      const double us = predict(f, split, M, N, K);
      if (us < bestUs)
        best = &f, bestSplit = split, bestUs = us;
    }
  }
  if (!defaultIsPadding && defaultUs < kLeaveDefaultGain * bestUs)
    best = &fallback, bestSplit = 1, bestUs = defaultUs;

  KernelChoice c;
  c.family = best->name;
  c.splitK = bestSplit;
  c.predictedUs = bestUs;
  c.defaultUs = defaultUs;
  const std::string type = toString(t);
  c.name = "gemm_sm90_auto_" + c.family + "_s" + std::to_string(bestSplit) + "_" + type;
  c.specYaml = specFor(*best, bestSplit, type, c.name);
  const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  if (best == &fallback)
    c.reason = "the default 128x256 tile for " + shape + " (model: " + fixed1(bestUs) +
               " us; no other family is predicted 10% faster)";
  else
    c.reason = std::string(best->name) + " " + std::to_string(best->tileM) + "x" +
               std::to_string(best->tileN) + " tile" +
               (bestSplit > 1 ? " with split_k " + std::to_string(bestSplit) : std::string()) +
               " for " + shape + " (model: " + fixed1(bestUs) + " us against " +
               fixed1(defaultUs) + " us for the default 128x256 tile" +
               (defaultIsPadding ? ", whose 128 rows are mostly padding for M = " +
                                       std::to_string(M)
                                 : std::string()) +
               ")";
  return c;
}

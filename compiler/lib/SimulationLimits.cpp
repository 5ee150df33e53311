//===- SimulationLimits.cpp - How much work one simulate() call may do ----===//
//
// The simulator keeps A, B, D and every CTA's shared memory as real storage
// and executes every MMA, so its memory grows with M·N, M·K, N·K and the
// CTAs, and its time with M·N·K per interleaving. The limits below keep one
// call within about a gigabyte and a few minutes on one core; past them the
// call is refused with a message that names the limit, instead of running
// out of memory or running for hours.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Simulator.h"

#include "gemmgen/Lowering.h"

#include <algorithm>
#include <string>

using namespace gemmgen;

namespace {
constexpr uint64_t kMaxTiles = 1024;               ///< tileM × tileN blocks of D
constexpr uint64_t kMaxCtas = 1024;                ///< CTAs of the simulated grid
constexpr uint64_t kMaxOperandElements = 1u << 26; ///< M·K + N·K
constexpr uint64_t kMaxWork = uint64_t(1) << 36;   ///< seeds · M·N·K multiply-adds

std::string str(uint64_t v) { return std::to_string(v); }
uint64_t ceilDiv(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }
} // namespace

std::string gemmgen::checkSimulationSize(const ir::Kernel &kernel,
                                         const SimulationOptions &o) {
  const uint64_t batch = std::max(1u, o.batch);
  // Simulate what the printer emits: a kernel without the batched ABI
  // (sm_100a today) computes one problem per launch.
  if (batch > 1 && !deriveKernelABI(kernel).batched)
    return "kernel '" + kernel.name + "' (" + toString(kernel.target) +
           ") computes one problem per launch (its printer has no batch yet); simulate --batch "
           "on an sm_90a spec, or one entry at a time";
  if ((o.alpha != 1.0f || o.beta != 0.0f) && !deriveKernelABI(kernel).alphaBeta)
    return "kernel '" + kernel.name + "' (" + toString(kernel.target) +
           ") computes D = A·B without alpha, beta and C (its printer has no C path); "
           "simulate --alpha/--beta on a spec with `epilogue: { store: tma }`";
  const bool grouped = deriveKernelABI(kernel).grouped;
  if (!o.groups.empty() && !grouped)
    return "kernel '" + kernel.name + "' computes one problem (or a strided batch) per launch; "
           "simulate --groups on a spec with scheduler.grouped: true";
  if (grouped && batch > 1)
    return "kernel '" + kernel.name + "' is grouped: give its problems (--groups FILE), not a "
           "batch";
  if (o.seeds == 0)
    return "simulating 0 interleavings checks nothing (a verdict of 'ok' over none); use at "
           "least 1 seed (16 is the default)";
  if (o.seeds > kMaxSimulationSeeds)
    return "simulating " + str(o.seeds) + " interleavings is too many; use at most " +
           str(kMaxSimulationSeeds) + " (each seed is a full run)";
  if (o.ctas > kMaxCtas)
    return "a grid of " + str(o.ctas) + " CTAs is too large to simulate; use at most " +
           str(kMaxCtas) + " (the H200 runs one CTA per SM, 132)";
  if (o.groups.size() > kMaxTiles)
    return str(o.groups.size()) + " problems are too many to simulate; use at most " +
           str(kMaxTiles);
  if (!o.groups.empty()) {
    // Every problem's tiles, operands and work, as one launch holds them.
    uint64_t tiles = 0, operands = 0, work = 0;
    for (const auto &g : o.groups) {
      tiles += ceilDiv(g[0], kernel.tileM) * ceilDiv(g[1], kernel.tileN);
      operands += (uint64_t(g[0]) + g[1]) * g[2];
      work += uint64_t(g[0]) * g[1] * g[2] * std::max(1u, o.seeds);
    }
    if (tiles > kMaxTiles)
      return "the problems have " + str(tiles) + " output tiles of " + str(kernel.tileM) + "x" +
             str(kernel.tileN) + "; the simulator runs at most " + str(kMaxTiles) +
             " tiles: use fewer or smaller problems";
    if (operands > kMaxOperandElements)
      return "the problems have " + str(operands) + " elements of A and B; the simulator holds "
             "at most " + str(kMaxOperandElements) + ": use smaller K";
    if (work > kMaxWork)
      return "simulating the problems is " + str(work) + " multiply-adds, more than the " +
             str(kMaxWork) + " the simulator runs in one call: use fewer seeds or smaller problems";
    return "";
  }
  if (batch > kMaxTiles)
    return "a batch of " + str(batch) + " entries is too many to simulate; use at most " +
           str(kMaxTiles) + " (every entry's tiles are simulated)";
  const std::string shape =
      (batch > 1 ? str(batch) + " x " : std::string()) + str(o.m) + "x" + str(o.n) + "x" + str(o.k);
  uint64_t tiles = ceilDiv(o.m, kernel.tileM) * ceilDiv(o.n, kernel.tileN) * batch;
  if (tiles > kMaxTiles)
    return "the shape " + shape + " has " + str(tiles) + " output tiles of " +
           str(kernel.tileM) + "x" + str(kernel.tileN) + "; the simulator runs at most " +
           str(kMaxTiles) + " tiles (each CTA's memory is simulated): use a smaller M or N" +
           (batch > 1 ? " or batch" : "");
  uint64_t operands = (uint64_t(o.m) + o.n) * o.k * batch;
  if (operands > kMaxOperandElements)
    return "the shape " + shape + " has " + str(operands) + " elements of A and B; the " +
           "simulator holds at most " + str(kMaxOperandElements) + ": use a smaller K" +
           (batch > 1 ? " or batch" : "");
  uint64_t work = uint64_t(o.m) * o.n * o.k * batch * std::max(1u, o.seeds);
  if (work > kMaxWork)
    return "simulating " + str(o.seeds) + " interleaving(s) of " + shape + " is " + str(work) +
           " multiply-adds, more than the " + str(kMaxWork) +
           " the simulator runs in one call (minutes): use fewer seeds or a smaller shape";
  return "";
}

//===- Simulator.h - Execute a lowered kernel's IR on the CPU ---*- C++ -*-===//
//
// The simulator runs every role instance of every CTA of every cluster of a
// lowered ir::Kernel as its own actor on small matrices, with real mbarrier
// semantics (phase, pending arrivals, transaction bytes, parity waits, local
// and remote arrivals, multicast), asynchronous TMA loads, MMAs and TMA
// stores that complete at random later points, and SMEM stages,
// accumulators and output staging as real storage with readers/writers in
// flight. A seeded scheduler picks the next actor or async completion at
// random; each seed is one interleaving and is reproducible.
//
// A run ends with one verdict per seed: ok (D matches a CPU reference), a
// deadlock (every blocked role, the barrier/slot/phase it waits on and who
// was expected to arrive and why it did not), a race (the buffer and stage
// written while another role still read it), a wrong result (first wrong
// tile and element), an over-arrival, a tx underflow/overflow. docs/SIMULATOR.md
// describes what is modelled and shows the report formats.
//
// Both targets run. sm_100a kernels (IR.h, "sm_100a semantics") add the CTA
// pair (loads that complete on the leader's barrier, the cta_group 2 MMA
// reading both CTAs' SMEM and writing both CTAs' TMEM, leader-only roles and
// ops), tcgen05.commit arrivals with a CTA mask that land once the issuer's
// MMAs completed, barrier slots chosen by role instance, arrivals by every
// thread of a warpgroup, and load_acc into per-thread registers that
// store_acc converts. Cluster tiles are then consumers × cta_group × tileM
// rows by tileN columns, and SimulationResult::tilesM/tilesN count
// tileM × tileN blocks of D (one consumer's accumulator in one CTA).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_SIMULATOR_H
#define GEMMGEN_SIMULATOR_H

#include "gemmgen/IR.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <array>
#include <string>
#include <vector>

namespace gemmgen {

/// What one interleaving (seed) ended with.
enum class SimVerdict {
  Ok,           ///< every role finished and D matches the reference
  Deadlock,     ///< roles blocked, nothing in flight that could wake them
  Race,         ///< a buffer stage written/read while another access was in flight
  WrongResult,  ///< finished, but D differs from the reference
  OverArrival,  ///< an arrival for a barrier phase that had already completed
  TxUnderflow,  ///< a phase completed while bytes of its copies were still in flight
  TxOverflow,   ///< a phase waits for transaction bytes that no copy will deliver
  Invalid,      ///< the IR cannot be executed (unknown name, slot out of range)
  StepLimit     ///< the run took more steps than SimulationOptions::maxSteps
};

/// The verdict's word as printed and in --json ("deadlock", "tx-underflow").
const char *toString(SimVerdict v);

struct SimulationOptions {
  unsigned m = 256, n = 256, k = 256;
  /// Strided batch entries of m×n×k (each with its own A, B and D), walked
  /// as the kernels walk them: batch × units slots (tile_schedule.cuh).
  unsigned batch = 1;
  /// A grouped kernel's problems (m, n, k), each with its own A, B and D
  /// (and C), walked as the kernel walks its table (tile_schedule.cuh's
  /// grouped_slot); empty: one problem of m×n×k. Only for grouped kernels.
  std::vector<std::array<unsigned, 3>> groups;
  /// D = alpha·A·B + beta·C; beta ≠ 0 runs the kernels' C path (if_beta) and
  /// gives every entry a random C. Multiples of 1/8 keep the reference exact.
  float alpha = 1.0f, beta = 0.0f;
  /// The kernel's epilogue.chain: its bias step reads a random vector (per
  /// row or column of each entry, multiples of 1/8), its scale step this.
  float scaleD = 0.5f;
  /// Interleavings to run: seeds firstSeed .. firstSeed + seeds - 1.
  unsigned seeds = 8;
  uint64_t firstSeed = 1;
  /// CTAs in the (persistent) grid, a multiple of the cluster size; 0 picks
  /// half as many clusters as cluster tiles (at least one), so the pipeline
  /// ring wraps across tiles. Ignored by the data-parallel scheduler.
  unsigned ctas = 0;
  /// Seed of the random input matrices (the same for every interleaving).
  uint64_t dataSeed = 0x9e3779b9;
  /// Scheduler steps per interleaving before giving up; 0 = derived.
  uint64_t maxSteps = 0;
  /// Stop after the first interleaving that fails.
  bool stopAtFirstFailure = false;
};

/// One cluster tile (schedule unit) in a cluster's walk: its slot in the
/// schedule, its coordinates in units and its batch entry.
struct ScheduledUnit {
  unsigned slot = 0, m = 0, n = 0, entry = 0;
  /// Stream-K: the share's k-blocks of the unit, [kBegin, kEnd); kEnd -1 =
  /// all of them (every other schedule).
  int kBegin = 0, kEnd = -1;
  bool operator==(const ScheduledUnit &o) const {
    return slot == o.slot && m == o.m && n == o.n && entry == o.entry && kBegin == o.kBegin &&
           kEnd == o.kEnd;
  }
};

/// One interleaving's outcome.
struct SeedResult {
  uint64_t seed = 0;
  SimVerdict verdict = SimVerdict::Ok;
  /// One line: what went wrong (empty when ok), starting with the verdict.
  std::string message;
  /// Supporting lines (every blocked role, expected arrivers, notes).
  std::vector<std::string> details;
  uint64_t steps = 0;
};

struct SimulationResult {
  std::string kernel;
  unsigned m = 0, n = 0, k = 0;
  unsigned batch = 1; ///< strided batch entries
  std::vector<std::array<unsigned, 3>> groups; ///< a grouped kernel's problems
  unsigned ctas = 0, clusterSize = 1;
  unsigned tilesM = 0, tilesN = 0, kBlocks = 0;
  /// Per cluster, the units it computed in order: the kernels' own schedule
  /// (gemmgen/device/tile_schedule.cuh), Hilbert holes skipped.
  std::vector<std::vector<ScheduledUnit>> walks;
  std::vector<SeedResult> runs;

  bool ok() const;
  unsigned failures() const;
  /// The first failing interleaving, or nullptr when all passed.
  const SeedResult *firstFailure() const;
};

/// Interleavings one simulate() call runs at most.
constexpr unsigned kMaxSimulationSeeds = 1000;

/// Why `options` ask for more than one simulate() call runs (too many
/// seeds, CTAs or tiles, operands or multiply-adds; SimulationLimits.cpp),
/// or an empty string when they do not.
std::string checkSimulationSize(const ir::Kernel &kernel, const SimulationOptions &options);

/// Runs `options.seeds` interleavings of `kernel` on random M×K and N×K
/// inputs and returns one verdict per seed. Options past
/// checkSimulationSize() give one Invalid verdict that says which limit.
SimulationResult simulate(const ir::Kernel &kernel, const SimulationOptions &options);

/// Human-readable report: a header line, the first failure in full, one
/// line per other failure, and a summary line. `allSeeds` adds a line per
/// passing seed.
void printSimulationResult(const SimulationResult &result, llvm::raw_ostream &os,
                           bool allSeeds = false);

/// The result as JSON (verdict words as toString(SimVerdict)).
llvm::json::Value toJSON(const SimulationResult &result);

} // namespace gemmgen

#endif // GEMMGEN_SIMULATOR_H

//===- SpecGridTest.cpp - What check accepts compiles and simulates clean --===//
//
// The property behind `gemmgen check`: a spec it accepts compiles with
// NVRTC without spills or ptxas warnings and simulates clean. The test
// builds a grid of sm_90a spec variants (tile, depth, MMAs in flight,
// consumers, cluster, registers, scheduler, epilogue, types, operand layouts,
// kernel names),
// takes a fixed pseudo-random sample of it (the same every run), and for
// every variant that check accepts compiles it with NVRTC and simulates two
// interleavings. Variants check refuses need nothing more: refusing is
// always allowed, a false "ok" is not.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/KernelPlan.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"
#include "gemmgen/gemmgen.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace gemmgen;

namespace {

/// Values of each dimension; index 0 is the common case.
struct Grid {
  std::vector<unsigned> tileM{128, 64, 192, 256};
  std::vector<unsigned> tileN{128, 64, 80, 192, 256, 16};
  std::vector<unsigned> depth{4, 2, 3, 6, 8, 1};
  std::vector<unsigned> inFlight{1, 0};
  std::vector<unsigned> consumers{1, 2};
  std::vector<unsigned> clusterM{1, 2, 4};
  std::vector<unsigned> producerRegs{40, 24, 56, 240};
  std::vector<unsigned> consumerRegs{232, 160, 240};
  std::vector<std::string> scheduler{"{ kind: persistent, raster: along_m }",
                                     "{ kind: persistent, raster: along_n, group: 4 }",
                                     "{ kind: persistent, raster: hilbert }",
                                     "{ kind: data_parallel }"};
  std::vector<std::string> epilogue{"{ store: tma }", "{ store: tma, chunk_n: 64 }",
                                    "{ store: tma, overlap: false }", "{ store: direct }"};
  std::vector<std::string> types{"f16", "bf16"};
  std::vector<std::string> layouts{"{ a: row, b: col }", "{ a: col, b: col }",
                                   "{ a: row, b: row }", "{ a: col, b: row }"};
  // Common names, and names that clash with C++, CUDA or the generated code.
  std::vector<std::string> names{"grid_gemm", "gemm2", "int", "BM", "u32", "printf",
                                 "PipelineState", "_g", "threadIdx", "STAGES"};
};

struct Variant {
  std::string text;
  std::string summary;
};

std::vector<Variant> sampleGrid(unsigned count) {
  Grid g;
  std::mt19937 rng(15); // fixed: the same sample every run
  auto pick = [&](const auto &values) -> const auto & {
    // Two times in three the common value, so that most variants differ
    // from a good spec in a few dimensions and many are accepted.
    std::uniform_int_distribution<size_t> any(0, values.size() - 1);
    return values[rng() % 3 ? 0 : any(rng)];
  };
  std::vector<Variant> out;
  for (unsigned i = 0; i < count; ++i) {
    unsigned m = pick(g.tileM), n = pick(g.tileN), d = pick(g.depth), f = pick(g.inFlight);
    unsigned c = pick(g.consumers), cm = pick(g.clusterM), pr = pick(g.producerRegs),
             cr = pick(g.consumerRegs);
    const std::string &sched = pick(g.scheduler), &epi = pick(g.epilogue), &ty = pick(g.types),
                      &name = pick(g.names), &layout = pick(g.layouts);
    std::string s = "kernel: " + name + "\ntarget: sm_90a\n";
    s += "types: { a: " + ty + ", b: " + ty + ", d: " + ty + ", accumulate: f32 }\n";
    s += "layout: " + layout + "\n";
    s += "tile: { m: " + std::to_string(m) + ", n: " + std::to_string(n) + ", k: 64 }\n";
    s += "cluster: { m: " + std::to_string(cm) + ", n: 1 }\n";
    s += "pipeline: { depth: " + std::to_string(d) + ", mma_in_flight: " + std::to_string(f) +
         " }\n";
    s += "consumers: " + std::to_string(c) + "\n";
    s += "scheduler: " + sched + "\n";
    s += "epilogue: " + epi + "\n";
    s += "roles:\n  producer: { warps: 1, registers: " + std::to_string(pr) +
         ", does: tma_load }\n  consumer: { warpgroups: " + std::to_string(c) +
         ", registers: " + std::to_string(cr) + ", does: [mma, epilogue] }\n";
    out.push_back({s, name + " " + std::to_string(m) + "x" + std::to_string(n) + " d" +
                          std::to_string(d) + " c" + std::to_string(c) + " cl" +
                          std::to_string(cm) + " regs " + std::to_string(pr) + "/" +
                          std::to_string(cr) + " " + ty + " " + layout + " " + sched + " " +
                          epi});
  }
  return out;
}

TEST(SpecGrid, WhatCheckAcceptsCompilesWithoutSpillsAndSimulatesClean) {
  std::vector<Variant> variants = sampleGrid(96);
  unsigned accepted = 0, mnMajor = 0;
  for (const Variant &v : variants) {
    DiagnosticEngine diags(nullptr);
    auto compiled = compileSpecText(v.text, "grid.yaml", EmitOptions{}, diags);
    if (!compiled) {
      ASSERT_TRUE(diags.hasErrors()) << "refused without an error: " << v.summary;
      continue;
    }
    ++accepted;
    mnMajor += compiled->kernel.plan.loadA.major == OperandMajor::MN ||
               compiled->kernel.plan.loadB.major == OperandMajor::MN;
    SCOPED_TRACE(v.summary + "\n" + v.text);
    CompileOptions opts;
    opts.useCache = false;
    auto cubin = compileCudaSource(compiled->source, compiled->abi.kernelName + ".cu",
                                   toString(compiled->abi.target), compiled->abi.kernelName,
                                   opts);
    ASSERT_TRUE(cubin) << "check said ok, NVRTC failed: " << cubin.status().message();
    const ResourceUsage &u = cubin->usage;
    ASSERT_TRUE(u.valid) << cubin->log;
    EXPECT_EQ(u.spillStoreBytes + u.spillLoadBytes + u.localBytes, 0) << cubin->log;
    EXPECT_TRUE(u.warnings.empty()) << "ptxas warnings:\n" << cubin->log;

    SimulationOptions so;
    so.m = 2 * compiled->kernel.clusterM * compiled->kernel.tileM;
    so.n = 2 * compiled->kernel.tileN;
    so.k = 3 * compiled->kernel.tileK;
    so.seeds = 2;
    SimulationResult r = simulate(compiled->kernel, so);
    std::string report;
    llvm::raw_string_ostream os(report);
    printSimulationResult(r, os);
    EXPECT_TRUE(r.ok()) << os.str();
  }
  // The sample must exercise both sides of the property.
  EXPECT_GE(accepted, 20u);
  EXPECT_LE(accepted, variants.size() - 20);
  EXPECT_GE(mnMajor, 3u) << "too few accepted variants with an M- or N-major operand";
  std::printf("%u of %zu grid variants accepted, compiled and simulated (%u with an M- or "
              "N-major operand)\n",
              accepted, variants.size(), mnMajor);
}

} // namespace

//===- CompileCommand.cpp - `gemmgen compile`: spec to cubin with NVRTC ---===//
//
// Runs the whole compiler and NVRTC for the spec's target, writes the cubin
// and prints what ptxas reported: registers per thread, dynamic shared memory
// (from the launch contract), spill and local-memory bytes. Needs no GPU and
// no driver.
//
//===----------------------------------------------------------------------===//
#include "CompilerCommands.h"
#include "OutputFile.h"

#include "gemmgen/Pipeline.h"
#include "gemmgen/gemmgen.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

using namespace gemmgen;

namespace {

struct CompileCliOptions {
  std::string spec;
  std::string output;
  bool debugHangs = false;
  bool json = false;
  bool noCache = false;
};

void runCompile(const CompileCliOptions &opts) {
  DiagnosticEngine diags;
  EmitOptions emitOpts;
  emitOpts.debugHangs = opts.debugHangs;
  std::optional<CompiledSpec> compiled = compileSpecFile(opts.spec, emitOpts, diags);
  if (!compiled) {
    cli::setExitCode(cli::ExitSpecError);
    return;
  }
  const KernelABI &abi = compiled->abi;
  CompileOptions nvrtcOpts;
  nvrtcOpts.debugHangs = opts.debugHangs;
  nvrtcOpts.useCache = !opts.noCache;
  std::string arch = toString(abi.target);
  Expected<CubinResult> cubin =
      compileCudaSource(compiled->source, abi.kernelName + ".cu", arch, abi.kernelName, nvrtcOpts);
  if (!cubin) {
    llvm::errs() << "gemmgen: error: " << cubin.status().message() << "\n";
    cli::setExitCode(cli::ExitFailure);
    return;
  }

  std::string out = opts.output;
  if (out.empty()) {
    llvm::SmallString<256> path(opts.spec);
    llvm::sys::path::replace_extension(path, ".cubin");
    out = std::string(path);
  }
  if (!cli::writeOutputFile(out, llvm::StringRef(cubin->cubin.data(), cubin->cubin.size()),
                            /*binary=*/true))
    return;

  const ResourceUsage &u = cubin->usage;
  if (opts.json) {
    llvm::outs() << "{\"spec\": \"" << opts.spec << "\", \"kernel\": \"" << abi.kernelName
                 << "\", \"arch\": \"" << arch << "\", \"cubin\": \"" << out
                 << "\", \"registers\": " << u.registers
                 << ", \"dynamic_smem_bytes\": " << abi.sharedMemBytes
                 << ", \"threads\": " << abi.threadsPerBlock
                 << ", \"spill_store_bytes\": " << u.spillStoreBytes
                 << ", \"spill_load_bytes\": " << u.spillLoadBytes
                 << ", \"stack_frame_bytes\": " << u.stackFrameBytes
                 << ", \"local_bytes\": " << u.localBytes
                 << ", \"usage_from_cubin\": " << (u.fromCubin ? "true" : "false")
                 << ", \"from_cache\": " << (cubin->fromCache ? "true" : "false") << "}\n";
  } else {
    llvm::outs() << abi.kernelName << " (" << arch << "): " << u.registers
                 << " registers/thread at launch, " << abi.sharedMemBytes
                 << " bytes dynamic shared memory, " << abi.threadsPerBlock
                 << " threads, "
                 << (u.fromCubin ? std::string("spills unknown (this NVRTC's log has no ptxas "
                                               "report; registers and stack frame from the cubin)")
                                 : "spill stores " + std::to_string(u.spillStoreBytes) +
                                       " B, spill loads " + std::to_string(u.spillLoadBytes) + " B")
                 << ", stack frame " << u.stackFrameBytes
                 << " B, local " << u.localBytes << " B" << (cubin->fromCache ? " (cached)" : "")
                 << "\n  cubin: " << out << "\n";
    for (const std::string &w : u.warnings)
      llvm::outs() << "  " << w << "\n";
  }
  if (u.hasSpills()) {
    llvm::errs() << "gemmgen: warning: the kernel spills to local memory; lower "
                    "roles.consumer.registers pressure (smaller tile.n or more consumers)\n";
  }
}

} // namespace

void cli::registerCompileCommand(CLI::App &app) {
  auto opts = std::make_shared<CompileCliOptions>();
  CLI::App *cmd = app.add_subcommand(
      "compile", "Compile a spec to a cubin with NVRTC and report registers, shared memory "
                 "and spills (no GPU needed)");
  cmd->add_option("spec", opts->spec, "Kernel spec (YAML)")->required();
  cmd->add_option("-o,--output", opts->output, "Cubin path (default: SPEC with .cubin)");
  cmd->add_flag("--debug-hangs", opts->debugHangs, "Compile with bounded barrier waits");
  cmd->add_flag("--json", opts->json, "Print the report as JSON");
  cmd->add_flag("--no-cache", opts->noCache, "Bypass the kernel cache");
  cmd->callback([opts] { runCompile(*opts); });
}

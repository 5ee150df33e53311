//===- HardeningTest.cpp - Hostile input: refused clearly, never a crash ---===//
//
// The library side of the hostile-input cases (the CLI side is
// tests/cli/bad_inputs.sh, the located spec errors tests/bad_specs/): input
// nested hundreds of thousands deep, files that are not regular or too big,
// names that clash with C++, CUDA or the generated code, comment text that
// could end a comment, and simulations too large to hold.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/CodeEmitter.h"
#include "gemmgen/Names.h"
#include "gemmgen/Pipeline.h"
#include "gemmgen/Simulator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace gemmgen;

namespace {

const std::string kRoles =
    "roles:\n  producer: { warps: 1, registers: 40, does: tma_load }\n"
    "  consumer: { warpgroups: 1, registers: 232, does: [mma, epilogue] }\n";

std::vector<std::string> errorsOf(const std::string &text) {
  DiagnosticEngine diags(nullptr);
  compileSpecText(text, "t.yaml", EmitOptions(), diags);
  std::vector<std::string> out;
  for (const Diagnostic &d : diags.diagnostics())
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
  return out;
}

TEST(Hardening, NestingHundredsOfThousandsDeepIsRefusedAtTheLimit) {
  // Each of these overflowed the stack in LLVM's recursive YAML skip().
  for (const std::string &deep :
       {"kernel: " + std::string(500000, '[') + std::string(500000, ']') + "\n",
        "kernel: k\nx:\n" + [] {
          std::string s;
          for (int i = 0; i < 500000; ++i)
            s += "- ";
          return s + "a\n";
        }(),
        "kernel: k\nroles: " + [] {
          std::string s;
          for (int i = 0; i < 200000; ++i)
            s += "{a: ";
          return s;
        }() + "\n"}) {
    DiagnosticEngine diags(nullptr);
    EXPECT_FALSE(parseSpec(deep, "deep.yaml", diags));
    ASSERT_EQ(diags.diagnostics().size(), 1u);
    const Diagnostic &d = diags.diagnostics()[0];
    EXPECT_EQ(d.message, "the spec nests more than 32 levels deep here; a spec needs 4 (roles: "
                         "{ name: { does: [...] } }); check the brackets and indentation");
  }
  // Exactly at the limit: no nesting error (the value is still wrong).
  std::string at = "kernel: k\n" + kRoles + "tile: " + std::string(31, '[') + std::string(31, ']');
  std::vector<std::string> e = errorsOf(at);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("expected a mapping for 'tile', got a list"), std::string::npos) << e[0];
}

TEST(Hardening, ARootMappingAtTheStartOfTheTextIsLocatedWithoutReadingBeforeIt) {
  // locOf() scans back from a collection to its bracket; from the first
  // byte it must stop (the sanitizer build sees a read before the buffer).
  std::vector<std::string> e = errorsOf("kernel: k\n" + std::string(5000, '#') + "\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("1:1: missing required key 'roles'; add e.g.", 0), 0u) << e[0];
}

TEST(Hardening, SpecFilesMustBeSmallRegularFiles) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gemmgen-hardening", dir));
  std::string fifo = (dir + "/fifo.yaml").str(), big = (dir + "/big.yaml").str();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(big) << std::string(kMaxSpecBytes + 1, '#');
  auto message = [](const std::string &path) {
    auto buffer = readSpecFile(path);
    return buffer ? std::string("read") : llvm::toString(buffer.takeError());
  };
  EXPECT_EQ(message(fifo), "it is not a regular file (a FIFO); give the path of a spec file (.yaml)");
  EXPECT_EQ(message("/dev/zero"),
            "it is not a regular file (a character device); give the path of a spec file (.yaml)");
  EXPECT_EQ(message(dir.str().str()), "it is a directory; give the path of a spec file (.yaml)");
  EXPECT_EQ(message(big), "it is 1048577 bytes; a spec is at most 1048576 bytes (1 MiB)");
  // The same limit for text handed to the library.
  DiagnosticEngine diags(nullptr);
  EXPECT_FALSE(parseSpec(std::string(kMaxSpecBytes + 1, ' '), "big.yaml", diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "the spec is 1048577 bytes; a spec is at most 1048576 bytes (1 MiB)");
  llvm::sys::fs::remove_directories(dir);
}

TEST(Hardening, KernelNamesThatNvrtcWouldRejectAreRefused) {
  EXPECT_EQ(kernelNameProblem("my_gemm"), "");
  EXPECT_EQ(kernelNameProblem("int"),
            "is a C++ keyword (the kernel becomes a C++ function of this name); use e.g. "
            "'int_gemm'");
  EXPECT_EQ(kernelNameProblem("__x"),
            "is reserved in C++ (names that start with '_' or contain '__' belong to the "
            "compiler); use e.g. 'x_gemm'");
  for (const char *cuda : {"threadIdx", "printf", "sinf", "malloc", "dim3", "cudaMalloc"})
    EXPECT_NE(kernelNameProblem(cuda).find("is already declared by CUDA"), std::string::npos)
        << cuda;
  EXPECT_EQ(kernelNameProblem(std::string(201, 'k')),
            "is 201 characters long; a kernel name has at most 200");
  EXPECT_EQ(kernelNameProblem(std::string(200, 'k')), "");
  // The suggestion is itself a good name.
  for (const char *bad : {"int", "_", "__x", "a__b", "threadIdx", "9"})
    EXPECT_EQ(kernelNameProblem(suggestKernelName(bad)), "") << bad;
  // Names the generated code uses are found in the emitted text.
  for (const char *used : {"BM", "STAGES", "PipelineState", "u32", "tile_m", "smem", "M"}) {
    std::vector<std::string> e = errorsOf(std::string("kernel: ") + used + "\n" + kRoles);
    ASSERT_EQ(e.size(), 1u) << used;
    EXPECT_EQ(e[0], std::string("1:9: kernel name '") + used +
                        "' is also a name in the generated code (NVRTC would reject the "
                        "kernel); use e.g. '" + used + "_gemm'");
  }
  // A name only a device header declares (the tile schedule's helper).
  std::vector<std::string> e = errorsOf("kernel: hilbert_side\n" + kRoles);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "1:9: kernel name 'hilbert_side' is also a name in the device header "
                  "gemmgen/device/tile_schedule.cuh (NVRTC would reject the kernel); use e.g. "
                  "'hilbert_side_gemm'");
}

TEST(Hardening, CountIdentifierSkipsCommentsStringsAndNumbers) {
  const char *src = "// BM here\n/* BM */ int BM = 0x1BMu; \"BM\" 'B' x.BM BMx\n#define BM 1\n";
  EXPECT_EQ(countIdentifier(src, "BM"), 3u); // int BM, x.BM, #define BM
  EXPECT_EQ(countIdentifier(src, "BMx"), 1u);
  EXPECT_EQ(countIdentifier("unterminated \"BM", "BM"), 0u);
  EXPECT_EQ(countIdentifier("/* unterminated BM", "BM"), 0u);
}

TEST(Hardening, CommentsCannotBeEndedByTheirText) {
  std::string out;
  llvm::raw_string_ostream os(out);
  CodeEmitter e(os);
  e.comment("from specs/a\nb.yaml");
  e.comment("path\\");
  e.comment("bell\a tab\t");
  EXPECT_EQ(os.str(), "// from specs/a\\nb.yaml\n// path\\x5c\n// bell\\x07 tab\t\n");
  // The spec's path reaches the generated banner through comment().
  DiagnosticEngine diags(nullptr);
  auto compiled = compileSpecText("kernel: k\n" + kRoles, "dir\nint x;\\", EmitOptions(), diags);
  ASSERT_TRUE(compiled);
  EXPECT_NE(compiled->source.find("// Generated by gemmgen 0.1.0 from dir\\nint x;\\ -- do not "
                                  "edit.\n// Regenerate with: gemmgen emit dir\\nint x;\\x5c\n"),
            std::string::npos)
      << compiled->source.substr(0, 300);
}

TEST(Hardening, SimulationsTooLargeToHoldAreRefusedWithTheLimit) {
  DiagnosticEngine diags(nullptr);
  auto compiled = compileSpecText("kernel: k\n" + kRoles, "t.yaml", EmitOptions(), diags);
  ASSERT_TRUE(compiled);
  SimulationOptions o;
  EXPECT_EQ(checkSimulationSize(compiled->kernel, o), "");
  o.m = 4294967295u;
  EXPECT_EQ(checkSimulationSize(compiled->kernel, o),
            "the shape 4294967295x256x256 has 67108864 output tiles of 128x128; the simulator "
            "runs at most 1024 tiles (each CTA's memory is simulated): use a smaller M or N");
  // simulate() itself refuses (one Invalid verdict), it does not allocate.
  SimulationResult r = simulate(compiled->kernel, o);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].verdict, SimVerdict::Invalid);
  EXPECT_NE(r.runs[0].message.find("the simulator runs at most 1024 tiles"), std::string::npos);
  o = SimulationOptions();
  o.ctas = 4294967295u;
  EXPECT_EQ(checkSimulationSize(compiled->kernel, o),
            "a grid of 4294967295 CTAs is too large to simulate; use at most 1024 (the H200 runs "
            "one CTA per SM, 132)");
  o = SimulationOptions();
  o.seeds = kMaxSimulationSeeds + 1;
  EXPECT_EQ(checkSimulationSize(compiled->kernel, o),
            "simulating 1001 interleavings is too many; use at most 1000 (each seed is a full "
            "run)");
  o = SimulationOptions();
  o.m = 128;
  o.n = 128;
  o.k = 4194304;
  EXPECT_EQ(checkSimulationSize(compiled->kernel, o),
            "the shape 128x128x4194304 has 1073741824 elements of A and B; the simulator holds "
            "at most 67108864: use a smaller K");
  o.k = 65536;
  o.seeds = 1000;
  EXPECT_NE(checkSimulationSize(compiled->kernel, o).find("multiply-adds, more than the"),
            std::string::npos);
}

} // namespace

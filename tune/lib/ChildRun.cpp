//===- ChildRun.cpp - Timing in a child process and reading its result ----===//
//
// Entry points: runChild, measureResultJson, readMeasurement (ChildRun.h).
//
//===----------------------------------------------------------------------===//
// LLVM 16 formatv trips a GCC -Wmaybe-uninitialized false positive (FormatProviders.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "gemmgen/tune/ChildRun.h"
#include "gemmgen/tune/BenchOutput.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace gemmgen;
using namespace gemmgen::tune;

std::string ChildExit::describe() const {
  if (!started)
    return "could not start";
  if (killed)
    return "killed at the time limit";
  return signaled ? "killed by signal " + std::to_string(code)
                  : "exit code " + std::to_string(code);
}

ChildExit tune::runChild(const std::string &program, const std::vector<std::string> &args,
                         const std::string &logPath, double limitSeconds) {
  ChildExit out;
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char *> cargv;
  for (std::string &a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return out;
  out.started = true;
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (w < 0) {
      out.started = false;
      return out;
    }
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (el > limitSeconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      out.killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out.signaled = WIFSIGNALED(status);
  out.code = out.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  return out;
}

std::string tune::selfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, (size_t)n) : std::string("gemmgen");
}

std::string tune::lastLines(const std::string &path, size_t n) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return "";
  llvm::SmallVector<llvm::StringRef, 32> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i].trim().str();
  return out;
}

static llvm::json::Object spreadJson(const Spread &s) {
  return llvm::json::Object{
      {"median", s.median}, {"p25", s.p25}, {"p75", s.p75}, {"min", s.min}, {"max", s.max}};
}

llvm::json::Object tune::measureResultJson(const std::string &status, const std::string &error,
                                           unsigned long long seed, const MeasureResult *r,
                                           const DeviceInfo *device) {
  llvm::json::Object out{{"status", status}, {"seed", std::to_string(seed)}};
  if (!error.empty())
    out["error"] = error;
  if (r) {
    out["rel_err"] = r->relErr;
    out["non_finite"] = r->nonFinite;
    if (status == "ok") {
      out["ms"] = spreadJson(r->candidate);
      out["baseline_ms"] = r->baselineMs;
      out["registers"] = r->registers;
      out["input_sets"] = r->sets;
      out["launches_per_sample"] = r->reps;
      out["rounds"] = r->rounds;
    }
  }
  if (device) {
    out["gpu"] = device->name;
    out["ordinal"] = device->ordinal;
    out["driver"] = device->driverVersion;
  }
  return out;
}

Measurement tune::readMeasurement(const ChildExit &exit, const std::optional<std::string> &text,
                                  const std::string &logTail, double limitSeconds) {
  Measurement m;
  const llvm::json::Object *r = nullptr;
  std::optional<llvm::json::Value> v;
  if (text) {
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(*text);
    if (parsed)
      v = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
    r = v ? v->getAsObject() : nullptr;
  }
  if (!exit.started) {
    m.status = "failed";
    m.error = "cannot start the child process";
  } else if (exit.killed) {
    m.status = "timeout";
    m.error = llvm::formatv("killed after {0:f0} s (no result; the child's watchdog did not "
                            "fire)",
                            limitSeconds);
  } else if (!r) {
    m.status = exit.signaled ? "crashed" : "failed";
    m.error = exit.describe() + ": " + logTail;
  } else {
    m.status = r->getString("status").value_or("failed").str();
    m.error = r->getString("error").value_or("").str();
    if (const llvm::json::Object *ms = r->getObject("ms")) {
      m.msMedian = ms->getNumber("median").value_or(0);
      m.msP25 = ms->getNumber("p25").value_or(0);
      m.msP75 = ms->getNumber("p75").value_or(0);
      m.msMin = ms->getNumber("min").value_or(0);
      m.msMax = ms->getNumber("max").value_or(0);
    }
    m.baselineMs = r->getNumber("baseline_ms").value_or(0);
    m.relErr = r->getNumber("rel_err").value_or(0);
    m.gpuOrdinal = (int)r->getInteger("ordinal").value_or(-1);
    if (m.status == "ok" && m.msMedian <= 0) {
      m.status = "failed";
      m.error = "no time measured";
    }
  }
  return m;
}

static std::optional<std::string> readText(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return std::nullopt;
  return (*buf)->getBuffer().str();
}

Measurement tune::measureInChild(const ChildTiming &t, const CandidateState &c,
                                 unsigned long long seed, const std::string &specFile,
                                 const std::string &resultFile, const std::string &logFile,
                                 int gpu) {
  llvm::sys::fs::remove(resultFile);
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(specFile, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      f << c.variant.yaml;
      f.close(); // a full disk shows at the flush
    }
    if (ec || f.has_error()) {
      f.clear_error();
      Measurement m;
      m.status = "failed";
      m.error = "cannot write " + specFile;
      m.seed = seed;
      return m;
    }
  }
  ChildExit exit = runChild(
      t.exe,
      {"tune-measure", "--spec", specFile, "--spec-name", c.variant.kernelName + ".yaml",
       "--baseline", t.basePath, "--m", std::to_string(t.M), "--n", std::to_string(t.N), "--k",
       std::to_string(t.K), "--dtype", t.dtype, "--rounds", std::to_string(t.rounds),
       "--warmup", std::to_string(t.warmup), "--seed", std::to_string(seed), "--result",
       resultFile, "--device", std::to_string(gpu)},
      logFile, t.limitSeconds);
  Measurement m = readMeasurement(exit, readText(resultFile), lastLines(logFile, 2),
                                  t.limitSeconds);
  m.seed = seed;
  return m;
}

std::optional<Record> tune::cublasInChild(const ChildTiming &t, const ShapeKey &shape,
                                          const std::string &workDir, std::string &whyNot,
                                          int gpu) {
  std::string json = workDir + "/cublas-bench.json", log = workDir + "/cublas-bench.log";
  ChildExit exit =
      runChild(t.exe,
               {"bench", t.basePath, "--m", std::to_string(t.M), "--n", std::to_string(t.N),
                "--k", std::to_string(t.K), "--dtype", shape.dtype, "--rounds", "20", "--json",
                json, "--device", std::to_string(gpu)},
               log, 300);
  std::optional<std::string> text = readText(json);
  if (!exit.started || exit.killed || exit.signaled || !text) {
    whyNot = "gemmgen bench failed (" + exit.describe() + "): " + lastLines(log, 2);
    return std::nullopt;
  }
  std::optional<Record> r = cublasRecordFromBench(*text, shape, t.basePath);
  if (!r)
    whyNot = "no cuBLAS time in " + json;
  return r;
}

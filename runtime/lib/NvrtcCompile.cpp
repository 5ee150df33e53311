//===- NvrtcCompile.cpp - CUDA C++ to cubin with NVRTC ---------------------===//
//
// compileCudaSource(): NVRTC with --gpu-architecture=<arch> -Xptxas=-v, the
// embedded gemmgen/device/*.cuh headers, and the disk cache (KernelCache).
// The ptxas report in the program log is parsed into ResourceUsage. No
// driver is involved, so `gemmgen compile` works on machines without a GPU.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/DeviceHeaders.h"
#include "gemmgen/gemmgen.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>

using namespace gemmgen;

std::string gemmgen::nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<std::pair<std::string, std::string>> &gemmgen::embeddedDeviceHeaders() {
  static const std::vector<std::pair<std::string, std::string>> headers = [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (const DeviceHeader &h : deviceHeaders())
      v.emplace_back(h.includeName.str(), h.text.str());
    return v;
  }();
  return headers;
}

ResourceUsage gemmgen::parsePtxasReport(const std::string &log, const std::string &function) {
  // ptxas info    : Compiling entry function 'NAME' for 'sm_90a'
  // ptxas info    : Function properties for NAME
  //     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  // ptxas info    : Used 168 registers, used 1 barriers, 1536 bytes smem, 400 bytes cmem[0]
  static const std::regex entryRe(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex frameRe(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex usedRe(R"(Used (\d+) registers)");
  static const std::regex barRe(R"(used (\d+) barriers)");
  static const std::regex smemRe(R"((\d+) bytes smem)");
  static const std::regex lmemRe(R"((\d+) bytes lmem)");
  std::vector<ResourceUsage> entries;
  std::vector<std::string> globalWarnings;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entryRe)) {
      ResourceUsage u;
      u.function = m[1];
      u.arch = m[2];
      entries.push_back(u);
      continue;
    }
    if (line.find("ptxas warning") != std::string::npos ||
        line.find("ptxas error") != std::string::npos) {
      // Warnings name the function they are about (when they do); keep all.
      if (entries.empty())
        globalWarnings.push_back(line);
      else
        entries.back().warnings.push_back(line);
      continue;
    }
    if (entries.empty())
      continue;
    ResourceUsage &u = entries.back();
    if (std::regex_search(line, m, frameRe)) {
      u.stackFrameBytes = std::stoi(m[1]);
      u.spillStoreBytes = std::stoi(m[2]);
      u.spillLoadBytes = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, usedRe)) {
      u.registers = std::stoi(m[1]);
      u.valid = true;
      if (std::regex_search(line, m, barRe))
        u.barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smemRe))
        u.staticSmemBytes = std::stoi(m[1]);
      if (std::regex_search(line, m, lmemRe))
        u.localBytes = std::stoi(m[1]);
    }
  }
  ResourceUsage result;
  for (const ResourceUsage &u : entries)
    if (function.empty() || u.function == function) {
      result = u;
      break;
    }
  result.warnings.insert(result.warnings.begin(), globalWarnings.begin(), globalWarnings.end());
  return result;
}

static Status nvrtcFail(nvrtcResult r, const char *what) {
  return Status::error(ErrorCode::CompileError,
                       std::string("nvrtc: ") + what + ": " + nvrtcGetErrorString(r));
}

Expected<CubinResult> gemmgen::compileCudaSource(const std::string &source,
                                                 const std::string &name,
                                                 const std::string &arch,
                                                 const std::string &entry,
                                                 const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  CubinResult out;
  out.arch = arch;
  out.options = {"--gpu-architecture=" + arch, "-Xptxas=-v", "-std=c++17", "-default-device"};
  if (options.debugHangs)
    out.options.push_back("-DGEMMGEN_DEBUG_HANGS");
  for (const std::string &o : options.extraOptions)
    out.options.push_back(o);

  const auto &headers = embeddedDeviceHeaders();
  // Everything that determines the cubin goes into the key.
  std::vector<std::string> keyParts = {"gemmgen-cubin-v1", source, name, arch,
                                       "nvrtc " + nvrtcVersionString()};
  for (const std::string &o : out.options)
    keyParts.push_back(o);
  for (const auto &h : headers) {
    keyParts.push_back(h.first);
    keyParts.push_back(h.second);
  }
  std::optional<KernelCache> cache;
  std::string key;
  if (options.useCache) {
    cache.emplace(options.cacheDir);
    key = KernelCache::key(keyParts);
    if (auto hit = cache->load(key)) {
      out.cubin = std::move(hit->first);
      out.log = std::move(hit->second);
      out.fromCache = true;
      out.usage = parsePtxasReport(out.log, entry);
      out.compileSeconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return out;
    }
  }

  std::vector<const char *> hdrText, hdrNames;
  for (const auto &h : headers) {
    hdrNames.push_back(h.first.c_str());
    hdrText.push_back(h.second.c_str());
  }
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), (int)headers.size(),
                                     hdrText.data(), hdrNames.data());
  if (r != NVRTC_SUCCESS)
    return nvrtcFail(r, "nvrtcCreateProgram");
  std::vector<const char *> opts;
  for (const std::string &o : out.options)
    opts.push_back(o.c_str());
  nvrtcResult cr = nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    out.log.resize(logSize);
    nvrtcGetProgramLog(prog, &out.log[0]);
    out.log.resize(logSize - 1);
  }
  if (cr != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    return Status::error(ErrorCode::CompileError, "nvrtc: compiling " + name + " for " + arch +
                                                      " failed:\n" + out.log);
  }
  size_t cubinSize = 0;
  r = nvrtcGetCUBINSize(prog, &cubinSize);
  if (r != NVRTC_SUCCESS || cubinSize == 0) {
    nvrtcDestroyProgram(&prog);
    return nvrtcFail(r, "nvrtcGetCUBINSize (is the architecture an sm_ target?)");
  }
  out.cubin.resize(cubinSize);
  r = nvrtcGetCUBIN(prog, out.cubin.data());
  nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS)
    return nvrtcFail(r, "nvrtcGetCUBIN");
  out.usage = parsePtxasReport(out.log, entry);
  if (cache)
    (void)cache->store(key, out.cubin, out.log); // a cache that cannot be written is not fatal
  out.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

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
#include <climits>
#include <cstdlib>
#include <optional>
#include <string_view>

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

namespace {
/// A small scanner over one line of the ptxas report: plain searches and
/// digit runs, no regex (std::regex recurses per character and overflows
/// the stack on a 30,000-character kernel name).
struct ReportLine {
  std::string_view text;

  /// The text between `prefix` and the next `close` after it ("" if absent).
  std::optional<std::string_view> between(std::string_view prefix, char close,
                                          size_t from = 0) const {
    size_t p = text.find(prefix, from);
    if (p == std::string_view::npos)
      return std::nullopt;
    p += prefix.size();
    size_t q = text.find(close, p);
    if (q == std::string_view::npos)
      return std::nullopt;
    return text.substr(p, q - p);
  }

  /// The number written just before `suffix` ("168 registers"): nullopt if
  /// `suffix` is absent; `ok` turns false if the digits do not fit an int.
  std::optional<int> numberBefore(std::string_view suffix, bool &ok) const {
    size_t p = text.find(suffix);
    if (p == std::string_view::npos)
      return std::nullopt;
    size_t b = p;
    while (b > 0 && text[b - 1] >= '0' && text[b - 1] <= '9')
      --b;
    if (b == p)
      return std::nullopt;
    long long v = 0;
    for (size_t i = b; i < p; ++i) {
      v = v * 10 + (text[i] - '0');
      if (v > INT_MAX) {
        ok = false;
        return std::nullopt;
      }
    }
    return (int)v;
  }

  /// The number written just after `prefix` ("Used 168").
  std::optional<int> numberAfter(std::string_view prefix, bool &ok) const {
    size_t p = text.find(prefix);
    if (p == std::string_view::npos)
      return std::nullopt;
    p += prefix.size();
    size_t e = p;
    long long v = 0;
    for (; e < text.size() && text[e] >= '0' && text[e] <= '9'; ++e) {
      v = v * 10 + (text[e] - '0');
      if (v > INT_MAX) {
        ok = false;
        return std::nullopt;
      }
    }
    if (e == p)
      return std::nullopt;
    return (int)v;
  }
};
} // namespace

ResourceUsage gemmgen::parsePtxasReport(const std::string &log, const std::string &function) {
  // ptxas info    : Compiling entry function 'NAME' for 'sm_90a'
  // ptxas info    : Function properties for NAME
  //     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  // ptxas info    : Used 168 registers, used 1 barriers, 1536 bytes smem, 400 bytes cmem[0]
  // A number too large for an int cannot come from ptxas: that entry's
  // report is marked invalid (never trusted, never an exception).
  std::vector<ResourceUsage> entries;
  std::vector<bool> sane;
  std::vector<std::string> globalWarnings;
  std::vector<std::pair<std::string, std::string>> performanceNotes; // function, line
  std::string_view rest(log);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    ReportLine line{rest.substr(0, nl)};
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const std::string_view kEntry = "Compiling entry function '";
    if (line.text.find(kEntry) != std::string_view::npos) {
      std::optional<std::string_view> name = line.between(kEntry, '\'');
      if (name) {
        size_t after = line.text.find(kEntry) + kEntry.size() + name->size();
        std::optional<std::string_view> arch = line.between("' for '", '\'', after);
        if (arch) {
          ResourceUsage u;
          u.function = std::string(*name);
          u.arch = std::string(*arch);
          entries.push_back(u);
          sane.push_back(true);
          continue;
        }
      }
    }
    // ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are
    //   serialized due to ... in the function 'NAME'   (also C7514, C7517 "warpgroup.wait is
    //   injected"): info lines, but a kernel that has one runs its wgmmas one at a time.
    // They come before the entry's own report, so they are matched by the name they give.
    if (line.text.find("ptxas info") != std::string_view::npos &&
        (line.text.find("Potential Performance Loss") != std::string_view::npos ||
         line.text.find("warpgroup.wait is injected") != std::string_view::npos)) {
      size_t at = line.text.rfind("function '");
      std::optional<std::string_view> name =
          at == std::string_view::npos ? std::nullopt
                                       : line.between("function '", '\'', at);
      performanceNotes.emplace_back(name ? std::string(*name) : std::string(),
                                    std::string(line.text));
      continue;
    }
    if (line.text.find("ptxas warning") != std::string_view::npos ||
        line.text.find("ptxas error") != std::string_view::npos) {
      // Warnings name the function they are about (when they do); keep all.
      if (entries.empty())
        globalWarnings.emplace_back(line.text);
      else
        entries.back().warnings.emplace_back(line.text);
      continue;
    }
    if (entries.empty())
      continue;
    ResourceUsage &u = entries.back();
    bool ok = true;
    if (line.text.find(" bytes stack frame") != std::string_view::npos) {
      u.stackFrameBytes = line.numberBefore(" bytes stack frame", ok).value_or(0);
      u.spillStoreBytes = line.numberBefore(" bytes spill stores", ok).value_or(0);
      u.spillLoadBytes = line.numberBefore(" bytes spill loads", ok).value_or(0);
    }
    if (std::optional<int> regs = line.numberAfter("Used ", ok);
        regs && line.text.find(" registers") != std::string_view::npos) {
      u.registers = *regs;
      u.valid = true;
      u.barriers = line.numberAfter("used ", ok).value_or(0);
      u.staticSmemBytes = line.numberBefore(" bytes smem", ok).value_or(0);
      u.localBytes = line.numberBefore(" bytes lmem", ok).value_or(0);
    }
    if (!ok)
      sane.back() = false;
  }
  for (const auto &[name, text] : performanceNotes) {
    bool matched = false;
    for (ResourceUsage &u : entries)
      if (!name.empty() && u.function == name) {
        u.warnings.push_back(text);
        matched = true;
      }
    if (!matched)
      globalWarnings.push_back(text);
  }
  ResourceUsage result;
  for (size_t i = 0; i < entries.size(); ++i)
    if (function.empty() || entries[i].function == function) {
      result = entries[i];
      if (!sane[i]) {
        result.valid = false;
        result.warnings.push_back("gemmgen: ptxas report for '" + result.function.substr(0, 200) +
                                  "' has a number out of range; ignored");
      }
      break;
    }
  result.warnings.insert(result.warnings.begin(), globalWarnings.begin(), globalWarnings.end());
  return result;
}

/// The entry's usage from ptxas's report in the log; from the cubin when
/// the log has no ptxas lines at all (an NVRTC that keeps the report to
/// itself). A log that has a report, but none that describes the entry
/// sanely, stays invalid: such a cache entry is not trusted.
static ResourceUsage usageOf(const std::string &log, const std::vector<char> &cubin,
                             const std::string &entry) {
  ResourceUsage u = parsePtxasReport(log, entry);
  if (!u.valid && !entry.empty() && log.find("ptxas") == std::string::npos)
    u = usageFromCubin(cubin, entry);
  return u;
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
    std::optional<std::pair<std::vector<char>, std::string>> hit;
    if (!options.refreshCache)
      hit = cache->load(key);
    // A hit whose ptxas report does not describe the entry is not trusted:
    // it is rebuilt (and overwritten) like any other bad entry.
    ResourceUsage usage;
    if (hit)
      usage = usageOf(hit->second, hit->first, entry);
    if (hit && (entry.empty() || usage.valid)) {
      out.cubin = std::move(hit->first);
      out.log = std::move(hit->second);
      out.fromCache = true;
      out.usage = std::move(usage);
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
  out.usage = usageOf(out.log, out.cubin, entry);
  if (cache)
    (void)cache->store(key, out.cubin, out.log); // a cache that cannot be written is not fatal
  out.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

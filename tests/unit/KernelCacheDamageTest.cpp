//===- KernelCacheDamageTest.cpp - A damaged cache entry is only a miss ---===//
//
// Every kind of damage to a cache entry we could think of: each must read as
// a miss (never a crash, hang, huge allocation or trusted garbage), and the
// next store (what a rebuild does) must replace it with a good entry. Entries
// are crafted byte by byte from the documented format (KernelCache.cpp):
//   magic "GGCUBIN\1" | u32 version 1 | u32 log bytes | u64 cubin bytes |
//   u64 xxHash64(log + cubin) | char[64] key | log | cubin
// Plus compileCudaSource over a FIFO, a directory and a crafted ptxas log.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/gemmgen.h"

#include "llvm/Support/xxhash.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

using namespace gemmgen;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gemmgen-cache-damage-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
};

std::vector<char> fakeCubin(size_t bytes) {
  std::vector<char> c(std::max<size_t>(bytes, 64), 'c');
  const char head[] = {'\x7f', 'E', 'L', 'F', 2};
  std::copy(head, head + 5, c.begin());
  c[18] = (char)190;
  c[19] = 0;
  return c;
}

/// The header fields of an entry, each overridable.
struct Header {
  std::string magic = std::string("GGCUBIN\1", 8);
  uint32_t version = 1;
  uint32_t logBytes = 0;
  uint64_t cubinBytes = 0;
  uint64_t checksum = 0;
  std::string key;
};

std::string entryBytes(const Header &h, const std::string &payload) {
  std::string out(96, '\0');
  std::memcpy(&out[0], h.magic.data(), std::min<size_t>(8, h.magic.size()));
  std::memcpy(&out[8], &h.version, 4);
  std::memcpy(&out[12], &h.logBytes, 4);
  std::memcpy(&out[16], &h.cubinBytes, 8);
  std::memcpy(&out[24], &h.checksum, 8);
  std::memcpy(&out[32], h.key.data(), std::min<size_t>(64, h.key.size()));
  return out + payload;
}

/// A correct header for (log, cubin) under `key`.
Header goodHeader(const std::string &key, const std::string &log, const std::vector<char> &cubin) {
  Header h;
  h.key = key;
  h.logBytes = (uint32_t)log.size();
  h.cubinBytes = cubin.size();
  std::string all = log + std::string(cubin.begin(), cubin.end());
  h.checksum = llvm::xxHash64(all);
  return h;
}

void writeFile(const fs::path &p, const std::string &bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), (std::streamsize)bytes.size());
}

/// Runs `f` in a child process with a 60 s alarm: a hang or a crash there
/// fails the test instead of the whole test binary.
void inChild(const std::function<bool()> &f, const std::string &what) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(60);
    _exit(f() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << what << ": child died with signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << " (SIGALRM = 14: it blocked)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << what;
}

const std::string kLog = "ptxas info    : Used 8 registers";

struct Damage {
  const char *name;
  /// Writes the damaged entry at `path` for `key` (the good payload given).
  std::function<void(const fs::path &path, const std::string &key)> make;
};

std::vector<Damage> damages() {
  const std::vector<char> cubin = fakeCubin(4096);
  const std::string payload = kLog + std::string(cubin.begin(), cubin.end());
  // A good entry with `patch` applied to its header and `body` (default:
  // the good payload) after it.
  auto with = [=](std::function<void(Header &)> patch, std::optional<std::string> body = {}) {
    return [=](const fs::path &p, const std::string &key) {
      Header h = goodHeader(key, kLog, cubin);
      patch(h);
      writeFile(p, entryBytes(h, body ? *body : payload));
    };
  };
  std::vector<Damage> d;
  d.push_back({"empty file", [](const fs::path &p, const std::string &) { writeFile(p, ""); }});
  d.push_back({"shorter than the header",
               [](const fs::path &p, const std::string &) { writeFile(p, "GGCUBIN\1\1"); }});
  d.push_back({"header only, zero lengths", with([](Header &h) {
                 h.logBytes = 0, h.cubinBytes = 0;
               }, std::string())});
  d.push_back({"wrong magic", with([](Header &h) { h.magic = "GGCUBIX\1"; })});
  d.push_back({"wrong version", with([](Header &h) { h.version = 2; })});
  d.push_back({"wrong checksum", with([](Header &h) { h.checksum ^= 1; })});
  d.push_back({"key of another entry", with([](Header &h) { h.key = std::string(64, 'a'); })});
  d.push_back({"flipped payload byte", with([](Header &) {}, [&] {
                 std::string b = payload;
                 b[2000] ^= 0x20;
                 return b;
               }())});
  d.push_back({"truncated payload", with([](Header &) {}, payload.substr(0, 1000))});
  d.push_back({"extended payload", with([](Header &) {}, payload + "trailing")});
  d.push_back({"log length 2^32-1", with([](Header &h) { h.logBytes = 0xffffffffu; })});
  d.push_back({"cubin length 2^64-1", with([](Header &h) { h.cubinBytes = ~0ull; })});
  // The lengths sum (mod 2^64) to exactly the file size: 96 + log + cubin
  // wraps around, which a naive size check accepts.
  d.push_back({"lengths that wrap around 2^64", with([=](Header &h) {
                 h.logBytes = 0xffffffffu;
                 h.cubinBytes = (uint64_t)payload.size() - 0xffffffffull;
               })});
  d.push_back({"log length past the end", with([=](Header &h) {
                 h.logBytes = (uint32_t)payload.size() + 1;
                 h.cubinBytes = 0;
               })});
  d.push_back({"zero-length cubin", with([=](Header &h) {
                 h.logBytes = (uint32_t)payload.size();
                 h.cubinBytes = 0;
                 h.checksum = llvm::xxHash64(payload);
               })});
  d.push_back({"valid checksum, not an ELF cubin", [](const fs::path &p, const std::string &key) {
                 std::vector<char> junk(4096, 'j');
                 writeFile(p, entryBytes(goodHeader(key, kLog, junk),
                                         kLog + std::string(junk.begin(), junk.end())));
               }});
  d.push_back({"all zero bytes", [](const fs::path &p, const std::string &) {
                 writeFile(p, std::string(8192, '\0'));
               }});
  d.push_back({"random bytes", [](const fs::path &p, const std::string &) {
                 std::string r(8192, '\0');
                 uint64_t x = 88172645463325252ull;
                 for (char &c : r) {
                   x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                   c = (char)x;
                 }
                 writeFile(p, r);
               }});
  d.push_back({"sparse 4 GiB file", [](const fs::path &p, const std::string &) {
                 writeFile(p, "GGCUBIN\1");
                 fs::resize_file(p, 4ull << 30);
               }});
  d.push_back({"directory", [](const fs::path &p, const std::string &) {
                 fs::create_directories(p / "inside");
                 writeFile(p / "inside" / "file", "x");
               }});
  d.push_back({"FIFO", [](const fs::path &p, const std::string &) {
                 ASSERT_EQ(mkfifo(p.c_str(), 0644), 0) << strerror(errno);
               }});
  d.push_back({"unix socket", [](const fs::path &p, const std::string &) {
                 int s = socket(AF_UNIX, SOCK_STREAM, 0);
                 sockaddr_un addr = {};
                 addr.sun_family = AF_UNIX;
                 ASSERT_LT(p.string().size(), sizeof addr.sun_path);
                 std::strcpy(addr.sun_path, p.c_str());
                 ASSERT_EQ(bind(s, (sockaddr *)&addr, sizeof addr), 0) << strerror(errno);
                 close(s);
               }});
  d.push_back({"symlink to /dev/zero", [](const fs::path &p, const std::string &) {
                 fs::create_symlink("/dev/zero", p);
               }});
  d.push_back({"symlink to /dev/null", [](const fs::path &p, const std::string &) {
                 fs::create_symlink("/dev/null", p);
               }});
  d.push_back({"dangling symlink", [](const fs::path &p, const std::string &) {
                 fs::create_symlink(p.string() + ".nowhere", p);
               }});
  d.push_back({"symlink to a valid entry elsewhere", [=](const fs::path &p, const std::string &key) {
                 fs::path elsewhere = p.string() + ".elsewhere";
                 writeFile(elsewhere, entryBytes(goodHeader(key, kLog, cubin), payload));
                 fs::create_symlink(elsewhere, p);
               }});
  d.push_back({"symlink loop", [](const fs::path &p, const std::string &) {
                 fs::create_symlink(p, p);
               }});
  // A valid entry planted by another user (only root can make one here).
  if (geteuid() == 0)
    d.push_back({"valid entry owned by another user", [=](const fs::path &p, const std::string &key) {
                   writeFile(p, entryBytes(goodHeader(key, kLog, cubin), payload));
                   ASSERT_EQ(chown(p.c_str(), 4242, 4242), 0) << strerror(errno);
                 }});
  return d;
}

} // namespace

TEST(KernelCacheDamage, EveryKindIsAMissAndTheRebuildReplacesIt) {
  const std::vector<char> cubin = fakeCubin(4096);
  int n = 0;
  for (const Damage &d : damages()) {
    SCOPED_TRACE(d.name);
    TempDir dir;
    KernelCache cache(dir.path.string());
    std::string key = KernelCache::key({"damage", std::to_string(n++)});
    fs::path path = cache.pathFor(key);
    d.make(path, key);
    ASSERT_TRUE(fs::symlink_status(path).type() != fs::file_type::not_found);
    inChild([&] { return !cache.load(key).has_value(); }, std::string(d.name) + ": load is a miss");
    Status s = cache.store(key, cubin, kLog);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path)));
    auto hit = cache.load(key);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->first, cubin);
    EXPECT_EQ(hit->second, kLog);
  }
  EXPECT_GE(n, 25);
}

TEST(KernelCacheDamage, AGoodCraftedEntryIsAHit) {
  // The crafting above is right: the same bytes with a correct header hit.
  TempDir dir;
  KernelCache cache(dir.path.string());
  std::string key = KernelCache::key({"good"});
  std::vector<char> cubin = fakeCubin(4096);
  writeFile(cache.pathFor(key),
            entryBytes(goodHeader(key, kLog, cubin), kLog + std::string(cubin.begin(), cubin.end())));
  auto hit = cache.load(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->first, cubin);
}

TEST(KernelCacheDamage, UnreadableEntryIsAMiss) {
  if (geteuid() == 0)
    GTEST_SKIP() << "running as root: file permissions do not stop reads";
  TempDir dir;
  KernelCache cache(dir.path.string());
  std::string key = KernelCache::key({"unreadable"});
  std::vector<char> cubin = fakeCubin(4096);
  ASSERT_TRUE(cache.store(key, cubin, kLog).ok());
  fs::permissions(cache.pathFor(key), fs::perms::none);
  EXPECT_FALSE(cache.load(key).has_value());
  ASSERT_TRUE(cache.store(key, cubin, kLog).ok());
  EXPECT_TRUE(cache.load(key).has_value());
}

TEST(KernelCacheDamage, BadKeysAndUnwritableDirectories) {
  TempDir dir;
  KernelCache cache(dir.path.string());
  std::vector<char> cubin = fakeCubin(64);
  // A key that is not 64 hex digits never names a path.
  EXPECT_FALSE(cache.load("../../etc/passwd").has_value());
  EXPECT_EQ(cache.store("../escape", cubin, "").message(),
            "cache: bad key '../escape' (expected 64 lowercase hex digits)");
  EXPECT_FALSE(cache.load(std::string(64, 'G')).has_value());
  // The cache directory is a regular file: store fails with a message,
  // load is a miss.
  fs::path file = dir.path / "not-a-dir";
  writeFile(file, "x");
  KernelCache onFile(file.string());
  std::string key = KernelCache::key({"k"});
  EXPECT_FALSE(onFile.load(key).has_value());
  Status s = onFile.store(key, cubin, "");
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(), "cache: '" + file.string() +
                            "' is not a directory (set GEMMGEN_CACHE_DIR to a directory)");
}

namespace {
const char *kKernel = R"(extern "C" __global__ void gg_cache_k(float *p) { p[threadIdx.x] = 2.f; })";

/// The single entry file compileCudaSource left in `dir`.
fs::path onlyEntry(const fs::path &dir) {
  std::vector<fs::path> found;
  for (auto &e : fs::directory_iterator(dir))
    found.push_back(e.path());
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? fs::path() : found[0];
}
} // namespace

TEST(KernelCacheDamage, CompileRebuildsOverAFifoADirectoryAndACraftedLog) {
  TempDir dir;
  CompileOptions opts;
  opts.cacheDir = dir.path.string();
  Expected<CubinResult> first = compileCudaSource(kKernel, "k.cu", "sm_90a", "gg_cache_k", opts);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->usage.valid);
  fs::path entry = onlyEntry(dir.path);
  std::string key = entry.stem().string();
  ASSERT_EQ(key.size(), 64u);

  auto compileIsFresh = [&](const char *what) {
    SCOPED_TRACE(what);
    inChild(
        [&] {
          Expected<CubinResult> r = compileCudaSource(kKernel, "k.cu", "sm_90a", "gg_cache_k", opts);
          return r.ok() && !r->fromCache && r->cubin == first->cubin && r->usage.valid;
        },
        std::string(what) + ": compile rebuilds");
    // The child's rebuild replaced the entry: the next compile is a hit.
    Expected<CubinResult> again = compileCudaSource(kKernel, "k.cu", "sm_90a", "gg_cache_k", opts);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->fromCache);
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
  };

  fs::remove(entry);
  ASSERT_EQ(mkfifo(entry.c_str(), 0644), 0);
  compileIsFresh("FIFO");

  fs::remove(entry);
  fs::create_directories(entry / "sub");
  compileIsFresh("directory");

  // A valid-checksum entry whose ptxas report has a number no int holds:
  // no exception, and the entry is not trusted (rebuilt).
  for (const char *regs : {"99999999999999999999", "2147483648"}) {
    std::string log = "ptxas info    : Compiling entry function 'gg_cache_k' for 'sm_90a'\n"
                      "ptxas info    : Used " + std::string(regs) + " registers, used 0 barriers\n";
    writeFile(entry, entryBytes(goodHeader(key, log, first->cubin),
                                log + std::string(first->cubin.begin(), first->cubin.end())));
    ASSERT_TRUE(KernelCache(dir.path.string()).load(key).has_value()); // well-formed entry
    compileIsFresh(regs);
  }

  // A cached cubin with a valid header for another function's report:
  // rebuilt too (the report must describe the entry).
  std::string otherLog = "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
                         "ptxas info    : Used 8 registers\n";
  writeFile(entry, entryBytes(goodHeader(key, otherLog, first->cubin),
                              otherLog + std::string(first->cubin.begin(), first->cubin.end())));
  compileIsFresh("report of another function");

  // A log with no ptxas lines at all (torch's bundled libnvrtc keeps the
  // report to itself): the hit stands, its usage read from the cubin.
  std::string frontEndOnly = "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n";
  writeFile(entry, entryBytes(goodHeader(key, frontEndOnly, first->cubin),
                              frontEndOnly + std::string(first->cubin.begin(), first->cubin.end())));
  Expected<CubinResult> quiet = compileCudaSource(kKernel, "k.cu", "sm_90a", "gg_cache_k", opts);
  ASSERT_TRUE(quiet.ok()) << quiet.status().message();
  EXPECT_TRUE(quiet->fromCache);
  ASSERT_TRUE(quiet->usage.valid);
  EXPECT_TRUE(quiet->usage.fromCubin);
  EXPECT_EQ(quiet->usage.registers, first->usage.registers);
  EXPECT_EQ(quiet->usage.stackFrameBytes, first->usage.stackFrameBytes);

  // refreshCache ignores a good entry and overwrites it.
  opts.refreshCache = true;
  Expected<CubinResult> fresh = compileCudaSource(kKernel, "k.cu", "sm_90a", "gg_cache_k", opts);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->fromCache);
}

//===- KernelCache.cpp - Disk cache of compiled cubins ---------------------===//
//
// One file per entry, <dir>/<sha256 key>.cubin:
//
//   0   char[8]  magic "GGCUBIN\1"
//   8   u32      format version (1)
//   12  u32      log bytes
//   16  u64      cubin bytes
//   24  u64      xxHash64 of log + cubin
//   32  char[64] the key, hex (guards against a file under the wrong name)
//   96  log, then cubin
//
// Nothing in an entry is trusted: a file that is not a regular file (FIFO,
// directory, device, symlink), owned by another user, larger than
// kMaxEntryBytes, or whose size,
// magic, lengths, key, checksum or ELF header do not match reads as a miss,
// and the caller's rebuild replaces it. Writes go to a unique temporary
// file in the same directory that is then rename()d over the entry: POSIX
// rename is atomic, so a concurrent reader sees the old file or the new one,
// never a partial one, and two writers of one key both leave a whole entry.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"
#include "gemmgen/gemmgen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace gemmgen;

namespace {
constexpr char kMagic[8] = {'G', 'G', 'C', 'U', 'B', 'I', 'N', 1};
constexpr unsigned kVersion = 1;
constexpr size_t kHeaderBytes = 96;
// A cubin of gemmgen's is a few hundred KB; anything this large is not ours.
constexpr uint64_t kMaxEntryBytes = 256ull << 20;

void putU32(unsigned char *p, uint32_t v) { std::memcpy(p, &v, 4); }
void putU64(unsigned char *p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t getU32(const unsigned char *p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
uint64_t getU64(const unsigned char *p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

/// Keys are 64 lowercase hex digits (also keeps paths inside the directory).
bool validKey(const std::string &key) {
  if (key.size() != 64)
    return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// Reads the whole of a regular file of at most kMaxEntryBytes without ever
/// blocking (O_NONBLOCK: a FIFO opens at once) or following a symlink. The
/// file must be ours (owned by the effective user): a cubin is code that
/// will run, and one planted by another user is not trusted.
std::optional<std::vector<unsigned char>> readEntryFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct stat st;
  std::optional<std::vector<unsigned char>> result;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      st.st_size >= (off_t)kHeaderBytes && (uint64_t)st.st_size <= kMaxEntryBytes) {
    std::vector<unsigned char> data((size_t)st.st_size);
    size_t got = 0;
    while (got < data.size()) {
      ssize_t n = ::read(fd, data.data() + got, data.size() - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (size_t)n;
    }
    unsigned char extra;
    if (got == data.size() && ::read(fd, &extra, 1) == 0) // not grown meanwhile
      result = std::move(data);
  }
  ::close(fd);
  return result;
}

uint64_t checksum(const std::string &log, const std::vector<char> &cubin) {
  std::string all = log;
  all.append(cubin.begin(), cubin.end());
  return llvm::xxHash64(all);
}
} // namespace

bool gemmgen::looksLikeCubin(const std::vector<char> &c) {
  return c.size() >= 64 && std::memcmp(c.data(), "\x7f" "ELF", 4) == 0 && c[4] == 2 &&
         (unsigned char)c[18] == 190 && c[19] == 0;
}

std::string KernelCache::defaultDirectory() {
  if (const char *d = getenv("GEMMGEN_CACHE_DIR"); d && *d)
    return d;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/gemmgen";
  if (const char *h = getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/gemmgen";
  return "/tmp/gemmgen-cache-" + std::to_string(::geteuid()); // one per user
}

KernelCache::KernelCache(std::string dir) : dir_(dir.empty() ? defaultDirectory() : dir) {}

std::string KernelCache::key(const std::vector<std::string> &parts) {
  llvm::SHA256 sha;
  for (const std::string &p : parts) {
    std::string len = std::to_string(p.size()) + ":";
    sha.update(llvm::StringRef(len));
    sha.update(llvm::StringRef(p));
  }
  std::array<uint8_t, 32> digest = sha.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()), /*LowerCase=*/true);
}

std::string KernelCache::pathFor(const std::string &key) const {
  return dir_ + "/" + key + ".cubin";
}

std::optional<std::pair<std::vector<char>, std::string>>
KernelCache::load(const std::string &key) const {
  if (!validKey(key))
    return std::nullopt;
  std::optional<std::vector<unsigned char>> file = readEntryFile(pathFor(key));
  if (!file)
    return std::nullopt;
  const std::vector<unsigned char> &data = *file;
  if (std::memcmp(data.data(), kMagic, 8) != 0 || getU32(data.data() + 8) != kVersion)
    return std::nullopt;
  // Lengths are checked one at a time against what is left, so that no sum
  // of crafted values can wrap around.
  uint64_t logBytes = getU32(data.data() + 12), cubinBytes = getU64(data.data() + 16);
  uint64_t payload = data.size() - kHeaderBytes;
  if (logBytes > payload || cubinBytes != payload - logBytes || cubinBytes == 0)
    return std::nullopt; // truncated, extended or lying
  if (std::memcmp(data.data() + 32, key.data(), 64) != 0)
    return std::nullopt;
  std::string log(reinterpret_cast<const char *>(data.data() + kHeaderBytes), logBytes);
  std::vector<char> cubin(data.begin() + kHeaderBytes + logBytes, data.end());
  if (checksum(log, cubin) != getU64(data.data() + 24) || !looksLikeCubin(cubin))
    return std::nullopt; // corrupt
  return std::make_pair(std::move(cubin), std::move(log));
}

Status KernelCache::store(const std::string &key, const std::vector<char> &cubin,
                          const std::string &log) const {
  if (!validKey(key))
    return Status::error(ErrorCode::Io, "cache: bad key '" + key.substr(0, 80) +
                                            "' (expected 64 lowercase hex digits)");
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_))
    return Status::error(ErrorCode::Io,
                         "cache: cannot create directory '" + dir_ + "': " + ec.message());
  if (!llvm::sys::fs::is_directory(dir_))
    return Status::error(ErrorCode::Io, "cache: '" + dir_ +
                                            "' is not a directory (set GEMMGEN_CACHE_DIR to "
                                            "a directory)");
  unsigned char header[kHeaderBytes] = {};
  std::memcpy(header, kMagic, 8);
  putU32(header + 8, kVersion);
  putU32(header + 12, (uint32_t)log.size());
  putU64(header + 16, cubin.size());
  putU64(header + 24, checksum(log, cubin));
  std::memcpy(header + 32, key.data(), 64);

  static std::atomic<unsigned> counter{0};
  std::string tmp = pathFor(key) + ".tmp." + std::to_string(getpid()) + "." +
                    std::to_string(counter++) + "." +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(ErrorCode::Io, "cache: cannot create '" + tmp + "': " + strerror(errno));
  auto writeAll = [fd](const void *p, size_t n) {
    const char *c = static_cast<const char *>(p);
    while (n) {
      ssize_t w = ::write(fd, c, n);
      if (w < 0) {
        if (errno == EINTR)
          continue;
        return false;
      }
      c += w;
      n -= (size_t)w;
    }
    return true;
  };
  bool ok = writeAll(header, kHeaderBytes) && writeAll(log.data(), log.size()) &&
            writeAll(cubin.data(), cubin.size());
  ok = (::fsync(fd) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  // rename() replaces a FIFO, symlink or unreadable file, not a directory:
  // a directory where the entry belongs is removed first.
  struct stat st;
  if (ok && ::lstat(pathFor(key).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    (void)llvm::sys::fs::remove_directories(pathFor(key));
  if (!ok || ::rename(tmp.c_str(), pathFor(key).c_str()) != 0) {
    std::string err = strerror(errno);
    ::unlink(tmp.c_str());
    return Status::error(ErrorCode::Io, "cache: cannot write '" + pathFor(key) + "': " + err);
  }
  return Status::success();
}

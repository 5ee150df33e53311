//===- CubinUsage.cpp - A kernel's registers and stack frame from its cubin -===//
//
// Some libnvrtc builds (the one torch bundles, 13.0, on the H200) leave
// ptxas's -v report out of the program log, so parsePtxasReport finds
// nothing. The cubin itself records what ptxas decided in its `.nv.info`
// section: one attribute record per fact, `u8 format, u8 attribute`, then
// for the size-prefixed format (4) a `u16` byte count and the payload. The
// function-scoped records REGCOUNT (0x2f) and FRAME_SIZE (0x11) carry the
// entry's symbol index and the value. Spill bytes are not recorded there.
//
// The cubin is read as untrusted bytes: every offset is checked, and
// anything that does not parse gives an invalid ResourceUsage.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <cstdint>
#include <cstring>

using namespace gemmgen;

namespace {

constexpr uint8_t kFormatSized = 4;     // EIFMT_SVAL: u16 size, then the payload
constexpr uint8_t kFormatHalf = 3;      // EIFMT_HVAL: a u16 value
constexpr uint8_t kFormatByte = 2;      // EIFMT_BVAL: a byte value (padded to 4)
constexpr uint8_t kFormatNone = 1;      // EIFMT_NVAL: no value
constexpr uint8_t kAttrRegCount = 0x2f; // EIATTR_REGCOUNT
constexpr uint8_t kAttrFrameSize = 0x11; // EIATTR_FRAME_SIZE
constexpr uint32_t kSymtab = 2;         // SHT_SYMTAB

/// Bounds-checked little-endian reads from the cubin.
struct Bytes {
  const std::vector<char> &b;
  bool has(uint64_t off, uint64_t n) const { return off <= b.size() && n <= b.size() - off; }
  template <typename T> bool read(uint64_t off, T &out) const {
    if (!has(off, sizeof(T)))
      return false;
    std::memcpy(&out, b.data() + off, sizeof(T));
    return true;
  }
  /// The NUL-terminated string at `off` within [begin, end), or nullptr.
  const char *str(uint64_t begin, uint64_t end, uint64_t off) const {
    if (off >= end - begin || !has(begin, end - begin))
      return nullptr;
    const char *s = b.data() + begin + off;
    return std::memchr(s, 0, end - begin - off) ? s : nullptr;
  }
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

} // namespace

ResourceUsage gemmgen::usageFromCubin(const std::vector<char> &cubin, const std::string &function) {
  ResourceUsage u;
  const Bytes in{cubin};
  if (!looksLikeCubin(cubin))
    return u;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!in.read(0x28, shoff) || !in.read(0x3a, shentsize) || !in.read(0x3c, shnum) ||
      !in.read(0x3e, shstrndx) || shentsize < 64 || shstrndx >= shnum)
    return u;
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + uint64_t(i) * shentsize;
    Section &s = sections[i];
    if (!in.read(at, s.name) || !in.read(at + 4, s.type) || !in.read(at + 24, s.offset) ||
        !in.read(at + 32, s.size) || !in.read(at + 40, s.link) || !in.read(at + 56, s.entsize) ||
        !in.has(s.offset, s.size))
      return u;
  }
  const Section &names = sections[shstrndx];
  auto sectionName = [&](const Section &s) {
    return in.str(names.offset, names.offset + names.size, s.name);
  };
  // The entry's symbol index in the symbol table.
  long long symbol = -1;
  const Section *symtab = nullptr;
  for (const Section &s : sections)
    if (s.type == kSymtab && s.entsize >= 24 && s.link < shnum)
      symtab = &s;
  if (!symtab)
    return u;
  const Section &strtab = sections[symtab->link];
  for (uint64_t i = 0; i < symtab->size / symtab->entsize; ++i) {
    uint32_t nameOff = 0;
    if (!in.read(symtab->offset + i * symtab->entsize, nameOff))
      return u;
    const char *n = in.str(strtab.offset, strtab.offset + strtab.size, nameOff);
    if (n && function == n) {
      symbol = (long long)i;
      break;
    }
  }
  if (symbol < 0)
    return u;
  bool haveRegisters = false;
  for (const Section &s : sections) {
    const char *n = sectionName(s);
    if (!n || std::strcmp(n, ".nv.info") != 0)
      continue;
    for (uint64_t p = s.offset; p + 2 <= s.offset + s.size;) {
      const uint8_t format = uint8_t(cubin[p]), attr = uint8_t(cubin[p + 1]);
      if (format == kFormatNone) {
        p += 2;
      } else if (format == kFormatByte || format == kFormatHalf) {
        p += 4;
      } else if (format == kFormatSized) {
        uint16_t size = 0;
        uint32_t sym = 0, value = 0;
        if (!in.read(p + 2, size) || p + 4 + size > s.offset + s.size)
          return u;
        if (size == 8 && in.read(p + 4, sym) && in.read(p + 8, value) && sym == symbol) {
          if (attr == kAttrRegCount)
            u.registers = int(value), haveRegisters = value <= 255;
          else if (attr == kAttrFrameSize)
            u.stackFrameBytes = value <= (1u << 24) ? int(value) : 0;
        }
        p += 4 + size;
      } else {
        return u; // an unknown format: the rest cannot be framed
      }
    }
  }
  if (!haveRegisters)
    return ResourceUsage();
  u.valid = true;
  u.fromCubin = true;
  u.function = function;
  return u;
}

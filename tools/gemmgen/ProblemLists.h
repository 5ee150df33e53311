//===- ProblemLists.h - The verbs' --shapes and --groups FILE --*- C++ -*-===//
#ifndef GEMMGEN_TOOLS_PROBLEMLISTS_H
#define GEMMGEN_TOOLS_PROBLEMLISTS_H

#include "CompilerCommands.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gemmgen::cli {

/// `--shapes MxNxK[,MxNxK...]` (simulate, bench, choose): one entry or more,
/// each three decimal sizes from 0 to `maxSize` — digits only, so no sign
/// (a "-1" must not wrap) and no empty entry. nullopt otherwise; the verb
/// prints its own message.
inline std::optional<std::vector<std::array<long long, 3>>>
parseShapeList(llvm::StringRef text, unsigned long long maxSize) {
  std::vector<std::array<long long, 3>> out;
  llvm::SmallVector<llvm::StringRef, 8> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    llvm::SmallVector<llvm::StringRef, 3> dims;
    item.trim().split(dims, 'x');
    if (dims.size() != 3)
      return std::nullopt;
    std::array<long long, 3> shape;
    for (int i = 0; i < 3; ++i) {
      llvm::StringRef digits = dims[i].trim();
      unsigned long long v;
      if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
          digits.getAsInteger(10, v) || v > maxSize || v > (unsigned long long)LLONG_MAX)
        return std::nullopt;
      shape[i] = (long long)v;
    }
    out.push_back(shape);
  }
  return out;
}

/// `word` as a message quotes it: printable ASCII as is, any other byte as
/// \xNN, at most 40 characters (a binary file's line is not echoed whole).
inline std::string shownWord(llvm::StringRef word) {
  std::string s;
  for (unsigned char c : word.take_front(40)) {
    if (c >= 0x20 && c < 0x7f) {
      s += char(c);
    } else {
      s += "\\x";
      s += llvm::hexdigit(c >> 4, true);
      s += llvm::hexdigit(c & 15, true);
    }
  }
  return word.size() > 40 ? s + "..." : s;
}

/// A --groups FILE: one problem per line, `M` or `M N K` (N and K default to
/// `n` and `k`, the command's --n/--k); `#` starts a comment. Errors are
/// printed as FILE:LINE (exit code set) and give std::nullopt.
inline std::optional<std::vector<std::array<long long, 3>>>
readGroupsFile(const std::string &path, long long n, long long k) {
  auto bad = [&](std::string where, const std::string &what) {
    llvm::errs() << "gemmgen: error: " << where << ": " << what << "\n";
    setExitCode(ExitFailure);
    return std::nullopt;
  };
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f)
    return bad(path, "cannot read the --groups file");
  std::vector<std::array<long long, 3>> out;
  char buf[4096];
  for (int line = 1; std::fgets(buf, sizeof buf, f); ++line) {
    std::string text(buf);
    text = text.substr(0, text.find('#'));
    llvm::SmallVector<llvm::StringRef, 4> fields;
    llvm::StringRef(text).split(fields, ' ', -1, false);
    llvm::SmallVector<llvm::StringRef, 4> words;
    for (llvm::StringRef w : fields)
      if (!w.trim().empty())
        words.push_back(w.trim());
    if (words.empty())
      continue;
    const std::string where = path + ":" + std::to_string(line);
    std::array<long long, 3> p{0, n, k};
    if (words.size() != 1 && words.size() != 3) {
      std::fclose(f);
      return bad(where, "a problem is `M` or `M N K` (got " + std::to_string(words.size()) +
                            " fields)");
    }
    for (size_t i = 0; i < words.size(); ++i)
      if (words[i].getAsInteger(10, p[i]) || p[i] < 0 || p[i] > 2147483647LL) {
        std::fclose(f);
        return bad(where, "'" + shownWord(words[i]) + "' is not a size between 0 and 2147483647");
      }
    out.push_back(p);
  }
  std::fclose(f);
  if (out.empty())
    return bad(path, "no problems (one per line: `M` or `M N K`)");
  return out;
}

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_PROBLEMLISTS_H

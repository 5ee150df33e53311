//===- CodeEmitter.h - An indenting stream for generated source -*- C++ -*-===//
//
// Target printers write code through this class, never through hand-glued
// multi-line strings: `line()` writes one indented line, `Block` opens a
// brace scope and closes it (with an optional `// comment`) when it dies.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_CODEEMITTER_H
#define GEMMGEN_CODEEMITTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace gemmgen {

class CodeEmitter {
public:
  explicit CodeEmitter(llvm::raw_ostream &os, unsigned indentWidth = 2)
      : os(os), width(indentWidth) {}

  /// One line at the current indentation.
  void line(const llvm::Twine &text) {
    std::string s = text.str();
    if (!s.empty())
      os.indent(depth * width) << s;
    os << "\n";
  }
  void blank() { os << "\n"; }
  /// A `// text` comment line. Text from outside (a spec's path) cannot end
  /// the comment: control characters are escaped (a newline would start a
  /// line of code) and so is a final backslash (it would splice the next
  /// line into the comment).
  void comment(const llvm::Twine &text) { line("// " + escapeComment(text.str())); }
  /// Text written as is (e.g. an inlined header).
  void raw(llvm::StringRef text) { os << text; }

  void indent() { ++depth; }
  void dedent() { --depth; }

  /// `head {` ... `}` with an optional trailing `// tag` on the closing brace.
  class Block {
  public:
    Block(CodeEmitter &e, const llvm::Twine &head, std::string tag = "", std::string tail = "")
        : e(e), tag(std::move(tag)), tail(std::move(tail)) {
      std::string h = head.str();
      e.line(h.empty() ? "{" : h + " {");
      e.indent();
    }
    ~Block() {
      e.dedent();
      e.line("}" + tail + (tag.empty() ? "" : " // " + tag));
    }
    Block(const Block &) = delete;
    Block &operator=(const Block &) = delete;

  private:
    CodeEmitter &e;
    std::string tag, tail;
  };

  static std::string escapeComment(llvm::StringRef text) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      unsigned char c = text[i];
      if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else if ((c < 0x20 && c != '\t') || c == 0x7f || (c == '\\' && text.drop_front(i + 1).rtrim(" \t").empty()))
        out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
      else
        out += char(c);
    }
    return out;
  }

private:
  llvm::raw_ostream &os;
  unsigned width;
  unsigned depth = 0;
};

} // namespace gemmgen

#endif // GEMMGEN_CODEEMITTER_H

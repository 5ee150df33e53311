//===- Names.cpp - Which names a spec may give ----------------------------===//
#include "gemmgen/Names.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>

using namespace gemmgen;
using llvm::StringRef;

namespace {

/// C++20 keywords and alternative tokens, and `main`: NVRTC compiles C++17,
/// but a name that is a keyword in a later standard is a poor kernel name.
const char *const kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main"};

/// Names CUDA declares at global scope of every NVRTC translation unit
/// (built-in variables and types, math and C library functions, macros)
/// that collide with an `extern "C"` kernel of the same name. Each was seen
/// to fail NVRTC (CUDA 13) as a kernel name; names starting with '_' or
/// containing "__" are refused as reserved, cuda*/cu*/CU* by prefix.
const char *const kCudaNames[] = {
#include "CudaNames.inc"
};

bool isKeyword(StringRef s) {
  return llvm::any_of(kKeywords, [&](const char *k) { return s == k; });
}
bool isCudaName(StringRef s) {
  // The runtime and driver APIs' prefixes: hundreds of types, enumerators
  // and functions (cudaMalloc, cudaStream_t, CUresult, CU_LAUNCH_...).
  auto upperAt = [&](size_t i) {
    return s.size() > i && (std::isupper((unsigned char)s[i]) || std::isdigit((unsigned char)s[i]) ||
                            s[i] == '_');
  };
  if (s.startswith("cuda") || (s.startswith("cu") && upperAt(2)) ||
      (s.startswith("CU") && upperAt(2)))
    return true;
  return llvm::any_of(kCudaNames, [&](const char *k) { return s == k; });
}
bool isReserved(StringRef s) { return s.startswith("_") || s.contains("__"); }

} // namespace

bool gemmgen::isIdentifier(StringRef s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

std::string gemmgen::toIdentifier(StringRef s) {
  std::string out;
  for (char c : s.take_front(kMaxNameLength))
    out += (std::isalnum((unsigned char)c) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit((unsigned char)out[0]))
    out = "k_" + out;
  return out;
}

std::string gemmgen::suggestKernelName(StringRef name) {
  std::string s;
  for (char c : name.take_front(kMaxNameLength - 5)) {
    if (c == '_' && (s.empty() || s.back() == '_'))
      continue; // no leading '_', no "__"
    s += c;
  }
  while (!s.empty() && s.back() == '_')
    s.pop_back();
  if (s.empty() || std::isdigit((unsigned char)s[0]))
    return "my_gemm";
  return s + "_gemm";
}

std::string gemmgen::kernelNameProblem(StringRef name) {
  if (name.size() > kMaxNameLength)
    return "is " + std::to_string(name.size()) + " characters long; a kernel name has at most " +
           std::to_string(kMaxNameLength);
  if (isKeyword(name))
    return "is a C++ keyword (the kernel becomes a C++ function of this name); use e.g. '" +
           suggestKernelName(name) + "'";
  if (isReserved(name))
    return "is reserved in C++ (names that start with '_' or contain '__' belong to the "
           "compiler); use e.g. '" +
           suggestKernelName(name) + "'";
  if (isCudaName(name))
    return "is already declared by CUDA for device code (the kernel is an extern \"C\" "
           "function at global scope); use e.g. '" +
           suggestKernelName(name) + "'";
  return "";
}

unsigned gemmgen::countIdentifier(StringRef src, StringRef name) {
  unsigned count = 0;
  size_t i = 0, n = src.size();
  auto isIdStart = [](char c) { return std::isalpha((unsigned char)c) || c == '_'; };
  auto isIdChar = [](char c) { return std::isalnum((unsigned char)c) || c == '_'; };
  while (i < n) {
    char c = src[i];
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      i = src.find('\n', i);
      if (i == StringRef::npos)
        break;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      i = src.find("*/", i + 2);
      if (i == StringRef::npos)
        break;
      i += 2;
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && src[i] != c && src[i] != '\n'; ++i)
        if (src[i] == '\\')
          ++i;
      ++i;
    } else if (std::isdigit((unsigned char)c) ||
               (c == '.' && i + 1 < n && std::isdigit((unsigned char)src[i + 1]))) {
      // A pp-number (0x1fu, 1e-3f): its letters are not identifiers.
      for (++i; i < n && (isIdChar(src[i]) || src[i] == '.'); ++i)
        ;
    } else if (isIdStart(c)) {
      size_t start = i;
      while (i < n && isIdChar(src[i]))
        ++i;
      count += src.slice(start, i) == name;
    } else {
      ++i;
    }
  }
  return count;
}

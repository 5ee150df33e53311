//===- SharedLibrary.cpp - libgemmgen.so ----------------------------------===//
//
// The installed shared library has no code of its own: it is the runtime
// library linked as a whole archive, with the compiler library and LLVM
// Support linked in privately (runtime/CMakeLists.txt). CMake needs one
// source per library target; this is it.
//
//===----------------------------------------------------------------------===//

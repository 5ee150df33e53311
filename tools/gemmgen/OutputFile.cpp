//===- OutputFile.cpp - Files the verbs write -----------------------------===//
#include "OutputFile.h"

#include "CompilerCommands.h"

#include "llvm/Support/FileSystem.h"

#include <system_error>

using namespace gemmgen;

bool cli::writeOutputFile(const std::string &path, llvm::StringRef bytes, bool binary) {
  auto fail = [&](const std::error_code &ec) {
    llvm::errs() << "gemmgen: error: cannot write '" << path << "': " << ec.message() << "\n";
    setExitCode(ExitFailure);
    return false;
  };
  std::error_code ec;
  llvm::raw_fd_ostream f(path, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec)
    return fail(ec);
  f << bytes;
  f.close();
  if (f.has_error()) {
    ec = f.error();
    f.clear_error(); // reported here, not by the stream's destructor
    return fail(ec);
  }
  return true;
}

bool cli::writeOutputFile(const std::string &path,
                          const std::function<void(llvm::raw_ostream &)> &write) {
  std::string text;
  llvm::raw_string_ostream os(text);
  write(os);
  return writeOutputFile(path, os.str());
}

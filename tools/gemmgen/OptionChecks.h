//===- OptionChecks.h - CLI11 checks the verbs share ------------*- C++ -*-===//
//
// Numeric options whose bad values would otherwise reach the GPU or the
// timing loop: a non-finite alpha or beta (every output and the reference
// NaN: a verification that proves nothing), a negative count of launches.
// CLI11 reports a failed check as "--OPTION: MESSAGE" with exit code 105.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TOOLS_OPTIONCHECKS_H
#define GEMMGEN_TOOLS_OPTIONCHECKS_H

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gemmgen::cli {

/// --alpha, --beta: a finite number.
inline CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        errno = 0;
        char *end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v) ||
            std::fabs(v) > FLT_MAX)
          return "must be a finite number that fits a float (got '" + text + "')";
        return "";
      },
      "FINITE");
}

/// Counts of launches, rounds and warm-ups: from `least` up (0: none).
inline CLI::Validator countFrom(int least) {
  return CLI::Range(least, 1 << 30);
}

} // namespace gemmgen::cli

#endif // GEMMGEN_TOOLS_OPTIONCHECKS_H

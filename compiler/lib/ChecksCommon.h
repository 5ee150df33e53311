//===- ChecksCommon.h - What both targets' checks share ---------*- C++ -*-===//
//
// Internal to compiler/lib: the role lookups and role-name diagnostics that
// Checks.cpp (sm_90a) and ChecksSm100.cpp (sm_100a) both need, so that a
// misspelt role gets the same message, with its "did you mean", on either
// target.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_LIB_CHECKSCOMMON_H
#define GEMMGEN_LIB_CHECKSCOMMON_H

#include "gemmgen/Checks.h"
#include "gemmgen/Diagnostics.h"
#include "gemmgen/Spec.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace gemmgen {

/// The sm_100a checks (ChecksSm100.cpp); checkSpec hands sm_100a specs to it.
bool checkSpecSm100(const KernelSpec &spec, DiagnosticEngine &diags, const CheckOptions &options);

namespace checks {

/// The entry of `does` that is `t`, or null.
inline const Located<RoleTask> *findTask(const RoleSpec &r, RoleTask t) {
  for (const Located<RoleTask> &x : r.does)
    if (x.value == t)
      return &x;
  return nullptr;
}

/// "'producer', 'mma' and 'writeback'": the spec's role names for a message.
inline std::string roleList(const KernelSpec &spec) {
  std::vector<std::string> names;
  for (const RoleSpec &r : spec.roles)
    names.push_back(r.name.value);
  return sentenceList(names, /*quoted=*/true);
}

/// A barrier end (`from`/`to`) must name a role of the spec; otherwise an
/// error at the name, with the closest role or the list of roles.
inline bool checkRoleName(const KernelSpec &spec, DiagnosticEngine &diags,
                          const Located<std::string> &ref, const std::string &path) {
  if (!ref.given || spec.findRole(ref.value))
    return true;
  std::string msg = "unknown role '" + ref.value + "' in '" + path + "'";
  std::vector<llvm::StringRef> names;
  for (const RoleSpec &r : spec.roles)
    names.push_back(r.name.value);
  if (std::optional<llvm::StringRef> best = closestMatch(ref.value, names))
    msg += "; did you mean '" + best->str() + "'?";
  else if (!spec.roles.empty())
    msg += "; the roles are " + roleList(spec);
  diags.error(ref.loc, msg);
  return false;
}

/// With the protocol checks off, the barriers' ends are still checked:
/// lowering needs the roles they name.
inline void checkBarrierEnds(const KernelSpec &spec, DiagnosticEngine &diags) {
  for (const BarrierSpec &b : spec.barriers) {
    checkRoleName(spec, diags, b.from, "barriers." + b.name.value + ".from");
    checkRoleName(spec, diags, b.to, "barriers." + b.name.value + ".to");
  }
}

/// One protocol barrier declared under two names (`full` and `tma2mma`):
/// the first declaration counts, a later one is an error at its name.
/// `first` is the slot for that barrier; true for the first declaration.
inline bool firstDeclaration(const BarrierSpec *&first, const BarrierSpec &b,
                             DiagnosticEngine &diags) {
  if (first) {
    diags.error(b.name.loc, "barrier '" + b.name.value + "' is the same barrier as '" +
                                first->name.value + "'; declare it once");
    return false;
  }
  first = &b;
  return true;
}

} // namespace checks
} // namespace gemmgen

#endif // GEMMGEN_LIB_CHECKSCOMMON_H

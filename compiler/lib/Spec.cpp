//===- Spec.cpp - Names of spec enums and small KernelSpec helpers --------===//
//
// toString() returns the word a spec file uses for each enum value (the same
// words the parser accepts), so that diagnostics, the IR printer and the
// generated banner all spell values the way a user writes them.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Spec.h"

#include <algorithm>

namespace gemmgen {

const char *toString(Target t) {
  switch (t) {
  case Target::SM90a:
    return "sm_90a";
  case Target::SM100a:
    return "sm_100a";
  }
  return "?";
}

const char *toString(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
    return "f16";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::F32:
    return "f32";
  case ScalarType::E4M3:
    return "e4m3";
  case ScalarType::E5M2:
    return "e5m2";
  }
  return "?";
}

const char *toString(MatrixLayout l) {
  switch (l) {
  case MatrixLayout::Row:
    return "row";
  case MatrixLayout::Col:
    return "col";
  }
  return "?";
}

const char *toString(SchedulerKind k) {
  switch (k) {
  case SchedulerKind::Persistent:
    return "persistent";
  case SchedulerKind::DataParallel:
    return "data_parallel";
  }
  return "?";
}

const char *toString(RasterOrder r) {
  switch (r) {
  case RasterOrder::AlongM:
    return "along_m";
  case RasterOrder::AlongN:
    return "along_n";
  case RasterOrder::Hilbert:
    return "hilbert";
  }
  return "?";
}

const char *toString(EpilogueStore s) {
  switch (s) {
  case EpilogueStore::Tma:
    return "tma";
  case EpilogueStore::Direct:
    return "direct";
  }
  return "?";
}

const char *toString(RoleTask t) {
  switch (t) {
  case RoleTask::TmaLoad:
    return "tma_load";
  case RoleTask::Mma:
    return "mma";
  case RoleTask::Epilogue:
    return "epilogue";
  }
  return "?";
}

const char *toString(BarrierKind k) {
  switch (k) {
  case BarrierKind::Tma:
    return "tma";
  case BarrierKind::Mbarrier:
    return "mbarrier";
  case BarrierKind::Commit:
    return "commit";
  case BarrierKind::Named:
    return "named";
  }
  return "?";
}

unsigned sizeInBytes(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16:
    return 2;
  case ScalarType::F32:
    return 4;
  case ScalarType::E4M3:
  case ScalarType::E5M2:
    return 1;
  }
  return 0;
}

const RoleSpec *KernelSpec::findRole(const std::string &name) const {
  for (const RoleSpec &r : roles)
    if (r.name.value == name)
      return &r;
  return nullptr;
}

const RoleSpec *KernelSpec::roleDoing(RoleTask task) const {
  for (const RoleSpec &r : roles)
    for (const Located<RoleTask> &t : r.does)
      if (t.value == task)
        return &r;
  return nullptr;
}

} // namespace gemmgen

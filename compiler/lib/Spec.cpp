//===- Spec.cpp - Names of spec enums and small KernelSpec helpers --------===//
//
// toString() returns the word a spec file uses for each enum value (the same
// words the parser accepts), so that diagnostics, the IR printer and the
// generated banner all spell values the way a user writes them.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/Spec.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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
  case SchedulerKind::StreamK:
    return "stream_k";
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

const char *toString(ConsumerMode m) {
  return m == ConsumerMode::PingPong ? "pingpong" : "cooperative";
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

const char *toString(EpilogueOpKind k) {
  switch (k) {
  case EpilogueOpKind::Bias:
    return "bias";
  case EpilogueOpKind::Relu:
    return "relu";
  case EpilogueOpKind::GeluTanh:
    return "gelu_tanh";
  case EpilogueOpKind::GeluErf:
    return "gelu_erf";
  case EpilogueOpKind::Silu:
    return "silu";
  case EpilogueOpKind::Residual:
    return "residual";
  case EpilogueOpKind::Clamp:
    return "clamp";
  case EpilogueOpKind::Scale:
    return "scale";
  }
  return "?";
}

const char *toString(ScalingMode m) {
  return m == ScalingMode::Blockwise ? "blockwise" : "per_tensor";
}

const char *toString(BiasAxis a) { return a == BiasAxis::Row ? "row" : "column"; }

/// A float as the spec would write it: the shortest %g form that reads back.
static std::string shortFloat(float v) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(v));
    if (std::strtof(buf, nullptr) == v)
      break;
  }
  return buf;
}

std::string describe(const EpilogueStep &s) {
  std::string out = toString(s.kind);
  if (s.kind == EpilogueOpKind::Bias)
    out += std::string("(") + toString(s.axis) + ", " + toString(s.biasType) + ")";
  else if (s.kind == EpilogueOpKind::Clamp)
    out += "(" + shortFloat(s.lo) + ", " + shortFloat(s.hi) + ")";
  return out;
}

std::string describeChain(const std::vector<EpilogueStep> &chain) {
  if (chain.empty())
    return "none";
  std::string out;
  for (size_t i = 0; i < chain.size(); ++i)
    out += (i ? " -> " : "") + describe(chain[i]);
  return out;
}

bool chainHas(const std::vector<EpilogueStep> &chain, EpilogueOpKind k) {
  return std::any_of(chain.begin(), chain.end(),
                     [&](const EpilogueStep &s) { return s.kind == k; });
}

std::vector<EpilogueStep> EpilogueSpec::steps(ScalarType dType) const {
  std::vector<EpilogueStep> out;
  for (const EpilogueOpSpec &op : chain) {
    EpilogueStep s;
    s.kind = op.kind.value;
    s.axis = op.per.value;
    // An 8-bit D has no 8-bit bias: bf16 unless the step says.
    s.biasType = op.type.given ? op.type.value : isFp8(dType) ? ScalarType::BF16 : dType;
    s.lo = op.min.value;
    s.hi = op.max.value;
    out.push_back(s);
  }
  return out;
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

//===- DeviceHeaders.h - Device headers embedded in the library -*- C++ -*-===//
//
// The PTX wrapper headers that generated kernels include are embedded into
// the library at build time, so that `emit --standalone` can inline them and
// NVRTC can receive them through its headers argument without the source
// tree being present.
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_DEVICEHEADERS_H
#define GEMMGEN_DEVICEHEADERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace gemmgen {

struct DeviceHeader {
  llvm::StringRef includeName; ///< as written in #include "..."
  llvm::StringRef text;
};

/// Every embedded device header.
llvm::ArrayRef<DeviceHeader> deviceHeaders();

/// The PTX wrappers both targets share, "gemmgen/device/common_ptx.cuh"
/// (sm90_ptx.cuh and sm100_ptx.cuh include it).
llvm::StringRef commonPtxDeviceHeader();

/// The sm_90a PTX wrapper header, "gemmgen/device/sm90_ptx.cuh".
llvm::StringRef sm90DeviceHeader();

/// The sm_100a PTX wrapper header, "gemmgen/device/sm100_ptx.cuh".
llvm::StringRef sm100DeviceHeader();

/// The tile schedule every kernel includes, "gemmgen/device/tile_schedule.cuh"
/// (host and device: the runtime and the simulator run the same code).
llvm::StringRef tileScheduleDeviceHeader();
/// gemmgen/device/epilogue_ops.cuh: the epilogue chain's ops (host and device).
llvm::StringRef epilogueOpsDeviceHeader();

} // namespace gemmgen

#endif // GEMMGEN_DEVICEHEADERS_H

//===- KernelBindings.cpp - gemmgen._core.Kernel and array views -----------===//
//
// The launch entry takes plain integers (pointers, shapes, element strides)
// that the Python layer read from torch tensors, __cuda_array_interface__
// dicts or DLPack capsules (dlpack_view), so one call costs a few hundred ns
// of argument conversion before the runtime's launch.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"
#include "Errors.h"
#include "Kernel.h"

#include "gemmgen/Spec.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

namespace nb = nanobind;
using namespace nb::literals;
using namespace gemmgen;
using namespace gemmgen::python;

namespace {

MatrixView view(std::uintptr_t ptr, long long rows, long long cols, long long s0, long long s1) {
  return MatrixView{ptr, rows, cols, s0, s1};
}

/// (dtype, device type, device id, data pointer, shape, strides in elements)
/// of any DLPack producer; dtype as "f16", "bf16" or "<kind><bits>".
nb::tuple dlpackView(nb::ndarray<nb::ro> a) {
  nb::dlpack::dtype t = a.dtype();
  std::string dtype;
  if (t.lanes == 1 && t.bits == 16 && t.code == (uint8_t)nb::dlpack::dtype_code::Float)
    dtype = "f16";
  else if (t.lanes == 1 && t.bits == 16 && t.code == (uint8_t)nb::dlpack::dtype_code::Bfloat)
    dtype = "bf16";
  else if (t.lanes == 1 && t.bits == 32 && t.code == (uint8_t)nb::dlpack::dtype_code::Float)
    dtype = "f32";
  else {
    static const char *kinds[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
    dtype = (t.code < 7 ? kinds[t.code] : "code" + std::to_string(t.code)) +
            std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
  }
  nb::list shape, strides;
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape.append(a.shape(i));
    strides.append(a.stride(i));
  }
  return nb::make_tuple(dtype, a.device_type(), a.device_id(), (std::uintptr_t)a.data(),
                        nb::tuple(shape), nb::tuple(strides));
}

nb::tuple layoutPair(std::pair<Layout, Layout> p) {
  return nb::make_tuple(toString(p.first), toString(p.second));
}

/// What a launch on these arguments reads and writes: M, N, K, each
/// operand's layout and leading dimension, and the (A, B) layouts a kernel
/// must be compiled for (rowMajorProblem's).
nb::dict argsDict(const GemmArgs &g) {
  nb::dict d;
  d["m"] = g.M;
  d["n"] = g.N;
  d["k"] = g.K;
  d["lda"] = g.lda;
  d["ldb"] = g.ldb;
  d["ldd"] = g.ldd;
  d["layout_a"] = toString(g.layoutA);
  d["layout_b"] = toString(g.layoutB);
  d["layout_d"] = toString(g.layoutD);
  d["kernel_layout"] = layoutPair(kernelLayouts(g));
  return d;
}

GemmArgs argsFor(std::uintptr_t ap, long long am, long long ak, long long as0, long long as1,
                 std::uintptr_t bp, long long bk, long long bn, long long bs0, long long bs1,
                 std::uintptr_t dp, long long dm, long long dn, long long ds0, long long ds1) {
  return unwrap(gemmArgsFor(view(ap, am, ak, as0, as1), view(bp, bk, bn, bs0, bs1),
                            view(dp, dm, dn, ds0, ds1)));
}

nb::dict planBinding(std::uintptr_t ap, long long am, long long ak, long long as0, long long as1,
                     std::uintptr_t bp, long long bk, long long bn, long long bs0, long long bs1,
                     std::uintptr_t dp, long long dm, long long dn, long long ds0,
                     long long ds1) {
  return argsDict(argsFor(ap, am, ak, as0, as1, bp, bk, bn, bs0, bs1, dp, dm, dn, ds0, ds1));
}

/// What a choice is asked about for these arrays (choiceProblem: the problem
/// with out row-major, N×M for a column-major out): its M and N and the
/// (A, B) layouts a kernel needs — gemmgen.matmul's key.
nb::tuple kernelProblemBinding(long long am, long long ak, long long as0, long long as1,
                               long long bk, long long bn, long long bs0, long long bs1,
                               long long dm, long long dn, long long ds0, long long ds1) {
  const ChoiceProblem p =
      choiceProblem(argsFor(0, am, ak, as0, as1, 0, bk, bn, bs0, bs1, 0, dm, dn, ds0, ds1));
  return nb::make_tuple(p.M, p.N, layoutPair({p.options.a, p.options.b}));
}

/// A call's extras as the binding takes them (_extras.Extras.flat()): alpha,
/// beta, c's pointer, rows, cols and strides (rows < 0: no c), then the
/// bias, scale_a, scale_b, scale_d and amax pointers.
using ExtrasTuple = std::tuple<float, float, std::uintptr_t, long long, long long, long long,
                               long long, std::uintptr_t, std::uintptr_t, std::uintptr_t,
                               std::uintptr_t, std::uintptr_t>;

CallExtras extrasFor(const ExtrasTuple &x) {
  CallExtras e;
  e.alpha = std::get<0>(x);
  e.beta = std::get<1>(x);
  if (std::get<3>(x) >= 0)
    e.c = view(std::get<2>(x), std::get<3>(x), std::get<4>(x), std::get<5>(x), std::get<6>(x));
  e.bias = std::get<7>(x);
  e.scaleA = std::get<8>(x);
  e.scaleB = std::get<9>(x);
  e.scaleD = std::get<10>(x);
  e.amaxD = std::get<11>(x);
  return e;
}

} // namespace

void python::bindKernel(nb::module_ &m) {
  nb::class_<PyKernel>(m, "Kernel")
      .def_prop_ro("spec_name", &PyKernel::specName)
      .def_prop_ro("source", &PyKernel::source)
      .def_prop_ro("name", [](const PyKernel &k) { return k.abi().kernelName; })
      .def_prop_ro("target", [](const PyKernel &k) { return std::string(toString(k.abi().target)); })
      .def_prop_ro("dtype", [](const PyKernel &k) { return std::string(toString(k.abi().aType)); })
      .def_prop_ro("dtype_b", [](const PyKernel &k) { return std::string(toString(k.abi().bType)); })
      .def_prop_ro("out_dtype", [](const PyKernel &k) { return std::string(toString(k.outType())); })
      .def_prop_ro("alpha_beta", [](const PyKernel &k) { return k.abi().alphaBeta; })
      .def_prop_ro("scaling", [](const PyKernel &k) {
        return std::string(k.abi().blockwiseScales   ? "blockwise"
                           : k.abi().perTensorScales ? "per_tensor"
                                                     : "none");
      })
      .def_prop_ro("fp8_output", [](const PyKernel &k) { return k.abi().fp8Output; })
      .def_prop_ro("split_k", [](const PyKernel &k) { return k.abi().splitK; })
      .def_prop_ro("epilogue", [](const PyKernel &k) { return k.epilogue().chain; })
      .def_prop_ro("bias", [](const PyKernel &k) -> nb::object {
        // (dtype, "row" | "column") of the chain's bias step, None without one
        const EpilogueInfo &e = k.epilogue();
        if (!e.bias)
          return nb::none();
        return nb::make_tuple(std::string(toString(e.biasType)),
                              std::string(e.biasPerRow ? "row" : "column"));
      })
      .def_prop_ro("chain_scale", [](const PyKernel &k) { return k.epilogue().scale; })
      .def_prop_ro("tile", [](const PyKernel &k) {
        return std::make_tuple(k.abi().tileM, k.abi().tileN, k.abi().tileK);
      })
      .def_prop_ro("cluster", [](const PyKernel &k) {
        return std::make_tuple(k.abi().clusterM, k.abi().clusterN);
      })
      .def_prop_ro("threads", [](const PyKernel &k) { return k.abi().threadsPerBlock; })
      .def_prop_ro("smem_bytes", [](const PyKernel &k) { return k.abi().sharedMemBytes; })
      .def_prop_ro("layout_a", [](const PyKernel &k) { return std::string(toString(k.layoutA())); })
      .def_prop_ro("layout_b", [](const PyKernel &k) { return std::string(toString(k.layoutB())); })
      .def_prop_ro("layout_d", [](const PyKernel &k) { return std::string(toString(k.layoutD())); })
      .def_prop_ro("k_alignment", [](const PyKernel &k) { return k.abi().kAlignment; })
      .def_prop_ro("registers", [](const PyKernel &k) { return k.cubin().usage.registers; })
      .def_prop_ro("spill_bytes", [](const PyKernel &k) {
        const ResourceUsage &u = k.cubin().usage;
        return u.spillStoreBytes + u.spillLoadBytes + u.localBytes;
      })
      .def_prop_ro("cubin_bytes", [](const PyKernel &k) { return k.cubin().cubin.size(); })
      .def_prop_ro("from_cache", [](const PyKernel &k) { return k.cubin().fromCache; })
      .def_prop_ro("compile_seconds", [](const PyKernel &k) { return k.cubin().compileSeconds; })
      .def_prop_ro("nvrtc_log", [](const PyKernel &k) { return k.cubin().log; })
      .def("load", [](PyKernel &k, int device) { k.loaded(device); }, "device"_a)
      .def("plan",
           [](const PyKernel &k, std::uintptr_t ap, long long am, long long ak, long long as0,
              long long as1, std::uintptr_t bp, long long bk, long long bn, long long bs0,
              long long bs1, std::uintptr_t dp, long long dm, long long dn, long long ds0,
              long long ds1, const ExtrasTuple &extras) {
             return argsDict(k.plan(view(ap, am, ak, as0, as1), view(bp, bk, bn, bs0, bs1),
                                    view(dp, dm, dn, ds0, ds1), extrasFor(extras)));
           })
      // The plain call (the fast path: no extras to convert)...
      .def("launch",
           [](PyKernel &k, int device, std::uintptr_t stream, std::uintptr_t ap, long long am,
              long long ak, long long as0, long long as1, std::uintptr_t bp, long long bk,
              long long bn, long long bs0, long long bs1, std::uintptr_t dp, long long dm,
              long long dn, long long ds0, long long ds1) {
             k.launch(device, stream, view(ap, am, ak, as0, as1), view(bp, bk, bn, bs0, bs1),
                      view(dp, dm, dn, ds0, ds1), CallExtras{});
           })
      // ... and one with alpha, beta, c, bias and the scales.
      .def("launch_with",
           [](PyKernel &k, int device, std::uintptr_t stream, std::uintptr_t ap, long long am,
              long long ak, long long as0, long long as1, std::uintptr_t bp, long long bk,
              long long bn, long long bs0, long long bs1, std::uintptr_t dp, long long dm,
              long long dn, long long ds0, long long ds1, const ExtrasTuple &extras) {
             k.launch(device, stream, view(ap, am, ak, as0, as1), view(bp, bk, bn, bs0, bs1),
                      view(dp, dm, dn, ds0, ds1), extrasFor(extras));
           });
  m.def("device_info", [](int device) {
    const DeviceInfo &d = runtimeFor(device).device();
    nb::dict out;
    out["ordinal"] = d.ordinal;
    out["name"] = d.name;
    out["compute_capability"] = nb::make_tuple(d.ccMajor, d.ccMinor);
    out["sm_count"] = d.smCount;
    out["l2_bytes"] = d.l2Bytes;
    out["max_smem_optin_bytes"] = d.maxSmemOptinBytes;
    out["total_mem_bytes"] = d.totalMemBytes;
    out["driver_version"] = d.driverVersion;
    return out;
  }, "device"_a);
  m.def("plan", &planBinding);
  m.def("kernel_problem", &kernelProblemBinding);
  m.def("dlpack_view", &dlpackView, "array"_a);
}

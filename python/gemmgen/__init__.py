"""gemmgen: warp-specialized GEMM kernels from YAML specs, from Python.

    import gemmgen, torch
    gemmgen.check("specs/sm90/01_ws_1consumer.yaml")        # raises SpecError with located diagnostics
    src = gemmgen.emit("specs/sm90/01_ws_1consumer.yaml")   # the CUDA C++
    k = gemmgen.compile("specs/sm90/05_fast_f16.yaml")      # NVRTC; no GPU needed
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    c = k(a, w.t())                      # a @ w.T on the current stream
    kc = gemmgen.compile("specs/sm90/05_fast_f16.yaml", layout=("col", "col"))
    c = kc(a.t(), w.t())                 # a.T @ w.T: A read M-major, no copy
    c = gemmgen.matmul(a, w.t())         # the tuned spec for the shape
    c = torch.ops.gemmgen.matmul(a, w.t())  # the same as a torch op (torch.compile traces it)
    c = gemmgen.scaled_matmul(a8, w8.t(), sa, sb)   # fp8 (per-tensor or blockwise scales)

This package is a thin layer over the C++ library (gemmgen/gemmgen.h and the
compiler's entry points); see docs/PYTHON.md.
"""
from __future__ import annotations

import atexit
import importlib.util
from typing import List, Optional, Sequence, Tuple

from . import _core, _spec
from ._matmul import choose_kernel, matmul, tuned_defaults_path, tuned_spec
from ._scaled_matmul import choose_fp8_kernel, scaled_matmul
from .errors import (ArgumentError, CompileError, CudaError, Diagnostic, DTypeError, Error,
                     NoDeviceError, ProtocolError, SpecError, UnsupportedError)
from .kernel import Kernel, plan

# The C++ library's version (CMake's project()); pyproject.toml repeats it for pip,
# and tests/test_spec.py holds the two together.
__version__ = _core.version()


def _layout_override(layout: Optional[Tuple[str, str]]) -> "_core.LayoutOverride":
    """``layout=(a, b)``, each "row" or "col", as the compiler's override
    (None: the spec's own ``layout``)."""
    if layout is None:
        return _core.LayoutOverride("", "")
    if (not isinstance(layout, (tuple, list)) or len(layout) != 2
            or not all(isinstance(x, str) for x in layout)):
        raise ArgumentError(f"layout must be a pair (a, b) of \"row\" or \"col\", e.g. (\"col\", \"row\"), "
                            f"or None for the spec's layouts; got {layout!r}")
    return _core.LayoutOverride(layout[0], layout[1])


def check(spec: _spec.SpecLike, *, simulate: bool = True, seeds: int = 4,
          protocol_checks: bool = True, layout: Optional[Tuple[str, str]] = None) -> List[Diagnostic]:
    """Checks a spec (a path, YAML text or a dict) as ``gemmgen check`` does:
    parse, target rules and the barrier protocol, then (``simulate``) a short
    CPU simulation of the protocol over ``seeds`` interleavings. Returns the
    warnings; raises :class:`SpecError` (``.diagnostics``: file, line,
    column, severity, message) or :class:`ProtocolError`.
    ``protocol_checks=False`` skips the static comparison of declared
    barriers with the derived protocol (as ``gemmgen simulate
    --no-protocol-checks``), leaving a wrong protocol to the simulation.
    ``layout`` checks the spec compiled for other operand layouts (as
    :func:`compile` takes it)."""
    result = _core.check(_spec.source(spec), simulate, seeds, protocol_checks, _layout_override(layout))
    return list(result["warnings"])


def emit(spec: _spec.SpecLike, *, print_ir: bool = False, standalone: bool = False,
         debug_hangs: bool = False, layout: Optional[Tuple[str, str]] = None) -> str:
    """The CUDA C++ gemmgen generates for a spec (``print_ir``: its Kernel
    IR instead), as ``gemmgen emit`` prints it; ``layout`` as for
    :func:`compile`."""
    return _core.emit(_spec.source(spec), print_ir, standalone, debug_hangs, _layout_override(layout))


def compile(spec: _spec.SpecLike, *, debug_hangs: bool = False, cache: bool = True,
            cache_dir: Optional[str] = None, nvrtc_options: Sequence[str] = (),
            layout: Optional[Tuple[str, str]] = None) -> Kernel:
    """Compiles a spec with NVRTC for its target (no GPU needed; cubins are
    cached on disk, $GEMMGEN_CACHE_DIR or ~/.cache/gemmgen) and returns a
    :class:`Kernel`, which loads onto a GPU when first called there.

    ``layout=(a, b)`` replaces the spec's ``layout`` before it is checked:
    a is "row" (A K-major, the default) or "col" (A M-major), b is "col" (B
    K-major, the default) or "row" (B N-major). A kernel runs only arrays
    of those layouts (:func:`plan`'s ``kernel_layout`` says which a call
    needs; ``Kernel.layout_a`` / ``layout_b`` what a kernel has). sm_100a
    specs take only the default layouts (SpecError otherwise)."""
    core = _core.compile(_spec.source(spec), debug_hangs, cache, cache_dir or "", list(nvrtc_options),
                         _layout_override(layout))
    return Kernel(core)


def device_info(device: int = 0) -> dict:
    """The GPU gemmgen launches on (name, compute capability, SMs, ...).
    Raises :class:`NoDeviceError` where there is no driver or GPU."""
    return _core.device_info(device)


def nvrtc_version() -> str:
    """The NVRTC version gemmgen compiles with, e.g. "13.0"."""
    return _core.nvrtc_version()


def _release_cached_kernels() -> None:
    # The kernels matmul/scaled_matmul cache are freed while the extension
    # still runs: torch's op registry keeps these modules (and their caches)
    # alive past the interpreter's module teardown, where nanobind would
    # report every cached Kernel as leaked.
    from . import _matmul, _scaled_matmul
    for cache in (_matmul._kernels_by_shape, _matmul._kernels_by_spec,
                  _scaled_matmul._kernels_by_problem):
        cache.clear()


atexit.register(_release_cached_kernels)

if importlib.util.find_spec("torch") is not None:
    from . import torch_ops  # noqa: F401  (registers torch.ops.gemmgen.matmul and scaled_mm)

__all__ = [
    "check", "emit", "compile", "matmul", "plan", "Kernel", "tuned_spec", "tuned_defaults_path",
    "choose_kernel", "choose_fp8_kernel", "scaled_matmul",
    "nvrtc_version", "device_info", "Error", "SpecError", "ProtocolError", "CompileError", "NoDeviceError",
    "UnsupportedError", "ArgumentError", "DTypeError", "CudaError", "Diagnostic",
]

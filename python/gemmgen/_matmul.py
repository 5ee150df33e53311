"""gemmgen.matmul: the tuned kernel for the shape, compiled once per process."""
from __future__ import annotations

import os
from typing import Any, Dict, Tuple

from . import _arrays, _core
from .errors import ArgumentError, DTypeError, Error
from .kernel import Kernel

_HERE = os.path.dirname(os.path.abspath(__file__))
_kernels_by_spec: Dict[str, Kernel] = {}
_kernels_by_shape: Dict[Tuple[int, int, int, str], Kernel] = {}


def tuned_defaults_path() -> str:
    """$GEMMGEN_TUNED_DEFAULTS, else the defaults installed with the package."""
    env = os.environ.get("GEMMGEN_TUNED_DEFAULTS")
    if env:
        return env
    path = os.path.join(_HERE, "specs", "tuned", "defaults.yaml")
    if not os.path.isfile(path):
        raise Error(f"the tuned defaults are missing ({path}): reinstall gemmgen, or set "
                    f"GEMMGEN_TUNED_DEFAULTS to a defaults.yaml")
    return path


def tuned_spec(m: int, n: int, k: int, dtype: str) -> str:
    """The spec file the tuned defaults pick for an m×n×k GEMM of dtype
    ("f16" or "bf16"): the exact shape, else the nearest tuned one."""
    path, _, _, _ = _core.tuned_spec(tuned_defaults_path(), m, n, k, dtype)
    return path


def kernel_for(m: int, n: int, k: int, dtype: str) -> Kernel:
    key = (m, n, k, dtype)
    kern = _kernels_by_shape.get(key)
    if kern is None:
        from . import compile as _compile
        spec = tuned_spec(m, n, k, dtype)
        kern = _kernels_by_spec.get(spec)
        if kern is None:
            kern = _kernels_by_spec[spec] = _compile(spec)
        _kernels_by_shape[key] = kern
    return kern


def _dims(a: Any, b: Any) -> Tuple[int, int, int, str]:
    torch = _arrays.torch_module()
    if torch is not None and isinstance(a, torch.Tensor):
        if a.dim() != 2 or not isinstance(b, torch.Tensor) or b.dim() != 2:
            raise ArgumentError(f"a and b must be 2-D torch tensors (a is {tuple(a.shape)}, "
                                f"b is {tuple(getattr(b, 'shape', ()))}); batched matmul is not supported")
        if a.device.type != "cuda":
            raise ArgumentError(f"a is on {a.device}; gemmgen kernels run on CUDA tensors (use a.cuda())")
        dtype = _arrays.torch_dtype_name(a)
        m, k = a.shape
        n = b.shape[1]
    else:
        av, bv = _arrays.view(a, "a"), _arrays.view(b, "b")
        if len(av.shape) != 2 or len(bv.shape) != 2:
            raise ArgumentError(f"a and b must be 2-D matrices (a is {av.shape}, b is {bv.shape})")
        dtype = av.dtype
        m, k = av.shape
        n = bv.shape[1]
    if dtype not in ("f16", "bf16"):
        raise DTypeError(f"gemmgen.matmul takes float16 or bfloat16 arrays (a is {dtype})")
    return m, n, k, dtype


def matmul(a: Any, b: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``out = a @ b`` with the kernel tuned for this shape and dtype
    (specs/tuned/defaults.yaml, installed with the package; the nearest
    tuned shape when this one was not tuned). Same arguments and layout
    rules as calling a :class:`gemmgen.Kernel`."""
    m, n, k, dtype = _dims(a, b)
    return kernel_for(m, n, k, dtype)(a, b, out, stream=stream)

"""gemmgen.scaled_matmul: fp8 GEMMs with per-tensor or blockwise scales, with
the cost model's fp8 kernel for the shape (the C++ ``chooseFp8Kernel``),
compiled once per process for each spec and pair of operand layouts."""
from __future__ import annotations

from typing import Any, Dict, Optional

from . import _arrays, _core
from ._matmul import DEFAULT_LAYOUT, Layouts, compiled, device_choice_gpu, operands
from .errors import ArgumentError, DTypeError
from .kernel import Kernel

_FP8 = ("e4m3", "e5m2")
_OUTS = ("bf16", "f16", "f32", "e4m3", "e5m2")
_SCALINGS = ("per_tensor", "blockwise")
_kernels_by_problem: Dict[tuple, Kernel] = {}


def _type_name(t: Any, what: str) -> str:
    """A dtype given by name ("bf16") or as a torch dtype (torch.bfloat16)."""
    if isinstance(t, str):
        name = t
    else:
        torch = _arrays.torch_module()
        if torch is None or not isinstance(t, torch.dtype):
            raise DTypeError(f"{what} must be a dtype name ({', '.join(_OUTS)}) or a torch dtype; got {t!r}")
        name = _arrays.dtype_name(t)
    if name not in _OUTS:
        raise DTypeError(f"{what} {name} is not written by fp8 kernels; use one of {', '.join(_OUTS)}")
    return name


def choose_fp8_kernel(m: int, n: int, k: int, dtype: str = "e4m3", *, dtype_b: Optional[str] = None,
                      scaling: str = "per_tensor", out_dtype: Any = "bf16",
                      sm_count: int = 0) -> Dict[str, Any]:
    """The cost model's fp8 kernel for an m×n×k GEMM of ``dtype`` operands
    (e4m3 or e5m2; ``dtype_b`` for B if it differs) with ``scaling``
    ("per_tensor" or "blockwise") and D of ``out_dtype`` (bf16, f16, f32,
    e4m3 or e5m2), as :func:`choose_kernel` gives a
    16-bit one: ``name``, ``spec`` (YAML text), ``family``, ``split_k``,
    ``stream_k``, ``predicted_us``, ``default_us``, ``reason``. ``sm_count``:
    the multiprocessors of the GPU it will run on, 0 for the H200's 132 (the
    model counts its rounds of tiles on them)."""
    if scaling not in _SCALINGS:
        raise ArgumentError(f"scaling must be \"per_tensor\" or \"blockwise\"; got {scaling!r}")
    out = _type_name(out_dtype, "out_dtype")
    name, spec, family, split_k, stream_k, us, default_us, reason = _core.choose_fp8_kernel(
        m, n, k, dtype, dtype_b or dtype, out, scaling == "blockwise", sm_count)
    return {"name": name, "spec": spec, "family": family, "split_k": split_k,
            "stream_k": stream_k, "predicted_us": us, "default_us": default_us, "reason": reason}


def fp8_kernel_for(m: int, n: int, k: int, dtype: str, dtype_b: str, out_dtype: str, scaling: str,
                   layout: Layouts = DEFAULT_LAYOUT, sm_count: int = 0) -> Kernel:
    """The chosen fp8 kernel for the problem compiled for ``layout`` (as
    gemmgen.matmul's kernel_for does for 16-bit) on a GPU of ``sm_count``
    multiprocessors (0: the H200's); compiled once per process for each
    spec and layout."""
    key = (m, n, k, dtype, dtype_b, out_dtype, scaling, layout, sm_count)
    kern = _kernels_by_problem.get(key)
    if kern is None:
        # An empty dimension launches nothing: any kernel of the types does.
        spec = choose_fp8_kernel(max(m, 1), max(n, 1), max(k, 1), dtype, dtype_b=dtype_b,
                                 scaling=scaling, out_dtype=out_dtype, sm_count=sm_count)["spec"]
        kern = _kernels_by_problem[key] = compiled(spec, layout)
    return kern


def _count(x: Any, name: str) -> int:
    """How many values a scale array holds (its shape's product)."""
    torch = _arrays.torch_module()
    if torch is not None and isinstance(x, torch.Tensor):
        return x.numel()
    count = 1
    for d in _arrays.view(x, name).shape:
        count *= d
    return count


def scaled_matmul(a: Any, b: Any, scale_a: Any, scale_b: Any, out: Any = None, *,
                  out_dtype: Any = None, scaling: Optional[str] = None, scale_d: Any = None,
                  amax: Any = None, stream: Any = None) -> Any:
    """``out = (a @ b)`` of fp8 arrays with their scales applied, with the
    cost model's fp8 kernel for the shape (:func:`choose_fp8_kernel`).

    a (M×K) and b (K×N) are e4m3 or e5m2 (torch.float8_e4m3fn /
    float8_e5m2). wgmma reads 8-bit operands K-major only (a row-major,
    b = w.t() of an N×K weight): an a or b with unit stride along M or N
    instead is copied transposed into the workspace before the GEMM (one
    more read and write of it). ``scaling``:
    "per_tensor" (scale_a, scale_b one float32 each: out = sa·sb·a@b) or
    "blockwise" (scale_a of A's rows per 128-wide K block, a (ceil(K/128),
    M) float32 array; scale_b per 128×128 block of the N×K weight,
    (ceil(N/128), ceil(K/128)); each block's partial sum promoted in f32).
    Left out, it is "per_tensor" when both scales hold one value, else
    "blockwise". D's type: ``out``'s, else ``out_dtype`` (bf16 default; f16,
    f32, or e4m3/e5m2 with ``scale_d`` and ``amax`` as for a
    :class:`Kernel`)."""
    m, n, k, dtype, dtype_b, given_out, _, device = operands(a, b, out)
    if dtype not in _FP8 or dtype_b not in _FP8:
        raise DTypeError(f"gemmgen.scaled_matmul takes fp8 arrays (float8_e4m3fn or float8_e5m2); "
                         f"a is {dtype} and b is {dtype_b} (16-bit: gemmgen.matmul)")
    if scale_a is None or scale_b is None:
        raise ArgumentError("gemmgen.scaled_matmul needs scale_a and scale_b (float32 on the GPU: "
                            "one value each for per-tensor scales, or the blockwise arrays)")
    if scaling is None:
        scaling = ("per_tensor" if _count(scale_a, "scale_a") == 1 and _count(scale_b, "scale_b") == 1
                   else "blockwise")
    elif scaling not in _SCALINGS:
        raise ArgumentError(f"scaling must be \"per_tensor\" or \"blockwise\"; got {scaling!r}")
    if given_out is not None:
        if out_dtype is not None and _type_name(out_dtype, "out_dtype") != given_out:
            raise DTypeError(f"out is {given_out} but out_dtype is {_type_name(out_dtype, 'out_dtype')}: "
                             f"give one of them")
        out_type = _type_name(given_out, "out")
    else:
        out_type = _type_name(out_dtype if out_dtype is not None else "bf16", "out_dtype")
    # The fp8 kernels are K-major whatever the arrays' layouts: the runtime
    # copies an M- or N-major operand transposed.
    kern = fp8_kernel_for(m, n, k, dtype, dtype_b, out_type, scaling, DEFAULT_LAYOUT,
                          device_choice_gpu(device)[1])
    return kern(a, b, out, scale_a=scale_a, scale_b=scale_b, scale_d=scale_d, amax=amax, stream=stream)

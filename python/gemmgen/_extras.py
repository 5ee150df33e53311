"""What a kernel call takes besides a, b and out: alpha, beta and c; the
epilogue chain's bias and scale; fp8 scales; an 8-bit D's amax.

Each is read as a device array (torch tensor, ``__cuda_array_interface__``
or DLPack), checked here against the kernel (dtype, length, memory order,
device: what the runtime cannot see behind a pointer) and handed to the C++
launch as pointers. The runtime then checks what it can (alignment, a
missing pointer the kernel needs, layouts) before any GPU work.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

from . import _arrays
from .errors import ArgumentError, DTypeError

#: the block of a blockwise scale (types.scaling: blockwise): A per row per
#: 128-wide K block, B per 128x128 block.
SCALE_BLOCK = 128


class Extras(NamedTuple):
    """The extras as the C++ launch takes them (after a, b, out)."""
    alpha: float
    beta: float
    c: Tuple[int, int, int, int, int]  # ptr, rows, cols, row stride, col stride; rows -1: none
    bias: int
    scale_a: int
    scale_b: int
    scale_d: int
    amax: int

    def flat(self) -> tuple:
        """The binding's extras argument: alpha, beta, c's five, bias, scale_a, scale_b, scale_d, amax."""
        return (self.alpha, self.beta, *self.c, self.bias, self.scale_a, self.scale_b, self.scale_d,
                self.amax)


NO_C = (0, -1, 0, 0, 0)


def given(c: Any, alpha: float, beta: float, bias: Any, scale_a: Any, scale_b: Any, scale_d: Any,
          amax: Any) -> bool:
    """Whether a call passes any extra (else it is the plain launch)."""
    return (c is not None or bias is not None or scale_a is not None or scale_b is not None
            or scale_d is not None or amax is not None or alpha != 1.0 or beta != 0.0)


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _read(x: Any, name: str, device: int) -> "_arrays.ArrayView":
    v = _arrays.view(x, name, device)
    if v.device != device:
        raise ArgumentError(f"{name} is on cuda:{v.device} and a on cuda:{device}: put both on the same GPU")
    return v


def _dense(v: "_arrays.ArrayView", name: str, rows: int, cols: int, order: str) -> None:
    """v holds rows x cols values with row r's `cols` values contiguous
    (element (r, c) at r * cols + c): as a flat vector, as a (rows, cols)
    C-contiguous array, or as the transposed view of one ((cols, rows) with
    strides (1, cols))."""
    n = rows * cols
    shape, strides = tuple(v.shape), tuple(v.strides)
    size = 1
    for s in shape:
        size *= s
    ok = False
    if size == n:
        if len(shape) <= 1:
            ok = n <= 1 or strides == (1,)
        elif len(shape) == 2:
            ok = (shape == (rows, cols) and (strides[1] == 1 or cols <= 1) and (strides[0] == cols or rows <= 1)) or \
                 (shape == (cols, rows) and (strides[0] == 1 or cols <= 1) and (strides[1] == cols or rows <= 1))
    if not ok:
        if n == 1:
            raise ArgumentError(f"{name} (shape {shape}) must be one value ({order})")
        raise ArgumentError(f"{name} (shape {shape}, strides {strides}) must hold {n} values in {order}: a "
                            f"contiguous ({rows}, {cols}) array, or {n} contiguous values")


def _scalar(x: Any, name: str, device: int, what: str) -> int:
    return _scalar_view(_read(x, name, device), name, what)


def _scalar_view(v: "_arrays.ArrayView", name: str, what: str) -> int:
    if v.dtype != "f32":
        raise DTypeError(f"{name} is {v.dtype}; {what} is one float32 on the GPU "
                         f"(e.g. torch.tensor([1.0], device='cuda'))")
    _dense(v, name, 1, 1, "one float32")
    return v.ptr


def _vector(x: Any, name: str, device: int, dtype: str, length: int, what: str) -> int:
    v = _read(x, name, device)
    if v.dtype != dtype:
        raise DTypeError(f"{name} is {v.dtype}; {what} takes {dtype} values")
    _dense(v, name, 1, length, what)
    return v.ptr


def _c_view(c: Any, device: int, out_dtype: str) -> Tuple[int, int, int, int, int]:
    v = _read(c, "c", device)
    if len(v.shape) != 2:
        raise ArgumentError(f"c must be a 2-D matrix (it is {tuple(v.shape)})")
    if v.dtype != out_dtype:
        raise DTypeError(f"c is {v.dtype}; the kernel reads C in D's type ({out_dtype})")
    return (v.ptr, v.shape[0], v.shape[1], v.strides[0], v.strides[1])


def resolve(k: Any, m: int, n: int, kk: int, device: int, *, c: Any, alpha: float, beta: float,
            bias: Any, scale_a: Any, scale_b: Any, scale_d: Any, amax: Any) -> Optional[Extras]:
    """The extras of a call on kernel ``k`` (a gemmgen.Kernel) for an
    ``m x n x kk`` problem, or None when the call passes none (the plain
    launch). Raises ArgumentError / DTypeError naming the argument."""
    if not given(c, alpha, beta, bias, scale_a, scale_b, scale_d, amax):
        if k.bias is not None:
            _missing_bias(k, m, n)
        if k.scaling == "blockwise":
            _missing_blockwise(k)
        return None
    name = k.name
    try:
        alpha, beta = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise ArgumentError(f"alpha and beta must be numbers (got {alpha!r}, {beta!r})") from None
    if (alpha != 1.0 or beta != 0.0 or c is not None) and not k.alpha_beta:
        raise ArgumentError(f"kernel {name} ({k.target}) computes D = A·B without alpha, beta and c; "
                            f"use an sm_90a kernel")
    if beta != 0.0 and c is None:
        raise ArgumentError(f"beta is {beta:g}, so D = alpha·a @ b + beta·c reads c: pass c= (an {m}x{n} "
                            f"{k.out_dtype} array; c=out accumulates into out)")
    cv = NO_C if c is None else _c_view(c, device, k.out_dtype)

    bias_ptr = 0
    if k.bias is None:
        if bias is not None:
            raise ArgumentError(f"kernel {name} has no bias step in its epilogue chain ({k.epilogue}); "
                                f"compile a spec whose epilogue.chain has bias")
    else:
        if bias is None:
            _missing_bias(k, m, n)
        dtype, per = k.bias
        length = m if per == "row" else n
        bias_ptr = _vector(bias, "bias", device, dtype, length,
                           f"the chain's bias (one value per {per} of D: {length} values)")

    sa = sb = 0
    if k.scaling == "none":
        if scale_a is not None or scale_b is not None:
            raise ArgumentError(f"kernel {name} has {k.dtype} operands and takes no scale_a / scale_b; "
                                f"scales are for fp8 kernels (fold a 16-bit scale into alpha)")
    elif k.scaling == "per_tensor":
        if scale_a is not None:
            sa = _scalar(scale_a, "scale_a", device, "A's per-tensor scale")
        if scale_b is not None:
            sb = _scalar(scale_b, "scale_b", device, "B's per-tensor scale")
    else:
        if scale_a is None or scale_b is None:
            _missing_blockwise(k)
        kb = _cdiv(kk, SCALE_BLOCK)
        va = _read(scale_a, "scale_a", device)
        vb = _read(scale_b, "scale_b", device)
        for v, nm in ((va, "scale_a"), (vb, "scale_b")):
            if v.dtype != "f32":
                raise DTypeError(f"{nm} is {v.dtype}; blockwise scales are float32")
        # A's: one per row per K block, rows contiguous ([kb][m]); B's: one per
        # 128x128 block of the N x K weight, its K blocks contiguous ([n/128][kb]).
        _dense(va, "scale_a", kb, m, f"A's block order (K block by K block, each {m} rows contiguous: "
                                     f"s_a[kb][m], e.g. sa.t().contiguous() of an (M, ceil(K/128)) sa)")
        _dense(vb, "scale_b", _cdiv(n, SCALE_BLOCK), kb,
               "B's block order (per 128 columns of N, its ceil(K/128) K blocks contiguous: s_b[n/128][kb])")
        sa, sb = va.ptr, vb.ptr

    sd = 0
    if scale_d is not None:
        if not (k.fp8_output or k.chain_scale):
            raise ArgumentError(f"kernel {name} has no scale_d: it is D's output scale for kernels with an "
                                f"8-bit D, or the scale step of an epilogue chain")
        sd = _scalar(scale_d, "scale_d", device, "D's scale")
    am = 0
    if amax is not None:
        if not k.fp8_output:
            raise ArgumentError(f"kernel {name} writes a {k.out_dtype} D and keeps no amax; the amax is "
                                f"kept by kernels with an 8-bit D (types.d e4m3 or e5m2)")
        v = _read(amax, "amax", device)
        if v.readonly:
            raise ArgumentError("amax is read-only (__cuda_array_interface__ data is marked read-only)")
        am = _scalar_view(v, "amax", "the amax")
    return Extras(alpha, beta, cv, bias_ptr, sa, sb, sd, am)


def _missing_bias(k: Any, m: int, n: int) -> None:
    dtype, per = k.bias
    raise ArgumentError(f"kernel {k.name}'s epilogue chain ({k.epilogue}) adds a bias: pass bias= (a "
                        f"{dtype} vector of {m if per == 'row' else n} values, one per {per} of D)")


def _missing_blockwise(k: Any) -> None:
    raise ArgumentError(f"kernel {k.name} scales blockwise (types.scaling: blockwise): pass scale_a "
                        f"(float32, ceil(K/128) x M) and scale_b (float32, ceil(N/128) x ceil(K/128))")

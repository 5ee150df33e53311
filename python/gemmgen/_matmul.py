"""gemmgen.matmul: the tuned kernel for the shape (the tuned DB's for exactly
that shape, else the cost model's choice), compiled once per process for
each pair of operand layouts it is called with."""
from __future__ import annotations

import os
from typing import Any, Dict, NamedTuple, Optional, Tuple

from . import _arrays, _core
from .errors import ArgumentError, DTypeError, Error
from .kernel import Kernel, out_row_stride

_HERE = os.path.dirname(os.path.abspath(__file__))
Layouts = Tuple[str, str]
#: The layouts the tuned specs are written (and tuned) for.
DEFAULT_LAYOUT: Layouts = ("row", "col")
#: Every compiled kernel of this process, by (spec, layout): gemmgen.matmul
#: and gemmgen.scaled_matmul share it, so one spec is compiled once.
_kernels_by_spec: Dict[Tuple[str, Layouts], Kernel] = {}
_kernels_by_shape: Dict[Tuple[int, int, int, str, Layouts, int, int], Kernel] = {}


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
    ("f16" or "bf16"): the exact shape, else the nearest tuned one (the DB
    lookup alone; :func:`kernel_for` takes the cost model's choice instead of
    the nearest)."""
    path, _, _, _ = _core.tuned_spec(tuned_defaults_path(), m, n, k, dtype)
    return path


def choose_kernel(m: int, n: int, k: int, dtype: str,
                  layout: Layouts = DEFAULT_LAYOUT, l2_bytes: int = 0,
                  sm_count: int = 0) -> Dict[str, Any]:
    """The cost model's kernel for an m×n×k GEMM of dtype ("f16" or "bf16"),
    as the C++ ``chooseKernel`` gives it (docs/RUNTIME.md, "Choosing a kernel
    for a shape"): ``name``, ``spec`` (YAML text for ``gemmgen.compile``),
    ``family``, ``split_k``, ``stream_k`` (True: the split runs in one
    launch, the family's stream-K kernel on aligned shares, no reduction
    kernel), ``predicted_us``, ``default_us``, ``reason``.
    ``layout``: the (a, b) layouts of the kernel it will be compiled for
    (``gemmgen.plan(...)["kernel_layout"]``): a b stored k×n, or for the
    decode tiles an a stored column-major, is loaded in 64-column boxes that
    only some tiles take. ``l2_bytes``: the L2 of the GPU it will run on
    (``gemmgen.device_info()["l2_bytes"]``), 0 for the H200's, where the
    rules were measured; ``sm_count`` its multiprocessors
    (``device_info()["sm_count"]``), 0 for the H200's 132: the split runs in
    one launch only where that launch cuts each tile into aligned shares."""
    name, spec, family, split_k, stream_k, us, default_us, reason = _core.choose_kernel(
        m, n, k, dtype, *layout, l2_bytes, sm_count)
    return {"name": name, "spec": spec, "family": family, "split_k": split_k,
            "stream_k": stream_k, "predicted_us": us, "default_us": default_us, "reason": reason}


def spec_for(m: int, n: int, k: int, dtype: str, layout: Layouts = DEFAULT_LAYOUT,
             l2_bytes: int = 0, sm_count: int = 0) -> str:
    """The spec :func:`matmul` compiles for an m×n×k GEMM of dtype and the
    kernel layout ``layout``: the tuned DB's file for exactly that shape, else
    the cost model's spec (YAML text) among the tiles that layout allows, for
    a GPU with ``l2_bytes`` of L2 and ``sm_count`` SMs (0: the H200's)."""
    # An empty dimension launches nothing: any kernel of the dtype does.
    dims = (max(m, 1), max(n, 1), max(k, 1))
    spec = _core.exact_tuned_spec(tuned_defaults_path(), *dims, dtype)
    return spec or choose_kernel(*dims, dtype, layout, l2_bytes, sm_count)["spec"]


def kernel_for(m: int, n: int, k: int, dtype: str, layout: Layouts = DEFAULT_LAYOUT,
               l2_bytes: int = 0, sm_count: int = 0) -> Kernel:
    """The kernel for the shape compiled for ``layout`` (the (a, b) layouts of
    the row-major problem, as ``gemmgen.plan(...)["kernel_layout"]`` gives
    them): the tuned DB's spec for exactly this shape and dtype, else the
    cost model's for a GPU with ``l2_bytes`` of L2 and ``sm_count`` SMs;
    compiled once per process for each spec and layout."""
    key = (m, n, k, dtype, layout, l2_bytes, sm_count)
    kern = _kernels_by_shape.get(key)
    if kern is None:
        kern = _kernels_by_shape[key] = compiled(
            spec_for(m, n, k, dtype, layout, l2_bytes, sm_count), layout)
    return kern


_gpu_by_device: Dict[int, Tuple[int, int]] = {}


def device_choice_gpu(device: int) -> Tuple[int, int]:
    """(L2 bytes, SM count) of GPU ``device`` for the cost model's rules,
    once per process; (0, 0) (the H200's) where no GPU opens: the launch
    then says why."""
    gpu = _gpu_by_device.get(device)
    if gpu is None:
        try:
            info = _core.device_info(device)
            gpu = (int(info["l2_bytes"]), int(info["sm_count"]))
        except Error:
            gpu = (0, 0)
        _gpu_by_device[device] = gpu
    return gpu


def compiled(spec: str, layout: Layouts) -> Kernel:
    """``spec`` (a path or YAML text) compiled for ``layout``, once per process."""
    kern = _kernels_by_spec.get((spec, layout))
    if kern is None:
        from . import compile as _compile
        kern = _kernels_by_spec[(spec, layout)] = _compile(spec, layout=layout)
    return kern


def _kernel_problem(m: int, n: int, k: int, sa, sb, out_dims) -> Tuple[int, int, Layouts]:
    """The problem with out row-major that a call makes (the runtime's
    rowMajorProblem rule, through the extension: one source of truth): its
    m and n (n×m for a column-major out, computed as out.T = b.T @ a.T) and
    the (a, b) layouts a kernel needs. ``out_dims`` is out's (shape,
    strides), or None for the output a call allocates."""
    if m == 0 or n == 0 or k == 0:
        return m, n, DEFAULT_LAYOUT  # nothing is launched: any kernel does
    if out_dims is None:
        (dm, dn), (ds0, ds1) = (m, n), (out_row_stride(m, n), 1)
    else:
        (dm, dn), (ds0, ds1) = out_dims
    km, kn, layout = _core.kernel_problem(m, k, sa[0], sa[1], k, n, sb[0], sb[1], dm, dn, ds0, ds1)
    return km, kn, tuple(layout)


class Operands(NamedTuple):
    """What choosing a call's kernel needs, read once from its arrays."""
    m: int
    n: int
    k: int
    dtype: str  # a's
    dtype_b: str
    out_dtype: Optional[str]  # None where the call allocates out
    layout: Layouts
    device: int  # the ordinal of a's GPU (its L2 steers the cost model's rules)


def operands(a: Any, b: Any, out: Any = None) -> Operands:
    """The :class:`Operands` of a call, for choosing its kernel, with m and n
    those of the problem with out row-major (n×m for a column-major out): the
    cost model, its rules and the tuned DB speak of that problem, and a
    kernel's layout is its. The kernel call checks the rest."""
    torch = _arrays.torch_module()
    out_dtype = None
    if torch is not None and isinstance(a, torch.Tensor):
        if a.dim() != 2 or not isinstance(b, torch.Tensor) or b.dim() != 2:
            raise ArgumentError(f"a and b must be 2-D torch tensors (a is {tuple(a.shape)}, "
                                f"b is {tuple(getattr(b, 'shape', ()))}); batched matmul is not supported")
        if a.device.type != "cuda":
            raise ArgumentError(f"a is on {a.device}; gemmgen kernels run on CUDA tensors (use a.cuda())")
        dtype, dtype_b = _arrays.torch_dtype_name(a), _arrays.torch_dtype_name(b)
        device = a.device.index or 0
        m, k = a.shape
        kb, n = b.shape
        sa, sb = a.stride(), b.stride()
        # An out the kernel call will refuse anyway leaves the choice to the defaults.
        out_dims = None
        if isinstance(out, torch.Tensor):
            out_dtype = _arrays.torch_dtype_name(out)
            if out.dim() == 2:
                out_dims = (tuple(out.shape), out.stride())
    else:
        av, bv = _arrays.view(a, "a"), _arrays.view(b, "b")
        if len(av.shape) != 2 or len(bv.shape) != 2:
            raise ArgumentError(f"a and b must be 2-D matrices (a is {av.shape}, b is {bv.shape})")
        dtype, dtype_b, device = av.dtype, bv.dtype, av.device
        m, k = av.shape
        kb, n = bv.shape
        sa, sb = av.strides, bv.strides
        out_dims = None
        if out is not None:
            ov = _arrays.view(out, "out")
            out_dtype = ov.dtype
            if len(ov.shape) == 2:
                out_dims = (ov.shape, ov.strides)
    if kb != k:
        layout = DEFAULT_LAYOUT  # the kernel call says the inner dimensions differ
    else:
        m, n, layout = _kernel_problem(m, n, k, sa, sb, out_dims)
    return Operands(m, n, k, dtype, dtype_b, out_dtype, layout, device)


def matmul(a: Any, b: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``out = a @ b`` with the kernel tuned for this shape and dtype
    (specs/tuned/defaults.yaml, installed with the package; the cost model's
    choice, :func:`choose_kernel`, when this shape was not tuned), compiled for the layouts the
    arrays have (``gemmgen.plan(a, b, out)["kernel_layout"]``: a.t(), b
    row-major, out.t() work without copies). Same arguments as calling a
    :class:`gemmgen.Kernel`."""
    op = operands(a, b, out)
    if op.dtype not in ("f16", "bf16"):
        hint = " (fp8: gemmgen.scaled_matmul)" if op.dtype in ("e4m3", "e5m2") else ""
        raise DTypeError(f"gemmgen.matmul takes float16 or bfloat16 arrays (a is {op.dtype}){hint}")
    kern = kernel_for(op.m, op.n, op.k, op.dtype, op.layout, *device_choice_gpu(op.device))
    return kern(a, b, out, stream=stream)

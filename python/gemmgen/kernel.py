"""A compiled kernel, callable on device arrays: ``out = kernel(a, b)``."""
from __future__ import annotations

from typing import Any, Optional

from . import _arrays, _core, _extras
from .errors import ArgumentError, DTypeError

_TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "e4m3": "float8_e4m3fn",
                "e5m2": "float8_e5m2"}
_ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "e4m3": 1, "e5m2": 1}
_EIGHT_BIT = ("e4m3", "e5m2")


def out_row_stride(m: int, n: int, element_bytes: int = 2) -> int:
    """Row stride (elements) of an output gemmgen allocates: N rounded up to
    16 bytes, since TMA needs 16-byte row strides (an M x N view of a wider
    buffer when N is not a multiple)."""
    per = 16 // element_bytes
    return n if m <= 1 or n % per == 0 else (n + per - 1) // per * per


def allocate_torch_out(torch, m: int, n: int, dtype, device):
    # torch.dtype.itemsize is torch >= 2.1; element_size() is older
    size = getattr(dtype, "itemsize", None) or torch.empty((), dtype=dtype).element_size()
    ld = out_row_stride(m, n, size)
    if ld == n:
        return torch.empty((m, n), dtype=dtype, device=device)
    return torch.empty_strided((m, n), (ld, 1), dtype=dtype, device=device)


def _shape_error(a_shape, b_shape) -> ArgumentError:
    return ArgumentError(f"a and b must be 2-D matrices (a is {tuple(a_shape)}, b is {tuple(b_shape)}); "
                         f"batched matmul is not supported")


# plan() without out=: stands for the output a call would allocate (fresh
# memory: not null, 16-byte aligned); never dereferenced.
_ALLOCATED_OUT_PTR = 1 << 12


def _allocated_out_view(av: "_arrays.ArrayView", n: int, dtype: str = "") -> "_arrays.ArrayView":
    m = av.shape[0]
    dtype = dtype or av.dtype
    ld = out_row_stride(m, n, _ELEMENT_BYTES.get(dtype, 2))
    return _arrays.ArrayView(_ALLOCATED_OUT_PTR, (m, n), (ld, 1), dtype, av.device)


def _plan_args(av, bv, ov) -> tuple:
    return (av.ptr, av.shape[0], av.shape[1], av.strides[0], av.strides[1],
            bv.ptr, bv.shape[0], bv.shape[1], bv.strides[0], bv.strides[1],
            ov.ptr, ov.shape[0], ov.shape[1], ov.strides[0], ov.strides[1])


def plan(a: Any, b: Any, out: Any = None) -> dict:
    """How gemmgen reads ``out = a @ b`` for these arrays, without a kernel
    and without launching: M, N, K; each operand's layout ("row" or "col")
    and leading dimension (elements) as its strides give them; and
    ``kernel_layout``, the (a, b) layouts a kernel must be compiled for
    (``gemmgen.compile(spec, layout=...)``; a column-major out swaps and
    flips them, as the runtime computes it as out.T = b.T @ a.T); for 8-bit
    (e4m3, e5m2) arrays always ("row", "col"): fp8 kernels read both
    operands K-major, and an a or b stored the other way is copied
    transposed before the launch (``transposed`` names which). ``out``
    None: the row-major output a call allocates. Raises the layout errors a
    call would (an array with no unit stride, overlapping lines, shapes
    that do not match)."""
    av = _arrays.view(a, "a")
    bv = _arrays.view(b, "b")
    if len(av.shape) != 2 or len(bv.shape) != 2:
        raise _shape_error(av.shape, bv.shape)
    if out is None:
        ov = _allocated_out_view(av, bv.shape[1])
    else:
        ov = _arrays.view(out, "out")
        if len(ov.shape) != 2:
            raise ArgumentError(f"out must be a 2-D matrix (it is {ov.shape})")
    d = _core.plan(*_plan_args(av, bv, ov))
    if av.dtype in _EIGHT_BIT or bv.dtype in _EIGHT_BIT:
        # The runtime's copiedTransposed: the fp8 kernels are compiled K-major.
        needed = d["kernel_layout"]
        d["kernel_layout"] = ("row", "col")
        # kernel_layout is the row-major problem's: a column-major out swaps a and b.
        arrays = "ab" if d["layout_d"] == "row" else "ba"
        d["transposed"] = tuple(sorted(name for name, have, want in
                                       zip(arrays, needed, d["kernel_layout"]) if have != want))
    return d


class Kernel:
    """A spec compiled to a cubin (``gemmgen.compile``); loaded onto a GPU
    the first time it is called with arrays there.

    ``kernel(a, b, out=None, *, c=None, alpha=1.0, beta=0.0, bias=None,
    scale_a=None, scale_b=None, scale_d=None, amax=None, stream=None)``
    computes ``out = alpha * (a @ b) + beta * c``, then the kernel's
    epilogue chain (``epilogue``), with a (M×K) and b (K×N) of the kernel's
    operand types (``dtype``, ``dtype_b``: f16, bf16, e4m3 or e5m2), out
    (M×N) of ``out_dtype`` (f16, bf16, f32, or e4m3/e5m2 for fp8 kernels),
    f32 accumulation. Each array needs unit stride along one of its
    dimensions: a along K (row-major) or M (column-major, ``a = x.t()``), b
    along K (``w.t()`` for an ``nn.Linear`` weight ``w``) or N (row-major),
    out along N (row-major) or M (``out = y.t()``); no copy is made. The
    kernel was compiled for one pair of layouts (``layout_a``, ``layout_b``;
    ``gemmgen.compile(spec, layout=...)``): arrays that need another pair
    (``gemmgen.plan(a, b, out)["kernel_layout"]``; a column-major out
    swaps and flips it) raise ArgumentError saying what to compile for
    (``gemmgen.matmul`` compiles for the arrays' layouts itself). Leading
    dimensions multiples of 8 elements, K a multiple of 8, base pointers
    16-byte aligned.

    The rest are device arrays too (float32 unless said), each checked
    against the kernel before anything is launched:

    - ``c``: M×N in ``out_dtype``, stored like out (``c=out`` accumulates in
      place); read only when ``beta`` is not 0, which needs it.
    - ``bias``: the chain's bias vector when it has one (``bias``: its
      dtype and whether it is per row, M values, or per column, N values).
    - ``scale_a``, ``scale_b``: fp8 kernels' scales. ``scaling ==
      "per_tensor"``: one value each (none = 1), D = alpha·sa·sb·(a @ b) +
      beta·c. ``"blockwise"``: arrays, required — A's one per row per
      128-wide K block in the order [K block][row] (a contiguous
      (ceil(K/128), M) array), B's one per 128×128 block of the N×K weight
      in the order [N block][K block] (contiguous (ceil(N/128),
      ceil(K/128))).
    - ``scale_d``: an 8-bit out's output scale (D = fp8(scale_d · v)), or
      the chain's scale step; one value, none = 1.
    - ``amax``: with an 8-bit out, set to max |v| over D (v before the
      output scale); one value, written.

    The launch is asynchronous, on the caller's current stream for torch
    tensors (``stream=`` overrides it), else on ``stream`` (a
    ``cudaStream_t`` as an int, or an object with ``.cuda_stream`` or
    ``.ptr``; default 0, the legacy default stream). An output it allocates
    has its row stride rounded up to 16 bytes. fp8 arrays are read from
    torch tensors (float8_e4m3fn, float8_e5m2).
    """

    def __init__(self, core: "_core.Kernel"):
        self._k = core
        self._torch_dtypes = None  # (a, b, out) torch dtypes, resolved on the first torch call
        # A call without extras must still be checked where the kernel needs some.
        self._needs_extras = core.bias is not None or core.scaling == "blockwise"

    # What the kernel is (from its launch contract and ptxas).
    name = property(lambda self: self._k.name)
    spec_name = property(lambda self: self._k.spec_name)
    target = property(lambda self: self._k.target)
    #: A's element type ("f16", "bf16", "e4m3", "e5m2"), B's, and D's (which
    #: C has too).
    dtype = property(lambda self: self._k.dtype)
    dtype_b = property(lambda self: self._k.dtype_b)
    out_dtype = property(lambda self: self._k.out_dtype)
    #: D = alpha·A·B + beta·C (every sm_90a kernel); else D = A·B.
    alpha_beta = property(lambda self: self._k.alpha_beta)
    #: fp8 scales: "none", "per_tensor" or "blockwise" (types.scaling).
    scaling = property(lambda self: self._k.scaling)
    #: an 8-bit D with an output scale and amax.
    fp8_output = property(lambda self: self._k.fp8_output)
    #: scheduler.split_k (1: none).
    split_k = property(lambda self: self._k.split_k)
    #: the epilogue chain as text ("none", "bias(column, bf16) -> gelu_tanh").
    epilogue = property(lambda self: self._k.epilogue)
    #: (dtype, "row" | "column") of the chain's bias, None without one.
    bias = property(lambda self: self._k.bias)
    #: the chain has a scale step (scale_d).
    chain_scale = property(lambda self: self._k.chain_scale)
    tile = property(lambda self: self._k.tile)
    cluster = property(lambda self: self._k.cluster)
    threads = property(lambda self: self._k.threads)
    smem_bytes = property(lambda self: self._k.smem_bytes)
    registers = property(lambda self: self._k.registers)
    spill_bytes = property(lambda self: self._k.spill_bytes)
    cubin_bytes = property(lambda self: self._k.cubin_bytes)
    from_cache = property(lambda self: self._k.from_cache)
    compile_seconds = property(lambda self: self._k.compile_seconds)
    source = property(lambda self: self._k.source)
    #: The layout of A ("row": K-major, "col": M-major) and of B ("col":
    #: K-major, "row": N-major) the kernel was compiled for.
    layout_a = property(lambda self: self._k.layout_a)
    layout_b = property(lambda self: self._k.layout_b)
    #: How the kernel stores out (the spec's layout.d): "row", or "col" for a kernel that
    #: computes a row-major out as out^T = b^T·a^T (spec 23, decode).
    layout_d = property(lambda self: self._k.layout_d)
    nvrtc_log = property(lambda self: self._k.nvrtc_log)

    def __repr__(self) -> str:
        m, n, k = self.tile
        types = self.dtype if self.dtype_b == self.dtype else f"{self.dtype}x{self.dtype_b}"
        if self.out_dtype != self.dtype:
            types += f"->{self.out_dtype}"
        return (f"<gemmgen.Kernel {self.name} {self.target} {types} layout ({self.layout_a}, "
                f"{self.layout_b}) tile {m}x{n}x{k}, "
                f"{self.threads} threads, {self.registers} registers, {self.smem_bytes} B smem>")

    def load(self, device: int = 0) -> None:
        """Loads the kernel on a GPU now (a call does it on first use)."""
        self._k.load(device)

    def __call__(self, a: Any, b: Any, out: Any = None, *, c: Any = None, alpha: float = 1.0,
                 beta: float = 0.0, bias: Any = None, scale_a: Any = None, scale_b: Any = None,
                 scale_d: Any = None, amax: Any = None, stream: Any = None) -> Any:
        extras = None
        if self._needs_extras or _extras.given(c, alpha, beta, bias, scale_a, scale_b, scale_d, amax):
            extras = dict(c=c, alpha=alpha, beta=beta, bias=bias, scale_a=scale_a, scale_b=scale_b,
                          scale_d=scale_d, amax=amax)
        torch = _arrays.torch_module()
        if torch is not None and isinstance(a, torch.Tensor):
            return self._call_torch(torch, a, b, out, stream, extras)
        return self._call_arrays(a, b, out, stream, extras)

    def plan(self, a: Any, b: Any, out: Any = None, *, c: Any = None, alpha: float = 1.0,
             beta: float = 0.0, bias: Any = None, scale_a: Any = None, scale_b: Any = None,
             scale_d: Any = None, amax: Any = None) -> dict:
        """What a call would launch, without launching: :func:`gemmgen.plan`'s
        dict (M, N, K, each operand's layout and leading dimension, the
        kernel layout the arrays need), after the checks a call makes before
        it opens a GPU: dtypes, layouts against the kernel's (``layout_a``,
        ``layout_b``), K and leading dimensions against its alignment,
        pointers, and the extras (c, bias, scales) against the kernel.
        Raises what the call would raise."""
        av, bv = self._views(a, b, None)
        ov = (self._view_out(out, av, bv, None) if out is not None
              else _allocated_out_view(av, bv.shape[1], self.out_dtype))
        x = _extras.resolve(self, av.shape[0], bv.shape[1], av.shape[1], av.device, c=c, alpha=alpha,
                            beta=beta, bias=bias, scale_a=scale_a, scale_b=scale_b, scale_d=scale_d,
                            amax=amax) or _PLAIN
        return self._k.plan(*_plan_args(av, bv, ov), x.flat())

    def _launch(self, device: int, s: int, args: tuple, m: int, n: int, kk: int, extras) -> None:
        x = None if extras is None else _extras.resolve(self, m, n, kk, device, **extras)
        if x is None:
            self._k.launch(device, s, *args)
        else:
            self._k.launch_with(device, s, *args, x.flat())

    # -- torch tensors: attributes read directly (the fast path) ------------
    def _call_torch(self, torch, a, b, out, stream, extras):
        if not isinstance(b, torch.Tensor) or (out is not None and not isinstance(out, torch.Tensor)):
            raise ArgumentError("a is a torch tensor: b and out must be torch tensors too")
        if a.dim() != 2 or b.dim() != 2:
            raise _shape_error(a.shape, b.shape)
        dev = a.device
        if dev.type != "cuda":
            raise ArgumentError(f"a is on {dev}; gemmgen kernels run on CUDA tensors (use a.cuda())")
        if b.device != dev:
            raise ArgumentError(f"a is on {dev} and b on {b.device}: put both on the same GPU")
        want = self._torch_dtypes
        if want is None:
            want = self._torch_dtypes = tuple(getattr(torch, _TORCH_NAMES[t])
                                              for t in (self.dtype, self.dtype_b, self.out_dtype))
        if a.dtype != want[0] or b.dtype != want[1]:
            raise DTypeError(f"a is {_torch_name(a)} and b is {_torch_name(b)}; this kernel ({self.name}) "
                             f"takes {_operand_text(self.dtype, self.dtype_b, _TORCH_NAMES)}")
        M, K = a.shape
        N = b.shape[1]
        if out is None:
            out = allocate_torch_out(torch, M, N, want[2], dev)
        else:
            if out.dim() != 2:
                raise ArgumentError(f"out must be a 2-D matrix (it is {tuple(out.shape)})")
            if out.device != dev:
                raise ArgumentError(f"out is on {out.device} and a on {dev}: put both on the same GPU")
            if out.dtype != want[2]:
                raise DTypeError(f"out is {_torch_name(out)}; this kernel ({self.name}) writes "
                                 f"{_TORCH_NAMES[self.out_dtype]}")
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        s = _current_torch_stream(torch, index) if stream is None else _stream_handle(stream)
        sa, sb, so = a.stride(), b.stride(), out.stride()
        self._launch(index, s, (a.data_ptr(), M, K, sa[0], sa[1], b.data_ptr(), b.shape[0], N, sb[0], sb[1],
                                out.data_ptr(), out.shape[0], out.shape[1], so[0], so[1]), M, N, K, extras)
        return out

    # -- __cuda_array_interface__ / DLPack arrays ---------------------------
    def _views(self, a, b, device):
        av = _arrays.view(a, "a", device)
        bv = _arrays.view(b, "b", device)
        if len(av.shape) != 2 or len(bv.shape) != 2:
            raise _shape_error(av.shape, bv.shape)
        if av.dtype != self.dtype or bv.dtype != self.dtype_b:
            raise DTypeError(f"a is {av.dtype} and b is {bv.dtype}; this kernel ({self.name}) takes "
                             f"{_operand_text(self.dtype, self.dtype_b)}")
        if av.device != bv.device:
            raise ArgumentError(f"a is on cuda:{av.device} and b on cuda:{bv.device}: put both on the same GPU")
        return av, bv

    def _view_out(self, out, av, bv, device):
        ov = _arrays.view(out, "out", device)
        if len(ov.shape) != 2:
            raise ArgumentError(f"out must be a 2-D matrix (it is {ov.shape})")
        if ov.dtype != self.out_dtype:
            raise DTypeError(f"out is {ov.dtype}; this kernel ({self.name}) writes {self.out_dtype}")
        if ov.device != av.device:
            raise ArgumentError(f"out is on cuda:{ov.device} and a on cuda:{av.device}: put both on the same GPU")
        if ov.readonly:
            raise ArgumentError("out is read-only (__cuda_array_interface__ data is marked read-only)")
        return ov

    def _call_arrays(self, a, b, out, stream, extras):
        av, bv = self._views(a, b, None)
        M, K = av.shape
        N = bv.shape[1]
        if out is None:
            out = _allocate_like(a, M, N, self.out_dtype)
        ov = self._view_out(out, av, bv, None)
        self._launch(av.device, _stream_handle(stream),
                     (av.ptr, M, K, av.strides[0], av.strides[1], bv.ptr, bv.shape[0], N, bv.strides[0],
                      bv.strides[1], ov.ptr, ov.shape[0], ov.shape[1], ov.strides[0], ov.strides[1]),
                     M, N, K, extras)
        return out


_PLAIN = _extras.Extras(1.0, 0.0, _extras.NO_C, 0, 0, 0, 0, 0)


def _operand_text(a: str, b: str, names: Optional[dict] = None) -> str:
    """What a kernel takes, in torch's dtype names (``names``) or gemmgen's."""
    if names:
        a, b = names.get(a, a), names.get(b, b)
    return f"{a} for both" if a == b else f"{a} for a and {b} for b"


def _torch_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


def _current_torch_stream(torch, index: int) -> int:
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


def _stream_handle(stream: Any) -> int:
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    raise ArgumentError(f"stream must be a cudaStream_t as an int or an object with .cuda_stream or .ptr "
                        f"(got {type(stream).__name__})")


def _allocate_like(a: Any, M: int, N: int, dtype: str) -> Any:
    module = type(a).__module__.split(".")[0]
    if module == "cupy" and dtype in ("f16", "f32"):
        import cupy  # the caller's own array library
        t = cupy.float16 if dtype == "f16" else cupy.float32
        with cupy.cuda.Device(a.device.id):
            return cupy.empty((M, out_row_stride(M, N, _ELEMENT_BYTES[dtype])), dtype=t)[:, :N]
    raise ArgumentError(f"pass out= (an {M}x{N} {dtype} array on the same GPU): gemmgen allocates outputs "
                        f"for torch tensors and CuPy float16 / float32 arrays only (a is {type(a).__name__})")

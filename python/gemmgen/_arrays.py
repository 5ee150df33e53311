"""Reading device arrays: torch tensors, __cuda_array_interface__, DLPack.

Each reader returns an :class:`ArrayView`: base pointer, shape, strides in
elements, gemmgen dtype name ("f16", "bf16", or what the array holds) and
device ordinal. torch tensors are read through their attributes (the fast
path); other arrays through ``__cuda_array_interface__`` (CuPy, Numba, ...)
or DLPack (JAX, CuPy, any ``__dlpack__`` producer).
"""
from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Tuple

from . import _core
from .errors import ArgumentError

# DLPack device types (dlpack.h).
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal",
                    10: "rocm", 13: "cuda_managed", 14: "oneapi"}

# __cuda_array_interface__ typestr -> gemmgen dtype (little-endian 16-bit float).
_CAI_DTYPES = {"<f2": "f16", "f2": "f16", "<f4": "f32", "f4": "f32"}
_ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4}


class ArrayView(NamedTuple):
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # elements
    dtype: str
    device: int
    readonly: bool = False


def torch_module():
    """torch if the program imported it (gemmgen never imports it for this)."""
    return sys.modules.get("torch")


TORCH_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3fn": "e4m3",
                "float8_e5m2": "e5m2"}


def dtype_name(dtype) -> str:
    """gemmgen's name of a torch dtype (torch.bfloat16 -> "bf16"); torch's own
    name for one gemmgen has no name for."""
    name = str(dtype).replace("torch.", "")
    return TORCH_DTYPES.get(name, name)


def torch_dtype_name(t) -> str:
    """gemmgen's name of a tensor's dtype."""
    return dtype_name(t.dtype)


def _from_cai(x: Any, name: str, cai: dict, device: Optional[int]) -> ArrayView:
    typestr = cai.get("typestr", "?")
    dtype = _CAI_DTYPES.get(typestr, typestr)
    shape = tuple(int(s) for s in cai["shape"])
    ptr, readonly = cai["data"]
    if cai.get("mask") is not None:
        raise ArgumentError(f"{name} has a mask (__cuda_array_interface__['mask']); gemmgen takes plain arrays")
    itemsize = _ITEMSIZE.get(dtype)
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        el = []
        acc = 1
        for s in reversed(shape):
            el.append(acc)
            acc *= s
        strides_el = tuple(reversed(el))
    elif itemsize is None:
        strides_el = tuple(strides)  # the dtype error comes first
    else:
        if any(s % itemsize for s in strides):
            raise ArgumentError(f"{name} has byte strides {tuple(strides)} that are not multiples of its "
                                f"element size ({itemsize} bytes)")
        strides_el = tuple(s // itemsize for s in strides)
    if device is None:
        dev = getattr(x, "device", None)  # CuPy and Numba arrays know their device
        device = int(getattr(dev, "id", 0) or 0)
    return ArrayView(int(ptr or 0), shape, strides_el, dtype, device, bool(readonly))


def _from_dlpack(x: Any, name: str) -> ArrayView:
    try:
        dtype, dev_type, dev_id, ptr, shape, strides = _core.dlpack_view(x)
    except TypeError as e:
        raise ArgumentError(f"{name} ({type(x).__name__}) could not be read through DLPack: {e}") from None
    if dev_type != _DL_CUDA:
        where = _DL_DEVICE_NAMES.get(dev_type, f"device type {dev_type}")
        raise ArgumentError(f"{name} is in {where} memory; gemmgen kernels read CUDA device memory "
                            f"(move it to the GPU first)")
    return ArrayView(ptr, tuple(shape), tuple(strides), dtype, dev_id)


def _from_torch(t: Any, name: str) -> ArrayView:
    if t.device.type != "cuda":
        raise ArgumentError(f"{name} is on {t.device}; gemmgen kernels run on CUDA tensors (use {name}.cuda())")
    return ArrayView(t.data_ptr(), tuple(t.shape), tuple(t.stride()), torch_dtype_name(t), t.device.index)


def view(x: Any, name: str, device: Optional[int] = None) -> ArrayView:
    """The ArrayView of an array (``name`` is used in messages)."""
    torch = torch_module()
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_torch(x, name)
    try:
        cai = x.__cuda_array_interface__
    except (AttributeError, TypeError):  # none, or none for this dtype: try DLPack
        cai = None
    if cai is not None:
        return _from_cai(x, name, cai, device)
    if hasattr(x, "__dlpack__"):
        return _from_dlpack(x, name)
    raise ArgumentError(f"{name} ({type(x).__name__}) is not a device array: gemmgen takes torch "
                        f"tensors and arrays with __cuda_array_interface__ or __dlpack__")

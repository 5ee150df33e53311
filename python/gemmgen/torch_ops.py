"""``torch.ops.gemmgen.matmul`` and ``torch.ops.gemmgen.scaled_mm``:
gemmgen.matmul and gemmgen.scaled_matmul as PyTorch custom ops.

Registered with ``torch.library.custom_op`` and a fake (meta)
implementation, so ``torch.compile`` traces it into graphs (one node, no
graph break) and ``torch.library.opcheck`` passes. Imported by ``gemmgen``
when PyTorch is installed.
"""
from __future__ import annotations

from typing import Optional

import torch

from ._matmul import matmul as _matmul
from ._scaled_matmul import scaled_matmul as _scaled_matmul
from .kernel import allocate_torch_out

_DTYPES = (torch.float16, torch.bfloat16)


@torch.library.custom_op("gemmgen::matmul", mutates_args=())
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a (M×K) @ b (K×N) with the tuned gemmgen kernel for the shape,
    compiled for the tensors' layouts (a row- or column-major, b with unit
    stride along K or N); a new row-major M×N tensor (row stride N rounded
    up to a multiple of 8)."""
    return _matmul(a, b)


@matmul.register_fake
def _matmul_fake(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    torch._check(a.dim() == 2 and b.dim() == 2,
                 lambda: f"gemmgen::matmul takes 2-D tensors (a is {tuple(a.shape)}, b is {tuple(b.shape)})")
    torch._check(a.shape[1] == b.shape[0],
                 lambda: f"gemmgen::matmul: a is {tuple(a.shape)} and b is {tuple(b.shape)}: "
                         f"the inner dimensions differ")
    torch._check(a.dtype in _DTYPES and b.dtype == a.dtype,
                 lambda: f"gemmgen::matmul takes float16 or bfloat16 tensors of one dtype "
                         f"(a is {a.dtype}, b is {b.dtype})")
    # The real op's allocation, strides included.
    return allocate_torch_out(torch, a.shape[0], b.shape[1], a.dtype, a.device)


_FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2)
_FP8_OUT_DTYPES = (torch.bfloat16, torch.float16, torch.float32)


@torch.library.custom_op("gemmgen::scaled_mm", mutates_args=())
def scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
              out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """a (M×K, fp8, row-major) @ b (K×N, fp8, b = w.t() of an N×K weight)
    with scales (per-tensor: one float32 each; blockwise: the arrays
    gemmgen.scaled_matmul takes), the cost model's fp8 kernel for the shape;
    a new row-major M×N tensor of out_dtype (bf16, f16 or f32; None: bf16)."""
    return _scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype or torch.bfloat16)


@scaled_mm.register_fake
def _scaled_mm_fake(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                    out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    out_dtype = out_dtype or torch.bfloat16
    torch._check(a.dim() == 2 and b.dim() == 2,
                 lambda: f"gemmgen::scaled_mm takes 2-D tensors (a is {tuple(a.shape)}, b is {tuple(b.shape)})")
    torch._check(a.shape[1] == b.shape[0],
                 lambda: f"gemmgen::scaled_mm: a is {tuple(a.shape)} and b is {tuple(b.shape)}: "
                         f"the inner dimensions differ")
    torch._check(a.dtype in _FP8_DTYPES and b.dtype in _FP8_DTYPES,
                 lambda: f"gemmgen::scaled_mm takes float8_e4m3fn or float8_e5m2 tensors "
                         f"(a is {a.dtype}, b is {b.dtype})")
    torch._check(out_dtype in _FP8_OUT_DTYPES,
                 lambda: f"gemmgen::scaled_mm writes bfloat16, float16 or float32 (out_dtype is {out_dtype})")
    return allocate_torch_out(torch, a.shape[0], b.shape[1], out_dtype, a.device)

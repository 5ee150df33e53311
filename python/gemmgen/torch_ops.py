"""``torch.ops.gemmgen.matmul``: gemmgen.matmul as a PyTorch custom op.

Registered with ``torch.library.custom_op`` and a fake (meta)
implementation, so ``torch.compile`` traces it into graphs (one node, no
graph break) and ``torch.library.opcheck`` passes. Imported by ``gemmgen``
when PyTorch is installed.
"""
from __future__ import annotations

import torch

from ._matmul import matmul as _matmul
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

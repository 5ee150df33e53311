"""gemmgen.scaled_matmul and torch.ops.gemmgen.scaled_mm on the H200: the fp8
cost model's kernel for each shape (per-tensor and blockwise scales, split-K
where it chooses one, bf16/f16/f32 out), fresh random inputs, out poisoned
with NaN, every element compared with an f32 reference of the scaled
problem. Skips without CUDA PyTorch with float8 and a Hopper GPU."""
import pytest

torch = pytest.importorskip("torch")

import gemmgen  # noqa: E402
from conftest import HAS_GPU, hopper  # noqa: E402

E4M3 = getattr(torch, "float8_e4m3fn", None)
E5M2 = getattr(torch, "float8_e5m2", None)
pytestmark = pytest.mark.skipif(not (HAS_GPU and torch.cuda.is_available() and hopper() and E4M3 is not None),
                                reason="needs a Hopper GPU (sm_90a kernels) and CUDA PyTorch with float8")

# fp8 operands are exact in f32: the reference differs by f32 summation order,
# the tensor cores' truncated accumulation (per-tensor kernels; ~2^-13 per k32
# group) and D's rounding (bf16 2^-8, f16 2^-11 per element).
TOL = 1e-2


def _fp8(rows, cols, dtype=None):
    return torch.randn(rows, cols, device="cuda").to(dtype or E4M3)


def _close(out, ref, what):
    out = out.float()
    assert torch.isfinite(out).all(), f"{what}: NaN left in the output (a tile not written)"
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < TOL, f"{what}: relative error {err:.3e} (tolerance {TOL})"


def _blockwise(m, n, k):
    kb, nb = (k + 127) // 128, (n + 127) // 128
    sa = torch.rand(kb, m, device="cuda") + 0.5   # [K block][row]
    sb = torch.rand(nb, kb, device="cuda") + 0.5  # [N block][K block]
    return sa, sb


def _dequantized(a, w, sa, sb):
    m, k = a.shape
    n = w.shape[0]
    a_deq = a.float() * sa.t().repeat_interleave(128, dim=1)[:, :k]
    w_deq = w.float() * sb.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    return a_deq @ w_deq.t()


# Shapes where the model picks different families and splits (the choice is
# printed with the failure): DeepSeek-V3's M = 128 projections split K.
@pytest.mark.parametrize("m,n,k", [(128, 2112, 7168), (200, 304, 384), (1000, 1008, 528), (2048, 2112, 2048)])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float32])
def test_per_tensor(m, n, k, out_dtype):
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = torch.tensor([0.75], device="cuda"), torch.tensor([1.5], device="cuda")
    choice = gemmgen.choose_fp8_kernel(m, n, k, out_dtype=out_dtype)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
    got = gemmgen.scaled_matmul(a, w.t(), sa, sb, out)
    assert got is out
    _close(out, 0.75 * 1.5 * (a.float() @ w.float().t()), f"per-tensor {m}x{n}x{k} ({choice['reason']})")


@pytest.mark.parametrize("m,n,k", [(128, 2112, 7168), (130, 300, 384), (4096, 2112, 1024), (256, 7168, 2048)])
def test_blockwise(m, n, k):
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = _blockwise(m, n, k)
    choice = gemmgen.choose_fp8_kernel(m, n, k, scaling="blockwise")
    out = gemmgen.scaled_matmul(a, w.t(), sa, sb)  # scaling inferred from the scales' sizes
    assert out.dtype == torch.bfloat16 and out.shape == (m, n)
    _close(out, _dequantized(a, w, sa, sb), f"blockwise {m}x{n}x{k} ({choice['reason']})")


def test_e5m2_and_mixed_operands():
    m, n, k = 256, 512, 512
    a, w = _fp8(m, k, E5M2), _fp8(n, k)
    sa, sb = torch.tensor([2.0], device="cuda"), torch.tensor([0.5], device="cuda")
    out = gemmgen.scaled_matmul(a, w.t(), sa, sb, out_dtype=torch.float16)
    assert out.dtype == torch.float16
    _close(out, a.float() @ w.float().t(), "e5m2 x e4m3 -> f16")


def test_e4m3_out_with_scale_and_amax():
    m, n, k = 256, 512, 256
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.5], device="cuda")
    scale_d = torch.tensor([2.0], device="cuda")
    amax = torch.full((1,), float("nan"), device="cuda")
    choice = gemmgen.choose_fp8_kernel(m, n, k, out_dtype="e4m3")
    assert choice["split_k"] == 1 and "d: e4m3" in choice["spec"]
    out = gemmgen.scaled_matmul(a, w.t(), sa, sb, out_dtype=E4M3, scale_d=scale_d, amax=amax)
    assert out.dtype == E4M3
    v = 0.25 * (a.float() @ w.float().t())
    # e4m3 keeps 3 mantissa bits: 2^-4 relative per element, plus the tensor cores' accumulation.
    err = ((out.float() - (2.0 * v).clamp(-448, 448)).norm() / (2.0 * v).norm()).item()
    assert err < 0.05, f"e4m3 out: relative error {err:.3e}"
    assert abs(amax.item() - v.abs().max().item()) <= 1e-2 * v.abs().max().item()
    # Blockwise scales with an e4m3 out: the chooser's 128-column tiles (no split).
    sa_b, sb_b = _blockwise(m, n, k)
    amax_b = torch.full((1,), float("nan"), device="cuda")
    out_b = gemmgen.scaled_matmul(a, w.t(), sa_b, sb_b, out_dtype=E4M3, scale_d=scale_d, amax=amax_b)
    vb = _dequantized(a, w, sa_b, sb_b)
    err = ((out_b.float() - (2.0 * vb).clamp(-448, 448)).norm() / (2.0 * vb).norm()).item()
    assert err < 0.05, f"blockwise e4m3 out: relative error {err:.3e}"
    assert abs(amax_b.item() - vb.abs().max().item()) <= 1e-2 * vb.abs().max().item()


def test_one_block_is_per_tensor_and_explicit_scaling():
    # M = 1, K and N <= 128: one value per scale array either way.
    a, w = _fp8(1, 128), _fp8(64, 128)
    sa, sb = torch.tensor([[0.5]], device="cuda"), torch.tensor([[3.0]], device="cuda")
    ref = 1.5 * (a.float() @ w.float().t())
    _close(gemmgen.scaled_matmul(a, w.t(), sa, sb), ref, "one block, inferred per-tensor")
    _close(gemmgen.scaled_matmul(a, w.t(), sa, sb, scaling="blockwise"), ref, "one block, blockwise")


def test_operands_stored_m_or_n_major_are_copied_transposed():
    # a column-major (unit stride along M), b row-major (unit stride along N): the K-major
    # kernel reads both through the runtime's transposing copy.
    m, n, k = 200, 520, 1000
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([3.0], device="cuda")
    ref = 1.5 * (a.float() @ w.float().t())
    a_col, b_row = a.t().contiguous().t(), w.t().contiguous()
    _close(gemmgen.scaled_matmul(a_col, w.t(), sa, sb), ref, "a column-major")
    _close(gemmgen.scaled_matmul(a, b_row, sa, sb), ref, "b row-major")
    _close(gemmgen.scaled_matmul(a_col, b_row, sa, sb), ref, "both")


def test_refusals():
    a, w = _fp8(64, 128), _fp8(64, 128)
    s = torch.ones(1, device="cuda")
    with pytest.raises(gemmgen.ArgumentError, match="needs scale_a and scale_b"):
        gemmgen.scaled_matmul(a, w.t(), None, s)
    with pytest.raises(gemmgen.ArgumentError, match="A's"):
        gemmgen.scaled_matmul(a, w.t(), torch.ones(3, device="cuda"), torch.ones(1, 1, device="cuda"))
    with pytest.raises(gemmgen.DTypeError, match="give one of them"):
        gemmgen.scaled_matmul(a, w.t(), s, s, torch.empty(64, 64, device="cuda", dtype=torch.float16),
                              out_dtype=torch.bfloat16)
    with pytest.raises(gemmgen.DTypeError, match=r"\(fp8: gemmgen.scaled_matmul\)"):
        gemmgen.matmul(a, w.t())


def test_scaled_mm_op_and_opcheck():
    m, n, k = 128, 2112, 7168
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = _blockwise(m, n, k)
    out = torch.ops.gemmgen.scaled_mm(a, w.t(), sa, sb)
    _close(out, _dequantized(a, w, sa, sb), "scaled_mm blockwise")
    pt = torch.ops.gemmgen.scaled_mm(a, w.t(), torch.tensor([2.0], device="cuda"),
                                     torch.tensor([1.0], device="cuda"), torch.float32)
    assert pt.dtype == torch.float32
    _close(pt, 2.0 * (a.float() @ w.float().t()), "scaled_mm per-tensor f32")
    small_a, small_w = _fp8(128, 256), _fp8(256, 256)
    # Not test_schema: its mutation check multiplies the inputs, which torch
    # has no kernel for in float8 ("mul_cuda" not implemented for 'Float8_e4m3fn').
    torch.library.opcheck(torch.ops.gemmgen.scaled_mm.default,
                          (small_a, small_w.t(), torch.tensor([0.5], device="cuda"),
                           torch.tensor([2.0], device="cuda")),
                          test_utils=("test_autograd_registration", "test_faketensor",
                                      "test_aot_dispatch_dynamic"))


def test_scaled_mm_under_torch_compile():
    m, n, k = 256, 512, 512
    a, w = _fp8(m, k), _fp8(n, k)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([4.0], device="cuda")

    @torch.compile(fullgraph=True)
    def f(x, y):
        return torch.ops.gemmgen.scaled_mm(x, y, sa, sb) * 2

    _close(f(a, w.t()), 4.0 * (a.float() @ w.float().t()), "scaled_mm in a compiled graph")

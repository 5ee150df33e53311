"""alpha, beta and c, the epilogue chain's bias, fp8 operands with per-tensor
and blockwise scales, an 8-bit out with its scale and amax, from torch on
the H200. Fresh random inputs each test, out poisoned with NaN before each
call, every element compared with an f32 torch reference of the same
problem. Skips without CUDA PyTorch and a Hopper GPU."""
import pytest

torch = pytest.importorskip("torch")

import gemmgen  # noqa: E402
from conftest import HAS_GPU, SPECS, hopper  # noqa: E402

pytestmark = pytest.mark.skipif(not (HAS_GPU and torch.cuda.is_available() and hopper()),
                                reason="needs a Hopper GPU (sm_90a kernels) and CUDA PyTorch")

E4M3 = getattr(torch, "float8_e4m3fn", None)


@pytest.fixture(scope="module")
def spec():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = gemmgen.compile(SPECS / "sm90" / f"{name}.yaml")
        return cache[name]
    return get


def _nan(m, n, dtype):
    return torch.full((m, n), float("nan"), device="cuda", dtype=dtype)


def _close(out, ref, tol, what):
    # Relative Frobenius error, and every element finite (a NaN left means a tile not written).
    out = out.float()
    assert torch.isfinite(out).all(), f"{what}: NaN left in the output"
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < tol, f"{what}: relative error {err:.3e} (tolerance {tol})"


# 16-bit operands and D: the rounding of D (2^-9 f16, 2^-8 bf16 per element)
# and of f32 sums over K <= 4096 stay far below 1e-2.
TOL16 = 1e-2


@pytest.mark.parametrize("m,n,k", [(256, 512, 256), (300, 200, 72), (1, 4096, 1024)])
def test_alpha_beta_with_c(spec, m, n, k):
    kern = spec("05_fast_f16")
    torch.manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.randn(m, n, device="cuda", dtype=torch.float16)
    ref = 0.5 * (a.float() @ w.float().t()) - 2.0 * c.float()
    out = _nan(m, n, torch.float16)
    kern(a, w.t(), out, c=c, alpha=0.5, beta=-2.0)
    _close(out, ref, TOL16, "alpha/beta with c")
    # In place: c = out.
    inplace = c.clone()
    kern(a, w.t(), inplace, c=inplace, alpha=0.5, beta=-2.0)
    _close(inplace, ref, TOL16, "in place")


def test_f32_out(spec):
    kern = spec("10_fast_f16_out_f32")
    a = torch.randn(384, 512, device="cuda", dtype=torch.float16)
    w = torch.randn(320, 512, device="cuda", dtype=torch.float16)
    out = kern(a, w.t())
    assert out.dtype == torch.float32 and out.shape == (384, 320)
    _close(out, a.float() @ w.float().t(), 1e-5, "f32 out")  # f32 sums of exact products


@pytest.mark.parametrize("name", ["12_splitk_f16", "24_decode_col_d_split_f16"])
@pytest.mark.parametrize("m,n,k", [(1, 2112, 7168), (16, 4096, 4096)])
def test_split_k_with_beta(spec, name, m, n, k):
    kern = spec(name)  # spec 24: out^T = w·a^T, the reduction writing out transposed
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.randn(m, n, device="cuda", dtype=torch.float16)
    out = _nan(m, n, torch.float16)
    kern(a, w.t(), out, c=c, alpha=1.5, beta=0.25)
    _close(out, 1.5 * (a.float() @ w.float().t()) + 0.25 * c.float(), TOL16, "split-K")


@pytest.mark.parametrize("m,n,k", [(512, 1024, 512), (257, 200, 136)])
def test_bias_gelu(spec, m, n, k):
    kern = spec("14_fast_bf16_bias_gelu")
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    ref = torch.nn.functional.gelu(a.float() @ w.float().t() + bias.float(), approximate="tanh")
    out = _nan(m, n, torch.bfloat16)
    kern(a, w.t(), out, bias=bias)
    _close(out, ref, TOL16, "bias + gelu")
    with pytest.raises(gemmgen.ArgumentError, match="adds a bias: pass bias="):
        kern(a, w.t(), out)
    with pytest.raises(gemmgen.ArgumentError, match=f"must hold {n} values"):
        kern(a, w.t(), out, bias=torch.randn(n + 1, device="cuda", dtype=torch.bfloat16))


def _fp8(m, k, scale=1.0):
    return (torch.randn(m, k, device="cuda") * scale).to(E4M3)


# fp8 operands are exact in f32: the reference differs by f32 summation
# order and D's bf16 rounding (2^-8 per element).
TOL_FP8_BF16 = 1e-2


@pytest.mark.skipif(E4M3 is None, reason="this torch has no float8_e4m3fn")
@pytest.mark.parametrize("m,n,k", [(256, 512, 512), (200, 300, 384)])
def test_e4m3_per_tensor_scales(spec, m, n, k):
    kern = spec("13_fast_e4m3")
    a, w = _fp8(m, k), _fp8(n, k)
    sa = torch.tensor([0.75], device="cuda")
    sb = torch.tensor([1.5], device="cuda")
    out = _nan(m, n, torch.bfloat16)
    kern(a, w.t(), out, scale_a=sa, scale_b=sb, alpha=0.5)
    _close(out, 0.5 * 0.75 * 1.5 * (a.float() @ w.float().t()), TOL_FP8_BF16, "e4m3 per-tensor")
    plain = kern(a, w.t())  # no scales: 1
    assert plain.dtype == torch.bfloat16
    _close(plain, a.float() @ w.float().t(), TOL_FP8_BF16, "e4m3 unscaled")


@pytest.mark.skipif(E4M3 is None, reason="this torch has no float8_e4m3fn")
@pytest.mark.parametrize("m,n,k", [(256, 512, 512), (130, 300, 384)])
def test_e4m3_blockwise_scales(spec, m, n, k):
    kern = spec("15_blockwise_e4m3")
    a, w = _fp8(m, k), _fp8(n, k)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    sa = torch.rand(kb, m, device="cuda") + 0.5   # [K block][row]
    sb = torch.rand(nb, kb, device="cuda") + 0.5  # [N block][K block]
    a_deq = a.float() * sa.t().repeat_interleave(128, dim=1)[:, :k]
    w_deq = w.float() * sb.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    out = _nan(m, n, torch.bfloat16)
    kern(a, w.t(), out, scale_a=sa, scale_b=sb)
    # Each k-block's partial sum is scaled then added in f32 on the CUDA cores.
    _close(out, a_deq @ w_deq.t(), TOL_FP8_BF16, "e4m3 blockwise")
    # An (M, K/128) view of the same memory (strides (1, M)) is A's order too;
    # a contiguous (M, K/128) array is not.
    out2 = _nan(m, n, torch.bfloat16)
    kern(a, w.t(), out2, scale_a=sa.t(), scale_b=sb)
    _close(out2, a_deq @ w_deq.t(), TOL_FP8_BF16, "e4m3 blockwise, transposed scale view")
    with pytest.raises(gemmgen.ArgumentError, match="A's block order"):
        kern(a, w.t(), out, scale_a=sa.t().contiguous(), scale_b=sb)


@pytest.mark.skipif(E4M3 is None, reason="this torch has no float8_e4m3fn")
def test_e4m3_out_with_scale_and_amax(spec):
    kern = spec("16_fast_e4m3_out_e4m3")
    m, n, k = 256, 512, 256
    a, w = _fp8(m, k, 0.5), _fp8(n, k, 0.5)
    ref = a.float() @ w.float().t()
    scale_d = torch.tensor([2.0], device="cuda")
    amax = torch.full((1,), float("nan"), device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda").to(E4M3)
    kern(a, w.t(), out, scale_d=scale_d, amax=amax)
    assert out.dtype == E4M3
    # Hopper's fp8 wgmma adds each k32 group of products into the accumulator
    # with a truncated mantissa (about 13 bits: the "fast accumulation" that
    # cuBLASLt matches; its amax sits ~1e-3 from an f32 reference's too,
    # docs/PERF.md): at most K/32 truncations of 2^-13 of the running sum,
    # bounded by the sum of |products|. Each element: within half an e4m3
    # step (3 mantissa bits: 2^-4 relative) of the scaled reference widened
    # by that bound, plus half the smallest subnormal.
    acc_err = (k / 32) * 2.0 ** -13 * (a.float().abs() @ w.float().abs().t())
    got = out.float()
    assert torch.isfinite(got).all()
    want = (2.0 * ref).clamp(-448, 448)
    tol = 2.0 ** -4 * (want.abs() + 2.0 * acc_err) + 2.0 * acc_err + 2.0 ** -10
    bad = ((got - want).abs() > tol).sum().item()
    assert bad == 0, f"{bad} elements off by more than half an e4m3 step"
    # amax: max |v| before the output scale, within the accumulation bound.
    assert abs(amax.item() - ref.abs().max().item()) <= acc_err.max().item()

"""The torch face: tensors in, torch.ops.gemmgen.matmul, its fake
implementation and torch.compile. Skips without PyTorch; the tests that
launch need a Hopper GPU and compare with torch.matmul on fresh random
inputs, the output poisoned with NaN before each call."""
import pytest

torch = pytest.importorskip("torch")

import gemmgen  # noqa: E402
from conftest import HAS_GPU, SPECS, hopper  # noqa: E402

requires_hopper = pytest.mark.skipif(not (HAS_GPU and torch.cuda.is_available() and hopper()),
                                     reason="needs a Hopper GPU (sm_90a kernels) and CUDA PyTorch")


# -- no GPU needed -------------------------------------------------------------

def test_cpu_tensors_are_refused(kernel_f16):
    a = torch.zeros(64, 64, dtype=torch.float16)
    with pytest.raises(gemmgen.ArgumentError, match=r"a is on cpu; gemmgen kernels run on CUDA tensors \(use a.cuda\(\)\)"):
        kernel_f16(a, a.t())


def test_mixed_array_kinds_are_refused(kernel_f16):
    a = torch.zeros(64, 64, dtype=torch.float16)
    with pytest.raises(gemmgen.ArgumentError, match="b and out must be torch tensors too"):
        kernel_f16(a, [[0.0]])


def test_batched_is_refused(kernel_f16):
    a = torch.zeros(2, 64, 64, dtype=torch.float16)
    with pytest.raises(gemmgen.ArgumentError, match=r"2-D matrices \(a is \(2, 64, 64\)"):
        kernel_f16(a, a)


def test_op_is_registered():
    assert hasattr(torch.ops.gemmgen, "matmul")
    schema = str(torch.ops.gemmgen.matmul.default._schema)
    assert schema == "gemmgen::matmul(Tensor a, Tensor b) -> Tensor"


def test_fake_implementation_on_meta_tensors():
    a = torch.empty(300, 512, dtype=torch.bfloat16, device="meta")
    w = torch.empty(200, 512, dtype=torch.bfloat16, device="meta")
    out = torch.ops.gemmgen.matmul(a, w.t())
    assert out.shape == (300, 200) and out.dtype == torch.bfloat16 and out.device.type == "meta"
    assert out.stride() == (200, 1)
    assert torch.ops.gemmgen.matmul(a, w[:197].t()).stride() == (200, 1)  # N = 197: padded rows
    with pytest.raises(RuntimeError, match="the inner dimensions differ"):
        torch.ops.gemmgen.matmul(a, w)
    with pytest.raises(RuntimeError, match="float16 or bfloat16"):
        torch.ops.gemmgen.matmul(a.float(), w.t().float())


def test_traced_through_the_fake_implementation():
    # Fake tracing of CPU tensors: only the fake implementation runs.
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, w):
        return torch.relu(torch.ops.gemmgen.matmul(x, w.t()))

    x = torch.zeros(128, 256, dtype=torch.float16)
    w = torch.zeros(64, 256, dtype=torch.float16)
    gm = make_fx(f, tracing_mode="fake")(x, w)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert torch.ops.gemmgen.matmul.default in targets


def test_torch_compile_keeps_one_op_node():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def f(x, w):
        return torch.ops.gemmgen.matmul(x, w.t()) * 2

    compiled = torch.compile(f, backend=backend, fullgraph=True)
    x = torch.empty(128, 256, dtype=torch.float16, device="meta")
    w = torch.empty(64, 256, dtype=torch.float16, device="meta")
    assert compiled(x, w).shape == (128, 64)
    assert len(graphs) == 1
    # Dynamo records the call as written (the op packet) or as its overload, by torch version.
    ops = (torch.ops.gemmgen.matmul, torch.ops.gemmgen.matmul.default)
    assert any(n.target in ops for n in graphs[0].graph.nodes)


# -- on a Hopper GPU -------------------------------------------------------------

def _check(out, a, b):
    ref = torch.matmul(a.float(), b.float())
    assert torch.isfinite(out).all(), "NaN left in the output: some tile was not written"
    err = (out.float() - ref).norm() / ref.norm()
    assert err < 1e-2, f"relative Frobenius error {err:.3e}"


SHAPES = [(128, 256, 64), (4096, 4096, 4096), (1000, 1000, 512), (1, 8, 8), (300, 200, 72), (8, 4096, 1024)]


@requires_hopper
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_kernel_matches_torch(m, n, k, dtype, kernel_f16, kernel_bf16):
    kern = kernel_f16 if dtype == torch.float16 else kernel_bf16
    torch.manual_seed(m * 7 + n * 3 + k)
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    assert kern(a, w.t(), out) is out
    _check(out, a, w.t())


@requires_hopper
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k", [(4096, 4096, 4096), (128, 8192, 8192), (777, 333, 264)])
def test_matmul_tuned_matches_torch(m, n, k, dtype):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    ldd = (n + 7) // 8 * 8  # a TMA store needs 16-byte row strides: a passed-in D is a padded view
    out = torch.full((m, ldd), float("nan"), device="cuda", dtype=dtype)[:, :n]
    gemmgen.matmul(a, w.t(), out)
    _check(out, a, w.t())
    if ldd != n:  # a packed D with rows off 16 bytes: computed through an aligned copy
        packed = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        gemmgen.matmul(a, w.t(), packed)
        _check(packed, a, w.t())
    fresh = gemmgen.matmul(a, w.t())
    assert fresh.shape == (m, n) and fresh.dtype == dtype
    assert fresh.stride() == ((n + 7) // 8 * 8, 1)  # TMA: 16-byte row strides
    _check(fresh, a, w.t())


@requires_hopper
def test_views_without_copies(kernel_f16):
    big_a = torch.randn(512, 1024, device="cuda", dtype=torch.float16)
    big_w = torch.randn(256, 1024, device="cuda", dtype=torch.float16)
    a, w = big_a[:, 256:768], big_w[:, 256:768]       # lda = ldb = 1024
    big_out = torch.full((512, 320), float("nan"), device="cuda", dtype=torch.float16)
    out = big_out[:, :256]                               # ldd = 320: D is a view
    kern = kernel_f16
    kern(a, w.t(), out)
    _check(out, a, w.t())
    assert torch.isnan(big_out[:, 256:]).all(), "the kernel wrote outside the output view"


@requires_hopper
def test_layout_errors_on_gpu(kernel_f16):
    a = torch.randn(128, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 128, device="cuda", dtype=torch.float16)   # row-major KxN
    with pytest.raises(gemmgen.ArgumentError, match=r"was compiled for A row-major and B col-major.*"
                       r'gemmgen.compile\(spec, layout=\("row", "row"\)\)'):
        kernel_f16(a, b)
    with pytest.raises(gemmgen.ArgumentError, match=r"b \(64x128, strides \(256, 2\)\) has no unit stride"):
        kernel_f16(a, torch.randn(64, 256, device="cuda", dtype=torch.float16)[:, ::2])
    with pytest.raises(gemmgen.DTypeError, match=r"a is float32 and b is float16; this kernel \(gemm_sm90_fast_f16\) takes float16 for both"):
        kernel_f16(a.float(), b.t().contiguous().t())
    # What TMA cannot address (packed K = 12: 24-byte rows; a pointer 2 bytes
    # off) is staged through aligned copies, not refused.
    a12 = torch.randn(64, 12, device="cuda", dtype=torch.float16)
    w12 = torch.randn(64, 12, device="cuda", dtype=torch.float16)
    _check(kernel_f16(a12, w12.t()), a12, w12.t())
    x = torch.randn(64 * 64 + 1, device="cuda", dtype=torch.float16)[1:].view(64, 64)
    _check(kernel_f16(x, x.t()), x, x.t())


def _operands(la, lb, ld, m, n, k, dtype):
    """a (MxK), b (KxN), out (MxN, NaN) in the given layouts: "row" or "col"
    major, column-major ones as .t() views of row-major tensors (no copies)."""
    a = torch.randn(m, k, device="cuda", dtype=dtype) if la == "row" else torch.randn(k, m, device="cuda", dtype=dtype).t()
    b = torch.randn(n, k, device="cuda", dtype=dtype).t() if lb == "col" else torch.randn(k, n, device="cuda", dtype=dtype)
    nan = float("nan")
    out = (torch.full((m, n), nan, device="cuda", dtype=dtype) if ld == "row"
           else torch.full((n, m), nan, device="cuda", dtype=dtype).t())
    return a, b, out


LAYOUTS = [(la, lb, ld) for la in ("row", "col") for lb in ("col", "row") for ld in ("row", "col")]


@requires_hopper
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS)
@pytest.mark.parametrize("m,n,k", [(264, 136, 72), (1000, 1000, 512), (8, 4096, 1024)])
def test_layouts_match_torch(la, lb, ld, m, n, k, dtype):
    torch.manual_seed(m + 3 * n + 7 * k)
    a, b, out = _operands(la, lb, ld, m, n, k, dtype)
    p = gemmgen.plan(a, b, out)
    assert (p["layout_a"], p["layout_b"], p["layout_d"]) == (la, lb, ld)
    spec = SPECS / "sm90" / ("05_fast_f16.yaml" if dtype == torch.float16 else "06_fast_bf16.yaml")
    kern = gemmgen.compile(spec, layout=p["kernel_layout"])
    assert kern(a, b, out) is out
    _check(out, a, b)
    out.fill_(float("nan"))
    assert gemmgen.matmul(a, b, out) is out
    _check(out, a, b)
    _check(gemmgen.matmul(a, b), a, b)
    _check(torch.ops.gemmgen.matmul(a, b), a, b)


@requires_hopper
def test_other_layouts_on_the_default_kernel(kernel_f16):
    x = torch.randn(64, 256, device="cuda", dtype=torch.float16)   # K x M
    w = torch.randn(128, 64, device="cuda", dtype=torch.float16)   # N x K
    with pytest.raises(gemmgen.ArgumentError, match=r"the arguments store A col-major and B col-major, but kernel "
                       r"'gemm_sm90_fast_f16' was compiled for A row-major and B col-major.*"
                       r'gemmgen.compile\(spec, layout=\("col", "col"\)\)'):
        kernel_f16(x.t(), w.t())
    # A column-major out with default a and b is the swapped problem of the same layouts.
    a = x.t().contiguous()
    out = torch.full((128, 256), float("nan"), device="cuda", dtype=torch.float16).t()
    kernel_f16(a, w.t(), out)
    _check(out, a, w.t())


@requires_hopper
@pytest.mark.parametrize("m", [1, 300])
def test_one_column_out(kernel_f16, m):
    # A contiguous M x 1 out (strides (1, 1)) is written as one column-major line.
    a = torch.randn(m, 128, device="cuda", dtype=torch.float16)
    w = torch.randn(1, 128, device="cuda", dtype=torch.float16)
    out = torch.full((m, 1), float("nan"), device="cuda", dtype=torch.float16)
    kernel_f16(a, w.t(), out)
    _check(out, a, w.t())


@requires_hopper
def test_empty_k_with_a_column_major_out(kernel_f16):
    a = torch.randn(16, 0, device="cuda", dtype=torch.float16)
    b = torch.randn(24, 0, device="cuda", dtype=torch.float16).t()
    big = torch.full((24, 24), float("nan"), device="cuda", dtype=torch.float16)
    out = big[:, :16].t()                                          # 16 x 24, strides (1, 24)
    assert gemmgen.plan(a, b, out)["layout_d"] == "col"
    kernel_f16(a, b, out)
    assert (out == 0).all()
    assert torch.isnan(big[:, 16:]).all(), "the zero fill wrote outside the output view"


@requires_hopper
def test_opcheck_transposed_inputs():
    x = torch.randn(512, 256, device="cuda", dtype=torch.float16)   # K x M
    w = torch.randn(512, 384, device="cuda", dtype=torch.float16)   # K x N, row-major
    torch.library.opcheck(torch.ops.gemmgen.matmul.default, (x.t(), w))


@requires_hopper
def test_runs_on_the_current_stream(kernel_f16):
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    w = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        out = torch.full((2048, 2048), float("nan"), device="cuda", dtype=torch.float16)
        kern_out = kernel_f16(a, w.t(), out)
        done = torch.cuda.Event()
        done.record(side)
    done.synchronize()
    _check(kern_out, a, w.t())


@requires_hopper
def test_empty_dimensions(kernel_f16):
    a = torch.randn(0, 64, device="cuda", dtype=torch.float16)
    w = torch.randn(32, 64, device="cuda", dtype=torch.float16)
    assert kernel_f16(a, w.t()).shape == (0, 32)
    z = torch.randn(16, 0, device="cuda", dtype=torch.float16)
    wz = torch.randn(24, 0, device="cuda", dtype=torch.float16)
    out = torch.full((16, 24), float("nan"), device="cuda", dtype=torch.float16)
    assert (kernel_f16(z, wz.t(), out) == 0).all()


@requires_hopper
@pytest.mark.parametrize("n", [384, 333])
def test_opcheck(n):
    a = torch.randn(256, 512, device="cuda", dtype=torch.float16)
    w = torch.randn(n, 512, device="cuda", dtype=torch.float16)
    torch.library.opcheck(torch.ops.gemmgen.matmul.default, (a, w.t()))


@requires_hopper
def test_torch_compile_on_gpu():
    a = torch.randn(1024, 512, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(768, 512, device="cuda", dtype=torch.bfloat16)

    @torch.compile(fullgraph=True)
    def f(x, w):
        return torch.relu(torch.ops.gemmgen.matmul(x, w.t()))

    out = f(a, w)
    ref = torch.relu(torch.matmul(a.float(), w.float().t()))
    assert ((out.float() - ref).norm() / ref.norm()) < 1e-2


@requires_hopper
def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    kern = gemmgen.compile(SPECS / "sm90" / "05_fast_f16.yaml")
    a = cupy.random.standard_normal((512, 256)).astype(cupy.float16)
    w = cupy.random.standard_normal((384, 256)).astype(cupy.float16)
    out = kern(a, w.T)
    ref = a.astype(cupy.float32) @ w.T.astype(cupy.float32)
    cupy.cuda.Device().synchronize()
    assert float(cupy.linalg.norm(out.astype(cupy.float32) - ref) / cupy.linalg.norm(ref)) < 1e-2


@requires_hopper
def test_dlpack_arrays():
    # torch tensors through the DLPack door (what JAX or any producer uses).
    kern = gemmgen.compile(SPECS / "sm90" / "06_fast_bf16.yaml")

    class OnlyDLPack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kw):
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    a = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
    out = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.bfloat16)
    kern(OnlyDLPack(a), OnlyDLPack(w.t()), OnlyDLPack(out))
    torch.cuda.synchronize()
    _check(out, a, w.t())


def test_plan_reads_torch_strides(kernel_bf16):
    # plan() needs no GPU memory: meta tensors have shapes and strides.
    a = torch.empty(300, 512, dtype=torch.bfloat16, device="meta")
    w = torch.empty(200, 512, dtype=torch.bfloat16, device="meta")
    with pytest.raises(gemmgen.ArgumentError, match="a is on meta; gemmgen kernels run on CUDA tensors"):
        kernel_bf16.plan(a, w.t())


@requires_hopper
def test_no_leak_report_at_exit():
    # A script that leaves kernels in matmul's and scaled_matmul's caches: at
    # exit nanobind reported "leaked 1 instances ... gemmgen._core.Kernel"
    # (torch's op registry keeps the caches alive past module teardown).
    import subprocess
    import sys
    script = ("import torch, gemmgen\n"
              "a = torch.randn(256, 128, device='cuda', dtype=torch.float16)\n"
              "w = torch.randn(128, 128, device='cuda', dtype=torch.float16)\n"
              "gemmgen.matmul(a, w.t()); torch.ops.gemmgen.matmul(a, w.t())\n"
              "a8, w8 = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)\n"
              "one = torch.ones(1, device='cuda')\n"
              "gemmgen.scaled_matmul(a8, w8.t(), one, one)\n"
              "torch.cuda.synchronize()\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "leaked" not in run.stderr, run.stderr[-2000:]

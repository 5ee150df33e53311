"""alpha, beta and c; the chain's bias and scale; fp8 scales and amax: each
checked against the kernel before anything is launched (no GPU needed:
arrays are __cuda_array_interface__ descriptions that are never read).
The GPU tests that compute with them are in test_torch.py."""
import pytest

import gemmgen
from gemmgen import _extras
from conftest import SPECS, requires_no_gpu
from test_arrays import FakeArray

M, N, K = 96, 40, 256
A = FakeArray((M, K))                      # K-major
B = FakeArray((K, N), strides=(1, K))      # K-major (w.t())
OUT = FakeArray((M, N), ptr=0x7E0000000000)
F32 = "<f4"


def f32(shape, strides=None, ptr=0x7D0000000000):
    return FakeArray(shape, strides=strides, typestr=F32, ptr=ptr)


@pytest.fixture(scope="module")
def kernels():
    names = {"f16": "05_fast_f16", "f32out": "10_fast_f16_out_f32", "splitk": "12_splitk_f16",
             "e4m3": "13_fast_e4m3", "bias": "14_fast_bf16_bias_gelu", "blockwise": "15_blockwise_e4m3",
             "fp8out": "16_fast_e4m3_out_e4m3"}
    return {k: gemmgen.compile(SPECS / "sm90" / f"{v}.yaml") for k, v in names.items()}


def test_what_each_kernel_takes(kernels):
    k = kernels
    assert (k["f16"].dtype, k["f16"].out_dtype, k["f16"].scaling, k["f16"].bias) == ("f16", "f16", "none", None)
    assert k["f16"].alpha_beta and k["f16"].epilogue == "none" and not k["f16"].fp8_output
    assert k["f32out"].out_dtype == "f32"
    assert k["splitk"].split_k == 8 and k["splitk"].out_dtype == "f16"
    assert (k["e4m3"].dtype, k["e4m3"].dtype_b, k["e4m3"].out_dtype, k["e4m3"].scaling) == \
        ("e4m3", "e4m3", "bf16", "per_tensor")
    assert k["bias"].bias == ("bf16", "column") and k["bias"].epilogue.startswith("bias(column, bf16)")
    assert not k["bias"].chain_scale and not k["f16"].chain_scale
    assert k["blockwise"].scaling == "blockwise"
    assert k["fp8out"].fp8_output and k["fp8out"].out_dtype == "e4m3"


def test_bias_and_scale_as_the_runtime_reads_the_chain():
    # A row bias in f32 and a scale step: the properties the resolver checks extras against.
    text = (SPECS / "sm90" / "14_fast_bf16_bias_gelu.yaml").read_text().replace(
        "- bias: { per: column, type: bf16 }", "- bias: { per: row, type: f32 }\n    - scale")
    k = gemmgen.compile(text)
    assert k.bias == ("f32", "row") and k.chain_scale
    assert k.epilogue.startswith("bias(row, f32) -> scale")


# (kernel, call's extras, error, message): every check of an extra on the 16-bit path.
BAD_16BIT = [
    ("f16", dict(beta=0.5), gemmgen.ArgumentError, r"beta is 0.5, so D = alpha·a @ b \+ beta·c reads c: pass c="),
    ("f16", dict(beta=1.0, c=FakeArray((M, 8))), gemmgen.ArgumentError, r"c is 96x8; it must have out's shape 96x40"),
    ("f16", dict(beta=1.0, c=FakeArray((M, N), strides=(1, M))), gemmgen.ArgumentError,
     r"c \(96x40, strides \(1, 96\)\) is col-major and out row-major"),
    ("f16", dict(beta=1.0, c=f32((M, N))), gemmgen.DTypeError, r"c is f32; the kernel reads C in D's type \(f16\)"),
    ("f16", dict(beta=1.0, c=FakeArray((M, N, 1))), gemmgen.ArgumentError, r"c must be a 2-D matrix"),
    ("f16", dict(alpha="two"), gemmgen.ArgumentError, r"alpha and beta must be numbers"),
    ("f16", dict(bias=FakeArray((N,))), gemmgen.ArgumentError, r"has no bias step in its epilogue chain \(none\)"),
    ("f16", dict(scale_a=f32((1,))), gemmgen.ArgumentError, r"has f16 operands and takes no scale_a"),
    ("f16", dict(scale_d=f32((1,))), gemmgen.ArgumentError, r"has no scale_d"),
    ("f16", dict(amax=f32((1,))), gemmgen.ArgumentError, r"writes a f16 D and keeps no amax"),
    ("bias", dict(), gemmgen.ArgumentError, r"adds a bias: pass bias= \(a bf16 vector of 40 values, one per column"),
    ("bias", dict(bias=FakeArray((N,))), gemmgen.DTypeError, r"bias is f16; the chain's bias .* takes bf16 values"),
]


@pytest.mark.parametrize("name, extras, error, message", BAD_16BIT)
def test_bad_extras_are_refused_before_launch(kernels, name, extras, error, message):
    kern = kernels[name]
    if name == "bias":  # bf16 operands cannot be described by __cuda_array_interface__
        return _check_resolve(kern, extras, error, message)
    with pytest.raises(error, match=message):
        kern.plan(A, B, OUT, **extras)


def _check_resolve(kern, extras, error, message):
    # The same checks a call makes, on the kernel's own extras resolver.
    full = dict(c=None, alpha=1.0, beta=0.0, bias=None, scale_a=None, scale_b=None, scale_d=None, amax=None)
    full.update(extras)
    with pytest.raises(error, match=message):
        _extras.resolve(kern, M, N, K, 0, **full)


# fp8 kernels: their operands come from torch on the GPU, so the extras are
# checked through the resolver the call uses (test_torch.py runs them).
BAD_FP8 = [
    ("e4m3", dict(scale_a=FakeArray((1,))), gemmgen.DTypeError, r"scale_a is f16; A's per-tensor scale is one float32"),
    ("e4m3", dict(scale_b=f32((2,))), gemmgen.ArgumentError, r"scale_b \(shape \(2,\)\) must be one value"),
    ("e4m3", dict(amax=f32((1,))), gemmgen.ArgumentError, r"writes a bf16 D and keeps no amax"),
    ("blockwise", dict(), gemmgen.ArgumentError, r"scales blockwise \(types.scaling: blockwise\): pass scale_a"),
    ("blockwise", dict(scale_a=f32((2, M)), scale_b=f32((1, 2))), gemmgen.ArgumentError, r"pass scale_a"),
    # A's scales must be [K block][row]: a contiguous (M, K/128) array is the other order.
    ("blockwise", dict(scale_a=f32((M, 2)), scale_b=f32((1, 2))), gemmgen.ArgumentError,
     r"scale_a \(shape \(96, 2\), strides \(2, 1\)\) must hold 192 values in A's block order"),
    ("blockwise", dict(scale_a=f32((2, M)), scale_b=f32((2,), strides=(2,))), gemmgen.ArgumentError,
     r"scale_b \(shape \(2,\), strides \(2,\)\) must hold 2 values in B's block order"),
    ("blockwise", dict(scale_a=FakeArray((2, M)), scale_b=f32((1, 2))), gemmgen.DTypeError,
     r"scale_a is f16; blockwise scales are float32"),
    ("fp8out", dict(amax=FakeArray((1,), typestr=F32, readonly=True)), gemmgen.ArgumentError,
     r"amax is read-only"),
    ("fp8out", dict(scale_d=f32((1, 1, 2))), gemmgen.ArgumentError, r"scale_d \(shape \(1, 1, 2\)\) must be one value"),
]


@pytest.mark.parametrize("name, extras, error, message", BAD_FP8)
def test_bad_fp8_extras_are_refused(kernels, name, extras, error, message):
    if name == "blockwise" and "pass scale_a" in message and extras:
        extras = {"scale_a": extras["scale_a"]}  # scale_b missing: a blockwise kernel needs both
    _check_resolve(kernels[name], extras, error, message)


def test_good_fp8_extras_resolve_to_pointers(kernels):
    sa, sb = f32((2, M), ptr=0x7100), f32((1, 2), ptr=0x7200)
    x = _extras.resolve(kernels["blockwise"], M, N, K, 0, c=None, alpha=1.0, beta=0.0, bias=None,
                        scale_a=sa, scale_b=sb, scale_d=None, amax=None)
    assert (x.scale_a, x.scale_b, x.c) == (0x7100, 0x7200, _extras.NO_C)
    # The transposed view of an (M, K/128) array holds A's order too.
    x = _extras.resolve(kernels["blockwise"], M, N, K, 0, c=None, alpha=1.0, beta=0.0, bias=None,
                        scale_a=f32((M, 2), strides=(1, M), ptr=0x7300), scale_b=sb, scale_d=None, amax=None)
    assert x.scale_a == 0x7300
    x = _extras.resolve(kernels["fp8out"], M, N, K, 0, c=None, alpha=2.0, beta=0.0, bias=None,
                        scale_a=f32((1,), ptr=0x7400), scale_b=None, scale_d=f32((), ptr=0x7500),
                        amax=f32((1,), ptr=0x7600))
    assert (x.alpha, x.scale_a, x.scale_b, x.scale_d, x.amax) == (2.0, 0x7400, 0, 0x7500, 0x7600)


def test_extras_reach_the_runtime_checks(kernels):
    kern = kernels["f16"]
    # In place (c = out) is fine; an overlapping c with another ld is the runtime's refusal.
    assert kern.plan(A, B, OUT, c=OUT, alpha=2.0, beta=1.0)["ldd"] == N
    shifted = FakeArray((M, N), strides=(48, 1), ptr=0x7E0000000000 + 64)
    with pytest.raises(gemmgen.ArgumentError, match="C and D overlap but are not the same matrix"):
        kern.plan(A, B, OUT, c=shifted, beta=1.0)
    # beta = 0: c is checked here but never read.
    assert kern.plan(A, B, OUT, c=FakeArray((M, N), ptr=0x7C0000000000))["m"] == M


def test_the_f32_output_kernel_reads_c_in_f32(kernels):
    kern = kernels["f32out"]
    out = f32((M, N), ptr=0x7E0000000000)
    assert kern.plan(A, B, out, c=f32((M, N), ptr=0x7B0000000000), beta=0.5)["m"] == M
    with pytest.raises(gemmgen.DTypeError, match=r"c is f16; the kernel reads C in D's type \(f32\)"):
        kern.plan(A, B, out, c=FakeArray((M, N)), beta=0.5)


@requires_no_gpu
def test_a_call_with_extras_checks_them_then_needs_a_gpu(kernels):
    kern = kernels["f16"]
    with pytest.raises(gemmgen.ArgumentError, match="beta is 2, so"):
        kern(A, B, OUT, beta=2.0)
    with pytest.raises(gemmgen.NoDeviceError):
        kern(A, B, OUT, c=OUT, alpha=0.5, beta=2.0)


_EXTRAS_ON_FAKE_DRIVER = r"""
import ctypes, json, os, sys
import gemmgen
fake = ctypes.CDLL(os.environ["GEMMGEN_LIBCUDA"])  # the library the runtime loaded
fake.fakecuda_log.restype = ctypes.c_char_p

class Arr:
    def __init__(self, shape, ptr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f2", "data": (ptr, False),
                                         "strides": None, "version": 3}

spec, (m, n, k) = json.loads(sys.argv[1])
kern = gemmgen.compile(spec)
a, b, out = Arr((m, k), 1 << 28), Arr((n, k), 2 << 28), Arr((m, n), 3 << 28)
b.__cuda_array_interface__.update(shape=(k, n), strides=(2, 2 * k))  # w.t()
logs = []
for extras in [{}, {"alpha": 0.5, "beta": 2.0, "c": out}, {"alpha": 0.5, "beta": 2.0, "c": out}, {"alpha": 3.0}]:
    fake.fakecuda_clear()
    kern(a, b, out, **extras)
    logs.append(fake.fakecuda_log().decode().splitlines())
print(json.dumps(logs))
"""


def test_extras_reach_the_kernel_on_the_fake_driver():
    """alpha and beta land in the kernel's parameters and beta != 0 encodes
    C's tensor map (in place here: D's memory); a repeated call reuses the
    prepared launch (no encode), a changed alpha prepares a new one."""
    import json
    import os
    import subprocess
    import sys
    from test_layouts import FAKE_CUDA
    if not FAKE_CUDA.is_file():
        pytest.skip(f"no fake libcuda at {FAKE_CUDA} (bash scripts/setup.sh builds it)")
    m, n, k = 256, 512, 128
    env = dict(os.environ, GEMMGEN_LIBCUDA=str(FAKE_CUDA))
    r = subprocess.run([sys.executable, "-c", _EXTRAS_ON_FAKE_DRIVER,
                        json.dumps([str(SPECS / "sm90" / "05_fast_f16.yaml"), [m, n, k]])],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    plain, with_c, again, alpha_only = json.loads(r.stdout)
    launch = f"launchEx gemm_sm90_fast_f16 grid=4 M={m} N={n} K={k} batch=1"
    assert plain[-1] == launch and len(plain) == 4  # A, B, D maps, then the launch
    encode_d = f"encode rows={m} cols={n} stride={2 * n}"
    assert with_c == [plain[0], plain[1], encode_d, encode_d, launch + " alpha=0.5 beta=2"]
    assert again == [launch + " alpha=0.5 beta=2"]
    assert alpha_only[-1] == launch + " alpha=3 beta=0" and len(alpha_only) == 4


def test_an_allocated_out_has_16_byte_rows_of_its_own_type(kernels):
    from gemmgen.kernel import out_row_stride
    assert [out_row_stride(2, 41, b) for b in (1, 2, 4)] == [48, 48, 44]
    assert [out_row_stride(2, 48, b) for b in (1, 2, 4)] == [48, 48, 48]
    assert out_row_stride(1, 41, 4) == 41  # one row: its stride is never used
    # plan() without out= describes the output a call would allocate.
    b41 = FakeArray((K, 41), strides=(1, K))
    assert kernels["f16"].plan(A, b41)["ldd"] == 48
    assert kernels["f32out"].plan(A, b41)["ldd"] == 44

"""Array layouts onto the kernel's ABI, and launch-path errors, with fake
__cuda_array_interface__ arrays (no GPU needed: nothing is launched unless
stated)."""
import os
import subprocess
import sys

import pytest

import gemmgen
from conftest import HAS_GPU, SPECS, hopper, requires_no_gpu


class FakeArray:
    """A device array as far as __cuda_array_interface__ goes (never read)."""

    def __init__(self, shape, strides=None, typestr="<f2", ptr=0x7F0000000000, readonly=False):
        itemsize = int(typestr[-1])
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (ptr, readonly),
            "strides": None if strides is None else tuple(s * itemsize for s in strides),
            "version": 3,
        }

    def t(self):
        cai = self.__cuda_array_interface__
        shape = cai["shape"][::-1]
        strides = cai["strides"] or (cai["shape"][1] * 2, 2)
        return FakeArray(shape, [s // 2 for s in strides[::-1]], cai["typestr"], cai["data"][0])


def _lds(p):
    return {key: p[key] for key in ("m", "n", "k", "lda", "ldb", "ldd")}


def test_plan_row_major_a_and_transposed_b(kernel_f16):
    a = FakeArray((300, 512))
    w = FakeArray((200, 512))          # N x K, row-major (an nn.Linear weight)
    p = kernel_f16.plan(a, w.t())      # b = w.t(): K x N with unit stride along K
    assert p == {"m": 300, "n": 200, "k": 512, "lda": 512, "ldb": 512, "ldd": 200,
                 "layout_a": "row", "layout_b": "col", "layout_d": "row", "kernel_layout": ("row", "col")}


def test_plan_views_into_larger_arrays(kernel_f16):
    a = FakeArray((64, 128), strides=(1024, 1))    # a[:, :128] of a 64x1024 array
    b = FakeArray((128, 32), strides=(1, 256))     # columns of a K-major 32x256 array
    out = FakeArray((64, 32), strides=(40, 1))
    assert _lds(kernel_f16.plan(a, b, out)) == {"m": 64, "n": 32, "k": 128, "lda": 1024, "ldb": 256, "ldd": 40}


def test_plan_single_row_and_column(kernel_f16):
    # One row: its row stride is never used, whatever the array says.
    a = FakeArray((1, 64), strides=(1, 1))
    b = FakeArray((64, 1), strides=(1, 1))
    p = kernel_f16.plan(a, b)
    assert (p["m"], p["n"], p["k"], p["lda"], p["ldb"]) == (1, 1, 64, 64, 64)
    assert (p["layout_a"], p["layout_b"], p["layout_d"]) == ("row", "col", "row")


def test_row_major_b_needs_a_kernel_compiled_for_it(kernel_f16):
    # b (KxN) with unit stride along N is read N-major; a kernel compiled for
    # a K-major B refuses it with the runtime's message and the Python fix.
    with pytest.raises(gemmgen.ArgumentError) as info:
        kernel_f16.plan(FakeArray((128, 64)), FakeArray((64, 128)))
    msg = str(info.value)
    assert msg.startswith("the arguments store A row-major and B row-major, but kernel 'gemm_sm90_fast_f16' "
                          "was compiled for A row-major and B col-major; compile the spec with layout: "
                          "{ a: row, b: row }")
    assert msg.endswith('from Python: gemmgen.compile(spec, layout=("row", "row")), or gemmgen.matmul, '
                        "which compiles for the arrays' layouts")


def test_column_major_a_needs_a_kernel_compiled_for_it(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError,
                       match=r"the arguments store A col-major and B col-major, but .* was compiled for A "
                             r'row-major and B col-major.*layout=\("col", "col"\)'):
        kernel_f16.plan(FakeArray((64, 128)).t(), FakeArray((64, 64)).t())


def test_non_contiguous_inner_dimension(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match=r"a \(64x64, strides \(128, 2\)\) has no unit stride along K or M; "
                       r"gemmgen reads A with unit stride along K \(row-major\) or M \(column-major\): pass a.contiguous\(\)"):
        kernel_f16.plan(FakeArray((64, 64), strides=(128, 2)), FakeArray((64, 64)).t())
    with pytest.raises(gemmgen.ArgumentError, match=r"out \(64x64, strides \(2, 128\)\) has no unit stride along N or M; "
                       r"gemmgen writes D .*: pass a contiguous out \(or none, and one is allocated\)"):
        kernel_f16.plan(FakeArray((64, 64)), FakeArray((64, 64)).t(), FakeArray((64, 64), strides=(2, 128)))


def test_shape_mismatch(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match=r"a is 64x32 \(MxK\) and b is 64x16 \(KxN\): the inner dimensions differ \(32 vs 64\)"):
        kernel_f16.plan(FakeArray((64, 32)), FakeArray((16, 64)).t())
    with pytest.raises(gemmgen.ArgumentError, match=r"out is 64x8; a @ b is 64x16"):
        kernel_f16.plan(FakeArray((64, 32)), FakeArray((16, 32)).t(), FakeArray((64, 8)))


def test_not_a_matrix(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match=r"2-D matrices \(a is \(2, 64, 32\)"):
        kernel_f16.plan(FakeArray((2, 64, 32)), FakeArray((16, 32)).t())


def test_wrong_dtype(kernel_f16):
    with pytest.raises(gemmgen.DTypeError, match=r"a is f32 and b is f16; this kernel \(.*\) takes f16 for both"):
        kernel_f16.plan(FakeArray((64, 32), typestr="<f4"), FakeArray((16, 32)).t())


def test_read_only_out(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match="out is read-only"):
        kernel_f16.plan(FakeArray((64, 32)), FakeArray((16, 32)).t(), FakeArray((64, 16), readonly=True))


def test_not_an_array(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match=r"a \(list\) is not a device array"):
        kernel_f16([[1.0]], FakeArray((1, 1)))


def test_host_memory_through_dlpack(kernel_f16):
    np = pytest.importorskip("numpy")
    a = np.zeros((64, 32), dtype=np.float16)
    with pytest.raises(gemmgen.ArgumentError, match=r"a is in cpu memory; gemmgen kernels read CUDA device memory"):
        kernel_f16(a, a.T)


def test_non_torch_output_must_be_given(kernel_f16):
    with pytest.raises(gemmgen.ArgumentError, match=r"pass out= \(an 64x16 f16 array on the same GPU\)"):
        kernel_f16(FakeArray((64, 32)), FakeArray((16, 32)).t())


@requires_no_gpu
def test_launch_without_gpu_says_so(kernel_f16):
    a, b, out = FakeArray((64, 32)), FakeArray((16, 32)).t(), FakeArray((64, 16))
    with pytest.raises(gemmgen.NoDeviceError, match="no CUDA driver/GPU found"):
        kernel_f16(a, b, out)


@requires_no_gpu
def test_matmul_picks_tuned_spec_then_needs_a_gpu():
    a, b, out = FakeArray((4096, 4096)), FakeArray((4096, 4096)).t(), FakeArray((4096, 4096))
    with pytest.raises(gemmgen.NoDeviceError):
        gemmgen.matmul(a, b, out)
    k = gemmgen._matmul.kernel_for(4096, 4096, 4096, "f16")
    assert k.spec_name == gemmgen.tuned_spec(4096, 4096, 4096, "f16")


def test_import_and_compile_without_libcuda(tmp_path):
    """The package imports and compiles where libcuda.so.1 cannot be loaded;
    a launch then raises NoDeviceError naming the library."""
    code = (
        "import gemmgen, sys\n"
        f"k = gemmgen.compile({str(SPECS / 'sm90' / '05_fast_f16.yaml')!r})\n"
        "cai = lambda shape, strides: type('A', (), {'__cuda_array_interface__': {'shape': shape, 'typestr': '<f2',"
        " 'data': (1 << 40, False), 'strides': strides, 'version': 3}})()\n"
        "try:\n"
        "    k(cai((64, 64), None), cai((64, 64), (2, 128)), cai((64, 64), None))\n"
        "except gemmgen.NoDeviceError as e:\n"
        "    print('NoDeviceError:', e)\n"
    )
    env = dict(os.environ, GEMMGEN_LIBCUDA=str(tmp_path / "libcuda.so.1"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"NoDeviceError: no CUDA driver/GPU found ({tmp_path / 'libcuda.so.1'} could not be loaded)" in r.stdout


def test_stream_argument(kernel_f16):
    from gemmgen.kernel import _stream_handle
    assert _stream_handle(None) == 0
    assert _stream_handle(1234) == 1234
    assert _stream_handle(type("S", (), {"cuda_stream": 77})()) == 77
    with pytest.raises(gemmgen.ArgumentError, match="stream must be a cudaStream_t"):
        _stream_handle("default")


@pytest.mark.skipif(not (HAS_GPU and hopper()), reason="needs a Hopper GPU")
def test_sm100_kernel_does_not_load_on_hopper():
    k = gemmgen.compile(sorted((SPECS / "sm100").glob("*.yaml"))[0])
    with pytest.raises(gemmgen.UnsupportedError, match=r"this kernel targets sm_100a \(Blackwell\); this GPU is sm_90"):
        k.load(0)


@pytest.mark.skipif(not HAS_GPU, reason="needs a GPU")
def test_device_info():
    info = gemmgen.device_info(0)
    assert info["sm_count"] > 0 and info["name"]
    with pytest.raises(gemmgen.ArgumentError, match=r"device 99 does not exist"):
        gemmgen.device_info(99)


@requires_no_gpu
def test_device_info_without_gpu():
    with pytest.raises(gemmgen.NoDeviceError, match="no CUDA driver/GPU found"):
        gemmgen.device_info(0)

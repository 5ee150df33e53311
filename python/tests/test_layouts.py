"""Operand layouts: which layout and leading dimension each array's strides
map to, which kernel layout a call needs, compiling for a layout, and
gemmgen.matmul's choice. Fake __cuda_array_interface__ arrays: no GPU
needed (nothing is launched unless stated)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import gemmgen
import gemmgen._matmul as _matmul
from conftest import REPO, SPECS, requires_no_gpu
from test_arrays import FakeArray

SPEC = SPECS / "sm90" / "05_fast_f16.yaml"
M, N, K = 96, 40, 64

# Each array in each layout, a view into a wider buffer so that the leading
# dimension is the stride between its lines and nothing else.
A = {"row": FakeArray((M, K), strides=(80, 1)),     # K-major, lda 80
     "col": FakeArray((M, K), strides=(1, 104))}    # M-major (x.t() of a K x 104 buffer), lda 104
B = {"col": FakeArray((K, N), strides=(1, 72)),     # K-major (w.t()), ldb 72
     "row": FakeArray((K, N), strides=(48, 1))}     # N-major, ldb 48
OUT = {"row": FakeArray((M, N), strides=(56, 1)),   # ldd 56
       "col": FakeArray((M, N), strides=(1, 112))}  # M-major (y.t()), ldd 112
LD = {("a", "row"): 80, ("a", "col"): 104, ("b", "col"): 72, ("b", "row"): 48,
      ("out", "row"): 56, ("out", "col"): 112}

# (a, b, out) layouts -> the (A, B) layouts a kernel must be compiled for.
# A column-major out is computed as out.T = b.T @ a.T: A and B swap, and
# each one's layout flips (b K-major is b.T row-major, ...).
CASES = [
    ("row", "col", "row", ("row", "col")),
    ("col", "col", "row", ("col", "col")),
    ("row", "row", "row", ("row", "row")),
    ("col", "row", "row", ("col", "row")),
    ("row", "col", "col", ("row", "col")),
    ("col", "col", "col", ("row", "row")),
    ("row", "row", "col", ("col", "col")),
    ("col", "row", "col", ("col", "row")),
]
PAIRS = [("row", "col"), ("col", "col"), ("row", "row"), ("col", "row")]


@pytest.fixture(scope="module")
def kernels():
    """05_fast_f16 compiled for each (A, B) layout pair."""
    return {pair: gemmgen.compile(SPEC, layout=pair) for pair in PAIRS}


@pytest.mark.parametrize("la,lb,ld,need", CASES)
def test_plan_maps_every_layout(la, lb, ld, need):
    p = gemmgen.plan(A[la], B[lb], OUT[ld])
    assert p == {"m": M, "n": N, "k": K,
                 "layout_a": la, "lda": LD["a", la], "layout_b": lb, "ldb": LD["b", lb],
                 "layout_d": ld, "ldd": LD["out", ld], "kernel_layout": need}


@pytest.mark.parametrize("la,lb,ld,need", CASES)
def test_plan_of_fp8_arrays_asks_a_k_major_kernel_and_names_the_copies(la, lb, ld, need,
                                                                       monkeypatch):
    """8-bit arrays (torch-only, so the views are relabelled here): the fp8
    kernels are compiled K-major whatever the arrays' layouts, and an a
    stored M-major or a b stored N-major is copied transposed (with either
    out, a column-major one included)."""
    real_view = gemmgen.kernel._arrays.view
    monkeypatch.setattr(gemmgen.kernel._arrays, "view",
                        lambda x, name, device=None: real_view(x, name, device)._replace(
                            dtype="e4m3"))
    p = gemmgen.plan(A[la], B[lb], OUT[ld])
    assert p["kernel_layout"] == ("row", "col")
    assert p["transposed"] == tuple(op for op, copied in (("a", la == "col"), ("b", lb == "row"))
                                    if copied)
    assert (p["layout_a"], p["layout_b"], p["layout_d"]) == (la, lb, ld)


@pytest.mark.parametrize("la,lb,ld,need", CASES)
def test_only_the_kernel_for_the_layouts_takes_them(la, lb, ld, need, kernels):
    for pair, kern in kernels.items():
        if pair == need:
            p = kern.plan(A[la], B[lb], OUT[ld])
            assert (p["layout_a"], p["layout_b"], p["layout_d"]) == (la, lb, ld)
            assert (p["lda"], p["ldb"], p["ldd"]) == (LD["a", la], LD["b", lb], LD["out", ld])
            continue
        with pytest.raises(gemmgen.ArgumentError) as info:
            kern.plan(A[la], B[lb], OUT[ld])
        msg = str(info.value)
        assert f"the arguments store A {la}-major and B {lb}-major" in msg
        assert f"was compiled for A {pair[0]}-major and B {pair[1]}-major" in msg
        assert f"compile the spec with layout: {{ a: {need[0]}, b: {need[1]} }}" in msg
        assert f'gemmgen.compile(spec, layout=("{need[0]}", "{need[1]}"))' in msg
        if ld == "col":
            assert "with D col-major (computed as D^T = B^T·A^T" in msg


def test_allocated_out_is_row_major():
    p = gemmgen.plan(A["col"], B["row"])
    assert (p["layout_d"], p["ldd"], p["kernel_layout"]) == ("row", N, ("col", "row"))
    p = gemmgen.plan(FakeArray((M, K)), FakeArray((K, 37), strides=(1, K)))  # N = 37: padded rows
    assert (p["layout_d"], p["ldd"]) == ("row", 40)


# -- one row or one column: a stride that is never used chooses nothing ------

def test_one_row_a_is_row_major_whatever_its_row_stride():
    for strides in [(1, 1), (K, 1), (0, 1), (12345, 1)]:
        p = gemmgen.plan(FakeArray((1, K), strides=strides), B["col"])
        assert (p["layout_a"], p["lda"]) == ("row", K), strides


def test_one_row_a_with_strided_elements_is_column_major():
    # 1 x K with its K elements 8 apart: K lines of one element (M-major, lda 8).
    p = gemmgen.plan(FakeArray((1, K), strides=(1, 8)), B["col"])
    assert (p["layout_a"], p["lda"], p["kernel_layout"]) == ("col", 8, ("col", "col"))


def test_one_column_b_is_k_major_whatever_its_column_stride():
    for strides in [(1, 1), (1, K), (1, 0)]:
        p = gemmgen.plan(A["row"], FakeArray((K, 1), strides=strides))
        assert (p["layout_b"], p["ldb"]) == ("col", K), strides


def test_one_column_of_a_row_major_b_is_n_major():
    p = gemmgen.plan(A["row"], FakeArray((K, 1), strides=(24, 1)))   # w[:, :1] of a row-major K x 24 w
    assert (p["layout_b"], p["ldb"], p["kernel_layout"]) == ("row", 24, ("row", "row"))


def test_one_column_out():
    # Contiguous M x 1: one line of M (column-major); row-major would need
    # ldd = 1. Computed as out.T = b.T @ a.T by the same default kernel.
    a, b = A["row"], FakeArray((K, 1), strides=(1, 1))
    p = gemmgen.plan(a, b, FakeArray((M, 1), strides=(1, 1)))
    assert (p["layout_d"], p["ldd"], p["kernel_layout"]) == ("col", M, ("row", "col"))
    # What gemmgen allocates (row stride 8): row-major.
    p = gemmgen.plan(a, b, FakeArray((M, 1), strides=(8, 1)))
    assert (p["layout_d"], p["ldd"], p["kernel_layout"]) == ("row", 8, ("row", "col"))
    p = gemmgen.plan(a, b)
    assert (p["layout_d"], p["ldd"]) == ("row", 8)


def test_one_row_out_and_one_element():
    p = gemmgen.plan(FakeArray((1, K)), B["col"], FakeArray((1, N), strides=(1, 1)))
    assert (p["layout_d"], p["ldd"]) == ("row", N)
    p = gemmgen.plan(FakeArray((1, K)), FakeArray((K, 1), strides=(1, 1)), FakeArray((1, 1), strides=(1, 1)))
    assert (p["layout_a"], p["layout_b"], p["layout_d"]) == ("row", "col", "row")
    assert (p["lda"], p["ldb"], p["ldd"], p["kernel_layout"]) == (K, K, 8, ("row", "col"))


def test_degenerate_shapes_run_on_the_default_kernel(kernel_f16):
    # The cases above that need no other kernel pass all of its checks.
    b1 = FakeArray((K, 1), strides=(1, 1))
    for a, b, out in [(FakeArray((1, K), strides=(1, 1)), B["col"], None),
                      (A["row"], b1, FakeArray((M, 1), strides=(1, 1))),
                      (A["row"], b1, None),
                      (FakeArray((1, K)), b1, FakeArray((1, 1), strides=(1, 1)))]:
        kernel_f16.plan(a, b, out)


def test_empty_dimensions_are_not_checked_against_the_kernel(kernels):
    # M, N or K of 0 launch nothing (or zero-fill out): any kernel takes them.
    for pair, kern in kernels.items():
        assert kern.plan(FakeArray((0, K)), B["row"])["m"] == 0
        assert kern.plan(FakeArray((M, 0), strides=(8, 1)), FakeArray((0, N), strides=(1, 1)))["k"] == 0


# -- strides no layout reads -------------------------------------------------

def test_no_unit_stride():
    with pytest.raises(gemmgen.ArgumentError,
                       match=r"^a \(96x64, strides \(160, 2\)\) has no unit stride along K or M; gemmgen reads A "
                             r"with unit stride along K \(row-major\) or M \(column-major\): pass a.contiguous\(\)$"):
        gemmgen.plan(FakeArray((M, K), strides=(160, 2)), B["col"])
    with pytest.raises(gemmgen.ArgumentError,
                       match=r"^b \(64x40, strides \(2, 128\)\) has no unit stride along N or K; gemmgen reads B "
                             r"with unit stride along N \(row-major\) or K \(column-major\): pass b.contiguous\(\), "
                             r"or w.t\(\) for a row-major NxK w"):
        gemmgen.plan(A["row"], FakeArray((K, N), strides=(2, 128)))
    with pytest.raises(gemmgen.ArgumentError,
                       match=r"^out \(96x40, strides \(3, 300\)\) has no unit stride along N or M; gemmgen writes D"):
        gemmgen.plan(A["row"], B["col"], FakeArray((M, N), strides=(3, 300)))


def test_broadcast_views_are_refused():
    # Stride 0 between lines that are read: the runtime would take ld 0 as
    # "packed" and read (or write) past the array.
    with pytest.raises(gemmgen.ArgumentError,
                       match=r"^a \(96x64, strides \(0, 1\)\) has stride 0 along M: its rows overlap \(a broadcast "
                             r"or expanded view\); pass a.contiguous\(\)$"):
        gemmgen.plan(FakeArray((M, K), strides=(0, 1)), B["col"])
    with pytest.raises(gemmgen.ArgumentError, match=r"^b \(64x40, strides \(1, 0\)\) has stride 0 along N: its columns overlap"):
        gemmgen.plan(A["row"], FakeArray((K, N), strides=(1, 0)))
    with pytest.raises(gemmgen.ArgumentError, match=r"^out \(96x40, strides \(1, 0\)\) has stride 0 along N: its columns overlap"):
        gemmgen.plan(A["row"], B["col"], FakeArray((M, N), strides=(1, 0)))
    with pytest.raises(gemmgen.ArgumentError, match=r"^a \(96x64, strides \(-64, 1\)\) has stride -64 along M: its rows "
                       r"run backwards \(a flipped view\); pass a.contiguous\(\)$"):
        gemmgen.plan(FakeArray((M, K), strides=(-64, 1)), B["col"])


def test_leading_dimension_checks_follow_the_layout(kernels):
    # The runtime's ld checks name the operand's line length in its layout. An
    # ld that is not a 16-byte multiple is accepted: that operand is staged
    # through an aligned copy (the runtime's staging path).
    p = kernels["col", "col"].plan(FakeArray((M, K), strides=(1, 100)), B["col"])
    assert p["lda"] == 100 and p["layout_a"] == "col"
    with pytest.raises(gemmgen.ArgumentError, match=r"operand B: leading dimension 32 is smaller than its row "
                       r"length N=40"):
        kernels["row", "row"].plan(A["row"], FakeArray((K, N), strides=(32, 1)))


def test_kernel_plan_checks_dtype_before_layout(kernels):
    with pytest.raises(gemmgen.DTypeError):
        kernels["row", "col"].plan(FakeArray((M, K), typestr="<f4"), B["row"])


# -- compiling for a layout ----------------------------------------------------

def test_compile_for_each_layout(kernels):
    sources = set()
    for (la, lb), kern in kernels.items():
        assert (kern.layout_a, kern.layout_b) == (la, lb)
        assert f"layout ({la}, {lb})" in repr(kern)
        assert kern.source == gemmgen.emit(SPEC, layout=(la, lb))
        sources.add(kern.source)
    assert len(sources) == 4, "each layout pair generates its own kernel"
    assert kernels["row", "col"].source == gemmgen.emit(SPEC)  # the spec's own layout


def test_compile_overrides_the_specs_layout():
    spec = SPECS / "sm90" / "07_fast_f16_a_col.yaml"   # layout: { a: col, b: col }
    own = gemmgen.compile(spec)
    assert (own.layout_a, own.layout_b) == ("col", "col")
    other = gemmgen.compile(spec, layout=("row", "row"))
    assert (other.layout_a, other.layout_b) == ("row", "row")
    assert other.source != own.source


def test_compile_for_a_layout_of_a_kernel_that_stores_d_column_major():
    # spec 23 stores D column-major and computes a row-major out as out^T = b^T·a^T: the
    # layout given (the row-major problem's) becomes its transpose's (a <- not b, b <- not a).
    spec = SPECS / "sm90" / "23_decode_col_d_f16.yaml"   # layout: { a: row, b: col, d: col }
    own = gemmgen.compile(spec)
    assert (own.layout_a, own.layout_b, own.layout_d) == ("row", "col", "col")
    assert own.source == gemmgen.emit(spec, layout=("row", "col"))
    other = gemmgen.compile(spec, layout=("row", "row"))
    assert (other.layout_a, other.layout_b, other.layout_d) == ("col", "col", "col")
    assert gemmgen.compile(SPEC).layout_d == "row"


def test_a_column_major_d_kernel_that_splits_k():
    # spec 24: spec 23 with split_k 4; its slices are row-major f32 and the reduction writes
    # out column-major, so it takes the same layouts as spec 23.
    spec = SPECS / "sm90" / "24_decode_col_d_split_f16.yaml"
    own = gemmgen.compile(spec)
    assert (own.layout_a, own.layout_b, own.layout_d, own.split_k) == ("row", "col", "col", 4)
    other = gemmgen.compile(spec, layout=("row", "row"))
    assert (other.layout_a, other.layout_b, other.layout_d) == ("col", "col", "col")


def test_check_with_layout():
    assert gemmgen.check(SPEC, layout=("col", "row"), simulate=False) == []
    sm100 = sorted((SPECS / "sm100").glob("*.yaml"))[0]
    assert gemmgen.check(sm100, simulate=False) == []
    with pytest.raises(gemmgen.SpecError, match=r"layout.a: col is not supported yet") as info:
        gemmgen.compile(sm100, layout=("col", "col"))
    assert info.value.diagnostics[0].line > 0  # points at the spec's layout key


@pytest.mark.parametrize("bad,message", [
    ("row", r"layout must be a pair \(a, b\) of \"row\" or \"col\", e\.g\. \(\"col\", \"row\"\), or None "
            r"for the spec's layouts; got 'row'"),
    (("row",), r"layout must be a pair .*; got \('row',\)"),
    (("row", "col", "row"), r"layout must be a pair"),
    (("row", 1), r"layout must be a pair .*; got \('row', 1\)"),
    ({"a": "row", "b": "col"}, r"layout must be a pair"),
    (("Row", "col"), r"^layout\[0\] \(A\) is 'Row'; a layout is \"row\" or \"col\"$"),
    (("row", "k-major"), r"^layout\[1\] \(B\) is 'k-major'; a layout is \"row\" or \"col\"$"),
])
def test_bad_layout_values(bad, message):
    for call in (gemmgen.compile, gemmgen.emit, gemmgen.check):
        with pytest.raises(gemmgen.ArgumentError, match=message):
            call(SPEC, layout=bad)


def test_layout_list_is_accepted():
    assert gemmgen.compile(SPEC, layout=["col", "row"]).layout_a == "col"


# -- gemmgen.matmul compiles for the arrays' layouts ---------------------------

class RecordingCompile:
    """Stands for gemmgen.compile: records (spec, layout) and returns a
    callable that records its call instead of launching."""

    def __init__(self):
        self.compiled = []
        self.calls = []

    def __call__(self, spec, layout=None):
        self.compiled.append((str(spec), layout))
        parent = self

        class Launcher:
            layout_a, layout_b = layout

            def __call__(self, a, b, out, stream=None):
                parent.calls.append((layout, a, b, out))
                return out

        return Launcher()


@pytest.fixture
def recording(monkeypatch):
    rec = RecordingCompile()
    monkeypatch.setattr(gemmgen, "compile", rec)
    monkeypatch.setattr(_matmul, "_kernels_by_spec", {})
    monkeypatch.setattr(_matmul, "_kernels_by_shape", {})
    return rec


def row_major_shape(ld):
    """The m×n the choice is made for: a column-major out runs as out.T = b.T @ a.T."""
    return (M, N) if ld == "row" else (N, M)


@pytest.mark.parametrize("la,lb,ld,need", CASES)
def test_matmul_compiles_for_the_kernel_layout(la, lb, ld, need, recording):
    out = OUT[ld]
    assert gemmgen.matmul(A[la], B[lb], out) is out
    spec = _matmul.spec_for(*row_major_shape(ld), K, "f16", need)
    assert recording.compiled == [(spec, need)]
    assert [c[0] for c in recording.calls] == [need]
    gemmgen.matmul(A[la], B[lb], out)  # cached: compiled once per spec and layout
    assert len(recording.compiled) == 1 and len(recording.calls) == 2


def test_matmul_caches_per_layout(recording):
    for la, lb, ld, _ in CASES:
        gemmgen.matmul(A[la], B[lb], OUT[ld])
    # The last keys: the GPU's L2 and SMs (0 without one: the H200's choice).
    gpu = _matmul.device_choice_gpu(0)
    want = {(*row_major_shape(ld), K, "f16", need, *gpu) for _, _, ld, need in CASES}
    assert set(_matmul._kernels_by_shape) == want
    assert sorted(recording.compiled) == sorted(
        {(_matmul.spec_for(m, n, k, t, pair), pair) for m, n, k, t, pair, *_ in want})


def test_a_column_major_out_is_chosen_as_its_row_major_problem(recording):
    """16 rows of a column-major out: the choice is the 4096×16 problem's (the
    tall twin, which runs with the 4096 columns on the MMA's M side), not the
    16×4096 decode kernel, which would run untransposed with 16 rows padded."""
    a = FakeArray((16, 4096), strides=(4096, 1))
    b = FakeArray((4096, 4096), strides=(1, 4096))       # w.t()
    out_col = FakeArray((16, 4096), strides=(1, 16))     # y.t() of a 4096×16 buffer
    gemmgen.matmul(a, b, out_col)
    spec, layout = recording.compiled[-1]
    assert layout == ("row", "col")
    assert "gemm_sm90_auto_tall_d16_s1_f16" in spec, spec[:200]
    out_row = FakeArray((16, 4096), strides=(4096, 1))
    gemmgen.matmul(a, b, out_row)
    assert "gemm_sm90_auto_decode_d16_s1_f16" in recording.compiled[-1][0]


def test_matmul_without_out_and_with_empty_dimensions(recording):
    gemmgen.matmul(A["col"], B["col"], OUT["row"])
    assert recording.compiled[-1][1] == ("col", "col")
    try:
        gemmgen.matmul(A["col"], B["col"])     # allocating needs torch or CuPy: the layout is chosen first
    except gemmgen.ArgumentError as e:
        assert "pass out=" in str(e)
    assert recording.compiled[-1][1] == ("col", "col")
    gemmgen.matmul(FakeArray((0, K)), B["row"], FakeArray((0, N)))  # nothing to launch: the default kernel
    assert recording.compiled[-1][1] == ("row", "col")


def test_matmul_layout_errors_come_before_compiling(recording):
    with pytest.raises(gemmgen.ArgumentError, match=r"^a \(96x64, strides \(160, 2\)\) has no unit stride"):
        gemmgen.matmul(FakeArray((M, K), strides=(160, 2)), B["col"], OUT["row"])
    with pytest.raises(gemmgen.ArgumentError, match=r"^out is 96x8; a @ b is 96x40$"):
        gemmgen.matmul(A["row"], B["col"], FakeArray((M, 8)))
    assert recording.compiled == []


@requires_no_gpu
def test_matmul_compiles_the_tuned_spec_for_the_layout_then_needs_a_gpu():
    a, b, out = FakeArray((4096, 4096)).t(), FakeArray((4096, 4096)), FakeArray((4096, 4096))
    with pytest.raises(gemmgen.NoDeviceError):
        gemmgen.matmul(a, b, out)
    k = _matmul._kernels_by_shape[4096, 4096, 4096, "f16", ("col", "row"), 0, 0]
    assert (k.layout_a, k.layout_b) == ("col", "row")
    assert k.spec_name == gemmgen.tuned_spec(4096, 4096, 4096, "f16")


@requires_no_gpu
def test_mismatched_launch_fails_before_opening_a_gpu(kernels):
    # Wrong arguments are reported the same way with or without a GPU.
    with pytest.raises(gemmgen.ArgumentError, match=r"was compiled for A row-major and B col-major"):
        kernels["row", "col"](A["col"], B["col"], OUT["row"])
    with pytest.raises(gemmgen.NoDeviceError):
        kernels["col", "col"](A["col"], B["col"], OUT["row"])


# -- through the runtime's launch path, on the fake driver ---------------------

# tests/fake/FakeCuda.cpp, built with the C++ tests: a libcuda that logs the
# tensor maps the runtime encodes and the launches (nothing runs).
FAKE_CUDA = pathlib.Path(os.environ.get("GEMMGEN_FAKE_CUDA") or REPO / "build" / "tests" / "libgemmgen_fakecuda.so")

_LAUNCH_ON_FAKE_DRIVER = r"""
import ctypes, json, os, sys
import gemmgen
fake = ctypes.CDLL(os.environ["GEMMGEN_LIBCUDA"])  # the library the runtime loaded
fake.fakecuda_log.restype = ctypes.c_char_p

class Arr:
    def __init__(self, shape, strides, ptr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f2", "data": (ptr, False),
                                         "strides": tuple(2 * s for s in strides), "version": 3}

spec, cases = json.loads(sys.argv[1])
logs = []
for layout, a, b, out in cases:
    kern = gemmgen.compile(spec, layout=tuple(layout))
    fake.fakecuda_clear()
    kern(Arr(a[0], a[1], 1 << 28), Arr(b[0], b[1], 2 << 28), Arr(out[0], out[1], 3 << 28))
    logs.append(fake.fakecuda_log().decode().splitlines())
print(json.dumps(logs))
"""


def _view_of(fake):
    cai = fake.__cuda_array_interface__
    return [list(cai["shape"]), [s // 2 for s in cai["strides"]]]


@pytest.mark.skipif(not FAKE_CUDA.is_file(), reason=f"no fake libcuda at {FAKE_CUDA} (bash scripts/setup.sh builds it)")
def test_layouts_reach_the_tensor_maps():
    """Each call, through the runtime's prepare and launch, encodes one tensor
    map per operand as it lies in memory (lines, line length, ld in bytes):
    A, B, D for a row-major out; B, A, D (M and N swapped) for a column-major
    one, the runtime's out.T = b.T @ a.T."""
    cases = [(need, _view_of(A[la]), _view_of(B[lb]), _view_of(OUT[ld])) for la, lb, ld, need in CASES]
    env = dict(os.environ, GEMMGEN_LIBCUDA=str(FAKE_CUDA))
    r = subprocess.run([sys.executable, "-c", _LAUNCH_ON_FAKE_DRIVER, json.dumps([str(SPEC), cases])],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    logs = json.loads(r.stdout)
    stored = {("a", "row"): (M, K), ("a", "col"): (K, M), ("b", "col"): (N, K), ("b", "row"): (K, N),
              ("out", "row"): (M, N), ("out", "col"): (N, M)}

    def encode(name, layout):
        lines, length = stored[name, layout]
        return f"encode rows={lines} cols={length} stride={2 * LD[name, layout]}"

    for (la, lb, ld, need), log in zip(CASES, logs):
        first, second = (("a", la), ("b", lb)) if ld == "row" else (("b", lb), ("a", la))
        m, n = (M, N) if ld == "row" else (N, M)
        assert log == [encode(*first), encode(*second), encode("out", ld),
                       f"launchEx gemm_sm90_fast_f16 grid=1 M={m} N={n} K={K} batch=1"], (la, lb, ld)


def test_a_kernel_with_an_f32_output_takes_f32_out():
    # out is in the kernel's D type (spec 10 writes f32): an f16 out is
    # refused before anything is launched, an f32 one planned.
    kern = gemmgen.compile(SPECS / "sm90" / "10_fast_f16_out_f32.yaml")
    assert kern.dtype == "f16" and kern.out_dtype == "f32"
    with pytest.raises(gemmgen.DTypeError, match=r"out is f16; this kernel \(gemm_sm90_fast_f16_out_f32\) writes f32"):
        kern.plan(A["row"], B["col"], OUT["row"])
    out32 = FakeArray((M, N), typestr="<f4")
    assert kern.plan(A["row"], B["col"], out32)["ldd"] == N
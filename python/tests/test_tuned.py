"""gemmgen.matmul's spec choice: the tuned defaults installed with the package."""
import os
import types

import pytest

import gemmgen
from gemmgen import _matmul


def test_defaults_are_installed_with_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing relative to the working directory
    monkeypatch.delenv("GEMMGEN_TUNED_DEFAULTS", raising=False)
    path = gemmgen.tuned_defaults_path()
    assert path.startswith(os.path.dirname(gemmgen.__file__))
    spec = gemmgen.tuned_spec(4096, 4096, 4096, "f16")
    assert os.path.isfile(spec)
    assert spec.endswith("nvidia_h200/f16_4096x4096x4096.yaml")
    assert gemmgen.check(spec, simulate=False) == []


def test_nearest_tuned_shape():
    assert gemmgen.tuned_spec(130, 8000, 8192, "bf16").endswith("bf16_128x8192x8192.yaml")
    assert gemmgen.tuned_spec(4096, 4096, 4000, "f16").endswith("f16_4096x4096x4096.yaml")


def test_environment_override(tmp_path, monkeypatch):
    (tmp_path / "s.yaml").write_text("x")
    (tmp_path / "defaults.yaml").write_text(
        "version: 1\ngpu: test\nshapes:\n  - { m: 64, n: 64, k: 64, dtype: f16, spec: s.yaml }\n")
    monkeypatch.setenv("GEMMGEN_TUNED_DEFAULTS", str(tmp_path / "defaults.yaml"))
    assert gemmgen.tuned_spec(4096, 4096, 4096, "f16") == str(tmp_path / "s.yaml")
    with pytest.raises(gemmgen.Error, match="has no bf16 entry"):
        gemmgen.tuned_spec(64, 64, 64, "bf16")


def test_matmul_rejects_other_dtypes():
    from test_arrays import FakeArray
    with pytest.raises(gemmgen.DTypeError, match=r"gemmgen.matmul takes float16 or bfloat16 arrays \(a is f32\)"):
        gemmgen.matmul(FakeArray((64, 64), typestr="<f4"), FakeArray((64, 64), typestr="<f4"))


def test_choose_kernel_is_the_cost_model():
    c = gemmgen.choose_kernel(16, 2112, 7168, "f16")
    assert c["family"] == "small" and c["split_k"] > 1
    assert c["name"] == "gemm_sm90_auto_small_s%d_f16" % c["split_k"] and not c["stream_k"]
    assert c["predicted_us"] * 1.10 <= c["default_us"]
    assert "16x2112x7168" in c["reason"]
    assert gemmgen.check(c["spec"], simulate=False) == []
    # Split 2 of the small tile in one launch: its stream-K kernel, no split_k in the spec.
    one = gemmgen.choose_kernel(128, 4096, 11008, "f16")
    assert (one["family"], one["split_k"], one["stream_k"]) == ("small", 2, True)
    assert one["name"] == "gemm_sm90_auto_small_sk2_f16"
    assert "kind: stream_k" in one["spec"] and "split_k" not in one["spec"]
    assert gemmgen.check(one["spec"], simulate=False) == []
    # ... only where the launch on the GPU's SMs cuts each tile into two aligned shares: on
    # 180 SMs the 128 CTAs would leave a quarter idle, so the split keeps its reduction kernel.
    assert gemmgen.choose_kernel(128, 4096, 11008, "f16", sm_count=132)["stream_k"]
    more = gemmgen.choose_kernel(128, 4096, 11008, "f16", sm_count=180)
    assert (more["family"], more["split_k"], more["stream_k"]) == ("small", 2, False)
    assert more["name"] == "gemm_sm90_auto_small_s2_f16"
    # The model counts its rounds on the GPU's SMs: on 114 the 64 tiles split 2 take two.
    fewer = gemmgen.choose_kernel(128, 4096, 11008, "f16", sm_count=114)
    assert (fewer["family"], fewer["split_k"]) != ("small", 2)
    with pytest.raises(gemmgen.ArgumentError, match="sm_count is the GPU's multiprocessor count"):
        gemmgen.choose_kernel(64, 64, 64, "f16", sm_count=-1)
    big = gemmgen.choose_kernel(4096, 4096, 4096, "bf16")
    assert (big["family"], big["split_k"]) == ("large", 1)
    with pytest.raises(gemmgen.ArgumentError, match="chooses among f16 and bf16 kernels"):
        gemmgen.choose_kernel(64, 64, 64, "f32")
    with pytest.raises(gemmgen.ArgumentError, match="at least 1"):
        gemmgen.choose_kernel(0, 64, 64, "f16")


def test_the_ping_pong_rule_is_for_the_h200s_l2(monkeypatch):
    # Measured on the H200 (60 MiB of L2); on the H100's 50 MiB its tiles ran 17-20% behind.
    assert gemmgen.choose_kernel(12288, 12288, 1024, "f16")["family"] == "pingpong"
    assert gemmgen.choose_kernel(12288, 12288, 1024, "f16", l2_bytes=60 << 20)["family"] == "pingpong"
    h100 = gemmgen.choose_kernel(12288, 12288, 1024, "f16", l2_bytes=50 << 20)
    assert h100["family"] == "large"
    assert "they need 60 MiB of L2 and this GPU has 50" in h100["reason"]
    with pytest.raises(gemmgen.ArgumentError, match="l2_bytes is the GPU's L2 in bytes"):
        gemmgen.choose_kernel(64, 64, 64, "f16", l2_bytes=-1)
    # gemmgen.matmul asks the array's GPU for its L2 (once per device).
    from test_arrays import FakeArray
    compiled = []
    monkeypatch.setattr(gemmgen, "compile", lambda spec, layout: compiled.append(spec) or
                        (lambda *a, **k: "launched"))
    monkeypatch.setattr(_matmul, "_kernels_by_shape", {})
    monkeypatch.setattr(_matmul, "_kernels_by_spec", {})
    monkeypatch.setattr(_matmul, "_gpu_by_device", {})
    asked = []
    monkeypatch.setattr(_matmul._core, "device_info", lambda device: asked.append(device) or
                        {"l2_bytes": 50 << 20, "sm_count": 132})
    a, b = FakeArray((12288, 1024)), FakeArray((12288, 1024)).t()
    assert gemmgen.matmul(a, b) == "launched"
    assert compiled == [h100["spec"]] and asked == [0]
    gemmgen.matmul(a, b)
    assert asked == [0]
    # ... the GPU the arrays are on (a CuPy-style array's device.id), not always the first.
    a1 = FakeArray((12288, 1024))
    a1.device = types.SimpleNamespace(id=1)
    gemmgen.matmul(a1, b)
    assert asked == [0, 1]


def test_matmul_asks_the_gpus_sm_count(monkeypatch):
    # 128x4096x11008 (not tuned): split 2 in one launch on 132 SMs, with its reduction on 180.
    from test_arrays import FakeArray
    compiled = []
    monkeypatch.setattr(gemmgen, "compile", lambda spec, layout: compiled.append(spec) or
                        (lambda *a, **k: "launched"))
    monkeypatch.setattr(_matmul, "_kernels_by_shape", {})
    monkeypatch.setattr(_matmul, "_kernels_by_spec", {})
    for sms in (132, 180):
        monkeypatch.setattr(_matmul, "_gpu_by_device", {})
        monkeypatch.setattr(_matmul._core, "device_info",
                            lambda device: {"l2_bytes": 60 << 20, "sm_count": sms})
        gemmgen.matmul(FakeArray((128, 11008)), FakeArray((4096, 11008)).t())
    assert "kind: stream_k" in compiled[0] and "split_k: 2" in compiled[1]
    assert compiled == [gemmgen.choose_kernel(128, 4096, 11008, "f16", sm_count=s)["spec"]
                        for s in (132, 180)]


def test_without_a_gpu_the_choice_is_the_h200s(monkeypatch):
    monkeypatch.setattr(_matmul, "_gpu_by_device", {})

    def no_gpu(device):
        raise gemmgen.NoDeviceError("no GPU")
    monkeypatch.setattr(_matmul._core, "device_info", no_gpu)
    assert _matmul.device_choice_gpu(0) == (0, 0)


def test_kernel_for_untuned_shape_takes_the_model(monkeypatch):
    from gemmgen import _matmul
    compiled = []
    monkeypatch.setattr(gemmgen, "compile", lambda spec, layout: compiled.append(spec) or spec)
    monkeypatch.setattr(_matmul, "_kernels_by_shape", {})
    monkeypatch.setattr(_matmul, "_kernels_by_spec", {})
    _matmul.kernel_for(16, 4096, 4096, "f16")
    assert compiled[-1] == gemmgen.choose_kernel(16, 4096, 4096, "f16")["spec"]
    _matmul.kernel_for(4096, 4096, 4096, "f16")  # tuned: the DB's spec file
    assert compiled[-1].endswith("nvidia_h200/f16_4096x4096x4096.yaml")


@pytest.mark.parametrize("m,n,k", [(768, 3072, 3072), (3000, 5000, 2048), (512, 7168, 2048)])
def test_the_model_chooses_within_the_kernel_layout(m, n, k):
    # A k×n b (B N-major in the kernel) loads whole 64-column boxes: the
    # wave-filling tiles (144, 152, 224 columns) chosen for B stored n×k would
    # not compile for it (gemmgen.matmul with a contiguous torch b did not).
    for layout in (("row", "col"), ("row", "row"), ("col", "row"), ("col", "col")):
        spec = _matmul.spec_for(m, n, k, "f16", layout)
        assert gemmgen.check(spec, simulate=False, layout=layout) == [], layout
    narrow = gemmgen.choose_kernel(m, n, k, "f16")["family"]
    assert narrow.startswith("fit") or narrow == "pingpong152"
    assert gemmgen.choose_kernel(m, n, k, "f16", ("row", "row"))["family"] in ("large", "wide", "medium")
    with pytest.raises(gemmgen.ArgumentError, match="layout must be a pair of 'row' or 'col'"):
        gemmgen.choose_kernel(m, n, k, "f16", ("row", "k-major"))


@pytest.mark.parametrize("m,n,k", [(16, 6144, 4096), (1, 2112, 7168), (32, 4096, 4096)])
def test_decode_choices_fit_a_column_major_a(m, n, k):
    # The decode tiles compute D^T = B·A^T: a column-major a is their MMA's B
    # loaded in 64-column boxes, which 16- and 32-token tiles are not.
    assert gemmgen.choose_kernel(m, n, k, "f16")["family"].startswith("decode")
    for layout in (("row", "col"), ("row", "row"), ("col", "row"), ("col", "col")):
        spec = _matmul.spec_for(m, n, k, "f16", layout)
        assert gemmgen.check(spec, simulate=False, layout=layout) == [], layout


def test_choose_fp8_kernel_is_the_cost_model():
    c = gemmgen.choose_fp8_kernel(128, 2112, 7168, "e4m3", scaling="blockwise")
    assert c["family"] in ("medium", "wide", "narrow") and c["split_k"] > 1
    assert c["name"] == "gemm_sm90_auto_%s_s%d_e4m3_blockwise_bf16" % (c["family"], c["split_k"])
    assert "with split_k %d" % c["split_k"] in c["reason"]
    assert "scaling: blockwise" in c["spec"] and "128x2112x7168" in c["reason"]
    assert gemmgen.check(c["spec"], simulate=False) == []
    big = gemmgen.choose_fp8_kernel(4096, 4096, 4096)
    assert (big["family"], big["split_k"]) == ("large", 1)
    assert big["name"] == "gemm_sm90_auto_large_s1_e4m3_tensor_bf16"
    mixed = gemmgen.choose_fp8_kernel(4096, 4096, 4096, "e4m3", dtype_b="e5m2", out_dtype="f32")
    assert "a: e4m3, b: e5m2, d: f32" in mixed["spec"]
    assert gemmgen.check(mixed["spec"], simulate=False) == []
    # The model counts its rounds on the GPU's SMs: 33 narrow tiles x 4 slices fill one round of
    # 132, not of 114.
    on114 = gemmgen.choose_fp8_kernel(128, 2112, 7168, "e4m3", scaling="blockwise", sm_count=114)
    assert (on114["family"], on114["split_k"]) != ("narrow", 4)
    with pytest.raises(gemmgen.ArgumentError, match="sm_count is the GPU's multiprocessor count"):
        gemmgen.choose_fp8_kernel(64, 64, 64, sm_count=5000)
    out8 = gemmgen.choose_fp8_kernel(128, 2112, 7168, scaling="blockwise", out_dtype="e4m3")
    assert out8["split_k"] == 1 and "d: e4m3" in out8["spec"]  # no split-K with an 8-bit D
    assert gemmgen.check(out8["spec"], simulate=False) == []


@pytest.mark.parametrize("kwargs,error,says", [
    (dict(dtype="f16"), gemmgen.ArgumentError, "use chooseKernel for f16/bf16"),
    (dict(dtype="e4m3", scaling="rowwise"), gemmgen.ArgumentError, "per_tensor\" or \"blockwise"),
    (dict(dtype="e4m3", out_dtype="f64"), gemmgen.DTypeError, "not written by fp8 kernels"),
    (dict(dtype="e3m4"), gemmgen.DTypeError, "not one of"),
])
def test_choose_fp8_kernel_refuses(kwargs, error, says):
    with pytest.raises(error, match=says):
        gemmgen.choose_fp8_kernel(64, 64, 64, **kwargs)


def test_scaled_matmul_takes_the_fp8_model(monkeypatch):
    from gemmgen import _matmul, _scaled_matmul
    compiled = []
    monkeypatch.setattr(gemmgen, "compile", lambda spec, layout: compiled.append((spec, layout)) or spec)
    monkeypatch.setattr(_scaled_matmul, "_kernels_by_problem", {})
    monkeypatch.setattr(_matmul, "_kernels_by_spec", {})
    k1 = _scaled_matmul.fp8_kernel_for(128, 2112, 7168, "e4m3", "e4m3", "bf16", "blockwise")
    assert k1 == gemmgen.choose_fp8_kernel(128, 2112, 7168, scaling="blockwise")["spec"]
    assert compiled[-1][1] == ("row", "col")
    # The same problem again: no second compile; another shape with the same choice shares it.
    _scaled_matmul.fp8_kernel_for(128, 2112, 7168, "e4m3", "e4m3", "bf16", "blockwise")
    assert len(compiled) == 1
    # One cache of compiled kernels for matmul and scaled_matmul.
    assert _matmul.compiled(k1, ("row", "col")) == k1 and len(compiled) == 1
    _scaled_matmul.fp8_kernel_for(0, 2112, 7168, "e4m3", "e4m3", "f32", "per_tensor")
    assert "d: f32" in compiled[-1][0]
    # A GPU of 114 SMs (scaled_matmul passes its arrays' GPU's): that GPU's choice.
    k114 = _scaled_matmul.fp8_kernel_for(128, 2112, 7168, "e4m3", "e4m3", "bf16", "blockwise",
                                         sm_count=114)
    assert k114 == gemmgen.choose_fp8_kernel(128, 2112, 7168, scaling="blockwise", sm_count=114)["spec"]
    assert k114 != k1


def test_scaled_matmul_refuses_16_bit_arrays():
    from test_arrays import FakeArray
    a16 = FakeArray((64, 64), typestr="<f2")
    with pytest.raises(gemmgen.DTypeError, match=r"scaled_matmul takes fp8 arrays .* \(16-bit: gemmgen.matmul\)"):
        gemmgen.scaled_matmul(a16, a16, None, None)

"""gemmgen.matmul's spec choice: the tuned defaults installed with the package."""
import os

import pytest

import gemmgen


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
    c = gemmgen.choose_kernel(1, 2112, 7168, "f16")
    assert c["family"] == "small" and c["split_k"] > 1
    assert c["name"] == "gemm_sm90_auto_small_s%d_f16" % c["split_k"]
    assert c["predicted_us"] * 1.10 <= c["default_us"]
    assert "1x2112x7168" in c["reason"]
    assert gemmgen.check(c["spec"], simulate=False) == []
    big = gemmgen.choose_kernel(4096, 4096, 4096, "bf16")
    assert (big["family"], big["split_k"]) == ("large", 1)
    with pytest.raises(gemmgen.ArgumentError, match="chooses among f16 and bf16 kernels"):
        gemmgen.choose_kernel(64, 64, 64, "f32")
    with pytest.raises(gemmgen.ArgumentError, match="at least 1"):
        gemmgen.choose_kernel(0, 64, 64, "f16")


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

"""check / emit / compile: the C++ compiler through Python, no GPU needed."""
import pathlib
import re

import pytest

import gemmgen
from conftest import REPO, SPECS

SPEC_01 = SPECS / "sm90" / "01_ws_1consumer.yaml"

# specs/sm90/01_ws_1consumer.yaml as a dict (the file's keys and values).
SPEC_01_DICT = {
    "kernel": "gemm_sm90_ws_1consumer",
    "description": "1 TMA producer warp + 1 consumer warpgroup, 128x128x64, 4 stages",
    "target": "sm_90a",
    "types": {"a": "f16", "b": "f16", "d": "f16", "accumulate": "f32"},
    "layout": {"a": "row", "b": "col"},
    "tile": {"m": 128, "n": 128, "k": 64},
    "pipeline": {"depth": 4, "mma_in_flight": 1},
    "consumers": 1,
    "scheduler": {"kind": "persistent", "raster": "along_m", "group": 8},
    "roles": {
        "producer": {"warps": 1, "registers": 40, "does": "tma_load"},
        "consumer": {"warpgroups": 1, "registers": 232, "does": ["mma", "epilogue"]},
    },
    "epilogue": {"store": "tma", "overlap": True},
}


def test_check_accepts_path_text_and_dict():
    assert gemmgen.check(SPEC_01) == []
    assert gemmgen.check(str(SPEC_01)) == []
    assert gemmgen.check(SPEC_01.read_text()) == []
    assert gemmgen.check(SPEC_01_DICT) == []


@pytest.mark.parametrize("name", ["01_ws_1consumer", "03_ws_2consumers", "06_fast_bf16"])
def test_emit_is_the_cli_output(name, monkeypatch):
    # tests/golden holds `gemmgen emit` / `emit --print-ir` of every spec,
    # run from the repository root (the banner names the spec's path).
    monkeypatch.chdir(REPO)
    golden = REPO / "tests" / "golden" / "sm90"
    spec = f"specs/sm90/{name}.yaml"
    assert gemmgen.emit(spec) == (golden / f"{name}.cu").read_text()
    assert gemmgen.emit(spec, print_ir=True) == (golden / f"{name}.ir").read_text()


def test_dict_and_text_emit_the_same_kernel_as_the_file():
    from_file = gemmgen.emit(SPEC_01)
    # The banner names the spec's source; the code after it is the same.
    body = lambda s: s[s.index("extern \"C\""):]
    assert body(gemmgen.emit(SPEC_01_DICT)) == body(from_file)
    assert body(gemmgen.emit(SPEC_01.read_text())) == body(from_file)


def test_emit_standalone_inlines_the_ptx_header():
    src = gemmgen.emit(SPEC_01, standalone=True)
    assert '#include "gemmgen/device/sm90_ptx.cuh"' not in src
    assert '#include "gemmgen/device/sm90_ptx.cuh"' in gemmgen.emit(SPEC_01)


def test_spec_error_carries_located_diagnostics():
    text = SPEC_01.read_text().replace("tile:", "tiel:")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("tiel:"))
    with pytest.raises(gemmgen.SpecError) as info:
        gemmgen.check(text)
    e = info.value
    assert isinstance(e, ValueError)
    d = e.diagnostics[0]
    assert (d.file, d.line, d.column, d.severity) == ("<string>", line, 1, "error")
    assert d.message == "unknown key 'tiel' in the spec; did you mean 'tile'?"
    # The message is what the CLI prints: location, source line, caret.
    assert f"<string>:{line}:1: error: unknown key 'tiel' in the spec; did you mean 'tile'?\ntiel:" in str(e)


def test_dict_spec_errors_point_at_the_key():
    bad = dict(SPEC_01_DICT, tile={"m": 100, "n": 128, "k": 64})
    with pytest.raises(gemmgen.SpecError) as info:
        gemmgen.emit(bad)
    d = info.value.diagnostics[0]
    assert d.file == "<dict>"
    assert d.message.startswith("tile.m must be a multiple of 64")
    # The dict is written one key a line: the caret points at the value.
    assert str(info.value).endswith(f"<dict>:{d.line}:6: error: {d.message}\n  m: 100\n     ^")


def _expected(spec: pathlib.Path):
    for line in spec.read_text().splitlines():
        m = re.match(r"# expect: (\d+):(\d+): (error|warning|note): (.*)", line)
        if m:
            yield int(m[1]), int(m[2]), m[3], m[4]


BAD_SPECS = sorted((REPO / "tests" / "bad_specs").glob("*.yaml"))


@pytest.mark.parametrize("spec", BAD_SPECS, ids=[p.stem for p in BAD_SPECS])
def test_bad_spec_table(spec):
    """Every spec of tests/bad_specs raises SpecError with its expected
    diagnostics, or returns them when they are only warnings (the table the
    C++ tests use)."""
    expected = list(_expected(spec))
    assert expected, f"{spec.name} has no '# expect:' line"
    if any(e[2] == "error" for e in expected):
        with pytest.raises(gemmgen.SpecError) as info:
            gemmgen.check(spec, simulate=False)
        diagnostics = info.value.diagnostics
    else:
        diagnostics = gemmgen.check(spec, simulate=False)
    got = {(d.line, d.column, d.severity, d.message) for d in diagnostics}
    for e in expected:
        assert e in got, f"{spec.name}: expected {e}, got {sorted(got)}"
    assert all(d.file == str(spec) for d in diagnostics if d.line)


def test_missing_file():
    with pytest.raises(gemmgen.SpecError, match=r"nope\.yaml"):
        gemmgen.check("/nonexistent/nope.yaml")


def test_spec_of_wrong_type():
    with pytest.raises(TypeError, match="a spec is a path, YAML text or a dict"):
        gemmgen.check(42)


def test_compile_needs_no_gpu(kernel_f16):
    k = kernel_f16
    assert k.target == "sm_90a"
    assert k.dtype == "f16"
    assert k.tile == (128, 256, 64)
    assert k.registers > 0 and k.spill_bytes == 0
    assert k.cubin_bytes > 1000
    assert k.smem_bytes > 100_000
    assert "gemm" in repr(k) and k.name in repr(k)


def test_compile_bf16(kernel_bf16):
    assert kernel_bf16.dtype == "bf16"


def test_compile_sm100_spec():
    k = gemmgen.compile(SPECS / "sm100" / sorted(p.name for p in (SPECS / "sm100").glob("*.yaml"))[0])
    assert k.target == "sm_100a"


def test_nvrtc_version():
    assert re.fullmatch(r"\d+\.\d+", gemmgen.nvrtc_version())


def test_version_is_the_projects():
    """__version__ is the library's (CMake's project()); pip's metadata must say the same."""
    cmake = re.search(r"project\(gemmgen VERSION (\S+)", (REPO / "CMakeLists.txt").read_text())
    pyproject = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    assert cmake and pyproject
    assert gemmgen.__version__ == cmake.group(1) == pyproject.group(1)


@pytest.mark.parametrize("bug,verdict", [("same_phase_full", "race"), ("tx_too_large", "tx overflow"),
                                         ("arrivals_too_many", "deadlock")])
def test_protocol_error_from_the_simulation(bug, verdict):
    spec = REPO / "tests" / "sim_bugs" / f"{bug}.yaml"
    # The static protocol checks catch it first ...
    with pytest.raises(gemmgen.SpecError) as info:
        gemmgen.check(spec)
    assert not isinstance(info.value, gemmgen.ProtocolError)
    # ... and without them the short simulation does.
    with pytest.raises(gemmgen.ProtocolError) as info:
        gemmgen.check(spec, protocol_checks=False)
    msg = str(info.value)
    assert msg.startswith(f"spec '{spec}': the simulated barrier protocol fails:\nsimulate bug_{bug}:")
    assert f"seed 1: {verdict}:" in msg


@pytest.mark.parametrize("seeds,why", [(0, "simulating 0 interleavings checks nothing"),
                                       (5000, "simulating 5000 interleavings is too many")])
def test_check_refuses_a_simulation_size_as_an_argument(seeds, why):
    """0 seeds would report 'ok' over no run, 5000 more than the simulator runs: the caller's
    argument (ArgumentError), not a failing protocol (ProtocolError)."""
    with pytest.raises(gemmgen.ArgumentError) as info:
        gemmgen.check(SPECS / "sm90" / "05_fast_f16.yaml", seeds=seeds)
    assert not isinstance(info.value, gemmgen.ProtocolError)
    assert why in str(info.value) and "simulate=False skips the simulation" in str(info.value)
    assert gemmgen.check(SPECS / "sm90" / "05_fast_f16.yaml", simulate=False, seeds=seeds) == []

"""Shared fixtures: the repository's specs, a compiled kernel, GPU detection."""
import pathlib

import pytest

import gemmgen

REPO = pathlib.Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


def _gpu_count() -> int:
    try:
        gemmgen.device_info(0)
    except gemmgen.NoDeviceError:
        return 0
    return 1


HAS_GPU = _gpu_count() > 0


def hopper() -> bool:
    return HAS_GPU and gemmgen.device_info(0)["compute_capability"] == (9, 0)


requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU here (gemmgen.device_info raised NoDeviceError)")
requires_no_gpu = pytest.mark.skipif(HAS_GPU, reason="launches fake pointers: only where there is no GPU")


@pytest.fixture(scope="session")
def kernel_f16():
    return gemmgen.compile(SPECS / "sm90" / "05_fast_f16.yaml")


@pytest.fixture(scope="session")
def kernel_bf16():
    return gemmgen.compile(SPECS / "sm90" / "06_fast_bf16.yaml")

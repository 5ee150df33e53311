"""What the shipped sm_90a kernels compile to, checked in their SASS (no GPU): the goldens under
tests/golden/sm90 are the printer's output (GoldenTest keeps them so), compiled here with nvcc
under NVRTC's options and disassembled with cuobjdump by bench/sass_static.py, the script whose
counts docs/PERF.md quotes. These guard what the C++ text cannot show: what the compilers make
of it (a select per accumulator register on every tile went unseen until 2026-12-04).

    build/venv/bin/python -m pytest -q tests/sass    (scripts/test.sh; cuobjdump: $CUOBJDUMP,
    PATH, or the nvidia-cuda-cuobjdump and -nvdisasm wheels scripts/setup-python.sh installs)
"""
import glob
import os
import shutil
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import sass_static  # noqa: E402

GOLDENS = sorted(glob.glob(os.path.join(ROOT, 'tests/golden/sm90/*.cu')))


def find_cuobjdump():
    found = os.environ.get('CUOBJDUMP') or shutil.which('cuobjdump')
    if found:
        return found
    for site in sys.path:
        hits = glob.glob(os.path.join(site, 'nvidia', 'cu*', 'bin', 'cuobjdump'))
        if hits:
            return hits[0]
    return None


@pytest.fixture(scope='module')
def counts():
    cuobjdump = find_cuobjdump()
    assert cuobjdump, ('no cuobjdump: set CUOBJDUMP, put one on PATH, or pip install '
                       'nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm (scripts/setup-python.sh does)')
    out = {}
    with tempfile.TemporaryDirectory() as work:
        for path in GOLDENS:
            out[os.path.basename(path)] = sass_static.opcode_counts(open(path).read(), cuobjdump, work)
    return out


def test_every_golden_compiles(counts):
    assert len(counts) == len(GOLDENS) >= 26
    for name, c in counts.items():
        assert sum(c.values()) > 500, name


def test_no_kernel_selects_its_accumulators(counts):
    # A tile without k-blocks zeroes its accumulators under a branch (zero_acc_reg); a plain
    # `acc = 0.f` there became one FSEL per accumulator register on every tile. No sm_90a kernel
    # needs a select elsewhere today: one that does says why here.
    selects = {name: c['FSEL'] for name, c in counts.items() if c['FSEL']}
    assert not selects


def test_bias_gelu_chain_enters_through_alphas_fma(counts):
    # KernelPlan::chainEntry: the bias in alpha's FMA (no FADD), gelu_tanh fed the value halved
    # (FMUL: 2 per element and 1 per bias value, where 4 per element were).
    for name in ('14_fast_bf16_bias_gelu.cu', '21_pingpong_bf16_bias_gelu.cu'):
        c = counts[name]
        tanh = c['MUFU'] - 6  # 6 MUFU of the tile walk's divisions
        assert tanh >= 128, (name, c['MUFU'])
        assert c['FADD'] == 0, (name, c['FADD'])
        assert c['FMUL'] <= 2.6 * tanh, (name, c['FMUL'], tanh)


def test_store_forms_chosen_once_per_chunk(counts):
    # D = acc, alpha·acc and alpha·acc + beta·C each have their own stores (spec 05: 16 stmatrix
    # sites each), the multiplies by alpha only on the last two (128 each), and no branch per 8
    # values: fewer branches than the one path with a test of beta per stmatrix had (71). (43 by
    # 2026-12-06, 53 with the early loads' guards and loops, KernelPlan::earlyLoads.)
    c = counts['05_fast_f16.cu']
    assert c['STSM'] == 48, c['STSM']
    assert c['FMUL'] == 256, c['FMUL']
    assert c['BRA'] < 60, c['BRA']

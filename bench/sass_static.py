#!/usr/bin/env python3
"""Static SASS instruction counts by opcode of generated kernels, compiled here (no GPU): each
source is compiled to an sm_90a cubin with nvcc under NVRTC's options (-std=c++17, the runtime's
headers; the same ptxas, so the same SASS as `gemmgen compile`) and disassembled with cuobjdump.
A source is a .cu file or REV:PATH, a file of a commit (a golden of the kernel as it was:
`cd04d05:tests/golden/sm90/21_pingpong_bf16_bias_gelu.cu`). Counts are of the code, not of what
runs: a loop body counts once. cuobjdump (and the nvdisasm it runs, from its folder or PATH):
$CUOBJDUMP, else on PATH (`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` brings both
on a machine without them).

    python3 bench/sass_static.py [--ops FMUL,FFMA,...] SOURCE...
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# An instruction line: /*offset*/, an optional predicate, the opcode (modifiers after a dot).
INSTR = re.compile(r'^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)')


def source_text(src):
    if os.path.exists(src):
        return open(src).read()
    if ':' in src:
        rev, path = src.split(':', 1)
        return subprocess.run(['git', '-C', ROOT, 'show', f'{rev}:{path}'], check=True,
                              capture_output=True, text=True).stdout
    sys.exit(f'{src}: neither a file nor REV:PATH')


def find_nvcc():
    """nvcc on PATH, else the toolkit's usual place (scripts/setup.sh puts it on PATH only for
    itself)."""
    found = shutil.which('nvcc') or '/usr/local/cuda/bin/nvcc'
    if not os.path.exists(found):
        sys.exit('no nvcc: install the CUDA toolkit under /usr/local/cuda or put nvcc on PATH')
    return found


def opcode_counts(text, cuobjdump, work):
    cu, cubin = os.path.join(work, 'k.cu'), os.path.join(work, 'k.cubin')
    open(cu, 'w').write(text)
    subprocess.run([find_nvcc(), '-cubin', '-arch=sm_90a', '-std=c++17', '-I', os.path.join(ROOT, 'runtime/include'),
                    '-diag-suppress', '177', '-o', cubin, cu], check=True, capture_output=True, text=True)
    # cuobjdump runs nvdisasm, from its own folder where the wheels put both.
    env = dict(os.environ, PATH=os.path.dirname(cuobjdump) + os.pathsep + os.environ.get('PATH', ''))
    sass = subprocess.run([cuobjdump, '-sass', cubin], check=True, capture_output=True, text=True,
                          env=env).stdout
    counts = collections.Counter()
    for line in sass.splitlines():
        m = INSTR.match(line)
        if m:
            counts[m.group(1)] += 1
    return counts


def main(argv):
    ops = ['FMUL', 'FFMA', 'FADD', 'MUFU', 'HGMMA', 'UMOV']
    if len(argv) > 1 and argv[0] == '--ops':
        ops, argv = argv[1].split(','), argv[2:]
    if not argv:
        sys.exit(__doc__)
    cuobjdump = os.environ.get('CUOBJDUMP') or shutil.which('cuobjdump')
    if not cuobjdump:
        sys.exit('no cuobjdump: set CUOBJDUMP or put one on PATH (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)')
    print(f"{'source':<70} {'total':>6} " + ' '.join(f'{o:>6}' for o in ops))
    with tempfile.TemporaryDirectory() as work:
        for src in argv:
            c = opcode_counts(source_text(src), cuobjdump, work)
            print(f'{src[-70:]:<70} {sum(c.values()):>6} ' + ' '.join(f'{c[o]:>6}' for o in ops))


if __name__ == '__main__':
    main(sys.argv[1:])

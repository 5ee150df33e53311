#!/usr/bin/env python3
"""How far each library moved between two sweeps (bench/h200-sweep.sh): a sweep's ratios move when
either gemmgen or cuBLAS runs faster or slower in that call's processes, so a ratio that rose may
be cuBLAS's slowdown. Reads the tuned rows of both sweeps' logs (sweep-logs.tgz: each shape's
`bench` table: gemmgen ms, cuBLAS ms) and prints the geo-mean of old ÷ new time per library over
the points both have (> 1: faster in the new sweep), then every point where either library moved
by more than THRESHOLD (default 3%).

    python3 bench/sweep_drift.py OLD_SWEEP_DIR NEW_SWEEP_DIR [THRESHOLD]
"""
import math
import re
import sys
import tarfile

ROW = re.compile(r'^\s*(\d+x\d+x\d+)\s+(f16|bf16)\s+([\d.]+) \([\d.]+\)\s+([\d.]+) \([\d.]+\)')


def tuned_times(sweep_dir):
    """{(shape, dtype): (gemmgen ms, cuBLAS ms)} of the sweep's tuned runs."""
    times = {}
    with tarfile.open(f"{sweep_dir}/sweep-logs.tgz") as tar:
        for member in tar.getmembers():
            name = member.name.rsplit('/', 1)[-1]
            if not (name.startswith('tuned-') and name.endswith('.log')):
                continue
            for line in tar.extractfile(member).read().decode(errors='replace').splitlines():
                m = ROW.match(line)
                if m:
                    times[(m.group(1), m.group(2))] = (float(m.group(3)), float(m.group(4)))
    return times


def geo(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(old_dir, new_dir, threshold=0.03):
    old, new = tuned_times(old_dir), tuned_times(new_dir)
    common = sorted(set(old) & set(new))
    if not common:
        sys.exit(f"no tuned points in common between {old_dir} and {new_dir}")
    ours = [old[k][0] / new[k][0] for k in common]
    theirs = [old[k][1] / new[k][1] for k in common]
    print(f"{len(common)} tuned points; old / new time, geo-mean: gemmgen {geo(ours):.4f}, "
          f"cuBLAS {geo(theirs):.4f} (> 1: faster in {new_dir})")
    print(f"points where either moved by more than {threshold:.0%}:")
    for k, a, b in zip(common, ours, theirs):
        if abs(a - 1) > threshold or abs(b - 1) > threshold:
            print(f"  {k[0]:<18} {k[1]:<4} gemmgen {old[k][0]:.4f} -> {new[k][0]:.4f} ms ({a:.3f})"
                  f"   cuBLAS {old[k][1]:.4f} -> {new[k][1]:.4f} ms ({b:.3f})")


if __name__ == '__main__':
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) == 4 else 0.03)

#!/usr/bin/env python3
"""Where the sweep's bf16 ratio differs from its f16 one: per shape, the median over the passes of
gemmgen's and cuBLAS's tuned-run times in each type (the sweep logs' tuned-*.json), and which side
moved. Both sides run the same bytes in either type, so a shape where cuBLAS's bf16 time falls
much further below its f16 time than ours does is one where cuBLAS runs another kernel for bf16.

    python3 bench/sweep_type_gap.py RESULTS_DIR [ROWS]

RESULTS_DIR holds sweep-N/sweep-logs.tgz (bench/h200-sweep-repeat.sh's passes); the ROWS shapes
(default 12) with the lowest cuBLAS bf16/f16 time ratio are printed, then the pass count.
"""
import glob
import json
import os
import statistics
import sys
import tarfile


def tuned_times(results_dir):
    """{shape: {dtype: [(gemmgen ms, cublas ms), ...one per pass]}}."""
    times = {}
    for tgz in sorted(glob.glob(os.path.join(results_dir, 'sweep-*', 'sweep-logs.tgz'))):
        with tarfile.open(tgz) as t:
            for member in t.getmembers():
                name = os.path.basename(member.name)
                if not (name.startswith('tuned-') and name.endswith('.json')):
                    continue
                _, dtype, shape = name[:-len('.json')].split('-', 2)
                try:
                    run = json.load(t.extractfile(member))['results'][0]
                    pair = (run['gemmgen_ms']['median'], run['cublas_ms']['median'])
                except (KeyError, IndexError, ValueError, TypeError):
                    continue  # a run that did not finish
                times.setdefault(shape, {}).setdefault(dtype, []).append(pair)
    return times


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    times = tuned_times(sys.argv[1])
    table = []
    for shape, by_type in times.items():
        if 'f16' not in by_type or 'bf16' not in by_type:
            continue
        med = {t: [statistics.median(x[i] for x in by_type[t]) for i in (0, 1)]
               for t in ('f16', 'bf16')}
        (ours16, cub16), (ours_b, cub_b) = med['f16'], med['bf16']
        table.append((cub_b / cub16, shape, ours16, ours_b, cub16, cub_b))
    table.sort()
    print('ms, medians over the passes; ratio = cuBLAS time / gemmgen time')
    print(f'{"shape":18} {"ours f16":>9} {"ours bf16":>9} {"cuBLAS f16":>10} {"cuBLAS bf16":>11}'
          f' {"cuBLAS b/f":>10} {"ours b/f":>8} {"ratio f16":>9} {"ratio bf16":>10}')
    for cub_gap, shape, ours16, ours_b, cub16, cub_b in table[:rows]:
        print(f'{shape:18} {ours16:9.4f} {ours_b:9.4f} {cub16:10.4f} {cub_b:11.4f}'
              f' {cub_gap:10.3f} {ours_b / ours16:8.3f} {cub16 / ours16:9.3f} {cub_b / ours_b:10.3f}')
    passes = max((len(v) for d in times.values() for v in d.values()), default=0)
    print(f'{len(table)} shapes, up to {passes} passes')


if __name__ == '__main__':
    main()

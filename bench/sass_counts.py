#!/usr/bin/env python3
"""Executed warp instructions by SASS opcode from ncu's source page (`ncu --import R.ncu-rep
--page source --print-source sass --csv`, as bench/h200-session6-final.sh writes it), read from
the CSV or from the logs' tarball: the total, the top opcodes with their share, and the hottest
lines.

    python3 bench/sass_counts.py CSV_OR_TGZ [MEMBER_NAME_PART] [TOP]
"""
import collections
import csv
import io
import sys
import tarfile


def csv_texts(path, part):
    if not path.endswith('.tgz'):
        yield path, open(path).read()
        return
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.name.endswith('.csv') and part in m.name:
                yield m.name, tar.extractfile(m).read().decode(errors='replace')


def counts(text):
    rows = list(csv.reader(io.StringIO(text)))
    header = next(r for r in rows if 'Instructions Executed' in r)
    body = rows[rows.index(header) + 1:]
    src, n = header.index('Source'), header.index('Instructions Executed')
    by_op, lines = collections.Counter(), []
    for r in body:
        try:
            executed = int(r[n].replace(',', ''))
        except (ValueError, IndexError):
            continue
        words = r[src].split()
        if not words:
            continue
        op = words[1] if words[0].startswith('@') and len(words) > 1 else words[0]
        by_op[op.split('.')[0]] += executed
        lines.append((executed, r[src].strip()))
    return by_op, sorted(lines, reverse=True)


def main(path, part='', top=20):
    for name, text in csv_texts(path, part):
        by_op, lines = counts(text)
        total = sum(by_op.values())
        print(f"{name}: {total} warp instructions executed")
        for op, c in by_op.most_common(top):
            print(f"  {op:<12} {c:>10} {100 * c / total:5.1f}%")
        print("  hottest lines:")
        for c, s in lines[:8]:
            print(f"  {c:>10}  {s[:90]}")


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else '',
         int(sys.argv[3]) if len(sys.argv) > 3 else 20)

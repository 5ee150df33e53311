#!/usr/bin/env python3
"""The SASS instructions with the most warp-stall samples in one `ncu --page source --print-source
sass --csv` log (one kernel): the top N with their share and two largest stall reasons, then the
share of the samples in each named region (a region: the instructions from the first whose text
matches START to the first after it matching END, both regexes).
  usage: ncu_source_top.py CSV [N] [NAME:START:END ...]"""
import csv
import re
import sys


def load(path):
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    # ncu prints a "Kernel Name" row, then the header ("Address","Source",...), then one row a line
    at = next((i for i, r in enumerate(rows) if r[:2] == ["Address", "Source"]), None)
    if at is None:
        return None, []
    head = rows[at]
    return head, [r for r in rows[at + 1:] if len(r) == len(head)]


def main(argv):
    head, body = load(argv[1])
    if head is None:
        return print("no source header in " + argv[1])
    top = int(argv[2]) if len(argv) > 2 else 30
    samp = head.index("Warp Stall Sampling (All Samples)")
    num = lambda r, j: float(r[j].replace(",", "") or 0)
    total = sum(num(r, samp) for r in body) or 1
    reasons = [j for j, h in enumerate(head) if h.startswith("stall_") and "(Not Issued)" not in h]
    print(f"{len(body)} instructions, {total:.0f} samples")
    for i, r in sorted(enumerate(body), key=lambda x: -num(x[1], samp))[:top]:
        why = sorted(((num(r, j), head[j]) for j in reasons), reverse=True)[:2]
        print(f"{i:5d} {100 * num(r, samp) / total:5.1f}% {r[1][:60]:60s} {why}")
    for spec in argv[3:]:
        name, start, end = spec.split(":", 2)
        a = next((i for i, r in enumerate(body) if re.search(start, r[1])), None)
        b = a is not None and next((i for i in range(a + 1, len(body))
                                    if re.search(end, body[i][1])), len(body))
        share = 0 if a is None else sum(num(r, samp) for r in body[a:b + 1]) / total
        print(f"region {name}: {100 * share:.1f}% of the samples"
              + ("" if a is not None else " (start not found)"))


if __name__ == "__main__":
    main(sys.argv)

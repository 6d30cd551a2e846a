"""Runs Apache Otava's change-point detection on CSV series for bench/changes.mjs.

Usage: python changes_otava.py <series.csv>...
Reads the `value` column of each file, calls otava.analysis.compute_change_points with its
defaults (window 50, max p-value 0.001, no minimum magnitude) and prints one JSON line per file:
{"file": ..., "indices": [...], "seconds": ...}. `indices` are the change points' `index`
(the first point of the new regime), the same convention as perfgate's.
"""

import csv
import json
import sys
import time

from otava.analysis import compute_change_points


def read_values(path):
    with open(path, newline="") as f:
        return [float(row["value"]) for row in csv.DictReader(f)]


def main(paths):
    for path in paths:
        values = read_values(path)
        start = time.perf_counter()
        change_points, _weak = compute_change_points(values)
        seconds = time.perf_counter() - start
        indices = sorted(int(cp.index) for cp in change_points)
        print(json.dumps({"file": path, "indices": indices, "seconds": seconds}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

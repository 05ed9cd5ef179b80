#!/usr/bin/env python3
"""The daemon's CPU per edit on a big tree: a map from nothing, then EDITS times one file edited
(a function appended, so that its tags change) and the map asked until it has re-tagged the file,
each edit measured from the question to the settled process (the index saved). Binaries side by
side, in turn, RUNS times; the file is restored after each run.

    bench-map-edits.py --coderd A --coderd B --tree DIR --file REL.go [--edits 3] [--runs 2]
"""
import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import cpu_s, on_tree, p50  # noqa: E402

PARAMS = {"budget": 8000}


def settled(pid):
    """The process's CPU once it stopped using any for 1.5 s (the index's save is done)."""
    last = cpu_s(pid)
    while True:
        time.sleep(1.5)
        now = cpu_s(pid)
        if now == last:
            return now
        last = now


def edits(coderd, tree, rel, count):
    proc, side, conn = on_tree(coderd, tree, "coderd-edits-")
    path = os.path.join(tree, rel)
    original = open(path, "rb").read()
    costs = []
    try:
        conn.call("map", PARAMS)
        settled(proc.pid)
        for i in range(count):
            with open(path, "ab") as f:
                f.write(b"\nfunc benchEdit%d_%d() {}\n" % (os.getpid(), i))
            before = cpu_s(proc.pid)
            # The watcher's event comes a moment after the write: ask until the file is re-tagged.
            while conn.call("map", PARAMS)["result"]["parsed"] == 0:
                time.sleep(0.05)
            costs.append(settled(proc.pid) - before)
    finally:
        open(path, "wb").write(original)
        proc.terminate()
        proc.wait()
        shutil.rmtree(side, ignore_errors=True)
    return costs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coderd", action="append", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    costs = {b: [] for b in a.coderd}
    for _ in range(a.runs):
        for b in a.coderd:
            costs[b] += edits(b, a.tree, a.file, a.edits)
    for b, xs in costs.items():
        print("%s: CPU per edit median %.2f s (%s)" % (b, p50(xs), " ".join("%.2f" % x for x in xs)))


if __name__ == "__main__":
    main()

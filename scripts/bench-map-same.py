#!/usr/bin/env python3
"""Maps of real repositories from two coderd binaries, compared byte for byte: the check that a change
meant to be faster (or a refactor) answers every map as before.

    bench-map-same.py --coderd A --coderd B REPO...

Per repository, a fresh daemon of each binary (one after the other) answers the same questions:
no focus at budgets from 500 to 100,000 characters, five focus files spread over the tree's source
files at 1,000, 4,000 and 8,000, tests included, and two mentions. Prints per repository whether every
map is the same, and the questions whose maps differ; exits 1 if any does.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("questions", os.path.join(HERE, "bench-map-questions.py"))
questions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(questions)

SOURCE = (".rs", ".go", ".py", ".ts", ".tsx", ".js")


def asked(repo):
    files = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    source = [f for f in files if f.endswith(SOURCE)]
    focus = [source[len(source) * k // 5] for k in range(5)] if source else []
    qs = [{"budget": n} for n in (500, 1000, 4000, 8000, 20000, 100000)]
    qs += [{"focus": [f], "budget": n} for f in focus for n in (1000, 4000, 8000)]
    return qs + [{"include_tests": True, "budget": 8000}, {"mentions": ["new", "parse"], "budget": 4000}]


def maps(binary, repo, qs):
    daemon = questions.Daemon(binary, repo)
    try:
        return [daemon.map(q)[1]["map"] for q in qs]
    finally:
        daemon.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coderd", action="append", required=True)
    ap.add_argument("repos", nargs="+")
    args = ap.parse_args()
    if len(args.coderd) != 2:
        raise SystemExit("two --coderd binaries")
    differing = 0
    for repo in args.repos:
        qs = asked(repo)
        a, b = (maps(binary, repo, qs) for binary in args.coderd)
        diff = [q for q, x, y in zip(qs, a, b) if x != y]
        differing += len(diff)
        print(f"{os.path.basename(repo.rstrip('/'))}: {len(qs)} maps, "
              + ("the same" if not diff else f"{len(diff)} differ: {diff}"))
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a warm map costs by budget on a big tree: per coderd binary (one after the other), a daemon
on the tree, a cold map, then each question asked once and timed `--runs` times (medians), with the
files it shows with their items and the files it names without them.

    bench-map-budgets.py --coderd A [--coderd B] --tree DIR [--focus REL] [--runs 5]

The questions: no focus at 8,000, 100,000 and 1,000,000 characters, and `--focus` (default: the
tree's first source file in path order) at 8,000 and 100,000.
"""
import argparse
import json
import os
import shutil
import time

from coderd_bench import on_tree, p50

SOURCE = (".rs", ".go", ".py", ".ts", ".tsx", ".js")


def first_source(tree):
    for folder, dirs, names in os.walk(tree):
        dirs.sort()
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(names):
            if name.endswith(SOURCE):
                return os.path.relpath(os.path.join(folder, name), tree)
    raise SystemExit(f"no source file under {tree}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coderd", action="append", required=True)
    parser.add_argument("--tree", required=True)
    parser.add_argument("--focus")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    focus = args.focus or first_source(args.tree)
    questions = [{"budget": b} for b in (8_000, 100_000, 1_000_000)]
    questions += [{"budget": b, "focus": [focus]} for b in (8_000, 100_000)]
    print("| question | " + " | ".join(f"{os.path.basename(b)}: ms (shown + named)" for b in args.coderd) + " |")
    print("|---|" + "---|" * len(args.coderd))
    cells = {json.dumps(q): [] for q in questions}
    for binary in args.coderd:
        proc, side, conn = on_tree(binary, args.tree, "coderd-budgets-")
        try:
            conn.call("map", {"budget": 8_000})
            for q in questions:
                conn.call("map", q)
                times, answer = [], None
                for _ in range(args.runs):
                    start = time.perf_counter()
                    answer = conn.call("map", q)
                    times.append((time.perf_counter() - start) * 1000)
                result = answer.get("result")
                if result is None:
                    raise SystemExit(f"{binary} {q}: {answer}")
                named = result.get("files_named", 0)
                cells[json.dumps(q)].append(f"{p50(times):.0f} ({result['files_shown']} + {named})")
        finally:
            proc.terminate()
            proc.wait()
            shutil.rmtree(side, ignore_errors=True)
    for q in questions:
        print(f"| {json.dumps(q)} | " + " | ".join(cells[json.dumps(q)]) + " |")


main()

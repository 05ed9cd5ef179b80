#!/usr/bin/env python3
"""Search latency of two coderd binaries side by side (an older build against this one, say), on a
copy of one tree, alternated round by round so machine load hits both alike, with rg beside them.

    scripts/bench-search-side-by-side.py OLD_CODERD NEW_CODERD TREE [--rounds 2] [--runs 15]

Prints, per binary and round, the median ms of: a rare literal, a common word answered as text
(5,000 hits), a regex; and rg --json -C2 on the rare literal. Needs rg on PATH."""
import argparse, os, shutil, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coderd_bench  # noqa: E402

QUERIES = [
    ("rare", {"pattern": "fn poll_read_ready"}),
    ("common as text", {"pattern": "self", "max_results": 5000, "format": "text"}),
    ("regex", {"pattern": r"impl<T: \w+>", "regex": True}),
]


def median_ms(call, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs=2)
    parser.add_argument("tree")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for round_ in range(args.rounds):
        for binary in args.binaries:
            daemon = coderd_bench.Daemon(os.path.abspath(binary), "bench-search-")
            shutil.copytree(args.tree, os.path.join(daemon.ws, "tree"))
            daemon.start()
            row = {}
            for name, params in QUERIES:
                params = dict(params, dir="tree")
                reply = daemon.call("search", params)
                if "result" not in reply:
                    sys.exit(f"{binary}: {reply}")
                row[name] = median_ms(lambda: daemon.call("search", params), args.runs)
            daemon.close()
            rg = ["rg", "--json", "-C2", "fn poll_read_ready", args.tree]
            row["rg rare"] = median_ms(lambda: subprocess.run(rg, stdout=subprocess.DEVNULL), args.runs)
            print(f"round {round_ + 1} {binary}: {row}", flush=True)


if __name__ == "__main__":
    main()

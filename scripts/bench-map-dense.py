#!/usr/bin/env python3
"""What dense files cost the map, and what `map_max_tags` refuses (docs/benchmarks.md, "The tags a
folder may hold").

    bench-map-dense.py --coderd BIN [--coderd BIN2] [--tree DIR]...

Writes three trees of forty 1 MB Python files (one-line functions; one function using 101,010
distinct names; longer functions), then for each tree (and each `--tree`, an existing one) and each
binary: a fresh daemon with an empty state folder, one `map` (focus: the first file, 4,000
characters), the answer's time or its C213, the same question's time asked again, the daemon's
RSS and peak after them, and the tags its debug log counted (`map folder walked`). Prints a
Markdown table.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import on_tree  # noqa: E402

FILES, SIZE = 40, 1000 * 1000


def write_tree(root, line_of):
    """FILES files of about SIZE bytes each, line `n` of file `d` being `line_of(d, n)`."""
    os.makedirs(root)
    for d in range(FILES):
        lines, size, n = [], 0, 0
        while size < SIZE:
            line = line_of(d, n)
            lines.append(line)
            size, n = size + len(line), n + 1
        with open(os.path.join(root, f"g{d:02}.py"), "w") as f:
            f.write("".join(lines))


def dense_trees(base):
    """The three generated trees, by name."""
    trees = {
        "one-line functions (`def fN():0`)": lambda d, n: f"def f{n}():0\n",
        "longer functions": lambda d, n: f"def function_number_{d}_{n}(argument_one, argument_two): "
                                         "return argument_one\n",
    }
    out = {}
    for i, (name, line_of) in enumerate(trees.items()):
        out[name] = os.path.join(base, f"tree{i}")
        write_tree(out[name], line_of)
    names = os.path.join(base, "names")
    os.makedirs(names)
    for d in range(FILES):
        terms = "".join(f"+r{d}x{n}" for n in range(101_010))
        with open(os.path.join(names, f"g{d:02}.py"), "w") as f:
            f.write(f"def main():\n    return (0{terms})\n")
    out["one function using 101,010 distinct names"] = names
    return out


def measure(binary, root):
    """(answer, seconds, seconds asked again, RSS MiB, peak MiB, tags) of one map from a fresh daemon."""
    log_path = os.path.join(tempfile.gettempdir(), "coderd-dense.log")
    proc, side, connection = on_tree(binary, root, "coderd-dense-",
                                     env={"CODERD_LOG": "coderd_syntax=debug"}, stderr=open(log_path, "w"))
    try:
        focus = sorted(f for f in os.listdir(root) if not f.startswith("."))[0]
        t = time.monotonic()
        reply = connection.call("map", {"focus": [focus], "budget": 4000})
        seconds = time.monotonic() - t
        t = time.monotonic()
        connection.call("map", {"focus": [focus], "budget": 4000})
        again = time.monotonic() - t
        status = open(f"/proc/{proc.pid}/status").read()
        kib = {k: int(v) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.M)}
        error = reply.get("error")
        answer = f"C213 `{error['data'].get('limit')}`" if error else "map"
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(side, ignore_errors=True)
    log = open(log_path).read()
    tags = re.findall(r"map folder walked.*?tags=(\d+)", log)
    # A refused walk logs no count; a build before the limit logs none at all.
    counted = tags[-1] if tags else "over the limit" if error else "—"
    return answer, seconds, again, kib["VmRSS"] / 1024, kib["VmHWM"] / 1024, counted


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--coderd", action="append", required=True)
    parser.add_argument("--tree", action="append", default=[])
    args = parser.parse_args()
    base = tempfile.mkdtemp(prefix="coderd-dense-trees-")
    try:
        trees = dense_trees(base)
        trees.update({os.path.basename(t.rstrip("/")): t for t in args.tree})
        print("| tree | binary | answer | seconds | asked again | RSS / peak MiB | tags |")
        print("|---|---|---|---:|---:|---|---:|")
        for name, root in trees.items():
            for binary in args.coderd:
                answer, seconds, again, rss, peak, tags = measure(binary, root)
                print(f"| {name} | {os.path.basename(binary)} | {answer} | {seconds:.1f} | {again:.3f} | "
                      f"{rss:.0f} / {peak:.0f} | {tags} |", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


main()

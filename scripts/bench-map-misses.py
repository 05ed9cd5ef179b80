#!/usr/bin/env python3
"""Which of the map's misses the repository's history could reach (issue 35; docs/benchmarks.md).

    bench-map-misses.py --coderd BIN [--commits N] REPO_CLONE...

The commits, focus files and targets of bench-map-retrieval.py (SOURCE_EXTS as there). For each
target the map misses, focus only, at 4,000 characters and among the first 10 files listed at
8,000, it asks the history the daemon reads at the commit's parent (the last 3,000 commits, no
merges, none of more than 30 files) whether the target ever changed together with:
  - the focus file;                                   ("focus")
  - else a file in the focus file's folder;           ("folder")
  - else a file in the focus file's crate or top folder (Rust: `crates/NAME`; otherwise the path's
    first folder);                                     ("crate")
  - else nothing of the above, though it changed;     ("elsewhere")
  - else it did not change in the window at all.      ("never")
and how many commits of its own the focus file has there (0, 1-2, 3+). Prints a JSON object per
repository and a table of counts. With --places, also (on stderr) each commit's targets with their
place in the 8k map's files, and the first 10 files that are not targets, each with whether it is
in the focus file's folder and how many of the focus file's commits it changed in (what took the
missed files' places).
"""
import collections
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
source = open(os.path.join(here, "bench-map-retrieval.py")).read()
# The retrieval benchmark's helpers, without running it.
exec(compile(source.rsplit("\nmain()", 1)[0], "bench-map-retrieval.py", "exec"))

WINDOW, MAX_FILES = 3000, 30


def history(root, rev):
    out = subprocess.run(["git", "-C", root, "log", "-z", "--no-merges", "--no-renames", "--name-only",
                          "--format=%x01", f"--max-count={WINDOW}", rev, "--"], capture_output=True).stdout
    commits, current = [], None
    for record in out.split(b"\0"):
        record = record.lstrip(b"\n")
        if record == b"\x01":
            if current:
                commits.append(current)
            current = []
        elif record and current is not None:
            current.append(record.decode("utf-8", "replace"))
    if current:
        commits.append(current)
    return [set(c) for c in commits if len(c) <= MAX_FILES]


def crate(rel):
    parts = rel.split("/")
    if len(parts) > 2 and parts[0] == "crates":
        return "/".join(parts[:2]) + "/"
    return parts[0] + "/" if len(parts) > 1 else ""


def folder(rel):
    return rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""


def category(commits, focus, target):
    with_focus = [c for c in commits if focus in c]
    if any(target in c for c in with_focus):
        return "focus"
    def near(prefix):
        return any(target in c and any(p != target and p.startswith(prefix) and "/" not in p[len(prefix):]
                                       if prefix == folder(focus) else p != target and p.startswith(prefix)
                                       for p in c) for c in commits)
    if near(folder(focus)):
        return "folder"
    if crate(focus) and near(crate(focus)):
        return "crate"
    if any(target in c for c in commits):
        return "elsewhere"
    return "never"


def own(commits, focus):
    n = sum(focus in c for c in commits)
    return "0" if n == 0 else "1-2" if n <= 2 else "3+"


def places(log, focus, targets, listed):
    """Where each target is among the files listed, and what holds the first 10 places instead."""
    with_focus = [c for c in log if focus in c]

    def tie(rel):
        tags = ["folder"] if folder(rel) == folder(focus) else []
        n = sum(rel in c for c in with_focus)
        return ",".join(tags + ([f"changed with it {n}/{len(with_focus)}"] if n else [])) or "-"

    print(f"== focus {focus}", file=sys.stderr)
    for t in targets:
        at = listed.index(t) + 1 if t in listed else None
        print(f"   target at {at}: {t} [{tie(t)}]", file=sys.stderr)
    for at, rel in enumerate(listed[:10], 1):
        if rel not in targets:
            print(f"      {at}: {rel} [{tie(rel)}]", file=sys.stderr)


def run(root, binary, wanted, show_places=False):
    SOURCE_EXTS.clear()
    SOURCE_EXTS.update(languages(root))
    picked = commits(root, wanted)
    head = git(root, "rev-parse", "HEAD").strip()
    daemon = Coderd(binary, root)
    tally = collections.Counter()
    try:
        for sha, parent, modified in picked:
            git(root, "checkout", "-q", "-f", "--detach", parent)
            focus, targets = modified[0], modified[1:]
            sources = set(all_sources(root))
            at4k = listed_files(daemon.map(focus, [], 4000), sources)
            first10 = listed_files(daemon.map(focus, [], 8000), sources)[:10]
            log = history(root, parent)
            if show_places:
                places(log, focus, targets, listed_files(daemon.map(focus, [], 8000), sources))
            for t in targets:
                cat, n = category(log, focus, t), own(log, focus)
                tally[("targets", cat, n)] += 1
                if t not in at4k:
                    tally[("missed 4k", cat, n)] += 1
                if t not in first10:
                    tally[("missed first 10", cat, n)] += 1
    finally:
        daemon.stop()
        git(root, "checkout", "-q", "-f", "--detach", head)
    return {"repo": os.path.basename(root.rstrip("/")), "commits": len(picked),
            "tally": {" / ".join(k): v for k, v in sorted(tally.items())}}


def table(rows):
    cats = ["focus", "folder", "crate", "elsewhere", "never"]
    print("| repository | files | " + " | ".join(cats) + " | focus file's commits 0 / 1-2 / 3+ |")
    print("|---|---|" + "---|" * (len(cats) + 1))
    for r in rows:
        for what in ("targets", "missed 4k", "missed first 10"):
            cells = {c: sum(v for k, v in r["tally"].items() if k.startswith(f"{what} / {c} /")) for c in cats}
            owns = [sum(v for k, v in r["tally"].items() if k.startswith(what + " /") and k.endswith("/ " + o))
                    for o in ("0", "1-2", "3+")]
            print(f"| {r['repo']} | {what}: {sum(cells.values())} | " + " | ".join(str(cells[c]) for c in cats)
                  + f" | {' / '.join(map(str, owns))} |")


def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--coderd", required=True)
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--places", action="store_true", help="each commit's places, on stderr")
    parser.add_argument("repos", nargs="+")
    args = parser.parse_args()
    rows = [run(os.path.abspath(r), args.coderd, args.commits, args.places) for r in args.repos]
    print(json.dumps(rows))
    table(rows)


main()

#!/usr/bin/env python3
"""What the map's history ties cost (crates/git/src/history.rs): the same maps with the history on
(the default config) and off (`map.history_commits: 0`), medians of RUNS, each on a fresh daemon
with nothing saved.

    bench-map-history.py --coderd BIN [--runs N] REPO...

Per repository, with the newest commit's first changed source file as focus (budget 8000):
  - cold: the first map of a daemon with nothing saved (tags every file; with history on, reads HEAD
    and runs the one `git log`);
  - warm: the same map again (history held: HEAD is read from its files and the ties weighed
    again; the ranking is the cached one);
  - warm, new focus: the next map with another focus file (ranked again);
  - restart: the first map of a daemon started on the first one's state (tag index and history
    saved: no `git log`, no file tagged);
  - log: `git log` as the daemon runs it (3000 commits, the default `map.history_commits`), timed alone;
  - the daemon's CPU seconds after the cold map.
Prints one JSON object (a list, one entry per repository).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection, cpu_s  # noqa: E402

SOURCE_EXTS = (".go", ".rs", ".py")


class Coderd:
    def __init__(self, binary, root, side, config):
        sock = os.path.join(side, "s.sock")
        cfg = os.path.join(side, "coderd.yaml")
        with open(cfg, "w") as f:
            f.write(config)
        env = dict(os.environ, XDG_RUNTIME_DIR=side, XDG_STATE_HOME=side, XDG_DATA_HOME=side,
                   CODER_CHECKPOINTS="off")
        self.proc = subprocess.Popen([binary, "--root", root, "--socket", sock, "--config", cfg], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.conn = Connection(sock, tries=3000)

    def map(self, focus):
        start = time.perf_counter()
        reply = self.conn.call("map", {"budget": 8000, "focus": [focus]})
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return time.perf_counter() - start

    def cpu_s(self):
        return cpu_s(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def focus_files(root):
    """Two source files the newest commits changed: the first map's focus and the warm one's."""
    out = subprocess.run(["git", "-C", root, "log", "--no-merges", "--format=", "--name-only", "-n", "50"],
                         capture_output=True, text=True, check=True).stdout
    picked = []
    for rel in out.splitlines():
        if rel.endswith(SOURCE_EXTS) and os.path.isfile(os.path.join(root, rel)) and rel not in picked:
            picked.append(rel)
    return picked[0], picked[1]


def saved(side, history):
    """Whether the daemon saved its tag index (and its history, when it reads one)."""
    names = [(os.path.basename(d), name) for d, _, files in os.walk(side) for name in files]
    tags = any(name == "tags.jsonl" for _, name in names)
    return tags and (not history or any(d == "history" and name.endswith(".json") for d, name in names))


def measure(binary, root, runs, config):
    first, second = focus_files(root)
    rows = {"cold": [], "warm": [], "warm_new_focus": [], "restart": [], "cpu": []}
    for _ in range(runs):
        side = tempfile.mkdtemp(prefix="coderd-history-")
        try:
            daemon = Coderd(binary, root, side, config)
            rows["cold"].append(daemon.map(first))
            rows["cpu"].append(daemon.cpu_s())
            rows["warm"].append(daemon.map(first))
            rows["warm_new_focus"].append(daemon.map(second))
            deadline = time.time() + 60
            while not saved(side, "history_commits: 0" not in config) and time.time() < deadline:
                time.sleep(0.05)
            daemon.stop()
            daemon = Coderd(binary, root, side, config)
            rows["restart"].append(daemon.map(first))
            daemon.stop()
        finally:
            shutil.rmtree(side, ignore_errors=True)
    return {k: statistics.median(v) for k, v in rows.items()}


def git_log_seconds(root, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["git", "-C", root, "log", "-z", "--no-merges", "--no-renames", "--name-only",
                        "--format=%x01", "--max-count=3000", "HEAD", "--"], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--coderd", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("repos", nargs="+")
    args = parser.parse_args()
    rows = []
    for repo in args.repos:
        root = os.path.abspath(repo)
        rows.append({
            "repo": os.path.basename(root.rstrip("/")),
            "on": measure(args.coderd, root, args.runs, ""),
            "off": measure(args.coderd, root, args.runs, "map:\n  history_commits: 0\n"),
            "git_log": git_log_seconds(root, args.runs),
        })
    print(json.dumps(rows))


main()

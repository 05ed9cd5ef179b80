#!/usr/bin/env python3
"""Warm `map` questions of every shape on a big tree, timed on one or more coderd binaries side by
side, and their answers compared byte for byte.

    bench-map-questions.py --coderd BIN [--coderd BIN2] --tree PATH --preset scale|moby [--runs N]
        [--log PREFIX] [--firsts BRANCH]

Each binary gets a fresh daemon on the tree (its own socket and state folder, removed after); both
are up at once. Each daemon answers a first map (no focus: cold, it tags the tree) and one focus
question (reads the repository's history, once per HEAD), untimed; then every question of the
preset is asked of each daemon in turn (A, B, A, B, ...: the load hits both alike), each question
once per daemon, so that each is a new ranking (a question asked again is answered from the kept
rankings). A shape's row is the median over its questions (5 each) of the wall time of the call (the
no-focus row asks the cold map's question again: its ranking is kept, the map only renders).
`--runs N` repeats the whole list N times on the same daemons (the repeats hit the kept rankings
only for the last 8 questions: the list is longer) and takes the median per question first.

`--firsts BRANCH` asks instead, of each binary's daemon alone on the tree (one daemon at a time: a
daemon watching the tree reacts to the other's writes, and the one asked meanwhile would compete
with that; each binary goes first in turn across `--runs`), right after its cold map, the questions
that come first after something changed, each timed once: the first focus (the repository's history
read); the first unsteered question and the first focus `--pause` seconds (default 3) after one
file's tags changed (the daemon's own `write` adds a function), and an unsteered one asked right
after such a write (the function replaced by another where it was), then right after a write that
adds a second function (every name after it numbered again); the unsteered question after the file is written back (whose answer must be the
cold map's, byte for byte); and the first focus `--pause` seconds after a `git checkout BRANCH` (the
tree's branch is checked out again after). Each row has the call's wall time and the daemon's CPU
time from the change to the answer (what the change cost, work in the background included);
`--runs N` repeats it on fresh daemons.

The presets: `scale` is the tree `bench-scale.py --generate 200000` writes (file `fN` is Go, Rust,
Python, TypeScript for N mod 4 = 0, 1, 2, 3, defining `TypeN` and `FuncN` / `func_N` / `func_N` /
`funcN`, so `func_9999` is defined nowhere); `moby` is moby at b985e2313a. Prints a Markdown table
(shape, median and range per binary) and whether every answer was byte-identical across binaries.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import on_tree  # noqa: E402

PRESETS = {
    "scale": {
        "focus": ["f100000.go", "f100001.rs", "f100002.py", "f100003.ts", "f123457.rs"],
        "focus4000": ["f100008.go", "f100009.rs", "f100010.py", "f100011.ts", "f77777.rs"],
        "defined": ["func_77", "Func150000", "func_42", "func100007", "Type50001"],
        "undefined": ["Handler", "func_9999", "NoSuchName", "func_99999", "zzz_nowhere"],
        "warm": "f100004.go",
        "tests": "f100005.rs",
    },
    "moby": {
        "focus": ["daemon/daemon.go", "client/client.go", "daemon/container/container.go",
                  "daemon/server/server.go", "daemon/libnetwork/network.go"],
        "focus4000": ["daemon/create.go", "daemon/delete.go", "daemon/exec.go", "daemon/logs.go",
                      "daemon/network.go"],
        "defined": ["NewDaemon", "HostConfig", "ImageService", "ContainerStart", "Sandbox"],
        "undefined": ["NoSuchThing123", "func_9999", "zzz_nowhere", "QuuxFrobnicator", "notAName42"],
        "warm": "daemon/start.go",
        "tests": "daemon/images/service.go",
    },
}


def paths_by_name(tree):
    """Root-relative paths of the tracked files, by their base name (the scale preset names files)."""
    out = subprocess.run(["git", "-C", tree, "ls-files"], capture_output=True, text=True, check=True)
    by_name = {}
    for rel in out.stdout.split():
        by_name.setdefault(os.path.basename(rel), rel)
        by_name[rel] = rel
    return by_name


def questions(preset, tree):
    """(shape, params) pairs: five of each shape (two with no focus, one with tests)."""
    p, where = PRESETS[preset], paths_by_name(tree)
    focus = [where[f] for f in p["focus"]]
    # The cold map's question again and with another budget: the unsteered ranking, kept.
    out = [("no focus (kept ranking)", {}), ("no focus (kept ranking)", {"budget": 4000})]
    out += [("focus only", {"focus": [f]}) for f in focus]
    out += [("focus + defined mention", {"focus": [f], "mentions": [m]})
            for f, m in zip(focus[1:] + focus[:1], p["defined"])]
    out += [("focus + undefined mention", {"focus": [f], "mentions": [m]})
            for f, m in zip(focus[2:] + focus[:2], p["undefined"])]
    out += [("defined mention only", {"mentions": [m]}) for m in p["defined"]]
    out += [("undefined mention only", {"mentions": [m]}) for m in p["undefined"]]
    out += [("two mentions, one defined", {"mentions": [d, u]})
            for d, u in zip(p["defined"], p["undefined"][1:] + p["undefined"][:1])]
    out += [("focus, budget 4000", {"focus": [where[f]], "budget": 4000}) for f in p["focus4000"]]
    out.append(("include_tests with a focus", {"focus": [where[p["tests"]]], "include_tests": True}))
    return out


class Daemon:
    def __init__(self, binary, tree, log=None):
        stderr = open(log, "w") if log else subprocess.DEVNULL
        env = {"CODERD_LOG": "coderd=debug"} if log else None
        self.proc, self.side, self.conn = on_tree(binary, tree, "map-questions-", stderr, env)

    def map(self, params):
        start = time.perf_counter()
        reply = self.conn.call("map", params)
        elapsed = time.perf_counter() - start
        if "error" in reply:
            raise SystemExit(f"map {params}: {reply['error']}")
        return elapsed, reply["result"]

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.side, ignore_errors=True)


ADDED = {".go": "\nfunc BenchAdded() {}\n", ".rs": "\npub fn bench_added() {}\n",
         ".py": "\ndef bench_added():\n    pass\n", ".ts": "\nexport function benchAdded() {}\n"}


def firsts(binaries, tree, preset, branch, log, pause, order):
    """One round of the `--firsts` questions, on a fresh daemon per binary, one daemon at a time in
    `order` (a daemon watching the tree reacts to another's writes, and the one asked meanwhile
    would compete with that): per step, (ms, CPU s) per binary, and whether the answers agree."""
    from coderd_bench import cpu_s
    where = paths_by_name(tree)
    p = PRESETS[preset]
    changed = where[p["tests"]]
    path = os.path.join(tree, changed)
    with open(path) as f:
        original = f.read()
    added = lambda n: original + ADDED[os.path.splitext(changed)[1]].replace("dded", f"dded{n}")
    rows, answers = {}, [[] for _ in binaries]
    focus = lambda i: {"focus": [where[p["focus"][i]]]}
    later = f"{pause:g} s after"

    def step(name, d, n, params, write=None, wait=0.0):
        """Times `params` (after `write` and `wait` s): the call's wall time, and the daemon's CPU
        from before the write to the answer (what the change cost, the background included)."""
        cpu0 = cpu_s(d.proc.pid)
        if write is not None:
            reply = d.conn.call("write", {"file": changed, "content": write})
            if "error" in reply:
                raise SystemExit(f"write: {reply['error']}")
        time.sleep(wait)
        elapsed, result = d.map(params)
        rows.setdefault(name, [None] * len(binaries))[n] = (elapsed * 1000, cpu_s(d.proc.pid) - cpu0)
        answers[n].append({k: v for k, v in result.items() if k != "parsed"})

    def checkout(d, n):
        """The first focus `pause` s after a `git checkout` of `branch` (checked out back after)."""
        head = subprocess.run(["git", "-C", tree, "symbolic-ref", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(["git", "-C", tree, "checkout", "-q", branch], check=True)
        try:
            time.sleep(pause)
            step(f"first focus, {later} a `git checkout`", d, n, focus(0))
        finally:
            subprocess.run(["git", "-C", tree, "checkout", "-q", head], check=True)

    for n in order:
        d = Daemon(binaries[n], tree, log and f"{log}-{n}.txt")
        try:
            step("cold map (no focus)", d, n, {})
            step("first focus (history read)", d, n, {"focus": [where[p["warm"]]]})
            step(f"first unsteered, {later} a write changed a file's tags", d, n, {}, added(1), pause)
            step(f"first focus, {later} a write changed a file's tags", d, n, focus(1), added(2), pause)
            step("first unsteered, asked right after a write", d, n, {}, added(3))
            step("first unsteered, asked right after a write adding a name", d, n, {},
                 added(3) + ADDED[os.path.splitext(changed)[1]].replace("dded", "ddedMore"))
            step(f"unsteered, {later} the file is written back", d, n, {}, original, pause)
            if answers[n][-1] != answers[n][0]:
                raise SystemExit(f"{binaries[n]}: the map after the write-back differs from the cold map's")
            if branch:
                checkout(d, n)
        finally:
            d.stop()
            with open(path, "w") as f:
                f.write(original)
            if os.path.exists(path + ".bak"):  # the backup the writes left
                os.remove(path + ".bak")
    same = all(a == answers[0] for a in answers)
    return rows, same


def main_firsts(args):
    per_step, same = {}, True
    for run in range(args.runs):
        # Each binary goes first in turn: a machine warming or cooling hits both alike.
        order = list(range(len(args.coderd)))
        order = order[run % len(order):] + order[:run % len(order)]
        rows, identical = firsts(args.coderd, args.tree, args.preset, args.firsts, args.log,
                                 args.pause, order)
        same &= identical
        for name, cells in rows.items():
            for n, cell in enumerate(cells):
                per_step.setdefault(name, [[] for _ in cells])[n].append(cell)
    load = os.getloadavg()
    print(f"load {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; runs {args.runs}\n")
    print("| step | " + " | ".join(os.path.basename(b) + ": ms (CPU s)" for b in args.coderd) + " |")
    print("|---|" + "---:|" * len(args.coderd))
    for name, per in per_step.items():
        cells = [", ".join(f"{ms:.0f} ({cpu:.2f})" for ms, cpu in runs) for runs in per]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nanswers byte-identical across binaries: {same}")
    sys.exit(0 if same else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coderd", action="append", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--preset", choices=sorted(PRESETS), required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--log", help="write each daemon's debug log (its `map` and `rank` lines) to LOG-N.txt")
    ap.add_argument("--firsts", metavar="BRANCH", nargs="?", const="",
                    help="the first questions after a change (see above); BRANCH for the checkout step")
    ap.add_argument("--pause", type=float, default=3.0,
                    help="--firsts: seconds between a change and the question after it (default 3)")
    args = ap.parse_args()
    if args.firsts is not None:
        return main_firsts(args)
    asked = questions(args.preset, args.tree)
    daemons = []
    for n, binary in enumerate(args.coderd):
        d = Daemon(binary, args.tree, args.log and f"{args.log}-{n}.txt")
        cold, _ = d.map({})
        warm, _ = d.map({"focus": [paths_by_name(args.tree)[PRESETS[args.preset]["warm"]]]})
        print(f"{binary}: cold map {cold * 1000:.0f} ms, first focus {warm * 1000:.0f} ms", file=sys.stderr)
        daemons.append(d)
    times = [[[] for _ in asked] for _ in daemons]
    answers = [[None for _ in asked] for _ in daemons]
    for _ in range(args.runs):
        for q, (_, params) in enumerate(asked):
            for d, daemon in enumerate(daemons):
                elapsed, result = daemon.map(params)
                times[d][q].append(elapsed * 1000)
                answers[d][q] = {k: v for k, v in result.items() if k != "parsed"}
    load = os.getloadavg()
    shapes = list(dict.fromkeys(shape for shape, _ in asked))
    print(f"load {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; runs {args.runs}\n")
    print("| shape | " + " | ".join(os.path.basename(b) + " median (range), ms" for b in args.coderd) + " |")
    print("|---|" + "---:|" * len(daemons))
    for shape in shapes:
        cells = []
        for d in range(len(daemons)):
            per = [statistics.median(times[d][q]) for q, (s, _) in enumerate(asked) if s == shape]
            cells.append(f"{statistics.median(per):.0f} ({min(per):.0f}–{max(per):.0f})")
        print(f"| {shape} | " + " | ".join(cells) + " |")
    print("| RSS after, MiB | " + " | ".join(f"{d.rss_mib():.0f}" for d in daemons) + " |")
    differing = [asked[q] for q in range(len(asked)) if any(a[q] != answers[0][q] for a in answers)]
    print(f"\n{len(asked)} questions; answers byte-identical across binaries: {not differing}")
    for shape, params in differing:
        print(f"  differs: {shape} {params}")
    for d in daemons:
        d.stop()
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()

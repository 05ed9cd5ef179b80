#!/usr/bin/env python3
"""coderd on big trees: what start, `tree`, `search`, `map`, `outline`, the tag index, memory and the
watcher cost as a workspace grows, beside `rg` in the same run.

    bench-scale.py --coderd BIN [--runs N] [--tree PATH]... [--generate N]... [--keep DIR] [--json]

`--tree PATH` measures a checked-out repository as it is (for the watcher row it must be a git
work tree with a `HEAD~1`-style second commit to check out: the script checks out `--other REV` and
back). `--generate N` writes a tree of N source files (Go, Rust, Python, TypeScript in turn, 40 to a
folder, four folder levels, each file calling names defined in three nearby files of its own language so
the map has a graph (before 2026-12-06 every file called Go files only: the trees of older tables);
one file holds a 10,000-line Python module, one file the rare word) into a temporary folder and
makes it a git repository with two branches that differ in 5% of the files. Each row is the median of
RUNS fresh daemons (map rows: fresh daemon, empty state folder = cold from nothing). Rows:

- start: the daemon's spawn to its first answer (`info`);
- tree: `tree` depth 3 of the root;
- search rare / common: `search` for a word in one file / in every file, beside `rg --json` with the
  same 2 lines of context over the same files, both warm (one untimed run each first) (coderd's answer is capped by its response budget:
  `search_response_budget_bytes`; rg's is not, so the common row favours coderd by design — the
  rare row is the like-for-like one);
- map cold / warm: the first `map` (budget 4000) of a fresh daemon, its wall time and the daemon's
  CPU time from spawn to answer; then the same question again, a new focus (the first also reads
  the repository's history, once per HEAD) and another new focus (the ranking alone) (and how the
  map knows what changed: `watched` or `walked`); then the map after another program appended a
  comment to one file (0.3 s later, so the watcher's event has arrived; the same question, so the
  ranking is kept), the file then restored;
- outline: `outline` of the 10,000-line file;
- tag index: the bytes of the saved tag index after the cold map;
- RSS: the daemon's VmRSS after all the rows and its peak (VmHWM);
- checkout: the daemon's CPU time while `git checkout` switches to the other branch (20 documents
  held open), then the next map's time and how many files it re-tagged; then back.

Prints a Markdown table per tree (or JSON with `--json`).
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import on_tree  # noqa: E402

RARE = "zyxwquartzrare"
COMMON = "common_marker"
BIG_LINES = 10_000
PER_FOLDER = 40


# ---------------------------------------------------------------- the generated tree

def source(lang, i, calls):
    """File `i` of a language: two definitions named after `i`, calling the definitions of `calls`."""
    call_lines = {
        "go": lambda n: f"\tFunc{n}()",
        "rs": lambda n: f"    func_{n}();",
        "py": lambda n: f"    func_{n}()",
        "ts": lambda n: f"  func{n}();",
    }[lang]
    body = "\n".join(call_lines(n) for n in calls)
    if lang == "go":
        return (f"package p{i // PER_FOLDER}\n\n// {COMMON}\ntype Type{i} struct{{ n int }}\n\n"
                f"func Func{i}() {{\n{body}\n}}\n")
    if lang == "rs":
        return f"// {COMMON}\npub struct Type{i};\n\npub fn func_{i}() {{\n{body}\n}}\n"
    if lang == "py":
        return f"# {COMMON}\nclass Type{i}:\n    pass\n\n\ndef func_{i}():\n{body}\n"
    return f"// {COMMON}\nexport class Type{i} {{}}\n\nexport function func{i}() {{\n{body}\n}}\n"


def big_python():
    out = [f"# {COMMON}: a 10,000-line module\n"]
    for n in range(1, BIG_LINES // 4):
        out.append(f"def big_{n}(x):\n    y = x + {n}\n    return y\n\n")
    return "".join(out)


def generate(count, rng, keep=None):
    """A git repository of `count` files in a temporary folder (or `keep`/scale-COUNT, reused when
    it is there); returns (path, other branch, the 10,000-line file)."""
    if keep:
        root = os.path.join(keep, f"scale-{count}")
        if os.path.isdir(os.path.join(root, ".git")):
            return root, "other", "big.py"
        os.makedirs(root)
    else:
        root = tempfile.mkdtemp(prefix=f"scale-{count}-")
    langs = ["go", "rs", "py", "ts"]
    for i in range(count):
        lang = langs[i % 4]
        folder = i // PER_FOLDER
        rel = os.path.join(f"a{folder // 1000}", f"b{folder // 100 % 10}", f"c{folder // 10 % 10}",
                           f"d{folder % 10}", f"f{i}.{lang}")
        os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
        # Up to four files of its own language nearby (i ± 4, i ± 8), three of them called.
        same = [j for j in range(i - 8, i + 9, 4) if 0 <= j < count and j != i]
        calls = rng.sample(same, min(3, len(same)))
        with open(os.path.join(root, rel), "w") as f:
            f.write(source(lang, i, calls))
    with open(os.path.join(root, "big.py"), "w") as f:
        f.write(big_python())
    with open(os.path.join(root, "a0", "rare.txt"), "w") as f:
        f.write(f"the one {RARE} line\n")
    git = ["git", "-C", root, "-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
    subprocess.run(git + ["init", "-q", "-b", "main"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "tree"], check=True)
    subprocess.run(git + ["checkout", "-qb", "other"], check=True)
    changed = 0
    for dirpath, _, names in os.walk(root):
        if ".git" in dirpath:
            continue
        for name in names:
            if rng.random() < 0.05 and not name.endswith(".txt"):
                with open(os.path.join(dirpath, name), "a") as f:
                    f.write("\n// changed on the other branch\n" if not name.endswith(".py") else "\n# changed\n")
                changed += 1
    subprocess.run(git + ["commit", "-qam", "other"], check=True)
    subprocess.run(git + ["checkout", "-q", "main"], check=True)
    return root, "other", "big.py"


# ---------------------------------------------------------------- the daemon

class Coderd:
    def __init__(self, binary, root):
        self.started = time.perf_counter()
        self.proc, self.side, self.conn = on_tree(binary, root, "scale-side-")

    def timed(self, method, params):
        start = time.perf_counter()
        reply = self.conn.call(method, params)
        return time.perf_counter() - start, reply

    def status(self, key):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024

    def cpu_s(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def tag_index_bytes(self):
        total = 0
        for dirpath, _, names in os.walk(self.side):
            total += sum(os.path.getsize(os.path.join(dirpath, n)) for n in names if n.startswith("tags."))
        return total

    def stop(self):
        """Stops the daemon (which saves its tag index) and returns the saved index's bytes."""
        self.proc.terminate()
        self.proc.wait()
        saved = self.tag_index_bytes()
        shutil.rmtree(self.side, ignore_errors=True)
        return saved


def result_or_error(reply):
    if "error" in reply:
        return {"error": reply["error"].get("message", "")[:200],
                "code": reply["error"].get("data", {}).get("code")}
    return reply["result"]


def rg_time(root, word):
    start = time.perf_counter()
    subprocess.run(["rg", "--json", "-C", "2", "-F", word, root], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def wait_quiet(daemon, settle=1.0, cap=120.0):
    """Until the daemon's CPU time stops growing for `settle` seconds (a benchmark, not a test)."""
    deadline = time.perf_counter() + cap
    last, since = daemon.cpu_s(), time.perf_counter()
    while time.perf_counter() < deadline:
        time.sleep(0.1)
        now = daemon.cpu_s()
        if now != last:
            last, since = now, time.perf_counter()
        elif time.perf_counter() - since >= settle:
            break
    return last


def one_run(binary, root, big, other, files, words):
    row = {}
    d = Coderd(binary, root)
    try:
        t, reply = d.timed("info", {})
        row["start_s"] = time.perf_counter() - d.started
        t, reply = d.timed("tree", {"depth": 3})
        row["tree_s"], row["tree"] = t, "ok" if "result" in reply else result_or_error(reply)
        for name, word in zip(("rare", "common"), words):
            # Both warm: one untimed run each, so neither pays for reading the tree into the cache.
            rg_time(root, word)
            d.timed("search", {"pattern": word, "before": 2, "after": 2})
            t, reply = d.timed("search", {"pattern": word, "before": 2, "after": 2})
            row[f"search_{name}_s"] = t
            row[f"rg_{name}_s"] = rg_time(root, word)
            res = result_or_error(reply)
            row[f"search_{name}_matches"] = res.get("match_count") if isinstance(res, dict) else res
            row[f"search_{name}_truncated"] = res.get("truncated") if isinstance(res, dict) else None
        cpu0 = d.cpu_s()
        t, reply = d.timed("map", {"budget": 4000})
        res = result_or_error(reply)
        row["map_cold_s"], row["map_cold_cpu_s"] = t, d.cpu_s()
        row["map_cold_parsed"] = res.get("parsed") if isinstance(res, dict) else res
        row["map_cpu_before_s"] = cpu0
        t, reply = d.timed("map", {"budget": 4000})
        row["map_warm_s"] = t
        res = result_or_error(reply)
        row["map_freshness"] = res.get("freshness", "walked") if isinstance(res, dict) else res
        # Another program changes one file (a comment, so the ranking holds): the next map.
        changed = os.path.join(root, files[0])
        with open(changed, "rb") as f:
            before = f.read()
        with open(changed, "ab") as f:
            f.write(b"\n// touched by another program\n" if not changed.endswith(".py") else b"\n# touched\n")
        time.sleep(0.3)  # the watcher's event is read by then
        t, reply = d.timed("map", {"budget": 4000})
        res = result_or_error(reply)
        row["map_after_edit_s"] = t
        row["map_after_edit_parsed"] = res.get("parsed") if isinstance(res, dict) else res
        with open(changed, "wb") as f:
            f.write(before)
        time.sleep(0.3)
        d.timed("map", {"budget": 4000})
        t, _ = d.timed("map", {"budget": 4000, "focus": [files[len(files) // 2]]})
        row["map_warm_new_focus_s"] = t
        # The first focus also reads the repository's history (once per HEAD): a second new focus
        # is the ranking's cost alone.
        t, _ = d.timed("map", {"budget": 4000, "focus": [files[len(files) // 4]]})
        row["map_warm_next_focus_s"] = t
        if big:
            t, reply = d.timed("outline", {"file": big})
            res = result_or_error(reply)
            row["outline_big_s"] = t
            row["outline_big_items"] = len(res.get("items", [])) if isinstance(res, dict) else res
        if other:
            for f in files[:20]:
                d.conn.call("read", {"file": f, "start": 1, "end": 2})
            wait_quiet(d)
            cpu_before = d.cpu_s()
            start = time.perf_counter()
            subprocess.run(["git", "-C", root, "checkout", "-q", other], check=True)
            row["checkout_s"] = time.perf_counter() - start
            row["checkout_daemon_cpu_s"] = wait_quiet(d) - cpu_before
            t, reply = d.timed("map", {"budget": 4000})
            res = result_or_error(reply)
            row["map_after_checkout_s"] = t
            row["map_after_checkout_parsed"] = res.get("parsed") if isinstance(res, dict) else res
            subprocess.run(["git", "-C", root, "checkout", "-q", "-"], check=True)
        row["rss_mb"], row["peak_rss_mb"] = d.status("VmRSS"), d.status("VmHWM")
    finally:
        row["tag_index_bytes"] = d.stop()
    return row


def some_files(root, n=200):
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for name in names:
            if name.rsplit(".", 1)[-1] in ("go", "rs", "py", "ts"):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
                if len(out) >= n:
                    return out
    return out


def count_files(root):
    return sum(len(n) for d, _, n in os.walk(root) if "/.git" not in d + "/")


def median_rows(rows):
    out = {}
    for key in rows[0]:
        values = [r[key] for r in rows if key in r]
        out[key] = statistics.median(values) if all(isinstance(v, (int, float)) for v in values) else values[0]
    return out


def table(name, files, row):
    ms = lambda s: f"{s * 1000:.0f} ms"
    lines = [f"### {name} ({files:,} files)", "", "| row | coderd | rg | ratio |", "|---|---:|---:|---:|",
             f"| start to first answer | {ms(row['start_s'])} | | |",
             f"| `tree` depth 3 | {ms(row['tree_s'])} | | |"]
    for w in ("rare", "common"):
        cut = ", truncated at coderd's budget" if row.get(f"search_{w}_truncated") else ""
        lines.append(f"| `search` {w} ({row[f'search_{w}_matches']} matches{cut}) | {ms(row[f'search_{w}_s'])} | "
                     f"{ms(row[f'rg_{w}_s'])} | {row[f'search_{w}_s'] / row[f'rg_{w}_s']:.2f} |")
    lines += [f"| `map` cold from nothing (wall / daemon CPU, {row['map_cold_parsed']} parsed) | "
              f"{ms(row['map_cold_s'])} / {row['map_cold_cpu_s']:.1f} s | | |",
              f"| `map` warm, same / new focus / another new focus ({row['map_freshness']}) | "
              f"{ms(row['map_warm_s'])} / {ms(row['map_warm_new_focus_s'])} / "
              f"{ms(row['map_warm_next_focus_s'])} | | |",
              f"| `map` after another program changed one file ({row['map_after_edit_parsed']} re-tagged) | "
              f"{ms(row['map_after_edit_s'])} | | |"]
    if "outline_big_s" in row:
        lines.append(f"| `outline` of a 10,000-line file ({row['outline_big_items']} items) | "
                     f"{ms(row['outline_big_s'])} | | |")
    lines.append(f"| tag index on disk | {row['tag_index_bytes'] / 1e6:.1f} MB | | |")
    if "checkout_s" in row:
        lines.append(f"| `git checkout` of the other branch ({ms(row['checkout_s'])}): daemon CPU | "
                     f"{row['checkout_daemon_cpu_s']:.2f} s | | |")
        lines.append(f"| next `map` ({row['map_after_checkout_parsed']} re-tagged) | "
                     f"{ms(row['map_after_checkout_s'])} | | |")
    lines.append(f"| RSS after / peak | {row['rss_mb']:.0f} / {row['peak_rss_mb']:.0f} MiB | | |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coderd", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", action="append", default=[])
    ap.add_argument("--other", default="HEAD~1", help="the revision --tree trees check out and back")
    ap.add_argument("--big", help="a --tree's file for the outline row")
    ap.add_argument("--rare", default=RARE, help="a --tree's word found in a file or two")
    ap.add_argument("--common", default=COMMON, help="a --tree's word found in most files")
    ap.add_argument("--generate", type=int, action="append", default=[])
    ap.add_argument("--keep", help="generate trees into this folder and keep them for the next run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(7)
    results = []
    for root in args.tree:
        results.append((root, root, args.big, args.other, False, (args.rare, args.common)))
    for count in args.generate:
        root, other, big = generate(count, rng, args.keep)
        results.append((f"generated {count:,}", root, big, other, not args.keep, (RARE, COMMON)))
    out = []
    for name, root, big, other, temporary, words in results:
        files = some_files(root)
        rows = [one_run(args.coderd, root, big, other, files, words) for _ in range(args.runs)]
        row = median_rows(rows)
        n = count_files(root)
        out.append({"tree": name, "files": n, **row})
        if not args.json:
            print(table(name, n, row), flush=True)
            print(flush=True)
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The map's retrieval benchmark: does `map` show the files an agent needed?

    bench-map-retrieval.py --coderd BIN [--aider-python PY] [--commits N] REPO_CLONE...

For each repository (a full, non-bare clone) it takes the newest commits of the repository's own
history (no merges) that modify 2-10 non-test source files. For each commit it checks out the
commit's parent, gives the map the first modified file as focus and counts how many of the commit's
other modified files the map shows (a file is shown when its path heads a group in the map):

  - focus only, and focus + mentions (the identifiers on the commit's changed lines, the 40 most
    frequent, keywords left out), at budgets of 1k / 4k / 8k characters;
  - callers: the commit's other files that use a name the focus file defines (names from
    `ctags` on the focus file, 4+ characters, not defined by the user itself), shown at 8k;
  - first 10: of the commit's other files, those among the first 10 files the map lists (focus
    only, at 8k): does the ranking, not the map's breadth, find them?

"nearest" is the baseline a map has to beat: a plain list of as many files as coderd's map listed
at that budget (10 for "first 10"), every source file ordered by how many folders separate it from
the focus file's (its own folder first), then by path.

aider's RepoMap gets the same inputs (chat file = focus, other files = every non-test source file,
mentioned identifiers = the mentions, tokens counted as chars/4, so budget/4 tokens). Targets
are non-test source files (what `map` lists with `include_tests: false`: neither generated code
by its header nor a Rust `#[cfg(test)] mod name;` file is one); files a commit adds or deletes are
not targets (the map is of the tree before the commit). Source files are those of the
repository's languages: each language family with a quarter of its non-test source files
(`languages`; SOURCE_EXTS=".py .pyi" in the environment names them instead). Prints one JSON object.
"""
import collections
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection  # noqa: E402

BUDGETS = (1000, 4000, 8000)
# The language families a repository is scored in: each family holding at least a quarter of its
# (non-test) source files, so a Go repository's web UI or a Python package's Rust core is not.
FAMILIES = {"go": {".go"}, "rust": {".rs"}, "python": {".py", ".pyi"},
            "typescript": {".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}}
FAMILY_SHARE = 0.25
SOURCE_EXTS = set()  # set per repository by `languages`; SOURCE_EXTS in the environment overrides


def map_strings(rel, name):
    """The strings of the list `name` in the daemon's source file `rel` (the map's own rules, read
    from where the map keeps them, so a target is never a file the map leaves out by design)."""
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), rel)).read()
    found = re.search(r"\b%s: &\[&str\] = &\[(.*?)\];" % name, text, re.S)
    if not found:
        sys.exit(f"bench-map-retrieval: no list {name} in {rel}")
    return re.findall(r'"([^"]*)"', found.group(1))


EXCLUDE_RS = "crates/syntax/src/map/exclude.rs"
TEST_FOLDERS = set(map_strings(EXCLUDE_RS, "TEST_FOLDERS"))
SKIPPED_FOLDERS = set(map_strings("crates/syntax/src/map/tree.rs", "SKIPPED_FOLDERS"))
MAX_MENTIONS = 40
KEYWORDS = set("""
break case chan const continue default defer else fallthrough for func go goto if import interface map
package range return select struct switch type var nil true false string int bool error byte rune
as async await crate dyn enum extern impl in let loop match mod move mut pub ref self Self static super
trait unsafe use where while Some None Ok Err Option Result Vec String Box usize isize u8 u16 u32 u64
i8 i16 i32 i64 f32 f64 str fn and assert class def del elif except finally from global is lambda
nonlocal not or pass raise try with yield True False print len list dict set tuple
function export typeof instanceof new this undefined null void any unknown never number boolean object
interface extends implements readonly private public protected declare namespace keyof infer
""".split())


def is_test_path(rel):
    """The map's rule (exclude.rs `is_test_path`, `is_test_file`): a test folder, or a test file's name."""
    parts = rel.split("/")
    if any(p in TEST_FOLDERS for p in parts[:-1]):
        return True
    name = parts[-1]
    stem = name.split(".")[0]
    return (stem.endswith("_test") or stem.startswith("test_") or name == "conftest.py" or ".spec." in name
            or ".test." in name or stem.endswith("Test") and name.endswith(".java"))


GENERATED_SUFFIXES = tuple(map_strings(EXCLUDE_RS, "SUFFIXES"))
GENERATED_ALONE = tuple(map_strings(EXCLUDE_RS, "ALONE"))
DO_NOT = tuple(map_strings(EXCLUDE_RS, "DO_NOT"))


def is_generated(rel, text):
    """The map's rule (exclude.rs `is_generated`): generated code, by its name or its header, is never listed."""
    head = "\n".join(text[:4096].splitlines()[:10]).lower()
    return (rel.endswith(GENERATED_SUFFIXES) or any(m in head for m in GENERATED_ALONE)
            or ("generated" in head and any(m in head for m in DO_NOT)))


def declares_test_module(repo, commit, rel):
    """Whether a Rust file is inside a test module: its own module, or a folder module above it (`#[cfg(test)]
    mod macro_expansion_tests;` hides every file under that folder), declared `#[cfg(test)] mod name;`."""
    module = rel[:-3]
    while "/" in module:
        if declared_as_test(repo, commit, module):
            return True
        module = os.path.dirname(module)
    return False


def declared_as_test(repo, commit, module):
    """Whether the module at path `module` (no `.rs`) is a `#[cfg(test)] mod name;` of its parent module's file."""
    folder, name = os.path.split(module)
    parent, above = os.path.split(folder)
    declarers = [folder + ".rs", folder + "/mod.rs", folder + "/lib.rs", folder + "/main.rs"]
    pattern = re.compile(r"#\[cfg\([^\]]*\btest\b[^\]]*\]\s*(#\[[^\]]*\]\s*)*(pub(\([^)]*\))?\s+)?mod\s+%s\s*;"
                         % re.escape(name))
    for declarer in declarers:
        text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{declarer}"], capture_output=True,
                              text=True, errors="replace").stdout
        if text and pattern.search(text) and "not(test" not in pattern.search(text).group(0):
            return True
    return False


def hidden_by_design(repo, commit, rel):
    """A file the map leaves out on purpose: generated (by its header), or a Rust test module."""
    text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{rel}"], capture_output=True, text=True,
                          errors="replace").stdout
    return is_generated(rel, text) or rel.endswith(".rs") and declares_test_module(repo, commit, rel)


def is_source(rel, exts=None):
    parts = rel.split("/")
    return (os.path.splitext(rel)[1] in (SOURCE_EXTS if exts is None else exts) and not is_test_path(rel)
            and not any(p in SKIPPED_FOLDERS or p.startswith(".") for p in parts[:-1]))


def languages(repo):
    """The source extensions of the repository's languages (see FAMILIES), from its HEAD's files."""
    if os.environ.get("SOURCE_EXTS"):
        return set(os.environ["SOURCE_EXTS"].split())
    every = set().union(*FAMILIES.values())
    counts = collections.Counter()
    for rel in git(repo, "ls-files").splitlines():
        if is_source(rel, every):
            ext = os.path.splitext(rel)[1]
            counts[next(f for f, exts in FAMILIES.items() if ext in exts)] += 1
    total = sum(counts.values())
    return set().union(*(FAMILIES[f] for f, n in counts.items() if n >= FAMILY_SHARE * total))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def commits(repo, wanted):
    """The newest commits modifying 2-10 non-test source files: (sha, parent, modified files)."""
    out = git(repo, "log", "--no-merges", "--no-renames", "-n", "3000", "--format=@%H %P", "--name-status", "HEAD")
    picked = []
    for block in out.split("@")[1:]:
        lines = block.strip().splitlines()
        shas = lines[0].split()
        if len(shas) != 2:
            continue
        changes = [l.split("\t") for l in lines[1:] if l.strip()]
        sources = [c for c in changes if is_source(c[-1])]
        modified = [c[1] for c in sources if c[0] == "M" and not hidden_by_design(repo, shas[1], c[1])]
        if 2 <= len(sources) <= 10 and len(modified) >= 2:
            picked.append((shas[0], shas[1], modified))
        if len(picked) == wanted:
            break
    return picked


def mentions(repo, sha, parent, files):
    diff = git(repo, "diff", "-U0", parent, sha, "--", *files)
    counts = collections.Counter()
    for line in diff.splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", line[1:]):
                if word not in KEYWORDS:
                    counts[word] += 1
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_MENTIONS]]


def ctags_names(path):
    out = subprocess.run(["ctags", "--output-format=json", "-f", "-", path], capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        if tag.get("kind") not in ("package", "packageName", "namespace", "module", "unknown"):
            names.add(tag.get("name", ""))
    return {n for n in names if len(n) >= 4}


def callers(root, focus, others):
    """Of `others`, the files using a name `focus` defines (and do not define themselves)."""
    defined = ctags_names(os.path.join(root, focus))
    found = []
    for rel in others:
        try:
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        own = ctags_names(os.path.join(root, rel))
        if any(re.search(r"\b%s\b" % re.escape(n), text) for n in defined - own):
            found.append(rel)
    return found


def line_paths(line):
    """The paths a map line names: a block's `path:`, a bare `path` (aider's, or a file coderd
    names without its items), or coderd's `folder/{a.rs,b.rs}` for several files of a folder."""
    line = line.strip()
    if line.endswith(":"):
        return [line[:-1]]
    # A group's braces open its last path segment and close the line.
    folder, _, last = line.rpartition("/")
    if folder and last.startswith("{") and last.endswith("}"):
        return [f"{folder}/{name}" for name in last[1:-1].split(",")]
    return [line]


def listed_files(text, sources):
    """The source files a map lists, in the order listed."""
    listed = []
    for line in text.splitlines():
        for head in line_paths(line):
            if head in sources and head not in listed:
                listed.append(head)
    return listed


def nearest(focus, sources):
    """Every source file but the focus, the nearest folder first (folders between), then by path."""
    home = focus.split("/")[:-1]

    def distance(rel):
        folder = rel.split("/")[:-1]
        common = 0
        while common < min(len(home), len(folder)) and home[common] == folder[common]:
            common += 1
        return len(home) + len(folder) - 2 * common

    return sorted((f for f in sources if f != focus), key=lambda f: (distance(f), f))


def shown_files(text, candidates):
    """The candidates a map lists (`line_paths`)."""
    heads = {head for line in text.splitlines() for head in line_paths(line)}
    return {c for c in candidates if c in heads}


def all_sources(root):
    out = []
    for rel in git(root, "ls-files").splitlines():
        if is_source(rel):
            out.append(rel)
    return out


class Coderd:
    def __init__(self, binary, root):
        self.side = tempfile.mkdtemp(prefix="coderd-retrieval-")
        sock = os.path.join(self.side, "s.sock")
        cfg = os.path.join(self.side, "coderd.yaml")
        open(cfg, "w").close()
        env = dict(os.environ, XDG_RUNTIME_DIR=self.side, XDG_STATE_HOME=self.side, XDG_DATA_HOME=self.side,
                   XDG_CACHE_HOME=self.side, CODER_CHECKPOINTS="off")
        self.proc = subprocess.Popen([binary, "--root", root, "--socket", sock, "--config", cfg], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.conn = Connection(sock, tries=3000)

    def map(self, focus, idents, budget):
        reply = self.conn.call("map", {"focus": [focus], "mentions": idents, "budget": budget})
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]["map"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        # Its socket, config and state folder: each daemon's own, never reused.
        shutil.rmtree(self.side, ignore_errors=True)


AIDER = r'''
import json, os, sys
from aider.repomap import RepoMap
from aider.io import InputOutput
class Model:
    def token_count(self, text):
        return len(text) / 4
io = InputOutput(yes=True, pretty=False)
maps = {}
for line in sys.stdin:
    q = json.loads(line)
    root = q["root"]
    if root not in maps:
        maps[root] = RepoMap(map_tokens=1024, root=root, main_model=Model(), io=io, verbose=False,
                             map_mul_no_files=1, refresh="always")
    rm = maps[root]
    rm.max_map_tokens = q["budget"] // 4
    files = [os.path.join(root, f) for f in q["others"]]
    text = rm.get_repo_map([os.path.join(root, q["focus"])], files, set(), set(q["idents"]), force_refresh=True)
    # aider prints notes of its own on stdout: the answer is the line marked `@@`.
    print("@@" + json.dumps({"map": text or ""}), flush=True)
'''


class Aider:
    """aider's RepoMap in a child process. Its maps do not depend on coderd, so each answer is kept in
    `cache` (a JSON-lines file, keyed by the tree's commit and the question) and a re-run of the
    benchmark asks aider only what it has not answered before."""

    def __init__(self, python, cache):
        self.proc = subprocess.Popen([python, "-c", AIDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.cache_path = cache
        self.cache = {}
        if cache and os.path.exists(cache):
            for line in open(cache):
                entry = json.loads(line)
                self.cache[entry["key"]] = entry["map"]

    def map(self, root, focus, others, idents, budget):
        commit = git(root, "rev-parse", "HEAD").strip()
        key = json.dumps([commit, focus, idents, budget, sorted(SOURCE_EXTS)])
        if key not in self.cache:
            self.cache[key] = self.ask(root, focus, others, idents, budget)
            if self.cache_path:
                with open(self.cache_path, "a") as out:
                    out.write(json.dumps({"key": key, "map": self.cache[key]}) + "\n")
        return self.cache[key]

    def ask(self, root, focus, others, idents, budget):
        self.proc.stdin.write(json.dumps({"root": root, "focus": focus, "others": others, "idents": idents,
                                          "budget": budget}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("aider's RepoMap stopped")
            if line.startswith("@@"):
                return json.loads(line[2:])["map"]

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait()


def new_tally():
    return collections.defaultdict(lambda: [0, 0])  # key -> [shown, targets]


def run_repo(root, args, coderd_bin, aider):
    SOURCE_EXTS.clear()
    SOURCE_EXTS.update(languages(root))
    picked = commits(root, args.commits)
    head = git(root, "rev-parse", "HEAD").strip()
    tally = {"coderd": new_tally(), "nearest": new_tally(), "aider": new_tally()}
    determinism = []
    daemon = Coderd(coderd_bin, root)
    seconds = {"coderd": 0.0, "aider": 0.0}
    try:
        for sha, parent, modified in picked:
            git(root, "checkout", "-q", "-f", "--detach", parent)
            focus, targets = modified[0], modified[1:]
            idents = mentions(root, sha, parent, modified)
            calling = callers(root, focus, targets)
            sources = all_sources(root)
            others = [f for f in sources if f != focus]
            near = nearest(focus, sources)
            source_set = set(sources)
            for variant, words in (("focus", []), ("mentions", idents)):
                for budget in BUDGETS:
                    start = time.perf_counter()
                    text = daemon.map(focus, words, budget)
                    seconds["coderd"] += time.perf_counter() - start
                    tools = [("coderd", text)]
                    if aider and f"{variant}@{budget}" in args.aider_maps:
                        start = time.perf_counter()
                        tools.append(("aider", aider.map(root, focus, others, words, budget)))
                        seconds["aider"] += time.perf_counter() - start
                    # The baseline lists as many files as coderd's map did.
                    listed = {tool: listed_files(out, source_set) for tool, out in tools}
                    listed["nearest"] = near[:len(listed["coderd"])]
                    for tool, files in listed.items():
                        cell = tally[tool][f"{variant}@{budget}"]
                        cell[0] += len(set(files) & set(targets))
                        cell[1] += len(targets)
                        if variant == "focus" and budget == 8000:
                            cell = tally[tool]["first10"]
                            first = near[:10] if tool == "nearest" else files[:10]
                            cell[0] += len(set(first) & set(targets))
                            cell[1] += len(targets)
                    for tool, out in tools:
                        if variant == "focus" and budget == 8000:
                            cell = tally[tool]["callers@8000"]
                            cell[0] += len(shown_files(out, calling))
                            cell[1] += len(calling)
                        if variant == "focus" and budget == 4000:
                            cell = tally[tool]["callers@4000"]
                            cell[0] += len(shown_files(out, calling))
                            cell[1] += len(calling)
            determinism.append((parent, focus, idents, daemon.map(focus, idents, 4000)))
    finally:
        daemon.stop()
    # The same maps from a fresh daemon, for the first commits: byte for byte.
    same = True
    second = Coderd(coderd_bin, root)
    try:
        for parent, focus, idents, text in determinism[:5]:
            git(root, "checkout", "-q", "-f", "--detach", parent)
            same &= second.map(focus, idents, 4000) == text
    finally:
        second.stop()
    git(root, "checkout", "-q", "-f", "--detach", head)
    return {
        "repo": os.path.basename(root.rstrip("/")),
        "commits": len(picked),
        "extensions": sorted(SOURCE_EXTS),
        "deterministic": same,
        "seconds": seconds,
        "recall": {tool: {k: {"shown": v[0], "targets": v[1], "pct": round(100 * v[0] / v[1], 1) if v[1] else None}
                          for k, v in sorted(t.items())} for tool, t in tally.items() if t},
    }


def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--coderd", required=True)
    parser.add_argument("--aider-python")
    parser.add_argument("--aider-cache", help="JSON-lines file keeping aider's maps across runs")
    parser.add_argument("--aider-maps", type=str.split, default=" ".join(f"{v}@{b}" for v in ("focus", "mentions") for b in BUDGETS),
                        help="the maps aider is asked for (focus@8000 alone gives its first-10 column)")
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("repos", nargs="+")
    args = parser.parse_args()
    aider = Aider(args.aider_python, args.aider_cache) if args.aider_python else None
    try:
        rows = [run_repo(os.path.abspath(r), args, args.coderd, aider) for r in args.repos]
    finally:
        if aider:
            aider.stop()
    print(json.dumps(rows))


main()

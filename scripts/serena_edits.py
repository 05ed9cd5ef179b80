"""The symbol-edit half of scripts/bench-serena.py (its header says what is measured): coderd's
`replace-symbol`, `insert-symbol`, `delete-symbol` beside Serena's `replace_symbol_body`,
`insert_after_symbol`, `safe_delete_symbol`, each on its own fresh clone of the repository.

The expected file of every step is computed here from the bytes the tool's file had just before
it, so one wrong step does not count against the next ones; an item starts from the file as the
previous items should have left it (rewritten when a tool left it otherwise)."""
import difflib, json, os, re, shutil, subprocess, sys, tempfile, time

import coderd_bench

OPS = ("replace", "insert", "delete")
COMMENT = {"go": "//", "python": "#", "rust": "//"}
# The new function, at column 0 and one level of body indentation as the language writes it.
NEW = {
    "go": "func benchInserted{i}() int {{\n\treturn {i}\n}}",
    "python": "def bench_inserted_{i}(*args):\n    return {i}",
    "rust": "fn bench_inserted_{i}() -> usize {{\n    {i}\n}}",
}


def fresh_clone(root, prefix):
    path = tempfile.mkdtemp(prefix=prefix)
    os.rmdir(path)
    subprocess.run(["git", "clone", "-q", "--shared", root, path], check=True)
    return path


def parses(language, path):
    """Whether the file still parses (a cheap check, no build)."""
    if language == "python":
        try:
            compile(open(path, "rb").read(), path, "exec")
            return True
        except SyntaxError:
            return False
    argv = ["gofmt", "-e", "-l", path] if language == "go" else ["rustfmt", "--edition", "2021"]
    stdin = None if language == "go" else open(path, "rb")
    return subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def pick_items(d, ws, files, n):
    """Every k-th function or method of coderd's outline of `files` with ≥ 3 lines whose
    second-to-last line is not blank and does not continue onto the next (`\\`): n of them."""
    found = []
    for rel in files:
        items = d.call("outline", {"file": os.path.join(ws, rel)})["result"]["items"]
        lines = open(os.path.join(ws, rel)).read().split("\n")
        for k, it in enumerate(items):
            if it["kind"] not in ("function", "method") or it["end_line"] - it["line"] < 2:
                continue
            changed = lines[it["end_line"] - 2]
            if not changed.strip() or changed.rstrip().endswith("\\"):
                continue
            siblings = [o for o in items if o.get("parent") == it.get("parent") and o is not it]
            found.append(dict(it, file=rel, after=any(o["line"] > it["end_line"] for o in siblings),
                              before=any(o["end_line"] < it["line"] for o in siblings)))
    step = max(1, len(found) // n)
    return found[::step][:n]


def blanks(lines, start, step):
    """How many blank lines run from index `start` in direction `step`."""
    count = 0
    while 0 <= start < len(lines) and not lines[start].strip():
        count, start = count + 1, start + step
    return count


def plan(item, text, first_line, language, i):
    """The item's edits as both tools must leave the file, from `text` (its bytes now) and the
    item's first line (its doc comment's, 1-based): the changed line's index, its new text, the
    new function (indented) with its gap, the expected file after the replace and the insert."""
    lines = text.split("\n")
    at = item["end_line"] - 2  # the second-to-last line, 0-based
    changed = lines[at] + f" {COMMENT[language]} edited by bench"
    replaced = lines[:at] + [changed] + lines[at + 1:]
    indent = re.match(r"\s*", lines[item["line"] - 1]).group(0) if language != "go" else ""
    new = "\n".join(indent + ln for ln in NEW[language].format(i=i).split("\n"))
    gap = (blanks(lines, item["end_line"], 1) if item["after"] else
           blanks(lines, first_line - 2, -1) if item["before"] else 1)
    end = item["end_line"]
    inserted = replaced[:end] + [""] * gap + new.split("\n") + replaced[end:]
    return at, changed, "\n".join(replaced), new, gap, "\n".join(inserted)


def new_name(language, i):
    return f"benchInserted{i}" if language == "go" else f"bench_inserted_{i}"


async def serena_body(serena, name_path, rel):
    text = await serena.call("find_symbol", {"name_path_pattern": name_path, "relative_path": rel,
                                             "include_body": True})
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found[0] if isinstance(found, list) and len(found) == 1 else None


class Tally:
    def __init__(self):
        self.rows = {op: {who: {"exact": 0, "parses": 0, "asked": 0, "refused": 0, "tokens": [], "t": []}
                          for who in WHO} for op in OPS}

    def add(self, op, who, path, language, expected, text, t, failed):
        row = self.rows[op][who]
        row["asked"] += 1
        row["refused"] += failed
        got = open(path).read()
        row["exact"] += got == expected
        if got != expected:  # on stderr, to say how it differs
            diff = difflib.unified_diff(expected.split("\n"), got.split("\n"), "expected", who, lineterm="", n=1)
            print(f"{who} {op} {path}: {text[:200]}\n" + "\n".join(list(diff)[:12]), file=sys.stderr)
        row["parses"] += parses(language, path)
        row["tokens"].append(len(text) / 4)
        row["t"].append(t)


WHO = ("coderd", "coderd-quiet", "serena")  # coderd-quiet: `autodiag: false`, as Serena 2.1.0 edits


def daemon(bench, root, name, config=""):
    """coderd on a fresh clone of the repository, its edit deadlines the defaults (what an edit waits
    for its diagnostics is part of its latency)."""
    d = coderd_bench.Daemon(bench.CODERD, f"bench-serena-edits-{name}-", config=config,
                            env={"CODERD_SERVERS_DIR": bench.SERVERS_DIR})
    os.rmdir(d.ws)
    subprocess.run(["git", "clone", "-q", "--shared", root, d.ws], check=True)
    return d.start()


async def run_edits(case, bench):
    name, github, language, server, files = case
    root = bench.checkout(name, github)
    d, quiet = daemon(bench, root, name), daemon(bench, root, name, "autodiag: false\n")
    serena_root = fresh_clone(root, f"bench-serena-edits-{name}-serena-")
    items = pick_items(d, d.ws, files, bench.N)
    tally = Tally()
    want = {(who, f): open(os.path.join(root, f)).read() for who in WHO for f in files}
    async with bench.Serena(serena_root) as serena:
        await serena.name_path(items[0])  # warm-ups, untimed: the servers' load
        at = {"file": os.path.join(d.ws, items[0]["file"]), "line": items[0]["line"], "symbol": items[0]["name"]}
        for tool in (d, quiet):
            bench.until(lambda: (tool.call("references", dict(at, file=at["file"].replace(d.ws, tool.ws)))
                                 .get("result") or {}).get("locations"), bench.LOAD_S)
        for i, item in enumerate(items):
            rel = item["file"]
            first = d.call("read", {"file": os.path.join(d.ws, rel),
                                    "symbol": f"{item['name']}@{item['line']}"})["result"]["start"]
            for who, tool, ws in (("coderd", d, d.ws), ("coderd-quiet", quiet, quiet.ws),
                                  ("serena", serena, serena_root)):
                path = os.path.join(ws, rel)
                if open(path).read() != want[(who, rel)]:  # a wrong earlier step: start as it should
                    open(path, "w").write(want[(who, rel)])
                    time.sleep(1)  # the tool's watcher
                edit = serena_item if who == "serena" else coderd_item
                await edit(tally, who, tool, item, first, path, rel, language, i)
                want[(who, rel)] = plan(item, want[(who, rel)], first, language, i)[2]
    d.close()
    quiet.close()
    shutil.rmtree(serena_root, ignore_errors=True)
    return name, server, len(items), tally.rows


def timed_call(d, method, params):
    t = time.perf_counter()
    reply = d.call(method, params)
    t = time.perf_counter() - t
    return json.dumps(reply.get("result") or reply.get("error"), separators=(",", ":")), t, "error" in reply


async def coderd_item(tally, who, d, item, first, path, rel, language, i):
    before = open(path).read()
    at, changed, replaced, new, gap, inserted = plan(item, before, first, language, i)
    lines = before.split("\n")
    content = "\n".join(lines[first - 1:at] + [changed] + lines[at + 1:item["end_line"]])
    symbol = f"{item['name']}@{item['line']}"
    text, t, refused = timed_call(d, "replace-symbol", {"file": path, "symbol": symbol, "content": content,
                                                        "backup": False})
    tally.add("replace", who, path, language, replaced, text, t, refused)
    before = open(path).read()
    text, t, refused = timed_call(d, "insert-symbol", {"file": path, "symbol": symbol, "where": "after",
                                                       "content": new, "backup": False})
    tally.add("insert", who, path, language, inserted, text, t, refused)
    new_line = item["end_line"] + gap + 1
    text, t, refused = timed_call(d, "delete-symbol", {"file": path, "symbol": f"{new_name(language, i)}@{new_line}",
                                                       "backup": False})
    tally.add("delete", who, path, language, before, text, t, refused)


async def serena_item(tally, who, serena, item, first, path, rel, language, i):
    before = open(path).read()
    at, changed, replaced, new, gap, inserted = plan(item, before, first, language, i)
    name_path = await serena.name_path({"name": item["name"], "file": rel, "line": item["line"]})
    # Absolute (from the file's top): a relative pattern also matches a deeper namesake (a field).
    name_path = name_path and "/" + name_path
    found = await serena_body(serena, name_path, rel) if name_path else None
    loc = (found or {}).get("body_location") or {}
    if not found or not loc.get("start_line", at) < at <= loc.get("end_line", -1):
        print(f"serena: {item['name']}@{item['line']} in {rel}: name path {name_path}, "
              f"body lines {loc or None}: not asked", file=sys.stderr)
        for op in OPS:  # not found, or the line is outside its body: nothing to ask, a miss
            tally.rows[op]["serena"]["asked"] += 1
        return
    body = found["body"].split("\n")
    body[at - loc["start_line"]] = changed
    text, t = await bench_atimed(serena.call("replace_symbol_body", {"name_path": name_path, "relative_path": rel,
                                                                     "body": "\n".join(body)}))
    tally.add("replace", "serena", path, language, replaced, text, t, serena_failed(text))
    before = open(path).read()
    text, t = await bench_atimed(serena.call("insert_after_symbol", {"name_path": name_path, "relative_path": rel,
                                                                     "body": "\n" * gap + new}))
    tally.add("insert", "serena", path, language, inserted, text, t, serena_failed(text))
    text, t = await bench_atimed(serena.call("safe_delete_symbol", {"name_path_pattern": new_name(language, i),
                                                                    "relative_path": rel}))
    tally.add("delete", "serena", path, language, before, text, t, serena_failed(text))


def serena_failed(text):
    """Serena answers a refusal or an error as text: anything but its success message."""
    return not text.startswith("OK")


async def bench_atimed(coro):
    t = time.perf_counter()
    value = await coro
    return value, time.perf_counter() - t


def print_edits(results):
    tools = {"replace": ("`replace-symbol`", "`replace_symbol_body`"),
             "insert": ("`insert-symbol where=after`", "`insert_after_symbol`"),
             "delete": ("`delete-symbol`", "`safe_delete_symbol`")}
    print("\n| repository (server) | symbol edit | tool | byte-exact | parses | refused or failed | "
          "answer tokens p50 | p50 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, server, n, rows in results:
        for op, by_tool in rows.items():
            for who, r in by_tool.items():
                tool = {"coderd": f"coderd {tools[op][0]}", "coderd-quiet": f"coderd {tools[op][0]}, `autodiag: false`",
                        "serena": f"Serena {tools[op][1]}"}[who]
                print(f"| {name} ({server}) | {op} | {tool} | {r['exact']}/{r['asked']} | {r['parses']}/{r['asked']} | "
                      f"{r['refused'] + r['asked'] - len(r['t'])} | {coderd_bench.p50(r['tokens']):.0f} | {1000 * coderd_bench.p50(r['t']):.1f} |")

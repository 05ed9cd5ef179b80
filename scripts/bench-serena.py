#!/usr/bin/env python3
"""coderd against Serena (serena-agent 2.1.0, its MCP server over stdio, `--agent-interface tools`),
side by side in one run, on the same symbol questions asked of the same language server directly
(scripts/lsp_direct.py): gin with gopls, requests with pyright, ripgrep with rust-analyzer.

The symbols: 20 per repository, taken evenly from what the server itself lists
(`textDocument/documentSymbol`: functions, methods, classes, structs, interfaces) in a few core
files. For each one:
  references  at the symbol's name: the server (`textDocument/references`), coderd (`references`),
              Serena (`find_referencing_symbols` by the name path its `find_symbol` gives);
  definition  at the first use the server lists (another line): the server
              (`textDocument/definition`), coderd (`definition`), Serena (`find_declaration`, a
              regex of that line with the name as its group).
Places are compared as (file, 1-based line), the declaration's own line left out of references;
Serena's declarations are symbols (body lines): the server's place counts when inside one.
"agree" = the same set as the server's; "found" = the share of the server's places listed.
The server's own row is the reference (its answer asked over its stdio, timed too).
Size: the answer as the agent gets it (coderd's JSON `result`, Serena's MCP text), tokens as
chars/4 (no tokenizer is installed). Latency: each question once, after one untimed warm-up call
per tool and repository; coderd over its socket, Serena through MCP (both one persistent client).

Symbol edits (`--part=edits`; scripts/serena_edits.py): 20 functions and methods per repository, every k-th
of coderd's outline of the same files with ≥ 3 lines whose second-to-last line can take a comment,
each tool on a fresh clone of the repository (`git clone --shared`; coderd twice, by default and
with `autodiag: false` as Serena 2.1.0 edits), in turn for each item:
  replace  the item's own text with its second-to-last line ending in a comment (coderd
           `replace-symbol` gets the item's lines, doc comment included; Serena `replace_symbol_body`
           gets its own `find_symbol` body — the server's range, which may leave the doc out — with
           the same line changed): the file must be the original with exactly that line changed;
  insert   a new function after it (`insert-symbol where=after` / `insert_after_symbol`), at the
           item's indentation, separated from it by the file's own gap between sibling items (Serena
           is given that gap as leading newlines, its contract for blank lines);
  delete   that new function (`delete-symbol` / `safe_delete_symbol`): it has no references, so
           neither tool may refuse; the file must be as it was before the insert.
Scored per tool and operation: byte-exact (against the file computed here from the bytes before the
edit), parses (gofmt -e, Python's compile(), rustfmt reading stdin), answer tokens, p50 latency.

Usage: scripts/bench-serena.py [path/to/coderd] [--repos=gin,requests,ripgrep] [--symbols=20]
                               [--part=questions,edits]
  Needs: serena-agent in $SERENA_VENV (default /tmp/serena-venv:
         python3 -m venv /tmp/serena-venv && /tmp/serena-venv/bin/pip install serena-agent==2.1.0 uv),
         the repositories in $BENCH_REPOS/<name> (default /tmp/bench-serena; cloned from GitHub
         when missing), the servers of scripts/install-language-servers.sh (Serena is given the
         same gopls and rust-analyzer on its PATH; for Python it runs pyright through uvx).
  Run it with the venv's Python (it has the MCP SDK): $SERENA_VENV/bin/python scripts/bench-serena.py"""
import asyncio, glob, json, os, re, subprocess, sys, time, tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coderd_bench  # noqa: E402
from coderd_bench import p50, until  # noqa: E402

# How long a language server may take to load before its first answer.
LOAD_S = 300
import lsp_direct  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
opt = lambda name, default: next((a.split("=", 1)[1] for a in sys.argv if a.startswith(f"--{name}=")), default)
CODERD = os.path.abspath(args[0] if args else os.path.join(REPO, "target/debug/coderd"))
WANTED = opt("repos", "gin,requests,ripgrep").split(",")
N = int(opt("symbols", 20))
PARTS = opt("part", "questions,edits").split(",")
SERENA_VENV = os.environ.get("SERENA_VENV", "/tmp/serena-venv")
REPOS_DIR = os.environ.get("BENCH_REPOS", "/tmp/bench-serena")
SERVERS_DIR = os.environ.get("CODERD_SERVERS_DIR") or os.path.join(
    os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "coderd/servers")
BIN = os.path.join(SERVERS_DIR, "bin")
DEFS = {s["name"]: s for s in tomllib.load(open(os.path.join(REPO, "data/servers.toml"), "rb"))["server"]}
KINDS = {5, 6, 11, 12, 23}  # class, method, interface, function, struct

# (name, GitHub repository, language id, server, files the symbols are taken from)
CASES = [
    ("gin", "gin-gonic/gin", "go", "gopls", ["context.go", "gin.go", "routergroup.go", "tree.go"]),
    ("requests", "psf/requests", "python", "pyright",
     ["src/requests/sessions.py", "src/requests/models.py", "src/requests/utils.py", "src/requests/adapters.py"]),
    ("ripgrep", "BurntSushi/ripgrep", "rust", "rust-analyzer",
     ["crates/searcher/src/searcher/mod.rs", "crates/ignore/src/walk.rs", "crates/globset/src/lib.rs",
      "crates/regex/src/matcher.rs"]),
]

def checkout(name, github):
    path = os.path.join(REPOS_DIR, name)
    if not os.path.isdir(path):
        os.makedirs(REPOS_DIR, exist_ok=True)
        subprocess.run(["git", "clone", "-q", f"https://github.com/{github}", path], check=True)
    return path


def tokens(text):
    return len(text) / 4


def flatten(symbols, out):
    for s in symbols or []:
        out.append(s)
        flatten(s.get("children"), out)
    return out


def pick_symbols(direct, root, language, files):
    """N symbols, evenly spread over the server's own list of the files' definitions."""
    found = []
    for rel in files:
        path = os.path.join(root, rel)
        text = open(path).read()
        direct.open(path, language, text, 1)
        listed = until(lambda: direct.request("textDocument/documentSymbol",
                                              {"textDocument": {"uri": lsp_direct.uri_of(path)}}, timeout=300), LOAD_S)
        lines = text.split("\n")
        for s in flatten(listed, []):
            if s.get("kind") not in KINDS or "selectionRange" not in s:
                continue
            start = s["selectionRange"]["start"]
            line = lines[start["line"]]
            name = re.match(r"[A-Za-z_][A-Za-z0-9_]*", line[start["character"]:])
            if name:
                found.append({"file": rel, "line": start["line"] + 1, "column": start["character"] + 1,
                              "name": name.group(0), "end": s["range"]["end"]["line"] + 1})
    step = max(1, len(found) // N)
    return found[::step][:N]


def places_lsp(result, root):
    items = result if isinstance(result, list) else [result] if result else []
    out = set()
    for loc in items:
        uri = loc.get("uri") or loc.get("targetUri")
        r = loc.get("targetSelectionRange") or loc.get("range")
        path = lsp_direct.urllib.parse.unquote(uri[len("file://"):])
        out.add((os.path.relpath(path, root), r["start"]["line"] + 1))
    return out


def places_coderd(reply, root):
    result = reply.get("result") or {}
    return {(os.path.relpath(l["path"], root), l["line"]) for l in result.get("locations", [])}


def places_serena_references(text):
    """(file, 1-based line) of every `>` line in find_referencing_symbols' answer (0-based there)."""
    try:
        answer = json.loads(text)
    except ValueError:
        return set()
    out = set()
    for rel, by_kind in answer.items() if isinstance(answer, dict) else []:
        for entries in by_kind.values():
            for e in entries:
                for m in re.finditer(r"^\s*>\s*(\d+):", e.get("content_around_reference", ""), re.M):
                    out.add((rel, int(m.group(1)) + 1))
    return out


def places_serena_declaration(text, truth):
    """Serena answers with symbols (file and body lines, 0-based), not positions: the server's
    place counts as given when it lies inside a returned symbol's lines (a Rust item's lines start
    at its doc comment and attributes, a Go function's at `func`)."""
    try:
        answer = json.loads(text)
    except ValueError:
        return set()
    spans = []
    for s in answer if isinstance(answer, list) else [answer]:
        loc = s.get("body_location") if isinstance(s, dict) else None
        if loc and "relative_path" in s:
            spans.append((s["relative_path"], loc["start_line"] + 1, loc["end_line"] + 1))
    covered = {p for p in truth if any(f == p[0] and a <= p[1] <= b for f, a, b in spans)}
    # One symbol per place: an extra one is a wrong place (it can match nothing in `truth`).
    return covered | {(f, -a) for f, a, _ in spans[len(covered):]}


class Serena:
    """Serena's MCP server on a project, through the MCP SDK installed with it."""

    def __init__(self, root):
        self.root = root

    async def __aenter__(self):
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
        # Its Python server is pyright run by uvx (uv, installed in its venv).
        # uvx runs it on Python 3.13, which uv would download (not reachable here): a pyenv one, if
        # any, is put on the PATH. uv's own certificate store does not hold this machine's: the
        # system's (UV_NATIVE_TLS).
        pythons = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin")))[-1:]
        path = ":".join([BIN, f"{SERENA_VENV}/bin", *pythons, os.environ["PATH"]])
        env = dict(os.environ, PATH=path, UV_NATIVE_TLS="1", UV_PYTHON_DOWNLOADS="never")
        params = StdioServerParameters(
            command=os.path.join(SERENA_VENV, "bin/serena"),
            args=["start-mcp-server", "--project", self.root, "--context", "claude-code",
                  "--agent-interface", "tools", "--enable-web-dashboard", "false",
                  "--open-web-dashboard", "false", "--enable-gui-log-window", "false",
                  "--log-level", "ERROR"], env=env)
        self._stdio = stdio_client(params, errlog=open(os.devnull, "w"))
        read, write = await self._stdio.__aenter__()
        self._session = ClientSession(read, write)
        self.session = await self._session.__aenter__()
        await self.session.initialize()
        return self

    async def __aexit__(self, *exc):
        await self._session.__aexit__(*exc)
        await self._stdio.__aexit__(*exc)

    async def call(self, tool, arguments):
        result = await self.session.call_tool(tool, arguments)
        return "".join(c.text for c in result.content if hasattr(c, "text"))

    async def name_path(self, sym):
        """The name path Serena gives the symbol defined at sym's line."""
        text = await self.call("find_symbol", {"name_path_pattern": sym["name"], "relative_path": sym["file"]})
        try:
            found = json.loads(text)
        except ValueError:
            return None
        for s in found if isinstance(found, list) else []:
            loc = s.get("body_location") or {}
            if loc.get("start_line", -1) + 1 <= sym["line"] <= loc.get("end_line", -1) + 1:
                return s["name_path"]
        return None


def timed(f):
    t = time.perf_counter()
    value = f()
    return value, time.perf_counter() - t


async def atimed(coro):
    t = time.perf_counter()
    value = await coro
    return value, time.perf_counter() - t


async def run_case(name, github, language, server, files):
    root = checkout(name, github)
    if language == "rust":  # coderd's rust-analyzer has no network: the crates must be there.
        subprocess.run(["cargo", "fetch", "-q"], cwd=root, check=False)
    spec = DEFS[server]
    settings = json.loads(json.dumps(spec.get("settings") or {}))
    init = spec.get("initialization_options")
    if server == "rust-analyzer":  # No `cargo check` on save: navigation does not need it.
        settings.get("rust-analyzer", {})["checkOnSave"] = False
        init = dict(init or {}, checkOnSave=False)
    direct = lsp_direct.Server([os.path.join(BIN, spec["command"])] + spec.get("args", []), root,
                               settings=settings, init_options=init)
    symbols = pick_symbols(direct, root, language, files)
    d = coderd_bench.Daemon(CODERD, f"bench-serena-{name}-",
                            config="lsp:\n  warm_deadline_ms: 30000\n  cold_deadline_ms: 300000\n",
                            env={"CODERD_SERVERS_DIR": SERVERS_DIR})
    scratch, d.ws = d.ws, root  # the same checkout for all three: the places compare as they are
    d.start()
    rows = {m: {who: {"agree": 0, "found": [], "tokens": [], "t": [], "asked": 0}
                for who in ("server", "coderd", "serena")}
            for m in ("references", "definition")}
    async with Serena(root) as serena:
        first = True
        for sym in symbols:
            path = os.path.join(root, sym["file"])
            pos = {"line": sym["line"] - 1, "character": sym["column"] - 1}
            at = {"file": path, "line": sym["line"], "column": sym["column"]}
            decl = (sym["file"], sym["line"])
            ref_params = {"textDocument": {"uri": lsp_direct.uri_of(path)}, "position": pos,
                          "context": {"includeDeclaration": False}}
            ask = lambda: places_lsp(direct.request("textDocument/references", ref_params, timeout=300), root)
            if first:
                until(ask, LOAD_S)  # the server's load
            answer, t = timed(lambda: direct.request("textDocument/references", ref_params, timeout=300))
            truth = places_lsp(answer, root) - {decl}
            score(rows["references"]["server"], truth, truth, json.dumps(answer, separators=(",", ":")), t)
            if first:  # warm-ups, untimed
                until(lambda: places_coderd(d.call("references", at), root), LOAD_S)
                np = await serena.name_path(sym)
                if np:
                    await serena.call("find_referencing_symbols", {"name_path": np, "relative_path": sym["file"]})
                first = False
            reply, t = timed(lambda: d.call("references", at))
            text = json.dumps(reply.get("result"), separators=(",", ":"))
            score(rows["references"]["coderd"], truth, places_coderd(reply, root) - {decl}, text, t)
            np = await serena.name_path(sym)
            if np:
                text, t = await atimed(serena.call("find_referencing_symbols",
                                                   {"name_path": np, "relative_path": sym["file"]}))
                score(rows["references"]["serena"], truth, places_serena_references(text) - {decl}, text, t)
            else:
                rows["references"]["serena"]["asked"] += 1  # not found by name: a miss
                rows["references"]["serena"]["found"].append(0.0)
            # Definition, from the first use on another line.
            use = sorted(p for p in truth if p != decl)
            if not use:
                continue
            use_file, use_line = use[0]
            line_text = open(os.path.join(root, use_file)).read().split("\n")[use_line - 1]
            col = next((m.start() for m in re.finditer(rf"\b{re.escape(sym['name'])}\b", line_text)), None)
            if col is None:
                continue
            dpath = os.path.join(root, use_file)
            direct.open(dpath, language, open(dpath).read(), 1)
            def_params = {"textDocument": {"uri": lsp_direct.uri_of(dpath)},
                          "position": {"line": use_line - 1, "character": col}}
            answer, t = timed(lambda: direct.request("textDocument/definition", def_params, timeout=300))
            dtruth = places_lsp(answer, root)
            score(rows["definition"]["server"], dtruth, dtruth, json.dumps(answer, separators=(",", ":")), t)
            reply, t = timed(lambda: d.call("definition", {"file": dpath, "line": use_line, "column": col + 1}))
            text = json.dumps(reply.get("result"), separators=(",", ":"))
            score(rows["definition"]["coderd"], dtruth, places_coderd(reply, root), text, t)
            regex = re.escape(line_text[:col]) + "(" + re.escape(sym["name"]) + ")" + \
                re.escape(line_text[col + len(sym["name"]):])
            text, t = await atimed(serena.call("find_declaration", {"relative_path": use_file, "regex": regex}))
            score(rows["definition"]["serena"], dtruth, places_serena_declaration(text, dtruth), text, t)
    direct.stop()
    d.ws = scratch  # close() removes its workspace: the scratch one, never the checkout
    d.close()
    return name, server, len(symbols), rows


def score(row, truth, got, text, t):
    row["asked"] += 1
    row["agree"] += got == truth
    row["found"].append(len(got & truth) / len(truth) if truth else float(not got))
    row["tokens"].append(tokens(text))
    row["t"].append(t)


def main():
    cases = [c for c in CASES if c[0] in WANTED]
    print(f"\ncoderd: {CODERD}; Serena: {SERENA_VENV}; tokens = chars/4")
    if "questions" in PARTS:
        print_questions([asyncio.run(run_case(*c)) for c in cases])
    if "edits" in PARTS:
        import serena_edits
        serena_edits.print_edits([asyncio.run(serena_edits.run_edits(c, sys.modules[__name__]))
                                  for c in cases])


def print_questions(results):
    print("\n| repository (server) | question | tool | agrees with the server | places found | "
          "answer tokens p50 | p50 ms |")
    print("|---|---|---|---|---|---|---|")
    for name, server, n, rows in results:
        for method, tools in rows.items():
            for who, r in tools.items():
                tool = {"server": f"{server} itself (`textDocument/{method}`, raw LSP JSON)",
                        "coderd": f"coderd `{method}`",
                        "serena": "Serena `find_referencing_symbols`" if method == "references"
                        else "Serena `find_declaration`"}[who]
                print(f"| {name} ({server}) | {method} | {tool} | {r['agree']}/{r['asked']} | "
                      f"{100 * (sum(r['found']) / len(r['found']) if r['found'] else 0):.0f}% | "
                      f"{p50(r['tokens']):.0f} | {1000 * p50(r['t']):.1f} |")


if __name__ == "__main__":
    main()

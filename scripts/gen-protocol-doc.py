#!/usr/bin/env python3
"""Regenerates the method reference of docs/protocol.md from the daemon's own `schema` answer, and
checks the links of the project's documents.

    scripts/gen-protocol-doc.py           rewrite the block between docs/protocol.md's
                                          `<!-- schema:begin -->` and `<!-- schema:end -->` markers
    scripts/gen-protocol-doc.py --check   only compare; fail with a diff when docs/protocol.md's
                                          copy differs (scripts/test.sh runs this, so CI fails on
                                          drift, as it does for the README's tour)

The method table is the one source: a fresh daemon of this checkout (on an empty temporary root,
with its socket, registry and log in a temporary folder) is asked for `schema`, and every method's
name, aliases, summary, `mutates`, what a call may do (`hints`: read-only, destructive, idempotent,
open world), the params bare words fill (`bare`), the names agents give the params
(`param_aliases`) and the params themselves (type, default, description) are written out:
all from each method's one record in the table (src/methods/mod.rs `Method`).
Everything outside the markers is hand-written prose (wire format, error codes) and left alone.

Both modes then check the links of README.md, SECURITY.md, CONTRIBUTING.md and docs/*.md: every
relative link must name a file that exists (and a heading that exists, for `#anchor`s); and README.md
stays within 300 lines. Repository paths cited in prose (`src/…`, `tests/…`, …) are checked, in
every document, data file and comment, by tests/tidy.rs (`every_path_the_docs_and_data_cite_exists`).
"""

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection  # noqa: E402  (the scripts' one socket client)

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOC = "docs/protocol.md"
BEGIN = "<!-- schema:begin -->"
END = "<!-- schema:end -->"


def fail(msg):
    print(f"gen-protocol-doc.py: {msg}", file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------------------------
# Asking a fresh daemon


def build_daemon(tmp):
    """This checkout's coderd, copied at once: a target folder shared with other checkouts
    (CARGO_TARGET_DIR) may get their binary at any moment after the build."""
    subprocess.run(["cargo", "build", "--locked", "--quiet", "--bin", "coderd"], cwd=REPO, check=True)
    meta = subprocess.run(
        ["cargo", "metadata", "--locked", "--format-version", "1", "--no-deps"],
        cwd=REPO, check=True, capture_output=True, text=True,
    )
    target = json.loads(meta.stdout)["target_directory"]
    binary = os.path.join(tmp, "coderd")
    shutil.copy2(os.path.join(target, "debug", "coderd"), binary)
    return binary


def request(sock_path, method, params=None):
    answer = Connection(sock_path, tries=1).call(method, params or {})
    if "error" in answer:
        fail(f"`{method}` answered an error: {answer['error']}")
    return answer["result"]


def ask_schema():
    tmp = tempfile.mkdtemp(prefix="gen-protocol-doc.")
    daemon = None
    try:
        binary = build_daemon(tmp)
        root = os.path.join(tmp, "ws")
        os.mkdir(root)
        sock = os.path.join(tmp, "d.sock")
        log = os.path.join(tmp, "coderd.log")
        env = dict(os.environ, XDG_RUNTIME_DIR=os.path.join(tmp, "run"))
        daemon = subprocess.Popen(
            [binary, "--root", root, "--socket", sock, "--log-file", log],
            stdin=subprocess.DEVNULL, env=env,
        )
        # Wait for the state (the socket answers), not for a time; the cap only bounds a daemon
        # that never comes up.
        deadline = time.monotonic() + 60
        while True:
            try:
                request(sock, "info")
                break
            except (OSError, json.JSONDecodeError):  # no socket yet, or not accepting yet
                if daemon.poll() is not None or time.monotonic() > deadline:
                    with open(log, errors="replace") as f:
                        fail("coderd did not start; its log:\n" + f.read())
                time.sleep(0.05)
        return request(sock, "schema")
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.terminate()
            daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Rendering


def cell(text):
    """One line of Markdown from a description (the schema's are wrapped source comments): `|`
    escaped for tables, and `<`/`>` outside code spans escaped so `<file>.bak` is not a tag."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def literal(value):
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


class Method:
    def __init__(self, name, schema):
        self.name = name
        self.params = schema["params"]
        self.defs = self.params.get("$defs", {})
        self.shown_defs = []  # the $defs a type names, in order of first use

    def ref(self, ref):
        if ref == "#":
            return "the params object (recursive)"
        name = ref.rsplit("/", 1)[-1]
        d = self.defs[name]
        if is_simple(d):
            return self.type_of(d)
        if name not in self.shown_defs:
            self.shown_defs.append(name)
        return f"`{name}`"

    def type_of(self, s):
        """A short type: `string`, `integer ≥ 0`, `list of X`, `"a"` | `"b"`, …; null dropped
        (optional params are written as nullable types)."""
        if s is True or s == {}:
            return "any"
        if "$ref" in s:
            return self.ref(s["$ref"])
        if "const" in s:
            return literal(s["const"])
        if "enum" in s:
            return " \\| ".join(literal(v) for v in s["enum"])
        for key in ("anyOf", "oneOf"):
            if key in s:
                parts = [self.type_of(v) for v in s[key] if v.get("type") != "null"]
                return " \\| ".join(dict.fromkeys(parts))
        types = s.get("type")
        if types is None:
            return "any"
        if isinstance(types, str):
            types = [types]
        out = []
        for t in types:
            if t == "null":
                continue
            if t == "array":
                out.append("list of " + self.type_of(s.get("items", True)))
            elif t == "integer" and s.get("minimum") == 0:
                out.append("integer ≥ 0")
            else:
                out.append(t)
        return " \\| ".join(out) or "null"

    def table(self, obj):
        props = obj.get("properties", {})
        required = set(obj.get("required", []))
        if not props:
            return ["No params."]
        rows = ["| param | type | default | description |", "|---|---|---|---|"]
        for key, s in props.items():
            if key in required:
                default = "required"
            elif "default" in s:
                default = literal(s["default"])
            else:
                default = "—"
            rows.append(
                f"| `{key}` | {self.type_of(s)} | {default} | {cell(s.get('description', ''))} |"
            )
        return rows

    def def_section(self, name):
        d = self.defs[name]
        out = [""]
        head = f"`{name}`"
        desc = cell(d.get("description", ""))
        variants = d.get("oneOf") or d.get("anyOf")
        if variants and all(v.get("type") == "object" for v in variants):
            out.append(f"{head}, one of{': ' + desc if desc else ''}")
            for v in variants:
                tag = next(
                    (f"`{k}: {json.dumps(p['const'])}`" for k, p in v.get("properties", {}).items()
                     if "const" in p),
                    "an object",
                )
                out += ["", f"- {tag}: {cell(v.get('description', ''))}".rstrip(), ""]
                out += ["  " + r for r in self.table(v)]
        elif d.get("type") == "object" or "properties" in d:
            out += [f"{head} (an object){': ' + desc if desc else ''}", ""]
            out += self.table(d)
        else:
            out.append(f"{head}: {self.type_of({k: v for k, v in d.items() if k != 'description'})}"
                       f"{'. ' + desc if desc else ''}")
            for v in variants or []:
                if v.get("description"):
                    out.append(f"- {self.type_of(v)}: {cell(v['description'])}")
        return out


def is_simple(d):
    """A $def written inline where it is used: enums and unions of scalars or lists whose variants
    carry no description of their own."""
    if d.get("type") == "object" or "properties" in d:
        return False
    variants = d.get("oneOf") or d.get("anyOf") or []
    if any(v.get("description") for v in variants):
        return False
    return not any(v.get("type") == "object" or "$ref" in v for v in variants)


def render(schema):
    methods = schema["methods"]
    out = [
        f"The {len(methods)} methods as `schema` describes them (generated by",
        "`scripts/gen-protocol-doc.py`: edit the params' doc comments, not this block). A param",
        "without a default in the table takes the one its description or",
        "[protocol-guide.md](protocol-guide.md) names. Read-only, destructive, idempotent and open",
        "world are what a call may do, as MCP's tool annotations and `tool`'s `read_only` say it.",
        "",
        "| method | mutates | summary |",
        "|---|---|---|",
    ]
    for name, m in methods.items():
        out.append(f"| [`{name}`](#{slug(name)}) | {'yes' if m['mutates'] else 'no'} | {cell(m['summary'])} |")
    for name, m in methods.items():
        method = Method(name, m)
        out += ["", f"### {name}", "", cell(m["summary"]), ""]
        yes = lambda flag: "yes" if flag else "no"
        facts = [f"- mutates: {yes(m['mutates'])}"]
        hints = m.get("hints")
        if hints:
            facts.append(f"- read-only: {yes(hints['read_only'])}; destructive: "
                         f"{yes(hints['destructive'] and not hints['read_only'])}; idempotent: "
                         f"{yes(hints['idempotent'])}; open world: {yes(hints['open_world'])}")
        if m["aliases"]:
            facts.append("- method aliases: " + ", ".join(f"`{a}`" for a in m["aliases"]))
        if m.get("param_aliases"):
            by_target = {}
            for alias, canonical in sorted(m["param_aliases"].items()):
                by_target.setdefault(canonical, []).append(f"`{alias}`")
            facts.append("- param aliases: " + "; ".join(
                f"{', '.join(aliases)} → `{canonical}`" for canonical, aliases in by_target.items()))
        if m.get("bare"):
            fields = ", then ".join(f"`{f}`" for f in m["bare"])
            facts.append(f"- bare words (`coder {name} WORD…`, `tool {{\"cmd\": \"{name} WORD…\"}}`, "
                         f"a `tool` call's bare `args`) fill {fields}")
        out += facts + [""]
        if method.params.get("description") and not method.params.get("properties"):
            out.append(cell(method.params["description"]))
        else:
            out += method.table(method.params)
        i = 0
        while i < len(method.shown_defs):  # a def may name further defs
            out += method.def_section(method.shown_defs[i])
            i += 1
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Links


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to
    dashes."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            m = re.match(r"#{1,6} (.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
    return out


LINK = re.compile(r"\]\(([^)\s]+)\)")

# The README says what coderd is, the two commands, the tour and where to go next (issue 25);
# everything else belongs in docs/.
README_MAX_LINES = 300

def check_links():
    docs = ["README.md", "SECURITY.md", "CONTRIBUTING.md"]
    docs += sorted("docs/" + f for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".md"))
    problems = []
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme_lines = sum(1 for _ in f)
    if readme_lines > README_MAX_LINES:
        problems.append(f"README.md: {readme_lines} lines; it is a map (at most {README_MAX_LINES}): "
                        "move the reference into docs/")
    for doc in docs:
        path = os.path.join(REPO, doc)
        if not os.path.exists(path):
            problems.append(f"{doc}: missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, line in enumerate(text.splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # http(s), mailto: not checked offline
                file, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                if not os.path.exists(dest):
                    problems.append(f"{doc}:{n}: link to {target}: no such file")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{doc}:{n}: link to {target}: no such heading")
    return problems


# ---------------------------------------------------------------------------------------------


def main():
    check = False
    if sys.argv[1:] == ["--check"]:
        check = True
    elif sys.argv[1:]:
        print("usage: scripts/gen-protocol-doc.py [--check]", file=sys.stderr)
        sys.exit(2)
    os.chdir(REPO)
    block = render(ask_schema())
    with open(DOC, encoding="utf-8") as f:
        old = f.read()
    lines = old.splitlines(keepends=True)
    if [l.rstrip("\n") for l in lines].count(BEGIN) != 1 or [l.rstrip("\n") for l in lines].count(END) != 1:
        fail(f"{DOC} needs one '{BEGIN}' line and one '{END}' line")
    b = next(i for i, l in enumerate(lines) if l.rstrip("\n") == BEGIN)
    e = next(i for i, l in enumerate(lines) if l.rstrip("\n") == END)
    new = "".join(lines[: b + 1]) + block + "".join(lines[e:])
    status = 0
    if check:
        if new != old:
            sys.stderr.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), DOC, DOC + " (generated)"))
            print(f"gen-protocol-doc.py: {DOC} differs from the daemon's schema; "
                  "run scripts/gen-protocol-doc.py to update it", file=sys.stderr)
            status = 1
        else:
            print(f"gen-protocol-doc.py: {DOC} is current")
    elif new != old:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"gen-protocol-doc.py: updated {DOC}")
    else:
        print(f"gen-protocol-doc.py: {DOC} was already current")
    problems = check_links()
    for p in problems:
        print(f"gen-protocol-doc.py: {p}", file=sys.stderr)
    if problems:
        status = 1
    else:
        print("gen-protocol-doc.py: every link in the documents resolves")
    sys.exit(status)


if __name__ == "__main__":
    main()

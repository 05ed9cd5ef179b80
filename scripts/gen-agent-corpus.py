#!/usr/bin/env python3
"""Writes tests/agent/malformed.json: malformed @coder tool calls, each with the exact call it must
become or the exact refusal it must get. Every case derives from an intended call written below
(method + canonical params), so the expectation is what the model meant, never what coderd happens
to do. tests/it/agent.rs sends each input to the `tool` method with dry_run and compares exactly.

Classes: the seven ChatCLI strategies (strict, single quotes, unquoted keys, both, trailing commas,
plain-value wrapping, object literals), the extra passes (un-stringifying, Windows paths, HTML
entities, smart quotes, code fences, trailing prose, Python literals, raw newlines, closing cut
calls), envelope shapes (flattened keys, `command`, dashed and camelCased keys, argv, CLI style),
and the traps (commas and braces inside strings, apostrophes, nested quotes, cuts inside strings,
after `:` or `,`, in numbers, two different calls in one)."""
import json, pathlib

root = pathlib.Path(__file__).resolve().parent.parent

# (name, method, params, mutates): params use the canonical keys of coderd's schemas.
INTENDED = [
    ("read window", "read", {"file": "main.go", "start": 10, "end": 50}, False),
    ("read whole", "read", {"file": "README.md"}, False),
    ("read head", "read", {"file": "config.yaml", "head": 20}, False),
    ("read base64", "read", {"file": "image.png", "encoding": "base64", "max_bytes": 500000}, False),
    ("search", "search", {"pattern": "func main", "dir": ".", "glob": "*.go", "context": 5}, False),
    ("search limit", "search", {"pattern": "error", "dir": "./pkg", "max_results": 20}, False),
    ("tree", "tree", {"dir": "./internal", "max_entries": 500}, False),
    ("write", "write", {"file": "hello.txt", "content": "Hello, World!"}, True),
    ("write append", "write", {"file": "notes.txt", "content": "New line", "append": True}, True),
    ("patch", "patch", {"file": "main.go", "search": 'fmt.Println("old")', "replace": 'fmt.Println("new")'}, True),
    ("multipatch", "multipatch", {"edits": [
        {"file": "internal/auth/login.go", "search": "loginV1", "replace": "loginV2"},
        {"file": "cmd/server/main.go", "search": "auth.loginV1", "replace": "auth.loginV2"}]}, True),
    ("rollback", "rollback", {"file": "main.go"}, True),
]


def dq(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def sq(v):
    """Python-ish single-quoted rendering: strings in '...', inner ' escaped, inner " left bare."""
    if isinstance(v, dict):
        return "{" + ",".join(f"{sq(k)}:{sq(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(sq(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return dq(v)


def unquoted(v, quote=dq):
    """Keys bare, values quoted by `quote`."""
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{unquoted(x, quote)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(unquoted(x, quote) for x in v) + "]"
    return quote(v)


def trailing(v):
    if isinstance(v, dict):
        return "{" + ",".join(f"{dq(k)}:{trailing(x)}" for k, x in v.items()) + ",}"
    if isinstance(v, list):
        return "[" + ",".join(trailing(x) for x in v) + ",]"
    return dq(v)


def smart(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"“{k}”: {smart(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(smart(x) for x in v) + "]"
    if isinstance(v, str):
        return "“" + v + "”"
    return dq(v)


def python(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{dq(k)}: {python(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(python(x) for x in v) + "]"
    if v is True:
        return "True"
    if v is False:
        return "False"
    if v is None:
        return "None"
    return dq(v)


def literal(v):
    """JS-style object literal: bare keys, bare words for simple strings."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {literal(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str) and v and all(c.isalnum() or c in "._/-*" for c in v) and not v[0].isdigit():
        return v
    return dq(v)


def cli_word(v):
    if isinstance(v, bool):
        return None
    s = str(v)
    if s and all(c.isalnum() or c in "._/-*=" for c in s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cli(method, params):
    words = [method]
    for k, v in params.items():
        if isinstance(v, (list, dict)):
            return None
        words.append("--" + k.replace("_", "-"))
        if v is not True:
            words.append(cli_word(v))
    return " ".join(words)


def argv(method, params):
    words = [method]
    for k, v in params.items():
        words.append("--" + k)
        if v is not True:
            words.append(str(v))
    return words


def camel(k):
    head, *rest = k.split("_")
    return head + "".join(w.title() for w in rest)


cases = []


def ok(name, cls, inp, method, params, strategy=None):
    case = {"name": name, "class": cls, "input": inp, "expect": {"method": method, "params": params}}
    if strategy:
        case["strategy"] = strategy
    cases.append(case)


def refused(name, cls, inp, contains):
    cases.append({"name": name, "class": cls, "input": inp, "expect_error": {"message": {"$contains": contains}}})


for name, method, params, mutates in INTENDED:
    env = {"cmd": method, "args": params}
    simple = not any(isinstance(v, str) and ("'" in v or '"' in v) for v in params.values())
    ok(f"{name}: strict", "strict", {"raw": dq(env)}, method, params)
    ok(f"{name}: object envelope", "strict", env, method, params)
    ok(f"{name}: single quotes", "single_quotes", {"raw": sq(env)}, method, params, "single_quotes")
    ok(f"{name}: unquoted keys", "unquoted_keys", {"raw": unquoted(env)}, method, params, "unquoted_keys")
    ok(f"{name}: both", "both", {"raw": unquoted(env, sq)}, method, params, "single_quotes")
    ok(f"{name}: trailing commas", "trailing_commas", {"raw": trailing(env)}, method, params, "trailing_commas")
    ok(f"{name}: code fence", "code_fence", {"raw": "```json\n" + json.dumps(env, indent=2) + "\n```"}, method, params, "code_fence")
    ok(f"{name}: trailing prose", "trailing_prose", {"raw": dq(env) + "\nI will now look at the result."}, method, params, "trailing_prose")
    ok(f"{name}: repeated call", "trailing_prose", {"raw": dq(env) + "\n" + dq(env)}, method, params, "trailing_prose")
    ok(f"{name}: html entities", "html_entities", {"raw": dq(env).replace('"', "&quot;")}, method, params, "html_entities")
    ok(f"{name}: args as a JSON string", "unstringified", {"cmd": method, "args": dq(params)}, method, params, "unstringified")
    ok(f"{name}: args encoded twice", "unstringified", {"cmd": method, "args": dq(dq(params))}, method, params, "unstringified")
    ok(f"{name}: whole call encoded as a string", "unstringified", {"raw": dq(dq(env))}, method, params, "unstringified")
    ok(f"{name}: flattened", "flattened", {"cmd": method, **params}, method, params)
    ok(f"{name}: command for cmd", "command", {"command": method, "args": params}, method, params)
    ok(f"{name}: dashed keys", "dashed", {"cmd": method, "args": {k.replace("_", "-"): v for k, v in params.items()}}, method, params)
    ok(f"{name}: camelCased keys", "camel", {"cmd": method, "args": {camel(k): v for k, v in params.items()}}, method, params)
    if simple:
        ok(f"{name}: smart quotes", "smart_quotes", {"raw": smart(env)}, method, params, "smart_quotes")
    line = cli(method, params)
    if line:
        ok(f"{name}: CLI style in cmd", "cli", {"cmd": line}, method, params)
        ok(f"{name}: CLI style raw", "cli", {"raw": line}, method, params)
        ok(f"{name}: CLI-style args string", "cli", {"cmd": method, "args": line.split(" ", 1)[1]}, method, params)
        ok(f"{name}: argv", "argv", {"argv": argv(method, params)}, method, params)
    # Cuts. Only the closing brackets lost: closed for reads, refused for writes (keys may be lost).
    text = dq(env)
    closers = len(text) - len(text.rstrip("}"))
    for n in range(1, closers + 1):
        cut = text[:-n]
        if cut[-1].isdigit():
            refused(f"{name}: cut before {n} closers, after a number", "truncated_number", {"raw": cut}, "inside a number")
        elif mutates:
            refused(f"{name}: cut before {n} closers", "truncated_closers", {"raw": cut}, "cut before its end")
        else:
            ok(f"{name}: cut before {n} closers", "truncated_closers", {"raw": cut}, method, params, "closed_truncated")
    # Inside each string value: refused with the pointer of the value.
    for key, v in params.items():
        if isinstance(v, str) and len(v) >= 4:
            marker = dq(key) + ":" + dq(v)
            at = text.index(marker) + len(dq(key)) + 1 + len(dq(v)) // 2
            refused(f"{name}: cut inside /args/{key}", "truncated_string", {"raw": text[:at]}, f"truncated at /args/{key}")
        if isinstance(v, int) and not isinstance(v, bool) and v >= 10:
            marker = dq(key) + ":" + dq(v)
            at = text.index(marker) + len(dq(key)) + 2
            refused(f"{name}: cut inside the number /args/{key}", "truncated_number", {"raw": text[:at]}, "inside a number")
    first_key = next(iter(params))
    marker = dq(first_key) + ":"
    refused(f"{name}: cut after a colon", "truncated_colon", {"raw": text[: text.index(marker) + len(marker)]}, "after a `:`")
    refused(f"{name}: cut after a comma", "truncated_comma", {"raw": text[: text.index(dq("args"))]}, "after a `,`")
    other = {"cmd": "read", "args": {"file": "other.go"}} if method != "read" else {"cmd": "tree", "args": {}}
    refused(f"{name}: two different calls", "two_values", {"raw": dq(env) + " " + dq(other)}, "two different JSON values")

# Plain values wrapped into the default field; CLI-looking strings are not wrapped.
for method, field, value in [("read", "file", "main.go"), ("read", "file", "docs/a b.md"), ("search", "pattern", "TODO"),
                             ("tree", "dir", "./internal"), ("rollback", "file", "main.go"), ("clean", "dir", "."),
                             ("multipatch", None, "a.go")]:
    inp = {"cmd": method, "args": value}
    if field:
        ok(f"{method}: bare value", "wrapped_plain", inp, method, {field: value}, "wrapped_plain")
        ok(f"{method}: bare value raw", "wrapped_plain", {"raw": dq(inp)}, method, {field: value}, "wrapped_plain")
    else:
        refused(f"{method}: bare value without a default field", "wrapped_plain", inp, "has no default field")
ok("read: positional word", "cli", {"cmd": "read main.go --start 3"}, "read", {"file": "main.go", "start": 3})
ok("read: CLI args are not a bare value", "cli", {"cmd": "read", "args": "--file main.go --head 5"}, "read", {"file": "main.go", "head": 5})

# Object literals: taken for reads (with what was guessed), refused for writes.
for name, method, params, mutates in INTENDED:
    if any(isinstance(v, (list, dict)) for v in params.values()):
        continue
    raw = literal({"cmd": method, "args": params})
    if mutates:
        refused(f"{name}: object literal", "object_literal", {"raw": raw}, "refused for a subcommand that changes files")
    else:
        ok(f"{name}: object literal", "object_literal", {"raw": raw}, method, params, "object_literal")
refused("object literal with a part that has no colon", "object_literal", {"raw": "{cmd: read, args: {file: a, b}}"}, "not JSON")

# Traps.
T = [
    ("comma and brace inside a string, trailing comma outside", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"x,}",},}'},
     "write", {"file": "a.txt", "content": "x,}"}, "trailing_commas"),
    ("brackets inside a string", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"a[1,]}",}}'},
     "write", {"file": "a.txt", "content": "a[1,]}"}, "trailing_commas"),
    ("apostrophe inside a single-quoted value", {"raw": "{'cmd':'write','args':{'file':'a.txt','content':'it's here'}}"},
     "write", {"file": "a.txt", "content": "it's here"}, "single_quotes"),
    ("double quotes inside a single-quoted value", {"raw": "{'cmd':'write','args':{'file':'a.txt','content':'say \"hi\"'}}"},
     "write", {"file": "a.txt", "content": 'say "hi"'}, "single_quotes"),
    ("escaped apostrophe", {"raw": "{'cmd':'write','args':{'file':'a.txt','content':'don\\'t, ok'}}"},
     "write", {"file": "a.txt", "content": "don't, ok"}, "single_quotes"),
    ("single quotes inside a double-quoted value", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"it\'s \'q\'",}}'},
     "write", {"file": "a.txt", "content": "it's 'q'"}, "trailing_commas"),
    ("windows path", {"raw": '{"cmd":"read","args":{"file":"C:\\Users\\me\\main.go"}}'},
     "read", {"file": "C:\\Users\\me\\main.go"}, "windows_paths"),
    ("windows path with a valid-looking escape", {"raw": '{"cmd":"read","args":{"file":"C:\\new\\dir\\x.go"}}'},
     "read", {"file": "C:\\new\\dir\\x.go"}, "windows_paths"),
    ("windows path beside a real newline escape", {"raw": '{"cmd":"write","args":{"file":"D:\\data\\a.txt","content":"one\\ntwo"}}'},
     "write", {"file": "D:\\data\\a.txt", "content": "one\ntwo"}, "windows_paths"),
    ("windows path in single quotes", {"raw": "{'cmd':'read','args':{'file':'C:\\\\src\\\\m.go'}}"},
     "read", {"file": "C:\\src\\m.go"}, "single_quotes"),
    ("raw newline inside a string", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"one\ntwo"}}'},
     "write", {"file": "a.txt", "content": "one\ntwo"}, "raw_control_chars"),
    ("raw tab inside a string", {"raw": '{"cmd":"write","args":{"file":"a.go","content":"\tx := 1"}}'},
     "write", {"file": "a.go", "content": "\tx := 1"}, "raw_control_chars"),
    ("python booleans", {"raw": '{"cmd":"write","args":{"file":"n.txt","content":"x","append":True}}'},
     "write", {"file": "n.txt", "content": "x", "append": True}, "python_literals"),
    ("python literal words inside strings stay", {"raw": "{'cmd':'write','args':{'file':'n.txt','content':'True or None','append':False}}"},
     "write", {"file": "n.txt", "content": "True or None", "append": False}, "python_literals"),
    ("smart quotes inside a value are content", {"raw": '{"cmd":"write","args":{"file":"a.md","content":"say “hi”",}}'},
     "write", {"file": "a.md", "content": "say “hi”"}, "trailing_commas"),
    ("smart quote delimiters with an ASCII quote inside", {"raw": '{“cmd”: “write”, “args”: {“file”: “a.txt”, “content”: “a \\"b\\" c”}}'},
     "write", {"file": "a.txt", "content": 'a "b" c'}, "smart_quotes"),
    ("fence without a language", {"raw": '```\n{"cmd":"read","args":{"file":"main.go"}}\n```'},
     "read", {"file": "main.go"}, "code_fence"),
    ("fence and trailing commas", {"raw": '```json\n{"cmd":"read","args":{"file":"main.go",},}\n```'},
     "read", {"file": "main.go"}, "code_fence"),
    ("prose with braces after the call", {"raw": '{"cmd":"read","args":{"file":"main.go"}} then {maybe} more'},
     "read", {"file": "main.go"}, "trailing_prose"),
    ("unquoted dashed keys", {"raw": '{cmd: "read", args: {file: "a.bin", max-bytes: 10}}'},
     "read", {"file": "a.bin", "max_bytes": 10}, "unquoted_keys"),
    ("alias keys resolved", {"cmd": "read", "args": {"path": "main.go", "from_line": 3, "to_line": 4}},
     "read", {"file": "main.go", "start": 3, "end": 4}, None),
    ("atomic-tool aliases on search", {"cmd": "search", "args": {"query": "x", "include": "*.rs", "maxResults": 5}},
     "search", {"pattern": "x", "glob": "*.rs", "max_results": 5}, None),
    ("args overrides flattened", {"cmd": "read", "file": "a.go", "args": {"file": "b.go"}},
     "read", {"file": "b.go"}, None),
    ("exec-style quotes in CLI", {"cmd": 'patch --file m.go --search "say \\"hi\\"" --replace \'x\''},
     "patch", {"file": "m.go", "search": 'say "hi"', "replace": "x"}, None),
    ("newline inside quotes in CLI", {"cmd": 'write --file a.txt --content "one\ntwo"'},
     "write", {"file": "a.txt", "content": "one\ntwo"}, None),
    ("diff on one line in CLI", {"cmd": 'patch --diff "--- a/m.go\\n+++ b/m.go\\n@@ -1 +1 @@\\n-a\\n+b"'},
     "patch", {"diff": "--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n-a\n+b"}, "escaped_newlines"),
    ("flag=value in CLI", {"cmd": "read --file=main.go --head=2"}, "read", {"file": "main.go", "head": 2}, None),
    ("single-dash flags in CLI", {"cmd": "read -file main.go -tail 4"}, "read", {"file": "main.go", "tail": 4}, None),
    ("boolean flag before another flag", {"cmd": "write --append --file n.txt --content x"},
     "write", {"append": True, "file": "n.txt", "content": "x"}, None),
    ("boolean flag with an explicit false", {"cmd": "write --file n.txt --content x --append false"},
     "write", {"file": "n.txt", "content": "x", "append": False}, None),
    ("JSON array flag in CLI", {"cmd": 'multipatch --edits \'[{"file":"a","search":"b","replace":"c"}]\''},
     "multipatch", {"edits": [{"file": "a", "search": "b", "replace": "c"}]}, None),
    ("JSON array flag with single quotes inside", {"cmd": "multipatch --edits \"[{'file':'a','search':'b','replace':'c'}]\""},
     "multipatch", {"edits": [{"file": "a", "search": "b", "replace": "c"}]}, "single_quotes"),
    ("at-sign on the subcommand", {"cmd": "@read", "args": {"file": "main.go"}}, "read", {"file": "main.go"}, None),
    ("args null", {"cmd": "clean", "args": None}, "clean", {}, None),
    ("empty args string", {"cmd": "clean", "args": ""}, "clean", {}, None),
    ("atomic @read flat", {"tool": "@read", "file": "main.go", "from_line": 2}, "read", {"file": "main.go", "start": 2, "max_bytes": 80000}, None),
    ("atomic @read raw with aliases", {"tool": "@read", "raw": "{'filepath': 'main.go', 'start': 1, 'max_bytes': 999999}"},
     "read", {"file": "main.go", "start": 1, "max_bytes": 80000}, "single_quotes"),
    ("atomic @search aliases", {"tool": "@search", "raw": '{"term": "Login", "dir": "./src", "include": "*.go"}'},
     "search", {"pattern": "Login", "dir": "./src", "glob": "*.go"}, None),
    ("atomic @todo write", {"tool": "@todo", "raw": '{"cmd":"write","args":{"todos":[{"description":"Investigate bug","status":"completed"},{"description":"Apply fix","status":"in_progress"}]}}'},
     "todo", {"write": True, "todos": [{"description": "Investigate bug", "status": "completed"}, {"description": "Apply fix", "status": "in_progress"}]}, None),
    ("atomic @todo mark", {"tool": "@todo", "raw": "{'cmd':'mark','args':{'id':2,'status':'completed'}}"},
     "todo", {"mark": True, "id": 2, "status": "completed"}, "single_quotes"),
    ("atomic @todo list", {"tool": "@todo", "raw": '{"cmd":"list"}'}, "todo", {"list": True}, None),
    ("atomic @tree aliases", {"tool": "@tree", "raw": '{"path": "./src", "maxDepth": 3, "skip": "node_modules"}'},
     "tree", {"dir": "./src", "depth": 3, "exclude": "node_modules"}, None),
]
for name, inp, method, params, strategy in T:
    ok(name, "trap", inp, method, params, strategy)

R = [
    ("unbalanced quote in CLI", {"cmd": 'write --file a.txt --content "abc'}, "unbalanced \" in the CLI-style args"),
    ("lone backslash at the end of CLI", {"cmd": "read --file a\\"}, "lone backslash"),
    ("missing cmd", {"args": {"file": "main.go"}}, "missing `cmd`"),
    ("empty raw", {"raw": ""}, "missing `cmd`"),
    ("unknown subcommand with a suggestion", {"cmd": "raed", "args": {"file": "a"}}, "did you mean `read`?"),
    ("cmd not a string", {"cmd": 5}, "`cmd` is 5, not a string"),
    ("argv with a number", {"argv": ["read", 5]}, "not a string"),
    ("flag without a value", {"cmd": "read --file"}, "flag `--file` has no value"),
    ("integer flag with a word", {"cmd": "read --file a --start ten"}, "`--start` expects"),
    ("two words for one default field", {"cmd": "read a.go b.go"}, "unexpected word `b.go`"),
    ("file and its alias both given", {"cmd": "read", "args": {"file": "a", "path": "b"}}, "both mean `file`"),
    ("cut inside a key", {"raw": '{"cmd":"read","args":{"fi'}, "truncated at /args"),
    ("cut inside a single-quoted value", {"raw": "{'cmd':'write','args':{'file':'a.txt','content':'hello wor"}, "not JSON"),
    ("cut inside an escaped string", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"say \\"hi'}, "truncated at /args/content"),
    ("cut after a key", {"raw": '{"cmd":"write","args":{"file":"a.txt","content"'}, "after a key"),
    ("cut inside a literal", {"raw": '{"cmd":"write","args":{"file":"a.txt","content":"x","append":tr'}, "inside a number or literal"),
    ("cut inside an array element", {"raw": '{"cmd":"multipatch","args":{"edits":[{"file":"a","search":"b","replace":"c'}, "truncated at /args/edits/0/replace"),
    ("cut in the second array element", {"raw": '{"cmd":"multipatch","args":{"edits":[{"file":"a","search":"b","replace":"c"},{"file":"d","sea'}, "truncated at /args/edits/1"),
    ("cut multipatch between elements", {"raw": '{"cmd":"multipatch","args":{"edits":[{"file":"a","search":"b","replace":"c"}'}, "cut before its end"),
    ("args decoding to a number", {"cmd": "read", "args": "[1]"}, "not an object"),
    ("raw that is a number", {"raw": "42"}, "not an object"),
    ("a call inside the call", {"cmd": "tool", "args": {"cmd": "read"}}, "`tool` cannot call itself"),
]
for name, inp, contains in R:
    refused(name, "refusal", inp, contains)

out = root / "tests/agent/malformed.json"
out.write_text(json.dumps({"generated_by": "scripts/gen-agent-corpus.py", "cases": cases}, indent=1, ensure_ascii=False) + "\n")
n_ok = sum("expect" in c for c in cases)
print(f"{len(cases)} cases ({n_ok} with an exact call, {len(cases) - n_ok} refusals) -> {out}")

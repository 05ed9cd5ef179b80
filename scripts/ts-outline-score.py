#!/usr/bin/env python3
"""coderd's TypeScript outline over a whole tree scored against the TypeScript compiler's
(tests/crosscheck/ts_outline.js, the item notion of docs/structure.md), as (file, name, line).

    scripts/ts-outline-score.py DIR [--diff]      # every .ts file under DIR but .d.ts

`coder` (from $CODER, else the PATH) answers through the daemon of DIR, started when none is;
node needs the `typescript` package (scripts/install-language-servers.sh). The numbers for hono's
`src/` are in docs/benchmarks.md."""
import json
import os
import subprocess
import sys

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "crosscheck", "ts_outline.js")


def key(path, name, line):
    return (path, "".join(name.split()), line)


def main():
    root = os.path.abspath(sys.argv[1])
    coder = os.environ.get("CODER", "coder")
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                   if f.endswith(".ts") and not f.endswith(".d.ts"))
    ours = set()
    for path in files:
        out = subprocess.run([coder, "--root", root, "outline", path, "--json"],
                             capture_output=True, text=True, check=True).stdout
        ours.update(key(path, i["name"], i["line"]) for i in json.loads(out)["items"])
    theirs = set()
    for start in range(0, len(files), 50):
        out = subprocess.run(["node", ORACLE] + files[start:start + 50],
                             capture_output=True, text=True, check=True).stdout
        for row in map(json.loads, out.splitlines()):
            if row[1] != "lines":
                theirs.add(key(row[0], row[2], row[3]))
    matched = len(ours & theirs)
    print(f"{len(files)} files: coderd {len(ours)} items, the compiler's {len(theirs)}, matched {matched}: "
          f"precision {matched / max(1, len(ours)):.4f}, recall {matched / max(1, len(theirs)):.4f}")
    if "--diff" in sys.argv:
        for k in sorted(ours - theirs):
            print("only coderd:", k)
        for k in sorted(theirs - ours):
            print("only the compiler:", k)


if __name__ == "__main__":
    main()

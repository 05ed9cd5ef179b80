#!/usr/bin/env python3
"""Writes a deterministic code-like corpus for the search benchmark.

    gen-corpus.py OUT_DIR [FILES]        (FILES defaults to 20000)

Layout: OUT_DIR/pkgNN/modNN/<name>.<ext>, 1-4 KiB each, plus the cases where coderd and rg
must agree on what is searched: a hidden folder (searched by both with --hidden), a .gitignore'd
folder (skipped by both), and a NUL-bearing file (treated as binary by both).

Planted tokens, so match counts are known in advance:
  NEEDLE_A "zqxj_needle_4471": in 6 visible files and the hidden file; also in the ignored folder.
  NEEDLE_B "zqxj_needle_9052": in 2 visible files (so the regex zqxj_needle_[0-9]{4} finds 9 lines).
Nothing is named like a default-excluded folder (target, dist, node_modules, ...) or a
non-accessible file (.env, *.pem, *.key, secrets/): those would make the file sets differ.
"""

import os
import random
import sys

NEEDLE_A = "zqxj_needle_4471"
NEEDLE_B = "zqxj_needle_9052"

WORDS = (
    "alpha beta gamma delta buffer cursor parser token stream reader writer index config "
    "request response handler budget window offset length count value result error status "
    "client server socket frame line column path folder entry walker search match limit "
    "cache queue batch chunk header footer record field schema table column key map list"
).split()
TYPES = ["u8", "u32", "u64", "usize", "i64", "bool", "String", "Vec<u8>", "Option<usize>"]
EXTS = [".rs", ".py", ".ts", ".go", ".md", ".txt", ".toml", ".c"]


def ident(rng):
    return "_".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))


def make_line_pool(rng, size=6000):
    """Varied code and prose lines; files draw from this pool so generation stays fast."""
    shapes = [
        lambda: f"fn {ident(rng)}({ident(rng)}: {rng.choice(TYPES)}) -> {rng.choice(TYPES)} {{",
        lambda: f"    let {ident(rng)} = {ident(rng)}.{ident(rng)}({rng.randint(0, 9999)});",
        lambda: f"    if {ident(rng)} > {rng.randint(0, 512)} {{ return {ident(rng)}; }}",
        lambda: f"def {ident(rng)}(self, {ident(rng)}={rng.randint(0, 99)}):",
        lambda: f"        return self.{ident(rng)}[{rng.randint(0, 64)}:{rng.randint(64, 128)}]",
        lambda: f"// {' '.join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))}",
        lambda: f"# {' '.join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))}",
        lambda: f"const {ident(rng).upper()}: {rng.choice(TYPES)} = {rng.randint(0, 1 << 20)};",
        lambda: f"{ident(rng)} = \"{' '.join(rng.choice(WORDS) for _ in range(3))}\"",
        lambda: "}",
        lambda: "",
    ]
    return [rng.choice(shapes)() for _ in range(size)]


def body(rng, pool, target_bytes):
    lines, size = [], 0
    while size < target_bytes:
        line = rng.choice(pool)
        lines.append(line)
        size += len(line) + 1
    return lines


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 20000
    rng = random.Random(20000)
    pool = make_line_pool(rng)

    per_mod = 100
    mods_per_pkg = 10
    paths = []
    for i in range(total):
        pkg, rest = divmod(i, per_mod * mods_per_pkg)
        mod, n = divmod(rest, per_mod)
        name = f"{ident(rng)}_{n:03d}{rng.choice(EXTS)}"
        paths.append(os.path.join(out, f"pkg{pkg:02d}", f"mod{mod:02d}", name))

    # Spread over the tree so an early quit in either tool cannot find them all at once.
    plant_a = set(rng.sample(range(total), 6))
    plant_b = set(rng.sample(sorted(set(range(total)) - plant_a), 2))
    for i, path in enumerate(paths):
        lines = body(rng, pool, rng.randint(1024, 4096))
        if i in plant_a or i in plant_b:
            needle = NEEDLE_A if i in plant_a else NEEDLE_B
            lines.insert(rng.randrange(len(lines)), f"    let marker = \"{needle}\";")
        write(path, lines)

    write(os.path.join(out, ".gitignore"), ["ignored/"])
    write(os.path.join(out, ".hidden", "settings.toml"), [f'marker = "{NEEDLE_A}"'])
    write(os.path.join(out, "ignored", "trace.txt"), [f"{NEEDLE_A} must not be found"])
    with open(os.path.join(out, "pkg00", "blob.bin"), "wb") as f:
        f.write(b"\x00\x01binary " + NEEDLE_A.encode() + b"\x00" * 64)


if __name__ == "__main__":
    main()

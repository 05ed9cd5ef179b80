"""The reference outline of C and C++ files, from clang's AST (`clang -Xclang -ast-dump=json`).

Usage: clang_outline.py c|c++ [-I DIR]... FILE...  Prints one JSON list per definition:
[path, kind, name, line], under coderd's notion of an item: declarations outside function bodies
(functions and prototypes, structs, unions, classes, enums and their constants, typedefs and
aliases, fields, file- and namespace-scope variables, namespaces, methods in the class and out of
line), placed on the line of the name; and macros (`#define`), from the preprocessor (`clang -E
-dD`). Not here: what a macro expands to (a declaration whose name comes from a macro).
Declarations of included files and implicit ones (the compiler's own) are left out; errors inside
function bodies (a header of another version) are tolerated, as the declarations still parse.

The compiler sees one configuration: code in an `#if` branch not taken is no part of it. The
lines it does see are printed as `[path, "lines", FROM, TO]` (the ranges of the file the
preprocessor's output covers), so that what only the other branches hold is compared with nothing.

The JSON dump names a location's file and line only when they change from the location printed
before it, so every location is read in the order it is printed, bodies included.
"""
import json
import subprocess
import sys

SCOPES = {"TranslationUnitDecl", "NamespaceDecl", "LinkageSpecDecl", "ExportDecl"}
TEMPLATES = {"FunctionTemplateDecl", "ClassTemplateDecl", "ClassTemplatePartialSpecializationDecl"}
RECORDS = {"RecordDecl", "CXXRecordDecl", "ClassTemplateSpecializationDecl"}
FUNCTIONS = {
    "FunctionDecl",
    "CXXMethodDecl",
    "CXXConstructorDecl",
    "CXXDestructorDecl",
    "CXXConversionDecl",
}
NAMED = {
    "VarDecl": "var",
    "FieldDecl": "field",
    "TypedefDecl": "type",
    "TypeAliasDecl": "type",
    "EnumConstantDecl": "const",
}


class Locations:
    """The file and line of the last location printed."""

    def __init__(self):
        self.file, self.line = None, None

    def read(self, loc):
        """Reads one location object (bare, or with spelling/expansion parts) and returns the bare
        (file, line, from_macro) of its name."""
        if not isinstance(loc, dict):
            return None
        if "spellingLoc" in loc or "expansionLoc" in loc:
            for part in ("spellingLoc", "expansionLoc"):
                self.read(loc.get(part))
            return (self.file, self.line, True)
        if "file" in loc:
            self.file = loc["file"]
        if "line" in loc:
            self.line = loc["line"]
        return (self.file, self.line, False)


def walk(node, target, at, out, emit):
    kind = node.get("kind", "")
    name_at = at.read(node.get("loc"))
    rng = node.get("range") or {}
    at.read(rng.get("begin"))
    at.read(rng.get("end"))
    here = name_at is not None and name_at[0] == target and not name_at[2]
    visible = emit and here and not node.get("isImplicit") and node.get("name")
    item = None
    if kind in FUNCTIONS:
        item = "function"
    elif kind in RECORDS and node.get("completeDefinition"):
        item = "class"
    elif kind == "EnumDecl" and node.get("name"):
        item = "enum"
    elif kind == "NamespaceDecl":
        item = "module"
    elif kind in NAMED:
        item = NAMED[kind]
    if visible and item:
        out.add((item, node["name"], name_at[1]))
    # What a function holds is local; the implicit members of a class are the compiler's. Their
    # locations are still read, in order.
    inner_emit = emit and kind not in FUNCTIONS and not node.get("isImplicit")
    for child in node.get("inner", []):
        walk(child, target, at, out, inner_emit)


def preprocessed(path, command):
    """The ranges of the file's lines in the preprocessor's output, and its macros (name, line)."""
    text = subprocess.run(command, capture_output=True, check=False).stdout.decode(errors="replace")
    ranges, macros = [], []
    current, line = None, 0
    for row in text.split("\n"):
        if row.startswith("# ") and row[2:3].isdigit():
            parts = row.split(" ")
            current, line = parts[2].strip('"'), int(parts[1])
            continue
        if current == path:
            if ranges and ranges[-1][1] == line - 1:
                ranges[-1][1] = line
            else:
                ranges.append([line, line])
            if row.startswith("#define "):
                name = row[len("#define "):].split("(")[0].split(" ")[0]
                macros.append((name, line))
        line += 1
    return ranges, macros


def main():
    language, args = sys.argv[1], sys.argv[2:]
    includes, files = [], []
    while args:
        if args[0] == "-I":
            includes += ["-I", args[1]]
            args = args[2:]
        else:
            files.append(args[0])
            args = args[1:]
    flags = ["-x", "c++", "-std=c++17"] if language == "c++" else ["-x", "c", "-std=gnu11"]
    for path in files:
        clang = ["clang", "-w", "-ferror-limit=0", *flags, *includes]
        ranges, macros = preprocessed(path, [*clang, "-E", "-dD", path])
        for first, last in ranges:
            print(json.dumps([path, "lines", first, last]))
        dump = subprocess.run(
            [*clang, "-fsyntax-only", "-Xclang", "-ast-dump=json", path],
            capture_output=True,
            check=False,
        )
        out = {("macro", name, line) for name, line in macros}
        walk(json.loads(dump.stdout), path, Locations(), out, True)
        for kind, name, line in sorted(out, key=lambda r: (r[2], r[1])):
            print(json.dumps([path, kind, name, line]))


if __name__ == "__main__":
    main()

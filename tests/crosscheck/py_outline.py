"""The reference outline of Python files, from the standard library's `ast`.

Prints one JSON list per definition: [path, kind, name, line]. The rules match coderd's outline:
definitions anywhere except inside function bodies; functions in classes are methods; assignments to
plain names are variables (fields in classes).
"""
import ast
import json
import sys


def walk(path, body, in_class, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append([path, "method" if in_class else "function", node.name, node.lineno])
        elif isinstance(node, ast.ClassDef):
            out.append([path, "class", node.name, node.lineno])
            walk(path, node.body, True, out)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out.append([path, "field" if in_class else "var", target.id, node.lineno])
        else:
            for field in ("body", "orelse", "finalbody"):
                walk(path, getattr(node, field, []) or [], in_class, out)
            for handler in getattr(node, "handlers", []) or []:
                walk(path, handler.body, in_class, out)
            for case in getattr(node, "cases", []) or []:
                walk(path, case.body, in_class, out)


def main():
    out = []
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), path)
        except (SyntaxError, ValueError):
            print(json.dumps(["skip", path]))
            continue
        walk(path, tree.body, False, out)
    for row in out:
        print(json.dumps(row))


main()

#!/usr/bin/env python3
"""Prints the folders a cone-mode sparse checkout needs to hold every file of HEAD whose blob the
clone has, leaving out each folder that holds a missing one (a mirror may lack a few large blobs of
test data, and a checkout that meets one fails):

    git sparse-checkout set --cone $(scripts/sparse-without-missing.py CLONE)

Prints nothing when no blob is missing.
"""
import subprocess
import sys

clone = sys.argv[1]
listing = subprocess.run(["git", "-C", clone, "ls-tree", "-r", "HEAD"], capture_output=True, text=True,
                         check=True).stdout
blobs = [line.split("\t", 1) for line in listing.splitlines()]
query = "".join(meta.split()[2] + "\n" for meta, _ in blobs)
answers = subprocess.run(["git", "-C", clone, "cat-file", "--batch-check"], input=query, capture_output=True,
                         text=True, check=True).stdout.splitlines()
left_out = {path.rsplit("/", 1)[0] if "/" in path else "" for (_, path), answer in zip(blobs, answers)
            if answer.endswith(" missing")}
if not left_out:
    sys.exit(0)
if "" in left_out:
    sys.exit("a blob at the top of the tree is missing: no cone leaves it out")
folders = {path.rsplit("/", 1)[0] for _, path in blobs if "/" in path}
every = {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 2)}


def above(folder):
    """Whether a left-out folder lies below `folder`."""
    return any(out.startswith(folder + "/") for out in left_out)


def cone(parent):
    """The folders to list under `parent` ("" for the top): each child whole, unless it is left
    out, or holds a left-out folder (then its own children, and its files come with the cone)."""
    prefix = parent + "/" if parent else ""
    children = sorted(f for f in every if f.startswith(prefix) and "/" not in f[len(prefix):])
    for child in children:
        if child in left_out:
            continue
        if above(child):
            yield from cone(child)
        else:
            yield child


print("\n".join(cone("")))

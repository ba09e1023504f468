#!/usr/bin/env python3
"""Print the strongly connected components of the import graph between the
top-level modules of each crate in the workspace; exit 1 if any has more than
one module (a cycle).

A crate is a folder with a Cargo.toml and a src/ folder (not under vendor/,
which holds patched third-party crates). Its top-level modules
are the files and folders directly under src/ (lib.rs and main.rs excluded).
An edge A -> B is a `crate::B` path in A's code (use lines, inline paths and
attribute strings alike; comments, doc links included, are not imports);
`super::` inside a top-level module stays inside it.

Usage: scripts/module_cycles.py [ROOT]   (default: the repository root)
"""
import os
import re
import sys

CRATE_PATH = re.compile(r"\bcrate::(\w+)")
LINE_COMMENT = re.compile(r"//.*")
USE_GROUP = re.compile(r"\buse\s+crate::\{([^;]*)\}", re.S)


def modules(src):
    names = {}
    for entry in sorted(os.listdir(src)):
        path = os.path.join(src, entry)
        if entry in ("lib.rs", "main.rs", "bin"):
            continue
        if entry.endswith(".rs"):
            names.setdefault(entry[:-3], []).append(path)
        elif os.path.isdir(path):
            names.setdefault(entry, []).append(path)
    return names


def files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
        else:
            for root, _, entries in os.walk(path):
                for entry in entries:
                    if entry.endswith(".rs"):
                        yield os.path.join(root, entry)


def group_heads(group):
    """The first path segment of each item of a `use crate::{...}` group:
    `a::X, b::{c, D}` gives a and b (not c, a module of b)."""
    heads, depth, item = [], 0, ""
    for char in group + ",":
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            head = re.match(r"\s*(\w+)", item)
            if head:
                heads.append(head.group(1))
            item = ""
        else:
            item += char
    return heads


def edges(names):
    graph = {name: set() for name in names}
    for name, paths in names.items():
        for path in files(paths):
            text = LINE_COMMENT.sub("", open(path, encoding="utf-8").read())
            targets = set(CRATE_PATH.findall(text))
            for group in USE_GROUP.findall(text):
                targets.update(group_heads(group))
            for target in targets:
                if target in names and target != name:
                    graph[name].add(target)
    return graph


def components(graph):
    """Tarjan's algorithm, iterative."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


def crates(root):
    for dirpath, dirnames, filenames in os.walk(root):
        # vendor/ holds third-party crates patched in (vendor/*/PATCHES.md):
        # their layering is theirs, not this repository's.
        dirnames[:] = [d for d in dirnames if d not in ("target", ".git", "node_modules", ".venv", "fuzz", "vendor")]
        if "Cargo.toml" in filenames and os.path.isdir(os.path.join(dirpath, "src")):
            yield dirpath


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    cycles = 0
    for crate in sorted(crates(os.path.abspath(root))):
        graph = edges(modules(os.path.join(crate, "src")))
        name = os.path.relpath(crate, os.path.abspath(root))
        found = [c for c in components(graph) if len(c) > 1]
        print(f"{name}: {len(graph)} top-level modules, {len(found)} cycle(s)")
        for component in found:
            cycles += 1
            print(f"  cycle of {len(component)}: {', '.join(component)}")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

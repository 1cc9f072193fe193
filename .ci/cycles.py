#!/usr/bin/env python3
"""Prints the import cycles between the modules of each crate, and fails if there is any.

A module is a source file (`routes/ui/sparql.rs` is `routes::ui::sparql`, `facets/mod.rs` is
`facets`). An edge A -> B means a path in A's code names B: `use crate::b::…`, `crate::b::…`,
`super::…`, `self::…` and child-module paths, resolved to the deepest module that exists
(through `pub use` re-exports). Edges between a module and its own ancestors or descendants
do not count: seen from outside, a folder module and its files are one unit (its `mod.rs`
routes to its files, which use its helpers). Cycles are the strongly connected components
with more than one module; `cargo` rejects none of them, but each is a knot a reader cannot
untie, because no module of it can be read before the others.

Usage: .ci/cycles.py [crate-src-dir …]   (default: every workspace crate's src/)
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")
CHILD = re.compile(r"(?<![:\w])([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)::\{([^;]*)\};", re.S)


def modules(src):
    """Maps module paths (tuples) to files."""
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            found[tuple(rel)] = path
    return found


def strip(text):
    """The code without comments and string literals (which may mention `crate::`)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def reexports(mods):
    """For each module, the names it re-exports (`pub use path::{A, B}`) and the path each
    comes from, so that `crate::A` leads to where `A` lives, not to the crate root."""
    found = {m: {} for m in mods}
    for module, path in mods.items():
        text = strip(open(path, encoding="utf-8").read())
        for head, body in re.findall(r"\bpub(?:\([^)]*\))?\s+use\s+(crate|super|self)::([^;]*);", text):
            body = re.sub(r"\s+", "", body)
            if "{" in body:
                prefix, group = body.split("{", 1)
                items = [prefix + item for item in group.rstrip("}").split(",") if item]
            else:
                items = [body]
            for item in items:
                parts = item.split("::")
                alias = parts[-1].split(" as ")[-1]
                found[module][alias] = (head, parts)
    return found


def resolve(mods, module, is_dir, head, rest, exported=None, depth=0):
    """The deepest existing module a path starting at `head` names (through re-exports)."""
    if head == "crate":
        base = ()
    else:
        # `self` is the module itself; `super` its parent. A `foo.rs` file is module `foo`,
        # whose `super` is the folder it sits in.
        base = module if head == "self" else module[:-1]
    while rest and rest[0] == "super":
        base, rest = base[:-1], rest[1:]
    target = base
    for part in rest:
        if target + (part,) in mods:
            target = target + (part,)
            continue
        if exported and depth < 8 and part in exported.get(target, {}):
            origin, parts = exported[target][part]
            return resolve(mods, target, is_dir, origin, parts, exported, depth + 1)
        break
    return target


def related(a, b):
    """Whether one module is the other or contains it."""
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def edges(mods):
    graph = {m: set() for m in mods}
    exported = reexports(mods)
    for module, path in mods.items():
        text = strip(open(path, encoding="utf-8").read())
        is_dir = path.endswith(("mod.rs", "lib.rs", "main.rs"))
        paths = []
        for head, group in USE_GROUP.findall(text):
            for item in re.split(r"[,{}\s]+", group):
                parts = [p for p in item.split("::") if p]
                if parts:
                    paths.append((head, parts))
        for match in PATH.finditer(text):
            parts = [p for p in match.group(2).split("::") if p and p != "{"]
            paths.append((match.group(1), parts))
        # Paths that start with a child module's name (`use respond::Answer;`,
        # `hash_document::find(…)`) are relative to this module.
        for match in CHILD.finditer(text):
            if module + (match.group(1),) in mods:
                parts = [match.group(1)] + [p for p in match.group(2).split("::") if p]
                paths.append(("self", parts))
        for head, parts in paths:
            target = resolve(mods, module, is_dir, head, parts, exported)
            if target in mods and not related(module, target):
                graph[module].add(target)
    return graph


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def name(module):
    return "::".join(module) or "(crate root)"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    crates = sys.argv[1:] or [
        os.path.join(dirpath, "src")
        for dirpath, _, files in sorted(os.walk(root))
        if "Cargo.toml" in files
        and os.path.isdir(os.path.join(dirpath, "src"))
        and "/vendor/" not in dirpath + "/"
        and "/target" not in dirpath
        and "/fuzz" not in dirpath
        and "/node_modules" not in dirpath
    ]
    failed = False
    for src in crates:
        graph = edges(modules(src))
        found = cycles(graph)
        rel = os.path.relpath(src, root)
        print(f"{rel}: {len(graph)} modules, {sum(map(len, graph.values()))} imports, {len(found)} cycles")
        for component in found:
            failed = True
            members = set(component)
            print(f"  cycle of {len(component)}: " + ", ".join(name(m) for m in component))
            for m in component:
                inside = sorted(name(t) for t in graph[m] if t in members)
                print(f"    {name(m)} -> {', '.join(inside)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

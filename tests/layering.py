#!/usr/bin/env python3
"""The include layering of src/, checked over its #include lines.

A module is a file stem (worker.c and worker.h are the module worker); a
module depends on another when one of its files includes the other's
header.  Two rules:

 1. The lower layers (the deque, the queues, job memory, contexts, the
    platform) never reach the worker's module, directly or through others.
 2. No circle of modules other than the one doc/design.md lists ("Where
    the includes still point up"), and that one does not grow.  Breaking
    it is the open part of the layout work; this keeps it from spreading.

Before checking the tree it checks itself: an edge from the deque to the
worker, and one from the worker to the scopes (a new circle), must each be
rejected.

Usage: tests/layering.py SRC_DIR
"""
import os
import re
import sys

LOWER = {
    "atomics", "block_cache", "context", "copy_arena", "deque", "fifo_queue",
    "injector", "job", "job_cache", "places", "poison", "stats",
}

# The one circle today (doc/design.md, "Where the includes still point up").
KNOWN_CIRCLE = {
    "caller", "demand", "global", "job_fifo", "latch", "pace", "pool", "sleep",
    "spawn", "trace", "trace_write", "tuning", "wait", "worker",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)\.h"', re.M)


def module_graph(src):
    stems = {f.rsplit(".", 1)[0] for f in os.listdir(src) if f.endswith((".c", ".h"))}
    edges = {s: set() for s in stems}
    for f in os.listdir(src):
        if not f.endswith((".c", ".h")):
            continue
        a = f.rsplit(".", 1)[0]
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            for b in INCLUDE.findall(fh.read()):
                if b != a and b in stems:
                    edges[a].add(b)
    return edges


def circles(edges):
    """Strongly connected components of two or more modules (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def reaches(edges, start, goal):
    seen, todo = set(), [start]
    while todo:
        v = todo.pop()
        if v == goal:
            return True
        if v not in seen:
            seen.add(v)
            todo.extend(edges.get(v, ()))
    return False


def problems(edges):
    found = []
    for m in sorted(LOWER & set(edges)):
        if reaches(edges, m, "worker"):
            found.append(f"lower layer {m} reaches the worker's module")
    for c in circles(edges):
        if not c <= KNOWN_CIRCLE:
            found.append("a circle of modules beyond the known one: " + " ".join(sorted(c - KNOWN_CIRCLE)) +
                         " (with " + " ".join(sorted(c & KNOWN_CIRCLE)) + ")")
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    edges = module_graph(sys.argv[1])
    # The check must reject broken trees before it passes this one.
    for name, a, b in (("deque -> worker", "deque", "worker"), ("worker -> scope", "worker", "scope")):
        broken = {k: set(v) for k, v in edges.items()}
        broken[a].add(b)
        if not problems(broken):
            print(f"layering: the self-test edge {name} was not rejected", file=sys.stderr)
            return 1
    found = problems(edges)
    for p in found:
        print("layering: " + p, file=sys.stderr)
    if found:
        return 1
    circle = set().union(set(), *circles(edges))
    print(f"layering: {len(edges)} modules; the lower layers do not reach the worker; "
          f"one known circle of {len(circle)} modules, no other")
    return 0


if __name__ == "__main__":
    sys.exit(main())

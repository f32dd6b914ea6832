#!/usr/bin/env python3
"""The layering of src/, checked over its #include lines against doc/design.md.

src/ has a folder per concept.  doc/design.md draws the layers in the first
code block under "## Layers and files": one line per layer, from the top
down, naming its folders as "name/".  Three rules:

 1. Every folder of src/ is in exactly one layer, and every folder named
    there exists.
 2. A file includes, of src/'s headers, only those of its own folder and of
    folders in lower layers (written "folder/name.h").  So the layers, and
    therefore the folders, make no circle, and nothing below the scheduler
    (the worker's folder) includes the worker's header.
 3. Every source file and protocol document of src/ is named in
    doc/design.md as "folder/file".

Before checking the tree it checks itself: an include from the deque to the
scheduler, one from the scheduler to the scopes, one between two folders of
the same layer and a file the design page does not name must each be
rejected.

A folder outside src/ that builds on it (omp/, libspool-omp) is given
after the design page: it is one more folder of the drawing, under the
same three rules (it includes src/'s headers as "folder/name.h"), and a
planted include of it from src/ must be rejected too.

Usage: tests/layering.py SRC_DIR DESIGN_MD [FOLDER...]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FOLDER = re.compile(r"(?<![\w/.])([a-z_]+)/(?=\s|$|\))")


def layers(design):
    """The folders of each layer, bottom first, from design.md's drawing."""
    text = design.split("## Layers and files", 1)
    if len(text) != 2:
        return None
    block = re.search(r"```\n(.*?)```", text[1], re.S)
    if block is None:
        return None
    out = []
    for line in block.group(1).splitlines():
        names = FOLDER.findall(line)
        if names:
            out.append(names)
    return out[::-1]


def folder_files(path):
    """{file: [included paths]} of one folder's sources and documents"""
    files = {}
    for f in sorted(os.listdir(path)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(path, f), encoding="utf-8") as fh:
                files[f] = INCLUDE.findall(fh.read())
        elif f.endswith(".md"):
            files[f] = []
    return files


def tree(src):
    """{folder: {file: [included src paths]}}"""
    return {d: folder_files(os.path.join(src, d)) for d in sorted(os.listdir(src))
            if os.path.isdir(os.path.join(src, d))}


def problems(folders, rank_list, design):
    found = []
    rank = {}
    for i, names in enumerate(rank_list):
        for n in names:
            if n in rank:
                found.append(f"design.md: folder {n}/ is in two layers")
            rank[n] = i
    for d in folders:
        if d not in rank:
            found.append(f"{d}/ is in no layer of doc/design.md")
    for d in rank:
        if d not in folders:
            found.append(f"design.md: layer folder {d}/ is not in src/")
    for d, files in folders.items():
        for f, includes in files.items():
            if f"{d}/{f}" not in design:
                found.append(f"{d}/{f} is not named in doc/design.md")
            for inc in includes:
                parts = inc.split("/")
                if len(parts) == 1:
                    if any(inc in other for other in folders.values()) and inc not in files:
                        found.append(f"{d}/{f} includes {inc} without its folder")
                    continue
                to = parts[0]
                if to == d or to not in folders:
                    continue
                if to in rank and d in rank and rank[to] >= rank[d]:
                    where = "the same layer" if rank[to] == rank[d] else "a higher layer"
                    found.append(f"{d}/{f} includes {inc}, of {where}")
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    folders = tree(sys.argv[1])
    extra = [os.path.basename(os.path.normpath(d)) for d in sys.argv[3:]]
    for d, name in zip(sys.argv[3:], extra):
        folders[name] = folder_files(d)
    with open(sys.argv[2], encoding="utf-8") as fh:
        design = fh.read()
    rank_list = layers(design)
    if not rank_list:
        print("layering: no layer drawing under '## Layers and files' in doc/design.md",
              file=sys.stderr)
        return 1
    # The check must reject broken trees before it passes this one.
    same = next((names for names in rank_list if len(names) > 1), None)
    planted = [("deque -> scheduler", "deque", "scheduler/worker.h"),
               ("scheduler -> scope", "scheduler", "scope/scope.h")]
    if same is not None:
        planted.append((f"{same[0]} -> {same[1]}", same[0], f"{same[1]}/x.h"))
    for name in extra:
        planted.append((f"scope -> {name}", "scope", f"{name}/{sorted(folders[name])[0]}"))
    for name, a, inc in planted:
        broken = {k: {f: list(i) for f, i in v.items()} for k, v in folders.items()}
        if a not in broken or not broken[a]:
            print(f"layering: no folder {a}/ to plant {name} in", file=sys.stderr)
            return 1
        first = sorted(broken[a])[0]
        broken[a][first].append(inc)
        if not problems(broken, rank_list, design):
            print(f"layering: the self-test include {name} was not rejected", file=sys.stderr)
            return 1
    unnamed = {k: dict(v) for k, v in folders.items()}
    unnamed[sorted(unnamed)[0]]["unnamed_file.c"] = []
    if not problems(unnamed, rank_list, design):
        print("layering: the self-test's unnamed file was not rejected", file=sys.stderr)
        return 1
    found = problems(folders, rank_list, design)
    for p in found:
        print("layering: " + p, file=sys.stderr)
    if found:
        return 1
    nfiles = sum(len(v) for v in folders.values())
    print(f"layering: {len(folders)} folders in {len(rank_list)} layers, {nfiles} files; "
          f"every include points down or within its folder; every file named in the design")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The layering of src/ and omp/, checked over the names their objects use.

tests/layering.py checks the #include lines; this checks what the built
objects call and refer to (nm): an include can be avoided by declaring a
function by hand, a name cannot.  Given the object files of src/ (each
under ".../src/FOLDER/") and of omp/ (under ".../omp/"):

 1. Every internal name (spool__*) an object of folder F uses and another
    folder defines is defined in a folder of a lower layer of
    doc/design.md's drawing (the one tests/layering.py reads), or is one of
    the exceptions design.md lists under "Exceptions to the names rule"
    (at most two, each still needed).
 2. omp/ uses, of src/'s internal names, only the hooks design.md lists
    under "The hooks of omp/" (the rest of what it uses is the public API).

Before checking the objects it checks itself: a use of a worker's name
from the deque, one of two folders of one layer, and a use by omp/ of an
internal name that is not a hook must each be rejected.

Usage: tests/layering_names.py DESIGN_MD OBJECT...
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layering import layers  # noqa: E402

MAX_EXCEPTIONS = 2
NAME = re.compile(r"`(spool__\w+)`")


def folder_of(path):
    parts = os.path.normpath(path).split(os.sep)
    if "src" in parts and parts.index("src") + 2 < len(parts):
        return parts[parts.index("src") + 1]
    if "omp" in parts:
        return "omp"
    return None


def symbols(objects):
    """({name: defining folder}, {folder: {names used}})"""
    defined, used = {}, {}
    out = subprocess.run(["nm", "-A", *objects], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        fields = rest.split()
        folder = folder_of(path)
        if folder is None:
            continue
        if len(fields) == 2 and fields[0] == "U":
            used.setdefault(folder, set()).add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRVWG":
            defined[fields[2]] = folder
    return defined, used


def listed(design, heading):
    """The spool__ names of design.md's paragraph that starts with heading."""
    m = re.search(r"\*\*" + re.escape(heading) + r"\*\*(.*?)(?:\n\n|\Z)", design, re.S)
    return NAME.findall(m.group(1)) if m else None


def problems(defined, used, rank, hooks, exceptions):
    found, needed = [], set()
    for folder, names in sorted(used.items()):
        for n in sorted(names):
            if not n.startswith("spool__") or n not in defined:
                continue
            home = defined[n]
            if home == folder:
                continue
            if folder == "omp":
                if home != "omp" and n not in hooks:
                    found.append(f"omp/ uses {n} ({home}/), which is not a hook of omp/")
                continue
            if home == "omp":
                found.append(f"{folder}/ uses {n}, of omp/")
            elif rank.get(home, -1) >= rank.get(folder, -1):
                if n in exceptions:
                    needed.add(n)
                    continue
                where = "the same layer" if rank.get(home) == rank.get(folder) else "a higher layer"
                found.append(f"{folder}/ uses {n}, defined in {home}/ of {where}")
    return found, needed


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as fh:
        design = fh.read()
    rank_list = layers(design)
    hooks = listed(design, "The hooks of omp/")
    exceptions = listed(design, "Exceptions to the names rule")
    if not rank_list or hooks is None or exceptions is None:
        print("layering_names: design.md lacks its drawing, the hooks of omp/ or the "
              "exceptions to the names rule", file=sys.stderr)
        return 1
    if len(exceptions) > MAX_EXCEPTIONS:
        print(f"layering_names: {len(exceptions)} exceptions listed, at most {MAX_EXCEPTIONS}",
              file=sys.stderr)
        return 1
    rank = {n: i for i, names in enumerate(rank_list) for n in names}
    rank["omp"] = len(rank_list)
    defined, used = symbols(sys.argv[2:])
    if "scheduler" not in used or "omp" not in used:
        print("layering_names: no objects of src/scheduler/ or omp/ given", file=sys.stderr)
        return 1
    # The check must reject broken objects before it passes these.
    worker_name = next(n for n, f in sorted(defined.items())
                       if f == "scheduler" and n.startswith("spool__"))
    same = next((names for names in rank_list if len(names) > 1), None)
    inner = next(n for n, f in sorted(defined.items())
                 if f not in ("omp",) and n.startswith("spool__") and n not in hooks)
    planted = [("the deque using " + worker_name, "deque", worker_name),
               ("omp/ using " + inner, "omp", inner)]
    if same is not None:
        other = next((n for n, f in sorted(defined.items())
                      if f == same[1] and n.startswith("spool__")), None)
        if other is not None:
            planted.append((f"{same[0]}/ using {other} of {same[1]}/", same[0], other))
    for what, folder, name in planted:
        broken = {k: set(v) for k, v in used.items()}
        broken.setdefault(folder, set()).add(name)
        if not problems(defined, broken, rank, hooks, set())[0]:
            print(f"layering_names: the self-test ({what}) was not rejected", file=sys.stderr)
            return 1
    found, needed = problems(defined, used, rank, hooks, set(exceptions))
    for n in exceptions:
        if n not in needed:
            found.append(f"design.md lists {n} as an exception, which no longer points up")
    for f in found:
        print("layering_names: " + f, file=sys.stderr)
    if found:
        return 1
    count = sum(len(v) for v in used.values())
    print(f"layering_names: {len(sys.argv) - 2} objects, {count} names used; every internal "
          f"name points down ({len(exceptions)} listed exceptions), omp/ uses {len(hooks)} hooks; "
          f"each planted up-reference rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())

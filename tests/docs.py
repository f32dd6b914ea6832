#!/usr/bin/env python3
"""The documents kept current, checked where the layering test cannot.

 1. doc/performance.md holds today's tables: at most 600 lines, and it
    names no commit (a word of 7 to 40 hex digits with a digit and a
    letter); the history stays in the commit messages.
 2. README.md is for users: at most 280 lines, with a section on the
    OpenMP library (a heading that names OpenMP).
 3. Every protocol document (each .md file under src/ and omp/) is linked
    from doc/design.md by a Markdown link whose target is that file.
(Every public function's manual page: tests/man_pages.sh.)

Before checking the tree it checks itself: a performance page one line too
long, one that names a commit, a README one line too long, one without its
OpenMP section, and a design page with one protocol link removed must each
be rejected.

Usage: tests/docs.py SOURCE_DIR
"""
import os
import re
import sys

PERF_LINES = 600
README_LINES = 280
COMMIT = re.compile(r"(?<![\w.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def perf_problems(text):
    found = []
    n = len(text.splitlines())
    if n > PERF_LINES:
        found.append(f"doc/performance.md has {n} lines, more than {PERF_LINES}")
    for i, line in enumerate(text.splitlines(), 1):
        for m in COMMIT.finditer(line):
            found.append(f"doc/performance.md:{i} names commit {m.group(0)}")
    return found


def readme_problems(text):
    found = []
    n = len(text.splitlines())
    if n > README_LINES:
        found.append(f"README.md has {n} lines, more than {README_LINES}")
    if not re.search(r"^#+ .*OpenMP", text, re.M):
        found.append("README.md has no section on the OpenMP library (a heading naming OpenMP)")
    return found


def protocol_docs(root):
    out = []
    for top in ("src", "omp"):
        for d, _, files in os.walk(os.path.join(root, top)):
            out += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md")]
    return sorted(out)


def design_problems(text, docs):
    linked = set()
    for target in LINK.findall(text):
        path = os.path.normpath(os.path.join("doc", target.split("#", 1)[0]))
        linked.add(path)
    return [f"doc/design.md does not link {d}" for d in docs if d not in linked]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]

    def read(path):
        with open(os.path.join(root, path), encoding="utf-8") as fh:
            return fh.read()

    perf, readme, design = read("doc/performance.md"), read("README.md"), read("doc/design.md")
    docs = protocol_docs(root)
    if not docs:
        print("docs: no protocol document found under src/ or omp/", file=sys.stderr)
        return 1
    # The check must reject broken documents before it passes these.
    first_link = LINK.search(design)
    planted = [
        ("a performance page one line too long",
         perf_problems("x\n" * (PERF_LINES + 1))),
        ("a performance page naming a commit",
         perf_problems(perf + "\nMeasured at 1a2b3c4.\n")),
        ("a README one line too long", readme_problems("## OpenMP\n" + "x\n" * README_LINES)),
        ("a README without its OpenMP section",
         readme_problems(re.sub(r"^(#+ .*)OpenMP", r"\1Omp", readme, flags=re.M))),
        ("a design page without a protocol link",
         design_problems(design.replace(f"({docs[0]})", "()").replace(
             f"(../{docs[0]})", "()"), docs)),
    ]
    for name, found in planted:
        if not found:
            print(f"docs: the check passed {name}", file=sys.stderr)
            return 1
    if first_link is None:
        print("docs: doc/design.md has no link at all", file=sys.stderr)
        return 1
    found = perf_problems(perf) + readme_problems(readme) + design_problems(design, docs)
    for f in found:
        print(f"docs: {f}", file=sys.stderr)
    if found:
        return 1
    print(f"docs: performance.md {len(perf.splitlines())} lines, README.md "
          f"{len(readme.splitlines())} lines, {len(docs)} protocol documents linked from "
          f"doc/design.md; each rule rejected its planted violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())

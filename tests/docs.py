#!/usr/bin/env python3
"""The documents kept current, checked where the layering test cannot.

 1. doc/performance.md holds today's tables: at most 600 lines, and it
    names no commit (a word of 7 to 40 hex digits with a digit and a
    letter); the history stays in the commit messages.
 2. README.md is for users: at most 280 lines, with a section on the
    OpenMP library (a heading that names OpenMP), and its two commands, the
    build-and-run (`cmake -S . -B build`) and the tests (`scripts/test.sh`),
    within its first 30 lines, each on a line of its own.
 3. Every protocol document (each .md file under src/ and omp/) is linked
    from doc/design.md by a Markdown link whose target is that file.
 4. Every identifier a document under doc/ or a protocol document names in
    backticks (a word with an underscore or an inner capital, `f()` too)
    occurs in the sources (src/, omp/, include/, tests/ but this file,
    bench/, model/, scripts/, cmake/, examples/, the CMake files): as a
    whole word, or as the tail of one after an underscore (`steal_if` for
    `spool__deque_steal_if`); a name that starts with an underscore (a
    suffix, as in "`spool_pool_trace_start`, `_stop`") anywhere in one.
(Every public function's manual page: tests/man_pages.sh.)

Before checking the tree it checks itself: a performance page one line too
long, one that names a commit, a README one line too long, one without its
OpenMP section, one whose test command comes after line 30, a design page with one protocol link removed and a
document naming an identifier the sources lack must each be rejected.

Usage: tests/docs.py SOURCE_DIR
"""
import os
import re
import sys

PERF_LINES = 600
README_LINES = 280
README_COMMANDS = 30
COMMANDS = (("build and run", re.compile(r"^    cmake -S \. -B build\b")),
            ("test", re.compile(r"^    scripts/test\.sh\s*$")))
COMMIT = re.compile(r"(?<![\w.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
LINK = re.compile(r"\]\(([^)\s]+)\)")
IDENT = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`")
SOURCE_DIRS = ("src", "omp", "include", "tests", "bench", "model", "scripts", "cmake", "examples")
SOURCE_EXTS = (".c", ".h", ".cpp", ".py", ".sh", ".pml", ".cmake", ".txt", ".in", ".map", ".awk")


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
    head = text.splitlines()[:README_COMMANDS]
    for what, pattern in COMMANDS:
        if not any(pattern.match(line) for line in head):
            found.append(f"README.md has no {what} command in its first {README_COMMANDS} lines")
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


def documents(root):
    out = [os.path.join("doc", f) for f in sorted(os.listdir(os.path.join(root, "doc")))
           if f.endswith(".md")]
    return out + protocol_docs(root)


def sources(root):
    words = set()
    text = []
    paths = [os.path.join(root, "CMakeLists.txt")]
    for top in SOURCE_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            paths += [os.path.join(d, f) for f in files if f.endswith(SOURCE_EXTS)]
    # Not this file: the names in its text are examples.
    self = os.path.realpath(__file__)
    paths = [p for p in paths if os.path.realpath(p) != self]
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as fh:
            t = fh.read()
        text.append(t)
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t))
    return words, "\n".join(text)


def name_problems(name, text, words, source_text):
    found = []
    for m in IDENT.finditer(text):
        w = m.group(1)
        if "_" not in w and not any(c.isupper() for c in w[1:]):
            continue  # a plain word (`lent`, `go`), not an identifier
        if w in words or (w.startswith("_") and w in source_text):
            continue
        if any(x.endswith("_" + w) for x in words):
            continue
        line = text.count("\n", 0, m.start()) + 1
        found.append(f"{name}:{line} names `{w}`, which no source file has")
    return found


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
    words, source_text = sources(root)
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
        ("a README whose test command is late",
         readme_problems("\n" * README_COMMANDS + readme)),
        ("a README without its OpenMP section",
         readme_problems(re.sub(r"^(#+ .*)OpenMP", r"\1Omp", readme, flags=re.M))),
        ("a design page without a protocol link",
         design_problems(design.replace(f"({docs[0]})", "()").replace(
             f"(../{docs[0]})", "()"), docs)),
        ("a document naming an identifier the sources lack",
         name_problems("doc/design.md", design + "\nSee `spool__" + "worker_wait_plain`.\n", words,
                       source_text)),
    ]
    for name, found in planted:
        if not found:
            print(f"docs: the check passed {name}", file=sys.stderr)
            return 1
    if first_link is None:
        print("docs: doc/design.md has no link at all", file=sys.stderr)
        return 1
    found = perf_problems(perf) + readme_problems(readme) + design_problems(design, docs)
    named = documents(root)
    for d in named:
        found += name_problems(d, read(d), words, source_text)
    for f in found:
        print(f"docs: {f}", file=sys.stderr)
    if found:
        return 1
    print(f"docs: performance.md {len(perf.splitlines())} lines, README.md "
          f"{len(readme.splitlines())} lines with its commands early, {len(docs)} protocol documents linked from "
          f"doc/design.md; the identifiers named in {len(named)} documents all in the "
          f"sources; each rule rejected its planted violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())

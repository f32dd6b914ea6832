#!/usr/bin/env python3
"""OpenMP conformance suites written by others, on libgomp and libspool-omp.

Builds each runnable program of the suites given (outside this repository,
in a scratch folder) once with gcc -fopenmp (g++ for C++), runs it on
libgomp and on libspool-omp (its libgomp.so.1 name on LD_LIBRARY_PATH), in
the default environment and with OMP_NUM_THREADS=8, and prints the counts
and every program that passes on the first runtime and fails on another.
With --compiler clang the programs are built by clang -fopenmp (LLVM's
ABI, linked with libomp) and run on libomp and on libspool-omp (its
libomp.so.5 name): --runtimes libomp,spool.

    scripts/omp_suites.py BUILD_DIR [--gcc GCC_SRC] [--llvm LLVM_OPENMP]
                          [--examples EXAMPLES] [--work DIR] [--jobs N]
                          [--timeout S] [--only REGEX] [--envs default,8] [--llvm-kmp]
                          [--runtimes libgomp,spool[,libomp]] [--compiler gcc|clang]

GCC_SRC: a GCC 12 source tree (libgomp/testsuite: libgomp.c,
libgomp.c-c++-common, libgomp.c++).  LLVM_OPENMP: LLVM's openmp folder
(runtime/test, without ompt, affinity and the tests that name __kmpc_ or
kmp_ internals; --llvm-kmp: only those, which call libomp's ABI or its
extensions directly).  EXAMPLES: a checkout of github.com/OpenMP/Examples (the
C and C++ sources whose operation is run).  BUILD_DIR: a build of this
repository (omp/gomp/libgomp.so.1).  Nothing here is fetched.

A run passes when it exits as the test expects (0, or not 0 for
dg-shouldfail), within the time limit, and its output matches the test's
dg-output patterns or FileCheck lines.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys

FACTS = {
    "*-*-linux*", "*-*-gnu*", "x86_64-*-*", "i?86-*-*", "lp64", "size32plus", "tls", "tls_runtime",
    "sync_int_long", "sync_long_long", "vect_simd_clones", "pthread", "fopenmp", "fgnu-tm",
    "sse2_runtime", "sse2", "alias", "lto", "fpic", "shared", "c99_runtime", "linux",
}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


CPU = cpu_flags()
if "avx" in CPU:
    FACTS.add("avx_runtime")
if "avx2" in CPU:
    FACTS.add("avx2_runtime")


# ---- dejagnu directives (GCC's libgomp tests) --------------------------------------

def tcl_words(s):
    """Splits a Tcl list: words, "quoted" strings and {braced} groups."""
    words, i = [], 0
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c == "{":
            depth, j = 1, i + 1
            while j < len(s) and depth:
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            words.append(("brace", s[i + 1:j - 1]))
            i = j
        elif c == '"':
            j = i + 1
            buf = []
            while j < len(s) and s[j] != '"':
                if s[j] == "\\" and j + 1 < len(s):
                    buf.append(s[j:j + 2])
                    j += 2
                    continue
                buf.append(s[j])
                j += 1
            words.append(("quote", "".join(buf)))
            i = j + 1
        else:
            j = i
            while j < len(s) and not s[j].isspace():
                j += 1
            words.append(("word", s[i:j]))
            i = j
    return words


def selector_true(text, lang):
    """A dejagnu target selector: 'target X Y', 'target { a && !b }'."""
    words = tcl_words(text)
    if not words:
        return True
    kind = words[0][1]
    rest = " ".join(w if t != "brace" else "{" + w + "}" for t, w in words[1:])
    value = expr_true(rest, lang)
    return value if kind == "target" else not value if kind == "xfail" else value


def expr_true(text, lang):
    facts = FACTS | {lang}
    toks = re.findall(r"\{|\}|&&|\|\||!|[^\s{}!&|]+", text)
    pos = 0

    def atom():
        nonlocal pos
        if pos >= len(toks):
            return True
        t = toks[pos]
        pos += 1
        if t == "!":
            return not atom()
        if t == "{":
            v = disj()
            if pos < len(toks) and toks[pos] == "}":
                pos += 1
            return v
        return t in facts

    def conj():
        nonlocal pos
        v = atom()
        while pos < len(toks) and toks[pos] == "&&":
            pos += 1
            v = atom() and v
        return v

    def disj():
        nonlocal pos
        v = conj()
        while pos < len(toks) and toks[pos] == "||":
            pos += 1
            v = conj() or v
        return v

    # A plain list of targets is true if any is.
    if not any(t in ("&&", "||", "!", "{") for t in toks):
        return any(t in facts for t in toks)
    return disj()


def tcl_unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append(s[i + 1] if s[i + 1] in '"[]{}$' else s[i:i + 2])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def gcc_test(path, lang, suite):
    """A GCC libgomp test: dict, or None if it is not run here."""
    src = open(path, errors="replace").read()
    t = {"suite": suite, "name": os.path.relpath(path, os.path.dirname(os.path.dirname(path))) +
         ("" if lang == "c" or path.endswith(".C") else " (c++)"),
         "lang": lang, "sources": [path], "env": {}, "outputs": [], "shouldfail": False,
         "options": "-O2", "extra": [], "checks": None, "cwd": os.path.dirname(path)}
    action = "run"
    for m in re.finditer(r"\{\s*(dg-[a-z-]+)(.*?)\}\s*(?:\*/|$)", src, re.M):
        name, args = m.group(1), m.group(2)
        words = tcl_words(args)
        if name == "dg-do":
            action = words[0][1] if words else "run"
            if len(words) > 1 and not selector_true(words[1][1], lang):
                action = "none"
        elif name == "dg-options" and words:
            if len(words) < 2 or selector_true(words[1][1], lang):
                t["options"] = words[0][1]
        elif name == "dg-additional-options" and words:
            if len(words) < 2 or selector_true(words[1][1], lang):
                t["extra"].append(words[0][1])
        elif name == "dg-require-effective-target" and words:
            if not expr_true(words[0][1], lang):
                return None
        elif name == "dg-skip-if" and len(words) > 1:
            if selector_true(words[1][1], lang) and (len(words) < 3 or words[2][1] in ("*", "")):
                return None
        elif name == "dg-set-target-env-var" and len(words) >= 2:
            t["env"][words[0][1]] = words[1][1]
        elif name == "dg-shouldfail":
            if len(words) < 2 or selector_true(words[1][1], lang):
                t["shouldfail"] = True
        elif name == "dg-output" and words:
            if len(words) < 2 or selector_true(words[1][1], lang):
                t["outputs"].append(tcl_unescape(words[0][1]))
        elif name == "dg-additional-sources" and words:
            for w in words[0][1].split():
                t["sources"].append(os.path.join(os.path.dirname(path), w))
    if action != "run":
        return None
    if re.search(r"#\s*pragma\s+acc\b|openacc", src):
        return None
    return t


def gcc_tests(root):
    ts = os.path.join(root, "libgomp", "testsuite")
    if not os.path.isdir(ts):
        sys.exit("omp_suites: %s has no libgomp/testsuite" % root)
    tests = []
    cdir, ccdir, cxxdir = (os.path.join(ts, d) for d in
                           ("libgomp.c", "libgomp.c-c++-common", "libgomp.c++"))
    for f in sorted(os.listdir(cdir)) + ["../libgomp.c-c++-common/" + x for x in sorted(os.listdir(ccdir))]:
        if f.endswith(".c"):
            t = gcc_test(os.path.normpath(os.path.join(cdir, f)), "c", "gcc")
            if t:
                tests.append(t)
    for f in sorted(os.listdir(cxxdir)):
        if f.endswith(".C"):
            t = gcc_test(os.path.join(cxxdir, f), "c++", "gcc")
            if t:
                tests.append(t)
    for f in sorted(os.listdir(ccdir)):
        if f.endswith(".c"):
            t = gcc_test(os.path.join(ccdir, f), "c++", "gcc")
            if t:
                tests.append(t)
    return tests


# ---- lit (LLVM's runtime tests) --------------------------------------------------------

LLVM_FEATURES = {"gcc", "gcc-12", "gnu", "linux", "multicpu", "x86_64"}
LLVM_FEATURES_CLANG = {"clang", "clang-14", "linux", "multicpu", "x86_64"}


def llvm_tests(root, features=LLVM_FEATURES, kmp_only=False):
    test = os.path.join(root, "runtime", "test")
    if not os.path.isdir(test):
        sys.exit("omp_suites: %s has no runtime/test" % root)
    tests = []
    for d, subdirs, files in os.walk(test):
        rel = os.path.relpath(d, test)
        if rel.split(os.sep)[0] in ("ompt", "affinity"):
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".cpp")):
                continue
            path = os.path.join(d, f)
            src = open(path, errors="replace").read()
            if bool(re.search(r"__kmpc_|\bkmp_|\bKMP_", src)) != kmp_only:
                continue
            run, skip = [], False
            lines = src.splitlines()
            i = 0
            while i < len(lines):
                m = re.match(r"\s*//\s*(RUN|REQUIRES|UNSUPPORTED|XFAIL):(.*)", lines[i])
                i += 1
                if not m:
                    continue
                kind, text = m.group(1), m.group(2).strip()
                while kind == "RUN" and text.endswith("\\") and i < len(lines):
                    m2 = re.match(r"\s*//\s*RUN:(.*)", lines[i])
                    i += 1
                    text = text[:-1] + " " + (m2.group(1).strip() if m2 else "")
                feats = {x.strip() for x in text.split(",")}
                if kind == "RUN":
                    run.append(text)
                elif kind == "REQUIRES" and not feats <= features:
                    skip = True
                elif kind == "UNSUPPORTED" and feats & features:
                    skip = True
            if skip or not run or not any("%libomp-run" in r or "-and-run" in r for r in run):
                continue
            if any(re.search(r"KMP_|%preload-tool|tool\.so|%python", r) for r in run):
                continue
            tests.append({"suite": "llvm", "name": os.path.join(rel, f), "lang":
                          "c++" if f.endswith(".cpp") else "c", "sources": [path], "env": {},
                          "run": run, "testroot": test, "cwd": d})
    return tests


def lit_command(t, binary, cc_cache, compiler="gcc"):
    """The test's RUN lines as one shell command, compiling through the cache."""
    cc, cxx = ("clang", "clang++") if compiler == "clang" else ("gcc", "g++")
    subs = [
        ("%libomp-compile-and-run", "%libomp-compile && %libomp-run"),
        ("%libomp-c99-compile-and-run", "%libomp-c99-compile && %libomp-run"),
        ("%libomp-cxx-compile-and-run", "%libomp-cxx-compile && %libomp-run"),
        ("%libomp-cxx-compile-c", "%cached CXX -fopenmp %flags -std=c++14 -x c++ %s -o %t -lm -latomic"),
        ("%libomp-cxx-compile", "%cached CXX -fopenmp %flags -std=c++14 %s -o %t -lm -latomic"),
        ("%libomp-c99-compile", "%cached CC -fopenmp %flags -std=c99 %s -o %t -lm -latomic"),
        ("%libomp-compile", "%cached CC -fopenmp %flags %s -o %t -lm -latomic"),
        ("%libomp-run", "%t"),
        ("%clangXX", "%cached CXX"), ("%clang", "%cached CC"), ("%openmp_flags", "-fopenmp"),
        ("%flags-use-compiler-omp-h", "-I " + t["testroot"]),
        ("%flags", "-I " + t["testroot"]), ("%not", "/usr/lib/llvm-14/bin/not"),
        ("%sort-threads", "sort -n -s"),
        ("FileCheck", "/usr/lib/llvm-14/bin/FileCheck"),
        ("%s", t["sources"][0]), ("%S", os.path.dirname(t["sources"][0])),
        ("%t", binary), ("%T", os.path.dirname(binary)),
    ]
    cmds = []
    for r in t["run"]:
        for a, b in subs:
            r = r.replace(a, b)
        cmds.append(r.replace("%cached CXX", "%cached " + cxx).replace("%cached CC", "%cached " + cc)
                     .replace("%cached", cc_cache))
    return " && ".join("(%s)" % c for c in cmds)


# ---- the OpenMP Examples ----------------------------------------------------------------

def example_tests(root):
    tests = []
    for d, subdirs, files in os.walk(root):
        if os.path.basename(d) != "sources":
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".cpp")):
                continue
            path = os.path.join(d, f)
            src = open(path, errors="replace").read()
            op = re.search(r"@@operation:\s*(\S+)", src)
            expect = re.search(r"@@expect:\s*(\S+)", src)
            if not op or op.group(1) != "run" or (expect and expect.group(1) not in ("success",)):
                continue
            if re.search(r"#\s*pragma\s+omp\s+(target|declare\s+target)", src):
                pass  # host fallback: still run
            ver = re.search(r"@@version:\s*omp_(\d+)\.(\d+)", src)
            std = "-std=c++17" if f.endswith(".cpp") else "-std=gnu11"
            tests.append({"suite": "examples", "name": os.path.relpath(path, root),
                          "lang": "c++" if f.endswith(".cpp") else "c", "sources": [path],
                          "env": {}, "outputs": [], "shouldfail": False, "options": "-O2 " + std,
                          "extra": [], "checks": None, "cwd": d,
                          "version": ver.group(0) if ver else ""})
    return tests


# ---- building and running ---------------------------------------------------------------

def build(t, work, compiler="gcc"):
    """Compiles a dejagnu or example test; returns (binary, error)."""
    if compiler == "clang":
        cc = "clang" if t["lang"] == "c" else "clang++"
    else:
        cc = "gcc" if t["lang"] == "c" else "g++"
    args = [cc] + shlex.split(t["options"]) + sum((shlex.split(x) for x in t["extra"]), [])
    args += ["-fopenmp", "-w"] + (["-x", "c++"] if t["lang"] == "c++" and t["sources"][0].endswith(".c") else [])
    args += t["sources"] + ["-lm"]
    if t["lang"] == "c++" and t["sources"][0].endswith(".c"):
        # -x c++ also covers the later sources; -lm must not be read as C++.
        args = args[:-1] + ["-x", "none", "-lm"]
    stamp = " ".join(args) + "".join(str(os.path.getmtime(s)) for s in t["sources"])
    key = hashlib.sha1(stamp.encode()).hexdigest()[:16]
    binary = os.path.join(work, "bin", key)
    if os.path.exists(binary):
        return binary, None
    r = subprocess.run(args + ["-o", binary + ".tmp"], cwd=t["cwd"], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
    os.replace(binary + ".tmp", binary)
    return binary, None


def runtime_env(name, build_dir):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_", "KMP_", "SPOOL_", "LD_PRELOAD", "LD_LIBRARY_PATH"))}
    if name == "spool":
        env["LD_LIBRARY_PATH"] = os.path.join(build_dir, "omp", "gomp")
    elif name == "libomp":
        env["LD_LIBRARY_PATH"] = "/usr/lib/llvm-14/lib"
    return env


def output_ok(t, out):
    if not t.get("outputs"):
        return True
    pattern = "".join(t["outputs"])
    try:
        return re.search(pattern, out, re.S) is not None
    except re.error:
        return pattern in out


def run_one(t, binary, runtime, envname, args):
    env = runtime_env(runtime, args.build)
    if envname != "default":
        env["OMP_NUM_THREADS"] = envname
    env.update(t["env"])
    if t["suite"] == "llvm":
        d = os.path.join(args.work, "lit", hashlib.sha1(t["name"].encode()).hexdigest()[:12],
                         runtime + "-" + envname)
        os.makedirs(d, exist_ok=True)
        cmd = lit_command(t, os.path.join(d, "t"), args.cc_cache, args.compiler)
        argv = ["bash", "-o", "pipefail", "-c", cmd]
        cwd = d
    else:
        argv = [binary]
        cwd = t["cwd"]
    # A session of its own, so that a timeout ends the test's processes
    # too (a lit RUN line's program runs under bash).
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        stdout, _ = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"ok": False, "why": "timeout"}
    out = stdout.decode(errors="replace")
    code = proc.returncode
    if t["suite"] == "llvm":
        ok = code == 0
    else:
        ok = (code != 0) if t["shouldfail"] else (code == 0)
        if code < 0 or code > 128 and not t["shouldfail"]:
            ok = False
        ok = ok and output_ok(t, out)
    why = "" if ok else "exit %d: %s" % (code, " | ".join(out.strip().splitlines()[-2:])[:200])
    return {"ok": ok, "why": why}


def cached_cc(argv, cache):
    """A compiler call of a lit RUN line, compiled once per command line."""
    out = argv[argv.index("-o") + 1]
    key_args = [a if a != out else "OUT" for a in argv]
    srcs = [a for a in argv if os.path.isfile(a)]
    key = hashlib.sha1(("\0".join(key_args) + "".join(str(os.path.getmtime(s)) for s in srcs))
                       .encode()).hexdigest()[:16]
    cached = os.path.join(cache, key)
    if not os.path.exists(cached):
        tmp = "%s.%d" % (cached, os.getpid())
        r = subprocess.run([a if a != out else tmp for a in argv] + ["-w"])
        if r.returncode != 0:
            return r.returncode
        os.replace(tmp, cached)
    shutil.copy(cached, out)
    return 0


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--cc":
        return cached_cc(sys.argv[3:], sys.argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--gcc")
    p.add_argument("--llvm")
    p.add_argument("--examples")
    p.add_argument("--work", default="/tmp/omp-suites")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--only")
    p.add_argument("--llvm-kmp", action="store_true")
    p.add_argument("--envs", default="default,8")
    p.add_argument("--runtimes", default="libgomp,spool")
    p.add_argument("--json")
    p.add_argument("--compiler", default="gcc", choices=("gcc", "clang"))
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    args.work = os.path.abspath(args.work)
    lib = os.path.join(args.build, "omp", "gomp", "libgomp.so.1")
    if "spool" in args.runtimes and not os.path.exists(lib):
        sys.exit("omp_suites: %s is missing (build the repository first)" % lib)
    os.makedirs(os.path.join(args.work, "bin"), exist_ok=True)
    os.makedirs(os.path.join(args.work, "cc"), exist_ok=True)
    args.cc_cache = "%s %s --cc %s" % (shlex.quote(sys.executable), shlex.quote(os.path.abspath(__file__)),
                                       shlex.quote(os.path.join(args.work, "cc")))

    tests = []
    if args.gcc:
        tests += gcc_tests(args.gcc)
    if args.llvm:
        tests += llvm_tests(args.llvm, LLVM_FEATURES_CLANG if args.compiler == "clang"
                            else LLVM_FEATURES, args.llvm_kmp)
    if args.examples:
        tests += example_tests(args.examples)
    if args.only:
        tests = [t for t in tests if re.search(args.only, t["name"])]
    if not tests:
        sys.exit("omp_suites: no tests (give --gcc, --llvm or --examples)")
    envs = args.envs.split(",")
    runtimes = args.runtimes.split(",")

    # Build.
    built = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(build, t, args.work, args.compiler): i
                for i, t in enumerate(tests) if t["suite"] != "llvm"}
        for f in concurrent.futures.as_completed(futs):
            built[futs[f]] = f.result()
    for i, t in enumerate(tests):
        if t["suite"] == "llvm":
            built[i] = (None, None)

    # Run: each test on each runtime and environment.
    jobs = [(i, rt, e) for i, t in enumerate(tests) if built[i][1] is None
            for e in envs for rt in runtimes]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(run_one, tests[i], built[i][0], rt, e, args): (i, rt, e)
                for i, rt, e in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()

    # Report.
    suites = sorted({t["suite"] for t in tests})
    print("%-9s %-8s %6s  %s" % ("suite", "env", "tests", "  ".join("%8s" % r for r in runtimes)))
    diffs = []
    for s in suites:
        idx = [i for i, t in enumerate(tests) if t["suite"] == s]
        nobuild = [tests[i]["name"] for i in idx if built[i][1] is not None]
        for e in envs:
            ran = [i for i in idx if built[i][1] is None]
            counts = [sum(results[(i, rt, e)]["ok"] for i in ran) for rt in runtimes]
            print("%-9s %-8s %6d  %s" % (s, e, len(ran), "  ".join("%8d" % c for c in counts)))
            ref = runtimes[0]
            for rt in runtimes[1:]:
                for i in ran:
                    if results[(i, ref, e)]["ok"] and not results[(i, rt, e)]["ok"]:
                        diffs.append((s, e, rt, tests[i]["name"], results[(i, rt, e)]["why"]))
        if nobuild:
            print("  %s: %d did not build with %s: %s" % (s, len(nobuild), args.compiler,
                                                         " ".join(nobuild[:20])))
    if diffs:
        print("\npass on %s, fail elsewhere:" % runtimes[0])
        for d in sorted(diffs):
            print("  %s [%s, %s] %s: %s" % (d[0], d[1], d[2], d[3], d[4]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"%s|%s|%s" % (tests[i]["name"], rt, e): r for (i, rt, e), r in results.items()},
                      f, indent=0)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

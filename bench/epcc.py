#!/usr/bin/env python3
"""The EPCC OpenMP micro-benchmarks (syncbench, schedbench, taskbench) on
each runtime of gcc's ABI: libgomp, LLVM's libomp and libspool-omp (both by
LD_PRELOAD), interleaved, quiet and beside busy processes.

    bench/epcc.py EPCC_DIR BUILD_DIR [--rounds N] [--configs 1:0,2:0,2:1,16:0,8:6]

EPCC_DIR is the suite's C folder (openmpbench_C_v40 of
github.com/EPCCed/epcc-openmp-microbenchmarks); nothing is fetched.  It is
built once with gcc into a scratch folder.  A config T:B runs every program
with OMP_NUM_THREADS=T while B processes spin on the CPUs.  Each round runs
every config on every runtime once; the table gives, per config and
construct, the median over rounds of EPCC's own median overhead in
microseconds, and libspool-omp over the better of the other two.

Environment: LIBOMP=path (libomp.so.5), EPCC_ARGS (default
"--outer-repetitions 10 --test-time 2000"), EPCC_SCHED (schedbench rows
kept, a regular expression), EPCC_TIMEOUT (seconds per run, default 600).
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

PROGRAMS = ("syncbench", "schedbench", "taskbench")
DEFAULT_SCHED = r"^(STATIC|STATIC 1|DYNAMIC 1|DYNAMIC 16|GUIDED 1|TASKLOOP 16)$"
SKIP = re.compile(r"^reference")


def build(src, out):
    """EPCC's programs, built with gcc -O1 -fopenmp as its gcc makefile does
    (gcc 12's libgomp has no omp_init_lock_with_hint: a plain lock)."""
    cflags = ["-O1", "-fopenmp", "-Domp_init_lock_with_hint(l,h)=omp_init_lock(l)"]
    for p in PROGRAMS:
        objs = []
        for c in (p + ".c", "common.c"):
            o = os.path.join(out, p + "-" + c[:-2] + ".o")
            subprocess.run(["gcc", *cflags, "-c", os.path.join(src, c), "-o", o], check=True)
            objs.append(o)
        subprocess.run(["gcc", "-fopenmp", *objs, "-lm", "-o", os.path.join(out, p)], check=True)


def runtimes(build_dir):
    spool = os.path.join(build_dir, "omp", "libspool-omp.so")
    if not os.access(spool, os.R_OK):
        sys.exit(f"epcc.py: {spool} is missing")
    rts = [("libgomp", None)]
    libomp = os.environ.get("LIBOMP")
    if not libomp:
        found = [f for f in ["/usr/lib/x86_64-linux-gnu/libomp.so.5"] +
                 sorted(glob.glob("/usr/lib/llvm-*/lib/libomp.so.5")) if os.access(f, os.R_OK)]
        libomp = found[0] if found else None
    if libomp:
        rts.append(("libomp", libomp))
    rts.append(("libspool-omp", spool))
    return rts


def run_one(prog, threads, preload, args, timeout):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if preload:
        env["LD_PRELOAD"] = preload
    try:
        p = subprocess.run([prog, *args], env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(.*\S) median_ovrhd\s*=\s*(-?[0-9.]+)", line)
        if m and not SKIP.match(m.group(1)):
            rows[m.group(1)] = float(m.group(2))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("epcc")
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--configs", default="1:0,2:0,2:1,16:0")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    a = ap.parse_args()
    args = os.environ.get("EPCC_ARGS", "--outer-repetitions 10 --test-time 2000").split()
    sched = re.compile(os.environ.get("EPCC_SCHED", DEFAULT_SCHED))
    timeout = float(os.environ.get("EPCC_TIMEOUT", "600"))
    rts = runtimes(os.path.abspath(a.build))
    configs = [tuple(int(x) for x in c.split(":")) for c in a.configs.split(",")]
    programs = a.programs.split(",")
    work = tempfile.mkdtemp(prefix="epcc-")
    try:
        build(os.path.abspath(a.epcc), work)
        # vals[(config, program, row, runtime)] = [overhead per round]
        vals, order = {}, []
        for rnd in range(a.rounds):
            for cfg in configs:
                threads, busy = cfg
                spinners = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                            for _ in range(busy)]
                try:
                    for prog in programs:
                        for name, pre in rts:
                            rows = run_one(os.path.join(work, prog), threads, pre, args, timeout)
                            if rows is None:
                                print(f"round {rnd + 1} T={threads} busy={busy} {prog} {name}: "
                                      "timed out", flush=True)
                                continue
                            for row, v in rows.items():
                                if prog == "schedbench" and not sched.search(row):
                                    continue
                                key = (cfg, prog, row)
                                if key not in order:
                                    order.append(key)
                                vals.setdefault(key + (name,), []).append(v)
                            print(f"round {rnd + 1} T={threads} busy={busy} {prog} {name}: "
                                  f"{len(rows)} rows", flush=True)
                finally:
                    for s in spinners:
                        s.kill()
                        s.wait()
        names = [n for n, _ in rts]
        print(f"\nEPCC median overheads in microseconds, medians of {a.rounds} rounds "
              f"({os.cpu_count()} CPUs); spool/best: libspool-omp over the better of the others")
        for cfg in configs:
            print(f"\n### OMP_NUM_THREADS={cfg[0]}, {cfg[1]} busy processes\n")
            print("| construct | " + " | ".join(names) + " | spool/best |")
            print("|---|" + "---:|" * (len(names) + 1))
            for key in order:
                if key[0] != cfg:
                    continue
                meds = {n: statistics.median(vals[key + (n,)]) for n in names
                        if key + (n,) in vals}
                cells = [f"{meds[n]:.3f}" if n in meds else "-" for n in names]
                others = [meds[n] for n in names if n != "libspool-omp" and n in meds]
                ratio = "-"
                if "libspool-omp" in meds and others:
                    best = min(others)
                    # Overheads near zero make ratios meaningless: 0.2 us is noise.
                    ratio = (f"{meds['libspool-omp'] / best:.2f}" if best > 0.2 else
                             f"{meds['libspool-omp'] - best:+.3f}us")
                print(f"| {key[2]} | " + " | ".join(cells) + f" | {ratio} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

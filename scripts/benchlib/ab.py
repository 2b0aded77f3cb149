"""scripts/bench ab OLD NEW - two flowdeflate binaries side by side, whole program (a
refactor's "speed unchanged", or a change's gain), on the corpus.

Usage: scripts/bench ab OLD NEW [--files a,b] [--levels "1 6 9"] [--variants "-p1;-p2"] [--runs N]

For every file, level and variant: both outputs are first compared byte for byte with
libdeflate-gzip's (build/reference), then hyperfine times `BIN -L VARIANT -c FILE >
/dev/null` for both (one warm-up, N measured runs, fresh processes, warm page cache); the
order of OLD and NEW is reversed from one scenario to the next.  Prints a markdown table:
median (min-max) in ms of each and NEW/OLD of the medians.  Exit 1 on any output mismatch.
(A variant that starts with "-" goes in as --variants="-p2;-p4".)
"""
import os
import subprocess
import tempfile

from . import common as C

NAME = "ab"
HELP = "two flowdeflate binaries side by side, whole program: NEW/OLD times (markdown)"


def add_arguments(p):
    p.add_argument("old", help="the old flowdeflate binary")
    p.add_argument("new", help="the new flowdeflate binary")
    C.corpus_arguments(p, 5, files="the four bench files", files_default=C.BENCH_FILES, runs_help="measured runs")
    p.add_argument("--variants", default="-p1;-p2", help='options of each run, ";"-separated (default "-p1;-p2")')


def write(cmd, out):
    with open(out, "wb") as f:
        subprocess.run(cmd, stdout=f, check=True)


def run(a):
    C.require("hyperfine", a.old, a.new, C.REF)
    files = C.files_option(a.files, [])
    rows = ["| file | level | variant | old ms | new ms | new/old |", "|---|---|---|---|---|---|"]
    flip = False
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            path = C.corpus_path(name)
            C.warm([path])
            for level in a.levels.split():
                write([C.REF, f"-{level}", "-c", path], os.path.join(tmp, "ref"))
                for variant in a.variants.split(";"):
                    cmds = {}
                    for tag, binary in (("old", a.old), ("new", a.new)):
                        argv = [binary, f"-{level}", *variant.split(), "-c", path]
                        write(argv, os.path.join(tmp, tag))
                        if subprocess.run(["cmp", "-s", os.path.join(tmp, "ref"), os.path.join(tmp, tag)]).returncode:
                            C.say(f"{tag} output differs from libdeflate-gzip: {' '.join(argv)}")
                            bad += 1
                        cmds[tag] = " ".join(argv) + " > /dev/null"
                    res = C.hyperfine(cmds, a.runs, tmp, reverse=flip, shell=True)
                    flip = not flip

                    def cell(r):
                        return f"{r['median']*1000:.0f} ({r['min']*1000:.0f}-{r['max']*1000:.0f})"
                    ratio = res["new"]["median"] / res["old"]["median"]
                    rows.append(f"| {name} | {level} | `{variant}` | {cell(res['old'])} | {cell(res['new'])} | {ratio:.3f} |")
                    C.say(rows[-1])
    print("\n".join(rows))
    return 1 if bad else 0

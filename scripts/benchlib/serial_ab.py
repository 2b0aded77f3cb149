"""scripts/bench serial-ab OLD NEW - two flowdeflate binaries' node CPU side by side: what a
change to the resolver, Code or Assemble did to the serial part (the serial share).

Usage: scripts/bench serial-ab OLD NEW [--files a,b] [--levels "1 6 9"] [--threads 8]
                               [--runs 5] [--prefix MIB]

For every file and level: both outputs are compared byte for byte with libdeflate-gzip's
(build/reference); then `BIN -L -pT --stats` runs RUNS times for each binary, alternating
OLD NEW OLD NEW ..., and the medians of each node's CPU time are printed as a markdown
table with the serial share (resolve + assemble over search + resolve + code + assemble).
CPU time per node (core/clock.hpp) does not count waiting, so more threads than cores
give each node's own cost.  --prefix: only the first MIB MiB of each file (default 16;
0: whole files).  Exit 1 on any output mismatch.
"""
import os
import shlex
import statistics
import tempfile

from . import common as C

NAME = "serial-ab"
HELP = "two flowdeflate binaries' node CPU (--stats) side by side: the serial share"
NODES = C.NODES


def add_arguments(p):
    p.add_argument("old", help="the old flowdeflate binary")
    p.add_argument("new", help="the new flowdeflate binary")
    C.corpus_arguments(p, 5, files="the four bench files", files_default=C.BENCH_FILES, threads=(8, "T of -pT"),
                       runs_help="--stats runs of each binary")
    p.add_argument("--prefix", type=int, default=16, help="MiB of each file (default 16; 0: whole files)")


def run(a):
    bins = {"old": os.path.abspath(a.old), "new": os.path.abspath(a.new)}
    C.require(*bins.values(), C.REF)
    rows = ["| file | level | binary | search ms | resolve ms | code ms | assemble ms | serial |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        for name in C.files_option(a.files, []):
            path = C.corpus_path(name)
            if a.prefix:
                cut = os.path.join(tmp, name)
                C.sh(f"head -c {a.prefix << 20} {shlex.quote(path)} > {shlex.quote(cut)}")
                path = cut
            q = shlex.quote(path)
            for level in a.levels.split():
                for which, b in bins.items():
                    if not C.identical(f"{b} -{level} -p{a.threads} -c {q}", f"{C.REF} -{level} -c {q}", tmp):
                        C.say(f"{which} differs from the reference: {name} level {level}")
                        bad = True
                runs = {k: [] for k in bins}
                for _ in range(a.runs):
                    for which, b in bins.items():
                        runs[which].append(C.stats_of(f"{b} -{level} -p{a.threads} -c {q}", tmp))
                for which in bins:
                    med = {k: statistics.median(r[k] for r in runs[which]) for k in NODES}
                    share = C.serial_share(med)
                    rows.append(f"| {name} | {level} | {which} | " + " | ".join(f"{med[k] / 1e6:.1f}" for k in NODES)
                                + f" | {share * 100:.1f}% |")
                C.say(rows[-2] + "\n" + rows[-1])
    print("\n".join(rows))
    return 1 if bad else 0

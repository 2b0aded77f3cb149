"""benchlib.cli - the command line of scripts/bench: one subcommand per module."""
import argparse
import importlib
import os
import sys

from . import common as C

# In the order `scripts/bench --help` lists them.
MODULES = ("summary", "peers", "core", "programs", "threads", "stream", "scaling", "sweep", "micro",
           "decompress", "near_optimal", "small_files", "many_core", "ab", "serial_ab", "window_pages", "all")

USAGE = """scripts/bench SUBCOMMAND [options]      (scripts/bench SUBCOMMAND --help for each)

Measures flowdeflate on the corpus (scripts/corpus) and regenerates the numbers in
README.md and docs/PERFORMANCE.md: each subcommand that writes rewrites its own sections,
between <!-- BEGIN name --> and <!-- END name --> (it fails, writing nothing, where a pair
of markers is missing); `scripts/bench all` runs all of those.  Options every subcommand
takes: --corpus DIR (default $FLOWDEFLATE_CORPUS or build/corpus); those that write take
--dry-run (print the sections instead); those that measure the build take --no-prepare
(skip scripts/setup --bench, scripts/build and scripts/corpus --small, run first otherwise).

Method throughout: whole programs are timed by hyperfine (fresh processes, warm-up, several
runs, median (min-max), the contenders' order reversed between scenarios, warm page cache);
in-process benchmarks by Google Benchmark (repetitions interleaved, median); peak memory by
/usr/bin/time -v.  flowdeflate's compressed output is compared byte for byte with
libdeflate-gzip's; other compressors' outputs are decompressed by gzip -dc and compared
with the input.  Raw results go to build/bench/.
"""


def load(name):
    return importlib.import_module(f"benchlib.{name}")


def parser():
    mods = [load(name) for name in MODULES]
    listing = "subcommands:\n" + "\n".join(f"  {m.NAME:<14}{m.HELP}" for m in mods)
    ap = argparse.ArgumentParser(prog="scripts/bench", usage=USAGE.split("\n")[0],
                                 description="\n".join(USAGE.split("\n")[2:]) + "\n" + listing,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    subs = ap.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", help=argparse.SUPPRESS, prog="scripts/bench")
    for m in mods:
        p = subs.add_parser(m.NAME, description=m.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        m.add_arguments(p)
        p.add_argument("--corpus", metavar="DIR", help="the corpus directory (default $FLOWDEFLATE_CORPUS or "
                       "build/corpus)")
        if getattr(m, "PREPARE", False):
            p.add_argument("--no-prepare", action="store_true",
                           help="skip scripts/setup --bench, scripts/build and scripts/corpus --small")
        if getattr(m, "WRITES", None):
            p.add_argument("--dry-run", action="store_true", help="print the generated sections instead of "
                           "writing them")
            if any(key == "doc" for key, _ in m.WRITES):
                p.add_argument("--doc", default=C.DOC, metavar="PATH",
                               help="the report to write (default docs/PERFORMANCE.md)")
        p.set_defaults(module=m)
    return ap


OLD_MODES = {"--micro": "micro", "--small-files": "small-files", "--near-optimal": "near-optimal",
             "--decompress": "decompress"}


def main(argv):
    """Parses and runs one subcommand; returns its exit status."""
    extra = []
    if "--" in argv:  # what follows `--` goes to the benchmark program (core)
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = parser()
    if not argv:
        ap.print_help(sys.stderr)
        return 2
    if argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        old = next((OLD_MODES[x] for x in argv if x in OLD_MODES), "peers")
        print(f"scripts/bench: a subcommand comes first (`scripts/bench --help` lists them); for what "
              f"`scripts/bench {' '.join(argv)}` did, `scripts/bench {old} ...`", file=sys.stderr)
        return 2
    a = ap.parse_args(argv)
    m = a.module
    if extra and not getattr(m, "EXTRA", False):
        ap.error(f"{m.NAME} takes no arguments after --")
    a.extra = extra
    a.argv = argv + (["--"] + extra if extra else [])
    a.command = C.command_line(a.argv)
    if a.corpus:
        C.set_corpus(a.corpus)
    C.PROG = f"bench {m.NAME}"
    C.commit.cache_clear()
    C.commit()  # taken when the subcommand starts
    try:
        if getattr(m, "WRITES", None) and not a.dry_run:
            for key, names in m.WRITES:
                C.check_sections(a.doc if key == "doc" else C.README, names)
        if getattr(m, "PREPARE", False) and not a.no_prepare and getattr(m, "needs_prepare", lambda _: True)(a):
            C.prepare()
        os.makedirs(C.OUT, exist_ok=True)
        return m.run(a) or 0
    finally:
        C.PROG = "bench"

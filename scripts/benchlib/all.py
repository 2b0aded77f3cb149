"""scripts/bench all - every subcommand that writes a generated section, one after the
other, so that one command regenerates every number in README.md and docs/PERFORMANCE.md:

  core          <!-- single-thread -->       (in one process: the least disturbed first)
  stream        <!-- streaming -->
  micro         <!-- micro -->, <!-- calls -->
  programs      <!-- whole-program -->
  threads       <!-- parallel -->
  peers         <!-- bench -->, <!-- scaling -->, docs/img/bench-*.svg
  sweep         <!-- sweep -->, docs/img/sweep-*.svg
  decompress    <!-- decompress -->
  near-optimal  <!-- near-optimal -->
  small-files   <!-- small-files -->
  summary       README.md <!-- results -->, <!-- results-plot -->, docs/img/summary.svg;
                PERFORMANCE.md <!-- summary -->

The prepare step (scripts/setup --bench, scripts/build, scripts/corpus --small) runs once,
first (unless --no-prepare).  A subcommand that fails does not stop the others; the exit
status is 1 when any failed.  Hours on two cores; --quick passes --quick to the
subcommands that have it (peers, programs, threads, decompress, near-optimal, summary) and
-n 1 to core.  Nothing here measures anything itself: each subcommand states its method in
its own section.
"""
import time

from . import common as C

NAME = "all"
HELP = "every subcommand that writes a section: all numbers of README.md and PERFORMANCE.md"
PREPARE = True
ORDER = ("core", "stream", "micro", "programs", "threads", "peers", "sweep", "decompress", "near-optimal",
         "small-files", "summary")
QUICK = {"peers": ["--quick"], "programs": ["--quick"], "threads": ["--quick"], "decompress": ["--quick"],
         "near-optimal": ["--quick"], "summary": ["--quick"], "core": ["-n", "1"]}


def add_arguments(p):
    p.add_argument("--quick", action="store_true", help="the subcommands' --quick where they have it")
    p.add_argument("--dry-run", action="store_true", help="print the sections instead of writing them")
    p.add_argument("--only", default="", help="these subcommands only, comma-separated")
    p.add_argument("--skip", default="", help="not these subcommands, comma-separated")


def run(a):
    from . import cli  # (cli imports this module)
    only = [x for x in a.only.split(",") if x]
    skip = [x for x in a.skip.split(",") if x]
    for x in only + skip:
        if x not in ORDER:
            C.die(f"{x} is not one of {', '.join(ORDER)}")
    todo = [x for x in ORDER if (not only or x in only) and x not in skip]
    if not a.dry_run:  # every marker pair in place before hours of measuring
        for name in todo:
            for key, names in cli.load(name.replace("-", "_")).WRITES:
                C.check_sections(C.DOC if key == "doc" else C.README, names)
    common = ["--no-prepare"] + (["--dry-run"] if a.dry_run else []) + (["--corpus", a.corpus] if a.corpus else [])
    failed = []
    for name in todo:
        argv = [name] + common + (QUICK.get(name, []) if a.quick else [])
        start = time.monotonic()
        C.say(f"-> {C.command_line(argv)}")
        try:
            rc = cli.main(argv)
        except SystemExit as e:  # a subcommand's C.die()
            rc = e.code if isinstance(e.code, int) else 1
        C.PROG = "bench all"
        C.say(f"<- {name}: exit status {rc}, {time.monotonic() - start:.0f} s")
        if rc:
            failed.append(name)
    if failed:
        C.say(f"failed: {', '.join(failed)}")
        return 1
    return 0

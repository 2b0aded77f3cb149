"""scripts/bench window-pages [FILE] [RUNS] - what the input window's page handling costs on
this machine, without the compressor (perf/window_pages.c: a reader thread filling 2 MiB
slots with pread, a consumer touching them): recycled slots on an aligned and a misaligned
range, fresh pages, fresh pages populated on commit, huge pages.  Compiles the program into
build/window_pages with the system C compiler, warms the page cache, then runs every mode
RUNS times (default 2), interleaved, printing what the program prints.  FILE defaults to
libLLVM.so of the corpus.  What the results meant: docs/notes/io-and-memory.md.
"""
import os
import subprocess

from . import common as C

NAME = "window-pages"
HELP = "the input window's page handling alone (perf/window_pages.c)"
MODES = ("aligned", "misaligned", "fresh", "populate", "huge", "huge-aligned")


def add_arguments(p):
    p.add_argument("file", nargs="?", help="the input (default: libLLVM.so of the corpus)")
    p.add_argument("runs", nargs="?", type=int, default=2, help="rounds of every mode (default 2)")


def run(a):
    path = a.file or C.corpus_path("libLLVM.so")
    if not os.access(path, os.R_OK):
        C.die(f"cannot read {path} (run scripts/corpus --small)", 1)
    exe = os.path.join(C.ROOT, "build", "window_pages")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cc = ["cc", "-O2", "-Wall", "-Wextra", "-pthread", "-o", exe, os.path.join(C.ROOT, "perf", "window_pages.c")]
    if subprocess.run(cc).returncode:
        C.die("compiling perf/window_pages.c failed", 1)
    C.warm([path])
    for _ in range(a.runs):
        for mode in MODES:
            if subprocess.run([exe, mode, path]).returncode:
                C.die(f"window_pages {mode} failed", 1)
    return 0

"""scripts/bench core - single-thread compression speed, flowdeflate's core against the
reference libdeflate in the same process (build/core_vs_reference, Google Benchmark), and
the section of docs/PERFORMANCE.md between <!-- BEGIN single-thread --> and
<!-- END single-thread -->.

Usage: scripts/bench core [-n N] [--binary PATH] [--filter REGEX] [--json FILE]
                          [--out-json PATH] [--doc PATH] [--dry-run] [-- BENCHMARK-ARGS...]

  -n, --repetitions N  runs of every benchmark (default 5); the runs of all benchmarks are
                       shuffled (--benchmark_enable_random_interleaving=true), so the
                       contenders alternate in random order
  --binary PATH        default <repo>/build/core_vs_reference
  --filter REGEX       passed on as --benchmark_filter (the table then covers only those)
  --json FILE          do not run: make the table from a JSON file written earlier
  --out-json PATH      where the raw Google Benchmark JSON goes
                       (default <repo>/build/bench/core_vs_reference.json)

Method: one thread, wall clock, compression of an input already in memory (no I/O, warm
cache) into a preallocated buffer, gzip header and CRC-32 included; N repetitions, median
(min-max) MB/s; every timed run's output checked byte for byte against the reference's.
Run it on a quiet machine: nothing else building or testing.
"""
import json
import os
import re
import shlex
import statistics
import subprocess
from collections import defaultdict

from . import common as C

NAME = "core"
HELP = "one thread, in memory: the core against libdeflate in one process"
PREPARE = True
WRITES = [("doc", ["single-thread"])]
EXTRA = True  # arguments after -- go to the benchmark program
MIN_TIMES = set()


def needs_prepare(a):
    return not a.json


def add_arguments(p):
    p.add_argument("-n", "--repetitions", type=int, default=5, help="runs of every benchmark (default 5)")
    p.add_argument("--binary", default=os.path.join(C.ROOT, "build", "core_vs_reference"))
    p.add_argument("--build-dir", default=os.path.join(C.ROOT, "build"))
    p.add_argument("--filter", help="--benchmark_filter for the benchmark program")
    p.add_argument("--json", help="make the table from this JSON file instead of running")
    p.add_argument("--out-json", default=os.path.join(C.OUT, "core_vs_reference.json"))


def compile_flags(build_dir):
    """The flags of one src/core/*.cpp compile command, without paths, -D and -o/-c."""
    try:
        with open(os.path.join(build_dir, "compile_commands.json")) as f:
            cmds = json.load(f)
    except (OSError, ValueError):
        return None
    for c in cmds:
        if "/src/core/" not in c.get("file", ""):
            continue
        args = c.get("arguments") or shlex.split(c.get("command", ""))
        out, skip = [], False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c", "-I", "-isystem", "-MF", "-MT", "-MQ", "-D"):
                skip = True
                continue
            if a.startswith(("-I", "-isystem", "-D", "-MF", "-MT")) or a in ("-MD", "-MMD"):
                continue
            if not a.startswith("-"):
                continue
            out.append(a)
        return " ".join(out)
    return None


def parse(data):
    """{(file, level, capped): {"ours": [MB/s...], "ref": [...], "in": bytes, ...}}"""
    rows = defaultdict(lambda: {"ours": [], "ref": [], "in": None, "out": None, "label": ""})
    errors = []
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        m = re.search(r"/min_time:([0-9.]+)", b["name"])
        if m:
            MIN_TIMES.add(float(m.group(1)))
        parts = [p for p in b["name"].split("/") if ":" not in p and p != "real_time"]
        if len(parts) < 3 or parts[0] not in ("ours", "ref") or not parts[1].startswith("L"):
            continue
        who, level, file, rest = parts[0], int(parts[1][1:]), parts[2], parts[3:]
        if b.get("error_occurred"):
            errors.append(f"{b['name']}: {b.get('error_message', 'error')}")
            continue
        r = rows[(file, level, "/".join(rest))]
        r[who].append(b["bytes_per_second"] / 1e6)
        r["in"] = int(b.get("in_bytes", 0)) or r["in"]
        if who == "ref":
            r["out"] = int(b.get("out_bytes", 0)) or r["out"]
        r["label"] = b.get("label", r["label"])
    return rows, errors


def fmt_speed(v):
    med = statistics.median(v)
    digits = 1 if med >= 10 else 2
    return f"{med:.{digits}f} ({min(v):.{digits}f}-{max(v):.{digits}f})"


def human(n):
    return f"{n / 1048576:.1f} MiB" if n >= 1048576 else f"{n / 1024:.1f} KiB"


def section(data, rows, errors, args, cache, run_cmd, load_before, load_after):
    ctx = data.get("context", {})
    sizes = {}
    for item in ctx.get("corpus_files", "").split():
        name, _, size = item.rpartition("=")
        if size.isdigit():
            sizes[name] = int(size)
    reps = data.get("bench_repetitions", data.get("perf_table_repetitions", args.repetitions))
    min_time = '/'.join(f'{t:g}' for t in sorted(MIN_TIMES)) or '?'
    lines = ["## Single thread: core against the reference, in memory", "",
             f"Generated by `{run_cmd}` on {ctx.get('date', C.now())}.", "",
             "Method: `build/core_vs_reference` (Google Benchmark), one thread, wall clock, compression of an input "
             "already in memory (no I/O, warm cache) into a preallocated buffer, gzip header and CRC-32 included; "
             f"{C.plural(reps, 'repetition')} of each benchmark (each at least {min_time} s), all shuffled, median (min-max) "
             "MB/s (10^6 input bytes per second); every timed run's output checked byte for byte against the "
             "reference's (outside the timing).", ""]
    lines.append("| File | Size | Level | Input timed | ours MB/s median (min-max) "
                 "| reference MB/s median (min-max) | ours/ref | compressed |")
    lines.append("|---|---:|---:|---|---:|---:|---:|---:|")
    ratios = []
    incomplete = []
    for (file, level, rest) in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
        r = rows[(file, level, rest)]
        if not r["ours"] or not r["ref"]:
            incomplete.append(f"{file} L{level}: " + ("no ours runs" if not r["ours"] else "no reference runs"))
            continue
        ratio = statistics.median(r["ours"]) / statistics.median(r["ref"])
        ratios.append((ratio, file, level))
        size = sizes.get(file)
        timed = "all" if not rest else f"first {human(r['in'])}" if r["in"] else rest
        comp = f"{100.0 * r['out'] / r['in']:.1f} %" if r["in"] and r["out"] else "?"
        lines.append(f"| {file} | {human(size) if size else '?'} | {level} | {timed} "
                     f"| {fmt_speed(r['ours'])} | {fmt_speed(r['ref'])} | {ratio:.3f} | {comp} |")
    lines.append("")
    if ratios:
        med = statistics.median(r for r, _, _ in ratios)
        lo = min(ratios)
        hi = max(ratios)
        lines.append(f"**Ours/reference over all {len(ratios)} rows: median {med:.3f}, "
                     f"minimum {lo[0]:.3f} ({lo[1]} level {lo[2]}), maximum {hi[0]:.3f} "
                     f"({hi[1]} level {hi[2]}).**  Above 1: we are faster.")
        lines.append("")
    for e in errors + incomplete:
        lines.append(f"- Problem: {e}")
    if errors or incomplete:
        lines.append("")

    flags = compile_flags(args.build_dir)
    build_type = cache.get("CMAKE_BUILD_TYPE", "?")
    options = ", ".join(f"{k}={cache[k]}" for k in ("FLOWDEFLATE_NATIVE", "FLOWDEFLATE_ASAN",
                                                    "FLOWDEFLATE_TSAN") if k in cache)
    lines += [
        "Details:",
        "",
        f"- Machine: {C.machine()}; load average before {load_before}, after {load_after}.",
        f"- Build: {C.compiler(cache)}; CMAKE_BUILD_TYPE={build_type}"
        + (f"; {options}" if options else "") + "; core compiled with `"
        + (flags if flags is not None else "? (no build/compile_commands.json)") + "`.",
        f"- Ours: flowdeflate {ctx.get('flowdeflate_version', '?')}, commit "
        f"{data.get('bench_commit', C.commit())}.",
        f"- Reference: libdeflate {ctx.get('reference_version', '?')} "
        "(`build/reference/libdeflate.so.0`, loaded into the same process).",
        "- Both contenders make their compressor once per level outside the timing; a repetition is one or "
        "more compressions, and the ratio is of the medians.",
        "- Levels 10-12 compress only the first "
        f"{human(int(ctx.get('slow_level_cap_bytes', 16777216)))} of each file (they run at about "
        "5-10 MB/s). Files over 200 MB are not measured here.",
        ("- Corpus: `scripts/corpus --small` (Debian packages; `build/corpus/MANIFEST.sha256` "
         "and `SOURCES.txt` name the exact files)." if C.CORPUS == C.DEFAULT_CORPUS else f"- Corpus: `{C.CORPUS}`."),
    ]
    if ctx.get("library_build_type") == "debug":
        lines.append("- Debian's Google Benchmark library reports itself as a debug build; that "
                     "affects only the harness's bookkeeping, not the timed code.")
    if ctx.get("assertions", "").startswith("ON"):
        lines.append("- WARNING: the benchmark was built without NDEBUG (not a release build).")
    return C.block("single-thread", lines)


def run(args):
    if args.repetitions < 1:
        C.die("--repetitions must be at least 1")
    cache = C.cmake_cache(args.build_dir)
    if cache.get("CMAKE_BUILD_TYPE", "Release") not in ("Release", "RelWithDebInfo"):
        C.say(f"warning: CMAKE_BUILD_TYPE={cache.get('CMAKE_BUILD_TYPE')}: not an optimised build")
    for opt in ("FLOWDEFLATE_ASAN", "FLOWDEFLATE_TSAN"):
        if cache.get(opt, "OFF").upper() in ("ON", "1", "TRUE", "YES"):
            C.say(f"warning: {opt} is on in {args.build_dir}: sanitised timings mean nothing")

    run_cmd = args.command
    load_before = C.load()
    if args.json:
        with open(args.json) as f:
            data = json.load(f)
        run_cmd = data.get("bench_command", data.get("perf_table_command", run_cmd))
    else:
        if not os.access(args.binary, os.X_OK):
            C.die(f"no benchmark program at {args.binary}: build the core_vs_reference target")
        if os.getloadavg()[0] > 0.5:
            C.say(f"warning: load average is {load_before}: is something else running?")
        os.makedirs(os.path.dirname(args.out_json), exist_ok=True)
        cmd = [args.binary, f"--benchmark_repetitions={args.repetitions}",
               "--benchmark_enable_random_interleaving=true",
               f"--benchmark_out={args.out_json}", "--benchmark_out_format=json"]
        if args.filter:
            cmd.append(f"--benchmark_filter={args.filter}")
        cmd += args.extra
        C.say("running " + " ".join(shlex.quote(c) for c in cmd))
        rc = subprocess.call(cmd, cwd=C.ROOT)
        if rc != 0:
            C.die(f"the benchmark program failed (exit status {rc}); {args.doc} left unchanged", 1)
        with open(args.out_json) as f:
            data = json.load(f)
        data["bench_command"] = run_cmd  # so that --json can name it later
        data["bench_commit"] = C.commit()
        data["bench_repetitions"] = args.repetitions
        data["bench_load_before"] = load_before
        data["bench_load_after"] = C.load()
        with open(args.out_json, "w") as f:
            json.dump(data, f, indent=1)
    ctx_load = " ".join(f"{x:.2f}" for x in data.get("context", {}).get("load_avg", [])) or "?"
    load_before = data.get("bench_load_before", data.get("perf_table_load_before", ctx_load))
    load_after = data.get("bench_load_after", data.get("perf_table_load_after", "?"))

    rows, errors = parse(data)
    if not rows:
        C.die("no ours/ref benchmark results in the JSON", 1)
    text = section(data, rows, errors, args, cache, run_cmd, load_before, load_after)
    C.emit(args.doc, {"single-thread": text}, args.dry_run)
    return 1 if errors else 0

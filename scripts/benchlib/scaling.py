"""scripts/bench scaling - projects flowdeflate's whole-program speedup over libdeflate's
gzip at 4, 8, 16 and 64 cores from measured per-chunk costs, checks the projection against
the thread counts this machine really has, and regenerates the section of
docs/PERFORMANCE.md between <!-- BEGIN scaling --> and <!-- END scaling -->.
`scripts/bench peers` writes the same section from its own measurements.

  --runs N   measured runs per command after one warm-up (default 5)
  --quick    packages.txt, level 6, 3 runs

What is measured, per corpus file and level:
  - hyperfine, in one run (fresh processes, warm-up, order reversed between scenarios):
    libdeflate-gzip -L -c FILE, flowdeflate -L -pN -c FILE for N = 1 .. the cores here,
    and `cat FILE` (how fast the reader can get the input at all: the I/O bound);
  - one run of flowdeflate -L -pP --stats for every P, the projected ones included: with
    more threads than cores the graph runs as it would on P cores (the search window is
    P + 4 chunks, the automatic track choice weighs P workers), and every node's cost is
    the CPU time of the thread that ran it (core/clock.hpp), so time-slicing does not
    inflate it.  Out come each chunk's search and resolve cost, and the Code and Assemble
    totals.

The model replays the graph on P cores, chunk by chunk (a list-scheduling simulation):
  - the reader (its own thread) reads a chunk once the search window has room for it, at
    the speed `cat` measured;
  - P workers run, in this order of preference: the resolver on the next chunk (serial,
    in chunk order, once that chunk is searched), assembly (serial, in order), coding of
    resolved chunks, and the search of the next chunk if it lies within the window
    (chunks searched at most `ahead` = P + 4 past the last resolved one);
  - T(P) = the simulated end of assembly + O, where O (start-up, exit, the header and the
    last write: what no node counts) = measured wall(2 threads) - simulated(2 threads)
    (one thread runs the sequential compressor, which has no nodes to simulate).
  - A second projection splits O: N(P), the CPU time of the `-pP --stats` run that no node
    counts (the process's CPU time, `process_cpu_ns`, less the nodes': the reader's and
    writer's copies and page faults, oneTBB's scheduling), shared by the P cores, and a
    fixed latency L = O - N(2) / 2 (at least 0): T'(P) = simulated(P) + L + N(P) / P.  On
    2 cores N(2) / 2 was most of O (docs/notes/parallel-levels-1-9.md, "What O is"): the
    constant O counts the I/O threads' CPU as if 16 cores queued for it as 2 do.  T' equals
    T at P = 2.
It assumes one core per worker at this machine's per-core speed (no shared-cache or
memory-bandwidth limit) and that libdeflate's gzip, one thread, takes as long as here.
Every thread count this machine has beyond 2 checks the projection against the measured
run; the error is in the table.

What bounds the run at P cores is the largest of these lower bounds, unless the window
costs more than 10%:
  resolver  its serial work (every chunk's resolve, from the first chunk's search on);
  search    all node work / P (search, code, resolve and assemble share the P workers);
  I/O       reading the whole input at `cat`'s speed;
  window    the simulated time with the window exceeds the one without a window limit
            by more than 10% (too few chunks ahead to keep the workers busy);
  fill      none of the above within 20%: the time to fill and drain the pipeline
            (few chunks for this many cores).
"""
import csv
import os
import shlex
import tempfile

from . import common as C

NAME = "scaling"
HELP = "the scaling model alone: projected speedup at 4-64 cores (peers writes it too)"
PREPARE = True
WRITES = [("doc", ["scaling"])]
PROJECTED = [4, 8, 16, 64]  # cores the model projects
HERE = list(range(1, (os.cpu_count() or 2) + 1))  # thread counts measured here
CALIBRATION = 2  # the thread count O is calibrated on (where this machine has it)

# The case study's measured factors over libdeflate at levels 1/6/9 (its pictures 3 and 8).
CASE_STUDY = [
    ("enwik9 (text, 1 GB), whole program", "i9-11900K, 8 cores, 16 threads", (4.3, 3.7, 4.9)),
    ("Silesia (12 files, 212 MB), whole program", "i9-11900K, 8 cores, 16 threads", (2.4, 2.2, 3.6)),
    ("Silesia, whole program", "Xeon E3-1275 v6, 4 cores", (2.1, 1.7, 2.6)),
    ("enwik9, whole program", "Core Ultra 7 155H laptop", (4.1, 3.3, 2.0)),
    ("text log 26 MB, in memory (picture 3)", "i9-11900K, 16 threads", (2.4, 1.5, 3.1)),
    ("source code 12 MB, in memory (picture 3)", "i9-11900K, 16 threads", (2.0, 0.9, 1.7)),
    ("binary database 163 MB, in memory (picture 3)", "i9-11900K, 16 threads", (2.3, 3.6, 8.2)),
    ("precompiled header 77 MB, in memory (picture 3)", "i9-11900K, 16 threads", (2.2, 2.6, 6.8)),
]



COUNTERS_CSV = os.path.join(C.OUT, "scaling-counters.csv")

def simulate(st, cores, read_s_per_byte, ahead=None):
    """The graph on `cores` workers with the per-chunk costs of `st` (seconds)."""
    n = st["chunks"]
    if n == 0:
        return 0.0
    search = [x / 1e6 for x in st["chunk_search_us"]]
    resolve = [x / 1e6 for x in st["chunk_resolve_us"]]
    chunk = st["chunk"]
    size = [min(chunk, st["in_bytes"] - i * chunk) for i in range(n)]
    size[-1] = max(size[-1], 0)
    total = max(1, sum(size))
    code = [st["code_ns"] / 1e9 * s / total for s in size]
    assemble = [st["assemble_ns"] / 1e9 * s / total for s in size]
    read = [s * read_s_per_byte for s in size]
    ahead = n if ahead is None else ahead

    t = 0.0
    events = []  # (end time, kind, chunk)
    free = cores
    reader_busy = False
    next_read = next_search = next_resolve = next_assemble = 0
    read_done = [False] * n
    searched = [False] * n
    resolved = 0
    coded = [False] * n
    to_code = []
    resolver_busy = assembler_busy = False
    end = 0.0
    while True:
        # The reader fills the window.
        if not reader_busy and next_read < n and next_read < resolved + ahead:
            events.append((t + read[next_read], "read", next_read))
            next_read += 1
            reader_busy = True
        # Free workers take work, most urgent first.
        while free > 0:
            if not resolver_busy and next_resolve < n and searched[next_resolve]:
                events.append((t + resolve[next_resolve], "resolve", next_resolve))
                resolver_busy = True
            elif not assembler_busy and next_assemble < n and coded[next_assemble]:
                events.append((t + assemble[next_assemble], "assemble", next_assemble))
                assembler_busy = True
            elif to_code:
                i = to_code.pop(0)
                events.append((t + code[i], "code", i))
            elif next_search < n and read_done[next_search] and next_search < resolved + ahead:
                events.append((t + search[next_search], "search", next_search))
                next_search += 1
            else:
                break
            free -= 1
        if not events:
            break
        events.sort()
        t, kind, i = events.pop(0)
        if kind == "read":
            reader_busy = False
            read_done[i] = True
            continue
        free += 1
        if kind == "search":
            searched[i] = True
        elif kind == "resolve":
            resolver_busy = False
            resolved += 1
            next_resolve += 1
            to_code.append(i)
        elif kind == "code":
            coded[i] = True
        elif kind == "assemble":
            assembler_busy = False
            next_assemble += 1
            end = t
    return end


def bound(st, cores, read_s_per_byte):
    with_window = simulate(st, cores, read_s_per_byte, ahead=cores + 4)
    unlimited = simulate(st, cores, read_s_per_byte)
    first = st["chunk_search_us"][0] / 1e6 if st["chunk_search_us"] else 0.0
    work = sum(st[k] for k in C.NODES) / 1e9
    lower = {
        "resolver": first + st["resolve_ns"] / 1e9,
        "search": work / cores,
        "I/O": st["in_bytes"] * read_s_per_byte,
    }
    name = max(lower, key=lower.get)
    if with_window > 1.10 * unlimited:
        name = "window"
    elif with_window > 1.20 * lower[name]:
        name = "fill"
    return with_window, name


def project(name, path, level, med, same, tmp):
    """One file and level: `med` holds hyperfine medians (seconds) for "ref", "cat" and
    "p1" .. "pN" (the cores here).  Runs the --stats runs and the model; returns the row."""
    size = os.path.getsize(path)
    read = med["cat"] / max(1, size)
    # One thread runs the sequential compressor (Options::parallel()), which has no nodes
    # to count: its counters come from the graph with one worker (--tracks history keeps
    # it), and the constant O from the smallest parallel run measured here (the one-worker
    # graph carries ~0.1 s that no node counts and no parallel run has).
    q = shlex.quote(path)
    st = {P: C.stats_of(f"{C.FD} -{level} -p{P}{' --tracks history' if P == 1 else ''} -c {q}", tmp)
          for P in sorted(set(HERE + PROJECTED))}
    calibrate = CALIBRATION if CALIBRATION in HERE else 1
    overhead = max(0.0, med[f"p{calibrate}"] - simulate(st[calibrate], calibrate, read,
                                                        ahead=5 if calibrate == 1 else None))
    model, split = {}, {}
    latency = max(0.0, overhead - non_node_s(st[calibrate]) / calibrate)
    for P in sorted(st):
        t, what = bound(st[P], P, read)
        model[P] = (t + overhead, what)
        split[P] = t + latency + non_node_s(st[P]) / P
    C.say(f"scaling: {name} L{level}: ref {med['ref']:.3f}s "
          + " ".join(f"p{P} {'meas ' + format(med[f'p{P}'], '.3f') + ' ' if P in HERE else ''}"
                     f"model {model[P][0]:.3f} ({model[P][1]})" for P in sorted(model)))
    return dict(name=name, size=size, L=level, same=same, med=med, model=model, overhead=overhead, st=st,
                split=split, latency=latency)


def non_node_s(st):
    """CPU seconds of a --stats run that no node counts (0 where the line predates the field)."""
    if "process_cpu_ns" not in st:
        return 0.0
    return max(0.0, (st["process_cpu_ns"] - sum(st[k] for k in C.NODES)) / 1e9)


def section(rows, runs, command):
    """The <!-- BEGIN scaling --> section of PERFORMANCE.md, markers included."""
    out = [f"Generated by `{command.strip()}` on {C.now()} ({C.cpu_model()}, {C.cores()} CPUs, load average "
           f"{C.load()} at the end; flowdeflate {C.commit()}; reference {C.reference_version()}).", "",
           f"Method: hyperfine, fresh processes, 1 warm-up and {C.runs(runs)}, medians, warm page cache, output "
           "discarded; `cat FILE`, timed in the same hyperfine run, gives the read speed; `identical`: every "
           "measured thread count's output equals libdeflate-gzip's (cmp); counters from one `--stats` run per "
           "thread count (node costs are thread CPU time, so runs above the machine's cores, oversubscribed on "
           "purpose, still give each node's own cost).", "",
           "Speedup over libdeflate-gzip (one thread, measured here) at the same level: measured on the "
           "cores this machine has, projected by the model beyond; in brackets what bounds the run there "
           "(`scripts/bench scaling --help` explains the model and the bounds).", ""]
    head = "| File | Level | identical | libdeflate-gzip s | " + " | ".join(
        f"{P} {'thread' if P == 1 else 'threads'}: measured / model" for P in HERE) + " | " + " | ".join(
        f"{P} cores (model)" for P in PROJECTED) + " | 16 cores (model, O split) |"
    out += [head, "|---|---:|---|" + "---:|" * (head.count("|") - 4)]
    errors = []
    for r in rows:
        m, ref = r["med"], r["med"]["ref"]
        cells = []
        for P in HERE:
            meas, mod = m[f"p{P}"], r["model"][P][0]
            if P == 1 and CALIBRATION in HERE and CALIBRATION != 1:
                cells.append(f"{ref / meas:.2f}x / - (sequential)")
            elif P == (CALIBRATION if CALIBRATION in HERE else 1):
                cells.append(f"{ref / meas:.2f}x / {ref / mod:.2f}x (calibration)")
            else:
                errors.append((mod - meas) / meas)
                cells.append(f"{ref / meas:.2f}x / {ref / mod:.2f}x ({(mod - meas) / meas * 100:+.0f}%)")
        for P in PROJECTED:
            mod, what = r["model"][P]
            cells.append(f"**{ref / mod:.2f}x** ({what})")
        cells.append(f"{ref / r['split'][16]:.2f}x" if 16 in r["split"] else "-")
        out.append(f"| {r['name']} | {r['L']} | {'yes' if r['same'] else '**NO**'} | {ref:.3f} | "
                   + " | ".join(cells) + " |")
    if errors:
        worst = max(errors, key=abs)
        out += ["", f"The model against the measured multi-thread runs: largest error {worst * 100:+.1f}% "
                f"(model minus measured time, over {len(errors)} runs; each in its cell above)."]
    else:
        out += ["", "With O calibrated on the 2-thread run, this 2-core machine leaves no thread count to check "
                "the model against: a machine with more cores checks it at 3 and more."]
    out += ["", "One thread: `-p1` runs the sequential compressor, which the model does not simulate; the "
            "counters at P = 1 below are the parallel graph's with one worker (`-p1 --tracks history`). "
            "O is calibrated on the 2-thread run (the one-worker graph carries about 0.1 s that no node "
            "counts and no parallel run has: tar level 1, 0.83 s measured against 0.68 s of node time).", "",
            "The last column splits O (`scripts/bench scaling --help`): the CPU time no node counts "
            "(non-node below) shared by the cores, and the rest of O as a fixed latency (L below). It is "
            "a sensitivity, not the projection the targets are judged on: no machine with more cores has "
            "checked either yet.", "",
            "What the projections rest on: the counters of the `-pP --stats` runs (CPU seconds; repairs "
            "as a share of the input; serial: resolve + assemble over all node CPU; non-node: the process's "
            "CPU time less the nodes'; O, the constant calibrated on the 2-thread run, and L, its part "
            "left after the 2-thread run's non-node CPU shared by 2 cores). Below, P = 2 (measured) and "
            f"P = 16; every P in `{os.path.relpath(COUNTERS_CSV, C.ROOT)}` (not in git):", "",
            "| File | Level | P | search | resolve | code | assemble | serial | non-node | chunks | tracks | repairs | O s | L s | worker imbalance |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    counters = []
    for r in rows:
        for P, st in sorted(r["st"].items()):
            # Above the cores here the run is oversubscribed on purpose: its workers' shares say nothing.
            imbalance = C.imbalance_cell(st) if P in HERE else "-"
            cells = [r["name"], r["L"], P, f"{st['search_ns'] / 1e9:.3f}", f"{st['resolve_ns'] / 1e9:.3f}",
                     f"{st['code_ns'] / 1e9:.3f}", f"{st['assemble_ns'] / 1e9:.3f}",
                     f"{C.serial_share(st) * 100:.1f}%", f"{non_node_s(st):.3f}", st["chunks"], st["tracks"],
                     f"{st['repair_bytes'] / max(1, st['in_bytes']) * 100:.2f}%", f"{r['overhead']:.3f}",
                     f"{r['latency']:.3f}", imbalance]
            counters.append(cells)
            if P in (2, 16):
                out.append("| " + " | ".join(str(c) for c in cells) + " |")
    os.makedirs(os.path.dirname(COUNTERS_CSV), exist_ok=True)
    with open(COUNTERS_CSV, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "level", "P", "search_s", "resolve_s", "code_s", "assemble_s", "serial", "non_node_s",
                    "chunks", "tracks", "repairs", "O_s", "L_s", "worker_imbalance"])
        w.writerows(counters)
    out += ["", "worker imbalance (thread counts measured here): the slowest search worker's CPU per chunk over the "
            "fastest's in that `--stats` run; well above 1.00, the host ran one worker slower and the run's times "
            "understate the program (`worker_imbalance` in `scripts/benchlib/common.py`).", "",
            "The published ctDeflate case study's measured factors over libdeflate at levels 1 / 6 / 9 (its "
            "figures and machines), beside which these projections stand:", "",
            "| Input | Machine | level 1 | level 6 | level 9 |", "|---|---|---:|---:|---:|"]
    for what, machine, f in CASE_STUDY:
        out.append(f"| {what} | {machine} | {f[0]}x | {f[1]}x | {f[2]}x |")
    return C.block("scaling", out)


def add_arguments(p):
    C.corpus_arguments(p, 5, quick="packages.txt, level 6, 3 runs",
                       runs_help="measured runs per command after one warm-up")


def run(a):
    files, levels = C.corpus_selection(a, 3, [6])
    C.require("hyperfine", C.FD, C.REF)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            path = C.corpus_path(name)
            q = shlex.quote(path)
            C.warm([path])
            for L in levels:
                cmds = {"ref": f"{C.REF} -{L} -c {q}", "cat": f"cat {q}"}
                for t in HERE:
                    cmds[f"p{t}"] = f"{C.FD} -{L} -p{t} -c {q}"
                same = all(C.identical(cmds[f"p{t}"], cmds["ref"], tmp) for t in HERE)
                res = C.hyperfine(cmds, a.runs, tmp, reverse=len(rows) % 2 == 1)
                med = {k: v["median"] for k, v in res.items()}
                rows.append(project(name, path, L, med, same, tmp))
    C.emit(a.doc, {"scaling": section(rows, a.runs, a.command)}, a.dry_run)
    return 0

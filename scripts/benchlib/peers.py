"""scripts/bench peers - flowdeflate against every compressor a user would pick instead,
whole program, on the real corpus.  Regenerates the section of docs/PERFORMANCE.md between
<!-- BEGIN bench --> and <!-- END bench -->, its plots (docs/img/bench-*.svg, gnuplot) and
the raw results (build/bench/results.json and results.csv); and, from the same
measurements, the scaling model's section <!-- BEGIN scaling --> (`scripts/bench scaling
--help`: projected speedup at 4-64 cores, checked against the thread counts measured here).

  default    every corpus file but the 1.3 GB tarball, each on its own at levels 1 6 9, and
             the whole set in one command per contender (one gzip member per file) at the
             middle level (6); 5 runs
  --quick    packages.txt only, levels 1 and 6, 3 runs (a few minutes)

Contenders, at the same level, each a fresh process writing to /dev/null:
  flowdeflate --sequential; flowdeflate -pT for T = 1 .. --threads (default: the cores);
  libdeflate-gzip (the reference, 1.19+); pigz -p N; gzip; igzip (ISA-L) where its levels
  allow (0-3: it runs at level 1 only here); and `cat FILE` (the read speed, for the model).
Method: hyperfine, one warm-up and --runs measured runs per contender, the order of
contenders reversed between scenarios, median (min-max); warm page cache; peak RSS from
/usr/bin/time -v (one run each).  Every flowdeflate output is compared byte for byte with
libdeflate-gzip's; every other contender's output is decompressed with gzip -dc and
compared with the input.  Sizes and ratios are recorded.  Versions: our commit, the
reference's, the compiler and flags, each peer's.
"""
import csv
import json
import os
import tempfile

from . import common as C
from . import scaling

NAME = "peers"
HELP = "each corpus file at -1/-6/-9 against libdeflate-gzip, pigz, gzip, igzip; plots"
PREPARE = True
WRITES = [("doc", ["bench", "scaling"])]


def add_arguments(p):
    C.corpus_arguments(p, 5, threads=(None, "the most flowdeflate threads, and pigz's"),
                       quick="packages.txt only, levels 1 and 6, 3 runs", runs_help="measured runs per contender")
    p.add_argument("--render", action="store_true", help="no measuring: the bench section and plots again from "
                   "build/bench/results.json (--runs as measured, if it does not say)")


def contenders(level, q, threads):
    """name -> (command, kind): kind 'ours' (must equal the reference) or 'peer'."""
    c = {"libdeflate-gzip": (f"{C.REF} -{level} -c {q}", "ref"),
         "flowdeflate --sequential": (f"{C.FD} -{level} --sequential -c {q}", "ours")}
    for t in range(1, threads + 1):
        c[f"flowdeflate -p{t}"] = (f"{C.FD} -{level} -p{t} -c {q}", "ours")
    if level <= 9:
        c[f"pigz -p{threads}"] = (f"pigz -{level} -p {threads} -c {q}", "peer")
        c["gzip"] = (f"gzip -{level} -c {q}", "peer")
    if level <= 3:
        c["igzip"] = (f"igzip -{level} -c {q}", "peer")
    return c


def plots(rows, threads):
    """Throughput against threads (one plot per file, a line per level, the reference and
    pigz as points at their thread count), and size against speed (one per file and level)."""
    os.makedirs(C.IMG, exist_ok=True)
    made = {}  # file -> its plots
    files = sorted({r["file"] for r in rows})
    for name in files:
        slug = C.slug(name)
        data = os.path.join(C.OUT, f"threads-{slug}.dat")
        with open(data, "w") as f:
            for r in rows:
                if r["file"] != name or not r["contender"].startswith("flowdeflate -p"):
                    continue
                f.write(f"{r['level']} {int(r['contender'].split('-p')[1])} {r['mb_s']:.2f}\n")
        refs = os.path.join(C.OUT, f"peers-{slug}.dat")
        with open(refs, "w") as f:
            for r in rows:
                if r["file"] == name and r["contender"] in ("libdeflate-gzip", f"pigz -p{threads}"):
                    t = 1 if r["contender"] == "libdeflate-gzip" else threads
                    f.write(f"{r['level']} {t} {r['mb_s']:.2f} \"{r['contender']} -{r['level']}\"\n")
        levels = sorted({r["level"] for r in rows if r["file"] == name})
        svg = os.path.join(C.IMG, f"bench-threads-{slug}.svg")
        lines = ", ".join(f"'{data}' using ($1=={L}?$2:1/0):3 with linespoints title 'flowdeflate -{L}'"
                          for L in levels)
        C.gnuplot(f"""set terminal svg size 640,400 dynamic font 'sans,11'
set output '{svg}'
set title 'Throughput against threads: {name}'
set xlabel 'threads (-p)'; set ylabel 'MB/s (input)'; set key outside right
set xrange [0.5:{threads + 0.5}]; set xtics 1; set yrange [0:*]
plot {lines}, '{refs}' using 2:3 with points pt 7 ps 1.2 title 'libdeflate-gzip (1) / pigz (N)'
""")
        made[name] = [svg]
        for L in levels:
            pts = os.path.join(C.OUT, f"size-{slug}-{L}.dat")
            with open(pts, "w") as f:
                for r in rows:
                    if r["file"] == name and r["level"] == L:
                        f.write(f"{r['mb_s']:.2f} {100.0 * r['ratio']:.3f} \"{r['contender']}\"\n")
            svg = os.path.join(C.IMG, f"bench-size-speed-{slug}-L{L}.svg")
            C.gnuplot(f"""set terminal svg size 640,400 dynamic font 'sans,11'
set output '{svg}'
set title 'Size against speed: {name}, level {L}'
set xlabel 'MB/s (input)'; set ylabel 'compressed size (% of input)'; set key off
set offsets graph 0.1, graph 0.25, graph 0.1, graph 0.1
plot '{pts}' using 1:2 with points pt 7 ps 1.2, '' using 1:2:3 with labels offset 0,1 font 'sans,9'
""")
            made[name].append(svg)
    return made


def run(a):
    if a.render:
        return render(a)
    files, levels = C.corpus_selection(a, 3, [1, 6])
    C.require("hyperfine", "/usr/bin/time", "pigz", "gzip", "igzip", "gnuplot", C.FD, C.REF)
    rows, problems = [], []
    # Each file on its own, then the whole set in one command per contender (one gzip
    # member per file, as `gzip -c a b` writes them), at the middle of the levels asked for
    # (6 by default): at every level it would double the run.
    scenarios = [(name, [C.corpus_path(name)], levels) for name in files]
    if len(files) > 1:
        scenarios.append((f"whole set ({len(files)} files)", [C.corpus_path(n) for n in files],
                          [levels[len(levels) // 2]]))
    # The model projects from -p1 .. -p(cores): only where all of them are measured.
    model = all(t <= a.threads for t in scaling.HERE)
    scaling_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        scenario = 0
        for name, paths, scenario_levels in scenarios:
            q = C.quote(paths)
            size = sum(os.path.getsize(p) for p in paths)
            C.warm(paths)
            for L in scenario_levels:
                cs = contenders(L, q, a.threads)
                # Correctness first: ours byte for byte; peers by round trip.
                ref_out = os.path.join(tmp, "ref.gz")
                C.sh(f"{cs['libdeflate-gzip'][0]} > {ref_out}")
                sizes, checks, rss = {}, {}, {}
                for k, (cmd, kind) in cs.items():
                    out = os.path.join(tmp, "out.gz")
                    rss[k] = C.peak_rss_mib(cmd, out)  # one run gives the output and the peak RSS
                    sizes[k] = os.path.getsize(out)
                    if kind == "ours":
                        checks[k] = "identical" if C.sh(f"cmp -s {out} {ref_out}").returncode == 0 else "DIFFERS"
                    else:  # the reference too
                        ok = C.sh(f"gzip -dc {out} > {tmp}/raw && cat {q} | cmp -s - {tmp}/raw").returncode == 0
                        checks[k] = "round-trips" if ok else "BAD"
                    if checks[k] in ("DIFFERS", "BAD"):
                        problems.append(f"{name} L{L} {k}: {checks[k]}")
                timed = {k: c for k, (c, _) in cs.items()}
                if len(paths) == 1:
                    timed["cat"] = f"cat {q}"  # the read speed, for the scaling model
                res = C.hyperfine(timed, a.runs, tmp, reverse=scenario % 2 == 1)
                scenario += 1
                if len(paths) == 1 and model:
                    med = {"ref": res["libdeflate-gzip"]["median"], "cat": res["cat"]["median"]}
                    for t in scaling.HERE:
                        med[f"p{t}"] = res[f"flowdeflate -p{t}"]["median"]
                    same = all(checks[f"flowdeflate -p{t}"] == "identical" for t in scaling.HERE)
                    scaling_rows.append(scaling.project(name, paths[0], L, med, same, tmp))
                for k, (cmd, kind) in cs.items():
                    r = res[k]
                    rows.append(dict(file=name, size=size, level=L, contender=k, median_s=r["median"],
                                     min_s=r["min"], max_s=r["max"], runs=len(r["times"]),
                                     mb_s=size / 1e6 / r["median"], out_bytes=sizes[k], ratio=sizes[k] / size,
                                     rss_mib=rss[k], check=checks[k]))
                C.say(f"{name} L{L}: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cs))

    versions = {
        "flowdeflate": C.commit(),
        "reference": C.reference_version(),
        "compiler": C.compiler_flags(),
        "pigz": C.version_of("pigz --version"),
        "gzip": C.version_of("gzip --version"),
        "igzip": C.version_of("igzip --version"),
        "hyperfine": C.version_of("hyperfine --version"),
        "machine": f"{C.cores()} CPUs, {C.cpu_model()}",
        "date": C.now(),
        "command": a.command,
    }
    with open(os.path.join(C.OUT, "results.json"), "w") as f:
        json.dump({"versions": versions, "rows": rows, "runs": a.runs}, f, indent=1)
    with open(os.path.join(C.OUT, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    blocks = {"bench": bench_block(a, scenarios, rows, versions, problems)}
    if model:
        blocks["scaling"] = scaling.section(scaling_rows, a.runs, a.command)
    else:
        C.say(f"--threads {a.threads} leaves out thread counts the scaling model needs: its section is unchanged")
    C.emit(a.doc, blocks, a.dry_run)
    return 1 if problems else 0


def bench_block(a, scenarios, rows, versions, problems):
    """The <!-- BEGIN bench --> section from the measured rows (and its plots)."""
    made = {} if a.dry_run else plots(rows, a.threads)

    lines = [f"Generated by `{versions['command']}` on {versions['date']} ({versions['machine']}; flowdeflate "
             f"{versions['flowdeflate']}; reference {versions['reference']}; {versions['compiler']}; "
             f"{versions['pigz']}; {versions['gzip']}; {versions['igzip']}; {versions['hyperfine']}).", "",
             f"Method: hyperfine, each contender a fresh process writing to /dev/null, 1 warm-up and {C.runs(a.runs)}, "
             "median (min-max), the order of contenders reversed between scenarios, warm page cache; timing includes "
             "start-up, reading, compression with CRC-32 and writing. Peak RSS: `/usr/bin/time -v`, one run each. "
             "Output: flowdeflate's compared byte for byte with libdeflate-gzip's (`identical`); the others' "
             "decompressed with `gzip -dc` and compared with the input (`round-trips`). igzip runs only where its "
             "levels (0-3) match, here level 1.", ""]
    lines += ["One table per file (and the whole set in one command): each level's time, median "
              "(min-max) in seconds, its speed against libdeflate-gzip's and the output's size (% of the input); "
              "peak RSS at the middle level. Every output checked: " + ("all passed." if not problems else
                                                                     "see Problems below."), ""]
    for name, _, scenario_levels in scenarios:
        sel = [r for r in rows if r["file"] == name]
        if not sel:
            continue
        mid = scenario_levels[len(scenario_levels) // 2]
        head = ["contender"]
        for L in scenario_levels:
            head += [f"-{L} s", f"-{L} vs ref", f"-{L} size"]
        head.append(f"peak RSS -{mid}")
        body = []
        for k in dict.fromkeys(r["contender"] for r in sel):
            row = [k]
            for L in scenario_levels:
                r = next((x for x in sel if x["contender"] == k and x["level"] == L), None)
                ref = next((x for x in sel if x["contender"] == "libdeflate-gzip" and x["level"] == L), None)
                row += ([f"{r['median_s']:.3f} ({r['min_s']:.3f}-{r['max_s']:.3f})",
                         f"{ref['median_s'] / r['median_s']:.2f}x", f"{100 * r['ratio']:.2f}%"]
                        if r and ref else ["-", "-", "-"])
            m = next((x for x in sel if x["contender"] == k and x["level"] == mid), None)
            row.append(f"{m['rss_mib']:.1f} MiB" if m else "-")
            body.append(row)
        lines += [f"**{name}** ({sel[0]['size'] / 2**20:.1f} MiB):", ""]
        lines += C.table(head, body, "l" + "rrr" * len(scenario_levels) + "r")
        lines.append("")
    if made:
        lines += ["Plots (regenerated with the table), by file:", ""]
        lines += [f"- {name}: " + " ".join(f"![{os.path.basename(p)}](img/{os.path.basename(p)})" for p in svgs)
                  for name, svgs in made.items()]
        lines.append("")
    lines += ["Raw results: `build/bench/results.json` and `.csv` (not in git)."]
    if problems:
        lines += ["", "**Problems:** " + "; ".join(problems)]
    return C.block("bench", lines)


def render(a):
    """--render: the bench section and its plots again from build/bench/results.json, no
    measuring (after a change to their layout; the scaling section is left as it is)."""
    with open(os.path.join(C.OUT, "results.json")) as f:
        saved = json.load(f)
    rows, versions = saved["rows"], saved["versions"]
    a.runs = saved.get("runs", a.runs)
    scenarios = []
    for r in rows:
        if not scenarios or scenarios[-1][0] != r["file"]:
            scenarios.append((r["file"], [], []))
        if r["level"] not in scenarios[-1][2]:
            scenarios[-1][2].append(r["level"])
    problems = [f"{r['file']} L{r['level']} {r['contender']}: {r['check']}" for r in rows
                if r["check"] in ("DIFFERS", "BAD")]
    C.emit(a.doc, {"bench": bench_block(a, scenarios, rows, versions, problems)}, a.dry_run)
    return 1 if problems else 0

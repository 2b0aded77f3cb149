"""scripts/bench summary - the headline numbers: the whole corpus in one command per
program, compressed at levels 1, 6 and 9 and decompressed, flowdeflate on one and on
--threads threads against libdeflate-gzip, pigz, igzip and gzip.

Writes README.md between <!-- BEGIN results --> and <!-- END results --> (a compression
table and a decompression table, and one line on when, where and how), README.md between
<!-- BEGIN results-plot --> and <!-- END results-plot --> (docs/img/summary.svg: compressed
size against speed, one point per program and level), and docs/PERFORMANCE.md between
<!-- BEGIN summary --> and <!-- END summary --> (what was measured, the headline ratios and
the full tables).  The raw results: build/bench/summary.json.

Input: every file of `scripts/corpus --small` (or --files) in one command per contender,
one gzip member per file as `gzip -c a b` writes them, to /dev/null.
  compression, at each level:   libdeflate-gzip -L; flowdeflate -L -p1; flowdeflate -L -pT;
                                pigz -L -p T; igzip -L where its levels (0-3) allow, so at
                                level 1 only ("n/a" at 6 and 9)
  decompression, of libdeflate-gzip -6's output of the same files:
                                libdeflate-gzip -d; flowdeflate -d -p1; flowdeflate -d -pT;
                                pigz -d -p T; igzip -d; gzip -d
T is --threads (default 2, whatever the machine's core count; the text names the cores).
Method: hyperfine, 1 warm-up and --runs measured runs (default 3) per contender, fresh
processes, median (min-max), the order of the contenders reversed from one scenario to the
next, warm page cache; MB/s = 10^6 bytes of input (compression) or of output
(decompression) per median second.  Peak RSS from /usr/bin/time -v (the checking run).
Checks, before timing: flowdeflate's compressed output byte-identical to libdeflate-gzip's;
pigz's and igzip's decompressed by gzip -dc equal to the input; every decompressor's output
equal to the input.  A failed check is listed in the sections and the exit status is 1.

  --quick    packages.txt only, levels 1 and 6, 1 run (to try it out)
"""
import json
import os
import tempfile

from . import common as C

NAME = "summary"
HELP = "the headline (README): the whole corpus at -1/-6/-9 and -d against the peers"
PREPARE = True
WRITES = [("doc", ["summary"]), ("readme", ["results", "results-plot"])]
REF_NAME = "libdeflate-gzip"


def add_arguments(p):
    C.corpus_arguments(p, 3, files="all of scripts/corpus --small", threads=(2, "T of flowdeflate -pT and pigz -p T"),
                       quick="packages.txt only, levels 1 and 6, 1 run", runs_help="measured runs per contender")


def compressors(level, q, t):
    """name -> (command, kind): "ref", "ours" (must equal the reference) or "peer"."""
    c = {REF_NAME: (f"{C.REF} -{level} -c {q}", "ref"),
         "flowdeflate -p1": (f"{C.FD} -{level} -p1 -c {q}", "ours"),
         f"flowdeflate -p{t}": (f"{C.FD} -{level} -p{t} -c {q}", "ours")}
    if level <= 9:
        c[f"pigz -p{t}"] = (f"pigz -{level} -p {t} -c {q}", "peer")
    if level <= 3:
        c["igzip"] = (f"igzip -{level} -c {q}", "peer")
    return c


def decompressors(gz, t):
    return {f"{REF_NAME} -d": f"{C.REF} -d -c {gz}", "flowdeflate -d -p1": f"{C.FD} -d -p1 -c {gz}",
            f"flowdeflate -d -p{t}": f"{C.FD} -d -p{t} -c {gz}", f"pigz -d -p{t}": f"pigz -d -p {t} -c {gz}",
            "igzip -d": f"igzip -d -c {gz}", "gzip -d": f"gzip -d -c {gz}"}


def measure(a, files, levels, tmp):
    paths = [C.corpus_path(f) for f in files]
    q = C.quote(paths)
    size = sum(os.path.getsize(p) for p in paths)
    C.warm(paths)
    want = C.digest_of_files(paths)
    comp, problems = [], []
    for i, L in enumerate(levels):
        cs = compressors(L, q, a.threads)
        ref_out, out = os.path.join(tmp, "ref.gz"), os.path.join(tmp, "out.gz")
        checks, sizes, rss = {}, {}, {}
        for k, (cmd, kind) in cs.items():  # the reference first: the others are compared with it
            target = ref_out if kind == "ref" else out
            rss[k] = C.peak_rss_mib(cmd, target)
            sizes[k] = os.path.getsize(target)
            if kind == "ref":
                checks[k] = "reference"
            elif kind == "ours":
                checks[k] = "identical" if C.sh(f"cmp -s {out} {ref_out}").returncode == 0 else "DIFFERS"
            else:
                checks[k] = "round-trips" if C.output_of(f"gzip -dc {out}")["sha256"] == want else "BAD"
            if checks[k] in ("DIFFERS", "BAD"):
                problems.append(f"{k} -{L}: {checks[k]}")
        res = C.hyperfine({k: c for k, (c, _) in cs.items()}, a.runs, tmp, reverse=i % 2 == 1)
        for k in cs:
            r = res[k]
            comp.append(dict(level=L, contender=k, median_s=r["median"], min_s=r["min"], max_s=r["max"],
                             mb_s=size / 1e6 / r["median"], out_bytes=sizes[k], ratio=sizes[k] / size,
                             rss_mib=rss[k], check=checks[k]))
        C.say(f"-{L}: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cs))
    gz = os.path.join(tmp, "corpus-6.gz")
    C.sh(f"{C.REF} -6 -c {q} > {gz}")
    ds = decompressors(gz, a.threads)
    dec = []
    checks, rss = {}, {}
    for k, cmd in ds.items():
        o = C.output_of(cmd)
        rss[k] = o["rss_mib"]
        checks[k] = "identical" if o["rc"] == 0 and o["sha256"] == want else "DIFFERS"
        if checks[k] != "identical":
            problems.append(f"{k}: output differs from the input")
    res = C.hyperfine(ds, a.runs, tmp, reverse=len(levels) % 2 == 1)
    for k in ds:
        r = res[k]
        dec.append(dict(contender=k, median_s=r["median"], min_s=r["min"], max_s=r["max"],
                        mb_s=size / 1e6 / r["median"], rss_mib=rss[k], check=checks[k]))
    C.say("-d: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in ds))
    return dict(files=files, size=size, gz_bytes=os.path.getsize(gz), levels=levels, compress=comp,
                decompress=dec, problems=problems)


def plot(m, a, svg):
    """Compressed size against speed: a line per contender through its levels."""
    data = os.path.join(C.OUT, "summary")
    os.makedirs(data, exist_ok=True)
    names = list(dict.fromkeys(r["contender"] for r in m["compress"]))
    colours = ("#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#7f7f7f")
    curves = []
    for i, name in enumerate(names):
        dat = os.path.join(data, C.slug(name) + ".dat")
        with open(dat, "w") as f:
            for r in m["compress"]:
                if r["contender"] == name:
                    f.write(f"{r['mb_s']:.2f} {100 * r['ratio']:.3f} \"-{r['level']}\"\n")
        width = 2.5 if name == f"flowdeflate -p{a.threads}" else 1.5
        curves.append(f"'{dat}' using 1:2 with linespoints pt {5 + 2 * (i % 4)} ps 1.1 lw {width} "
                      f"lc rgb '{colours[i % len(colours)]}' title '{name}', "
                      f"'{dat}' using 1:2:3 with labels offset char 0,0.9 font 'sans,9' notitle")
    return C.gnuplot(f"""set terminal svg size 760,480 dynamic font 'sans,12' background rgb 'white'
set output '{svg}'
set title "Compressed size against speed: {C.plural(len(m['files']), 'file')}, {m['size'] / 1e6:.0f} MB, in one command; {C.cores()} cores ({C.cpu_model()})"
set xlabel 'MB/s of input, median (higher is better)'
set ylabel 'compressed size, % of input'
set key outside top center horizontal maxrows 2 samplen 2
set grid
set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.05
plot {', '.join(curves)}
""")


def texts(m, a):
    """The three generated blocks' lines: README's results, README's plot, the report's summary."""
    t = a.threads
    levels = m["levels"]
    comp = {(r["contender"], r["level"]): r for r in m["compress"]}
    dec = {r["contender"]: r for r in m["decompress"]}
    names = list(dict.fromkeys(r["contender"] for r in m["compress"]))
    ref = {L: comp[(REF_NAME, L)] for L in levels}
    runs = C.runs(a.runs)
    when = f"{C.now()}, {C.cpu_model()} ({C.cores()} cores), flowdeflate {C.commit()}"
    what = (f"{C.plural(len(m['files']), 'file')} of the corpus ({', '.join(m['files'])}; {m['size'] / 1e6:.1f} MB) in one "
            "command per program, one gzip member per file as `gzip -c a b` writes them")
    checked = ("every flowdeflate output byte-identical to libdeflate-gzip's (compression) or to the input "
               "(decompression), every other program's output round-trips")
    fd, pg = f"flowdeflate -p{t}", f"pigz -p{t}"

    def speed(a_s, b_s):  # how many times faster a is than b, from their median seconds
        return f"{b_s / a_s:.2f}x"

    def size(a_bytes, b_bytes):
        d = 100 * (a_bytes / b_bytes - 1)
        return f"{abs(d):.1f}% {'larger' if d > 0 else 'smaller'}" if round(d, 1) else "the same size"

    def per(f):
        return ", ".join(f"{f(L)} at -{L}" for L in levels)

    def ctable(detailed):
        head = ["program"] + [c for L in levels for c in (f"-{L} MB/s", f"-{L} size")]
        rows = []
        for name in names:
            row = [f"**{name}**" if name == fd else name]
            for L in levels:
                r = comp.get((name, L))
                if not r:
                    row += ["n/a", "n/a"]
                    continue
                cell = f"{r['mb_s']:.0f} ({speed(r['median_s'], ref[L]['median_s'])})"
                if detailed:
                    cell += f", {r['median_s']:.2f} s ({r['min_s']:.2f}-{r['max_s']:.2f})"
                row += [cell, f"{r['out_bytes'] / 1e6:.1f} MB ({100 * r['ratio']:.1f}%)"]
            rows.append(row)
        return C.table(head, rows)

    def dtable(detailed):
        head = ["program", "MB/s", "vs libdeflate-gzip -d"] + (["s, median (min-max)", "peak RSS"] if detailed else [])
        base = dec[f"{REF_NAME} -d"]["median_s"]
        rows = [[f"**{k}**" if k == f"flowdeflate -d -p{t}" else k, f"{r['mb_s']:.0f}", speed(r["median_s"], base)] +
                ([f"{r['median_s']:.3f} ({r['min_s']:.3f}-{r['max_s']:.3f})", f"{r['rss_mib']:.1f} MiB"]
                 if detailed else []) for k, r in dec.items()]
        return C.table(head, rows)

    problems = ["", "**Problems:** " + "; ".join(m["problems"])] if m["problems"] else []
    readme = ([f"Compression: {what}; MB/s of input (in brackets: speed relative to libdeflate-gzip) "
               "and compressed size (% of input):", ""] + ctable(False) +
              ["", f"Decompression of libdeflate-gzip -6's output of the same files "
               f"({m['gz_bytes'] / 1e6:.1f} MB); MB/s of output:", ""] + dtable(False) +
              ["", f"Measured {when}: hyperfine, 1 warm-up and {runs}, medians, warm page cache; {checked}. "
               "`scripts/bench summary` regenerates this."] + problems)
    plot_line = [f"![Compressed size against speed, {C.plural(len(m['files']), 'file')} in one command, levels "
                 f"{', '.join(map(str, levels))}, {C.cores()} cores](docs/img/summary.svg)"]

    heads = [f"- {fd} against libdeflate-gzip (one thread): "
             + per(lambda L: speed(comp[(fd, L)]["median_s"], ref[L]["median_s"])) + " the speed; flowdeflate -p1: "
             + per(lambda L: speed(comp[("flowdeflate -p1", L)]["median_s"], ref[L]["median_s"]))
             + " (the output is the same bytes)."]
    if all((pg, L) in comp for L in levels):
        heads.append(f"- {fd} against {pg}: " + per(lambda L: speed(comp[(fd, L)]["median_s"], comp[(pg, L)]["median_s"]))
                     + " the speed; output " + per(lambda L: size(comp[(fd, L)]["out_bytes"], comp[(pg, L)]["out_bytes"]))
                     + " than pigz's.")
    for L in levels:
        if ("igzip", L) in comp:
            i = comp[("igzip", L)]
            heads.append(f"- igzip -{L} (its levels are 0-3): {i['mb_s']:.0f} MB/s, "
                         f"{speed(i['median_s'], comp[(fd, L)]['median_s'])} the speed of {fd} -{L}, output "
                         f"{size(i['out_bytes'], comp[(fd, L)]['out_bytes'])} than flowdeflate's.")
    dfd = dec[f"flowdeflate -d -p{t}"]["median_s"]
    heads.append(f"- Decompression, flowdeflate -d -p{t} against libdeflate-gzip -d: "
                 f"{speed(dfd, dec[f'{REF_NAME} -d']['median_s'])} the speed; against igzip -d "
                 f"{speed(dfd, dec['igzip -d']['median_s'])}, pigz -d -p{t} {speed(dfd, dec[f'pigz -d -p{t}']['median_s'])}, "
                 f"gzip -d {speed(dfd, dec['gzip -d']['median_s'])}.")
    mid = levels[len(levels) // 2]
    heads.append(f"- Peak RSS at -{mid}: {fd} {comp[(fd, mid)]['rss_mib']:.1f} MiB, libdeflate-gzip "
                 f"{ref[mid]['rss_mib']:.1f} MiB; decompressing: flowdeflate -d -p{t} "
                 f"{dec[f'flowdeflate -d -p{t}']['rss_mib']:.1f} MiB, libdeflate-gzip -d "
                 f"{dec[f'{REF_NAME} -d']['rss_mib']:.1f} MiB.")
    checks = ["", "Output checks: " + "; ".join(f"{r['contender']} -{r['level']} {r['check']}"
                                                 for r in m["compress"] if r["check"] != "reference")
              + "; decompression: " + "; ".join(f"{k} {r['check']}" for k, r in dec.items()) + "."]
    doc = ([f"Generated by `{a.command}` on {when}; reference {C.reference_version()}; "
            f"{C.version_of('pigz --version')}; {C.version_of('igzip --version')}; {C.version_of('gzip --version')}.",
            "",
            f"Method: {what}; hyperfine, fresh processes writing to /dev/null, 1 warm-up and {runs}, "
            "median (min-max), the contenders' order reversed between scenarios, warm page cache; peak RSS from "
            f"`/usr/bin/time -v`; {checked} (`gzip -dc`).", ""] + heads +
           ["", "Compression (MB/s of input; in brackets the speed relative to libdeflate-gzip, then seconds; size "
            "and % of input):", ""] + ctable(True) +
           ["", f"Decompression of libdeflate-gzip -6's output ({m['gz_bytes'] / 1e6:.1f} MB), MB/s of output:", ""]
           + dtable(True) + checks + ["", "![Compressed size against speed](img/summary.svg)"] + problems)
    return readme, plot_line, doc


def run(a):
    files, levels = C.corpus_selection(a, 1, [1, 6])
    C.require("hyperfine", "/usr/bin/time", "pigz", "gzip", "igzip", "gnuplot", C.FD, C.REF)
    with tempfile.TemporaryDirectory(prefix="bench-summary-") as tmp:
        m = measure(a, files, levels, tmp)
    m["versions"] = dict(date=C.now(), commit=C.commit(), cpu=C.cpu_model(), cores=C.cores(),
                         reference=C.reference_version(), command=a.command, threads=a.threads, runs=a.runs)
    with open(os.path.join(C.OUT, "summary.json"), "w") as f:
        json.dump(m, f, indent=1)
    readme, plot_line, doc = texts(m, a)
    svg = os.path.join(C.OUT, "summary.svg") if a.dry_run else os.path.join(C.IMG, "summary.svg")
    if a.dry_run:
        plot(m, a, svg)
        print(f"# --dry-run: the plot went to {os.path.relpath(svg, C.ROOT)}, not docs/img/summary.svg")
    else:
        os.makedirs(C.IMG, exist_ok=True)
        if not plot(m, a, svg):
            return 1
    C.emit(C.README, {"results": C.block("results", readme), "results-plot": C.block("results-plot", plot_line)},
           a.dry_run)
    C.emit(a.doc, {"summary": C.block("summary", doc)}, a.dry_run)
    return 1 if m["problems"] else 0

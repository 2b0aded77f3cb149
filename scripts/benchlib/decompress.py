"""scripts/bench decompress - decompression (section <!-- BEGIN decompress --> of
docs/PERFORMANCE.md): flowdeflate -d -p1/-pN against libdeflate-gzip -d, gzip -d, pigz -d,
igzip -d (and rapidgzip where installed), on each corpus file as libdeflate-gzip -6 writes
it; outputs checked, peak RSS; the in-order share of the CPU (-d --stats) and peak RSS at -pN
and -p8; flowdeflate's peak RSS on a gibibyte of zeros, and on the 1.3 GB tar when the
corpus has it.

  default    every corpus file but the 1.3 GB tarball; 5 runs
  --quick    packages.txt only, 3 runs
Method: hyperfine, fresh processes writing to /dev/null, one warm-up and --runs runs,
median (min-max), the order reversed between files, warm page cache; MB/s of output; peak
RSS from /usr/bin/time -v; every output compared with the input, and flowdeflate's of the
files pigz, gzip and igzip write too.
"""
import os
import shlex
import tempfile

from . import common as C

NAME = "decompress"
HELP = "flowdeflate -d against libdeflate-gzip -d, gzip, pigz, igzip per file; peak RSS"
PREPARE = True
WRITES = [("doc", ["decompress"])]


def add_arguments(p):
    C.corpus_arguments(p, 5, levels=None, threads=(None, "N of -pN"), quick="packages.txt only, 3 runs",
                       runs_help="measured runs per contender")


def serial_share(gz, threads, tmp, runs=3):
    """The median over @p runs of flowdeflate -d -p@p threads --stats's in-order share of the
    decoding CPU; the decoder's name when it is not the parallel one (a file of stored blocks)."""
    sts = [C.stats_of(f"{C.FD} -d -p{threads} -c {gz}", tmp) for _ in range(runs)]
    if C.decompress_share(sts[0]) is None:
        return sts[0].get("decoder", "?")
    return sorted(C.decompress_share(st) for st in sts)[runs // 2]


def run(a):
    """Decompression rows (section <!-- BEGIN decompress -->): each bench file's .gz as
    libdeflate-gzip -6 writes it, and as pigz, gzip and igzip write it, decompressed to /dev/null by
    flowdeflate (-p1 and -pN), libdeflate-gzip -d, gzip -d, pigz -d and igzip -d (rapidgzip
    where installed); every output compared with the input; peak RSS of each; and, when the
    corpus has the 1.3 GB Linux tar, flowdeflate's peak RSS on it at 1, 2, N, 4 and 8 threads."""
    files, _ = C.corpus_selection(a, 3)
    C.require("hyperfine", "/usr/bin/time", "pigz", "gzip", "igzip", C.FD, C.REF)
    gunzips = {"flowdeflate -d -p1": f"{C.FD} -d -p1 -c", f"flowdeflate -d -p{a.threads}": f"{C.FD} -d -p{a.threads} -c",
               f"flowdeflate -d -p{a.threads} --import-index": f"{C.FD} -d -p{a.threads} -c --import-index INDEX",
               "libdeflate-gzip -d": f"{C.REF} -d -c", "gzip -d": "gzip -d -c", f"pigz -d -p{a.threads}":
               f"pigz -d -p {a.threads} -c", "igzip -d": "igzip -d -c"}
    if C.have("rapidgzip"):
        gunzips[f"rapidgzip -P{a.threads}"] = f"rapidgzip -d -P {a.threads} -c"
    rows, problems, shares = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(files):
            src = C.corpus_path(name)
            gz = os.path.join(tmp, "in.gz")
            C.sh(f"{C.REF} -6 -c {shlex.quote(src)} > {gz}")
            # Its seek index (the default span), for the rows that decode with one.
            idx = os.path.join(tmp, "in.gzi")
            if C.sh(f"{C.FD} -d -c --export-index {idx} {gz} > /dev/null").returncode:
                problems.append(f"{name}: flowdeflate -d --export-index failed")
            # Files written by the other gzip programs must decompress the same (checked,
            # not timed); then every decompressor on the reference's file.
            for maker in ("pigz -6 -c", "pigz -6 -i -c", "pigz -6 --rsyncable -c", "gzip -6 -c",
                          "gzip -6 --rsyncable -c", "igzip -1 -c", "igzip -3 -c"):
                other = os.path.join(tmp, "other.gz")
                C.sh(f"{maker} {shlex.quote(src)} > {other}")
                for t in (1, a.threads):
                    if C.sh(f"{C.FD} -d -p{t} -c {other} | cmp -s - {shlex.quote(src)}").returncode:
                        problems.append(f"{name}: flowdeflate -d -p{t} of `{maker}`'s file differs")
            timed = {k: f"{c.replace('INDEX', idx)} {gz}" for k, c in gunzips.items()}
            rss = {}
            for k, cmd in timed.items():
                out = os.path.join(tmp, "out")
                rss[k] = C.peak_rss_mib(cmd, out)
                if C.sh(f"cmp -s {out} {shlex.quote(src)}").returncode:
                    problems.append(f"{name}: {k} differs")
            res = C.hyperfine(timed, a.runs, tmp, reverse=i % 2 == 1)
            size = os.path.getsize(src)
            for k in timed:
                r = res[k]
                rows.append(dict(file=name, size=size, gz=os.path.getsize(gz), contender=k, median_s=r["median"],
                                 min_s=r["min"], max_s=r["max"], mb_s=size / 1e6 / r["median"], rss_mib=rss[k]))
            C.say(f"-d {name}: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in timed))
            # The in-order (serial) share from -d --stats, and memory, at -pN and -p8.
            for t in sorted({a.threads, 8}):
                shares.append(dict(file=name, threads=t, share=serial_share(gz, t, tmp),
                                   rss_mib=C.peak_rss_mib(f"{C.FD} -d -p{t} -c {gz}", os.path.join(tmp, "out"))))
        # Memory on data of 1000:1: a gibibyte of zeros (libdeflate-gzip -6: a 1 MiB .gz).
        zeros = os.path.join(tmp, "zeros.gz")
        C.sh(f"head -c 1G /dev/zero | {C.REF} -6 -c > {zeros}")
        zero_rows = []
        for t in sorted({2, a.threads, 8}):
            rss = C.peak_rss_mib(f"{C.FD} -d -p{t} -c {zeros}", os.path.join(tmp, "out"))
            same = C.sh(f"head -c 1G /dev/zero | cmp -s - {os.path.join(tmp, 'out')}").returncode == 0
            if not same:
                problems.append(f"zeros: flowdeflate -d -p{t} differs")
            zero_rows.append((f"flowdeflate -d -p{t}", rss, same))
        # Memory that does not grow with the file: the 1.3 GB Linux tar (when the corpus has
        # it: scripts/corpus without --small), one run each, output compared.
        big = C.corpus_path("linux-source.tar")
        big_rows = []
        if os.path.exists(big):
            gz = os.path.join(tmp, "big.gz")
            C.sh(f"{C.REF} -6 -c {shlex.quote(big)} > {gz}")
            commands = [(f"flowdeflate -d -p{t}", f"{C.FD} -d -p{t} -c {gz}") for t in sorted({1, 2, a.threads, 4, 8})]
            for label, cmd in commands + [("libdeflate-gzip -d", f"{C.REF} -d -c {gz}")]:
                out = os.path.join(tmp, "out")
                rss = C.peak_rss_mib(cmd, out)
                same = C.sh(f"cmp -s {out} {shlex.quote(big)}").returncode == 0
                if not same:
                    problems.append(f"linux-source.tar: {label} differs")
                big_rows.append((label, rss, same))
                os.remove(out)
            C.say("-d linux-source.tar peak RSS: " + ", ".join(f"{t}: {r:.1f} MiB" for t, r, _ in big_rows))
    lines = [f"Generated by `{a.command}` on {C.now()} (flowdeflate {C.commit()}, {C.cpu_model()}, "
             f"{C.cores()} CPUs).", "",
             "Method: each file compressed by libdeflate-gzip -6, then decompressed to /dev/null by each contender: "
             f"hyperfine, fresh processes, 1 warm-up and {C.runs(a.runs)}, median (min-max), the order reversed "
             "between files, warm page cache; peak RSS from `/usr/bin/time -v` (the largest over the files). "
             "`--import-index`: with the index `flowdeflate -d --export-index` wrote of that .gz (a seek point every 4 MiB), "
             "the spans between points decoded on every thread. "
             "Every output is compared with the original; so are flowdeflate's outputs (-p1 and -pN) of the files "
             "pigz (also `-i` and `--rsyncable`), gzip (also `--rsyncable`) and igzip (`-1`, `-3`) write.", ""]
    # One row per contender, one pair of columns per file: the table reads across files.
    head, rule = ["contender"], ["---"]
    for name in files:
        r0 = next(r for r in rows if r["file"] == name)
        head += [f"{name} ({r0['size'] / 2**20:.1f} MiB, .gz {r0['gz'] / 2**20:.1f} MiB): s, median (min-max)",
                 "vs libdeflate-gzip -d"]
        rule += ["---:", "---:"]
    lines += ["| " + " | ".join(head + ["peak RSS, largest"]) + " |", "|" + "|".join(rule + ["---:"]) + "|"]
    for contender in gunzips:
        cells = [contender]
        for name in files:
            r = next(r for r in rows if r["file"] == name and r["contender"] == contender)
            ref = next(r for r in rows if r["file"] == name and r["contender"] == "libdeflate-gzip -d")
            cells += [f"{r['median_s']:.3f} ({r['min_s']:.3f}-{r['max_s']:.3f})", f"{ref['median_s'] / r['median_s']:.2f}x"]
        cells.append(f"{max(r['rss_mib'] for r in rows if r['contender'] == contender):.1f} MiB")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += ["In-order (serial) share of the decoding CPU, from `flowdeflate -d --stats` (`main_line_ns` over "
              "`main_line_ns` + `main_line_decode_ns` + `workers_ns`; median of 3 runs; the cap on speed-up is its "
              "inverse), and peak RSS; threads past this machine's cores measure the share and memory, not speed:", "",
              "| file | " + " | ".join(f"-p{t} serial share | -p{t} peak RSS" for t in sorted({a.threads, 8})) + " |",
              "|---|" + "---:|---:|" * len({a.threads, 8})]
    for name in files:
        cells = [name]
        for t in sorted({a.threads, 8}):
            r = next(r for r in shares if r["file"] == name and r["threads"] == t)
            share = r["share"]
            cells += [f"{100 * share:.1f}%" if isinstance(share, float) else f"one thread ({share})",
                      f"{r['rss_mib']:.1f} MiB"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "A gibibyte of zeros (libdeflate-gzip -6, a 1 MiB .gz: 1000:1): peak RSS " +
              ", ".join(f"{t} {rss:.1f} MiB{'' if same else ' (DIFFERS)'}" for t, rss, same in zero_rows) + ".", ""]
    if big_rows:
        lines += ["**linux-source.tar** (1.3 GB; memory only, one run each, output compared; more threads than "
                  "this machine's cores measure memory, not speed):", "",
                  "| command | peak RSS | output |", "|---|---:|---|"]
        for t, rss, same in big_rows:
            lines.append(f"| {t} | {rss:.1f} MiB | {'identical' if same else 'DIFFERS'} |")
        lines.append("")
    if problems:
        lines += ["**Problems:** " + "; ".join(problems), ""]
    C.emit(a.doc, {"decompress": C.block("decompress", lines[:-1] if lines[-1] == "" else lines)}, a.dry_run)
    return 1 if problems else 0

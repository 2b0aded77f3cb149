"""scripts/bench small-files - small inputs (section <!-- BEGIN small-files --> of
docs/PERFORMANCE.md): the process alone (--version / -V), one file of 100 B to 1 MiB, and
200 files of 1-64 KiB in one command, compressed (-6) and decompressed, flowdeflate against
libdeflate-gzip, gzip and pigz, outputs checked: the cost of starting and of each further
file.

Method: hyperfine, fresh processes, 3 warm-ups and max(--runs, 20) runs, median (min-max),
the order reversed between scenarios; libdeflate-gzip's binary run directly (not its
wrapper script); flowdeflate's compressed output compared with libdeflate-gzip's, every
decompressed output with the input.
"""
import os
import shlex
import tempfile

from . import common as C

NAME = "small-files"
HELP = "small inputs: the process alone, one file of 100 B-1 MiB, 200 files at once"
PREPARE = True
WRITES = [("doc", ["small-files"])]


def add_arguments(p):
    p.add_argument("--runs", type=int, default=20, help="measured runs (at least 20)")
    p.add_argument("--threads", type=int, default=C.cores(), help="pigz's -p (default: the cores)")


def run(a):
    """Small inputs (section <!-- BEGIN small-files -->): what a user running the program once
    per small file, or on a directory of them, pays: the process alone, one file of each
    size, and 200 files in one command; compressed at -6 and decompressed, flowdeflate
    against libdeflate-gzip, gzip and pigz.  The inputs are cut from the corpus (text from
    packages.txt, binary from libLLVM.so and modules); every output is checked (flowdeflate's
    compressed bytes against libdeflate-gzip's, decompressed ones against the input)."""
    runs = max(a.runs, 20)
    # The reference's binary itself, not its wrapper script: a shell's start would be half
    # of a small file's time.  (Its library directory goes into every command's environment,
    # so flowdeflate, which takes CRC-32 and Adler-32 from libdeflate, loads that one too.)
    ref_bin, ref_lib = C.reference_direct()
    env = {"LD_LIBRARY_PATH": ref_lib} if ref_lib else None
    C.require("hyperfine", "gzip", "pigz", C.FD, ref_bin)
    # The checks run what is timed: the same binaries, in the same environment.
    call = (lambda cmd: C.sh(f"LD_LIBRARY_PATH={shlex.quote(ref_lib)} {cmd}")) if ref_lib else C.sh
    peers = {"flowdeflate": C.FD, "libdeflate-gzip": ref_bin, "gzip": "gzip", f"pigz -p{a.threads}": f"pigz -p {a.threads}"}
    rows, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        def cut(src, offset, size, path):
            with open(C.corpus_path(src), "rb") as f:
                f.seek(offset)
                data = f.read(size)
            with open(path, "wb") as f:
                f.write(data)
        singles = []
        for size, label in ((100, "100 B"), (4096, "4 KiB"), (65536, "64 KiB"), (1 << 20, "1 MiB")):
            path = os.path.join(tmp, f"one-{size}")
            cut("packages.txt", 1 << 20, size, path)
            singles.append((f"one file, {label} (text)", [path]))
        many = os.path.join(tmp, "many")
        os.makedirs(many)
        srcs = ("packages.txt", "libLLVM.so", "modules")
        paths = []
        for i in range(200):
            size = 1024 + (i * 7919) % (63 * 1024)  # 1-64 KiB, spread
            path = os.path.join(many, f"f{i:03d}")
            cut(srcs[i % 3], (i * 104729 * 97) % (32 << 20), size, path)
            paths.append(path)
        scenarios = singles + [(f"200 files of 1-64 KiB ({sum(os.path.getsize(p) for p in paths) / 2**20:.1f} MiB) "
                                "in one command", paths)]
        # The process alone: start-up and exit with nothing to compress.
        res = C.hyperfine({"flowdeflate --version": f"{C.FD} --version", "libdeflate-gzip -V": f"{ref_bin} -V"},
                                runs, tmp, warmup=3, env=env)
        floor = {k: res[k] for k in res}
        for i, (name, files) in enumerate(scenarios):
            q = " ".join(shlex.quote(p) for p in files)
            gzs = []
            for p in files:  # the reference's .gz of each file, for the decompression rows
                call(f"{ref_bin} -6 -c {shlex.quote(p)} > {shlex.quote(p)}.gz")
                gzs.append(p + ".gz")
            gq = " ".join(shlex.quote(g) for g in gzs)
            want = os.path.join(tmp, "want")
            call(f"{ref_bin} -6 -c {q} > {want}")
            got = os.path.join(tmp, "got")
            if call(f"{C.FD} -6 -c {q} > {got}").returncode or C.sh(f"cmp -s {got} {want}").returncode:
                problems.append(f"{name}: flowdeflate -6 differs from libdeflate-gzip")
            plain = os.path.join(tmp, "plain")
            C.sh(f"cat {q} > {plain}")
            for k, prog in peers.items():
                if call(f"{prog} -d -c {gq} > {got}").returncode or C.sh(f"cmp -s {got} {plain}").returncode:
                    problems.append(f"{name}: {k} -d does not give the input back")
            timed = {f"{k} -6": f"{prog} -6 -c {q}" for k, prog in peers.items()}
            timed.update({f"{k} -d": f"{prog} -d -c {gq}" for k, prog in peers.items()})
            res = C.hyperfine(timed, runs, tmp, reverse=i % 2 == 1, warmup=3, env=env)
            for k in timed:
                rows.append(dict(scenario=name, files=len(files), contender=k, median_s=res[k]["median"],
                                 min_s=res[k]["min"], max_s=res[k]["max"]))
            C.say(f"{name}: " + ", ".join(f"{k} {1000 * res[k]['median']:.1f} ms" for k in timed))
    ms = lambda r: f"{1000 * r['median']:.1f} ({1000 * r['min']:.1f}-{1000 * r['max']:.1f})"  # noqa: E731
    ms_of = lambda r: f"{1000 * r['median_s']:.1f} ({1000 * r['min_s']:.1f}-{1000 * r['max_s']:.1f})"  # noqa: E731
    lines = [f"Generated by `{a.command}` on {C.now()} (flowdeflate {C.commit()}, {C.cpu_model()}, "
             f"{C.cores()} CPUs).", "",
             f"Method: hyperfine, fresh processes, 3 warm-ups and {C.runs(runs)}, median (min-max) in ms, the order "
             "reversed between scenarios, warm page cache; every command writes to /dev/null (`-c`; several files: "
             "one gzip member each); flowdeflate's compressed output is compared with libdeflate-gzip's, every "
             "decompressed output with the input. The inputs are cut from the corpus: text from packages.txt, the "
             "200 files in turn from packages.txt, libLLVM.so and modules. libdeflate-gzip is its binary, run "
             "directly (`LD_LIBRARY_PATH` to its library for all commands), not the wrapper script other tables "
             "time (its shell costs ~2 ms).", "",
             "The process alone (start-up and exit, nothing compressed):", "",
             "| command | ms, median (min-max) |", "|---|---:|"]
    for k, r in floor.items():
        lines.append(f"| `{k}` | {ms(r)} |")
    # One row per scenario and operation, one column per program (its ratio to
    # libdeflate-gzip's median beside it): the table reads across the programs.
    others = [k for k in peers if k != "libdeflate-gzip"]
    head = ["scenario", "op"] + [x for k in others for x in (f"{k}: ms, median (min-max)", "vs libdeflate-gzip")]
    lines += ["", "| " + " | ".join(head + ["libdeflate-gzip: ms"]) + " |",
              "|---|---|" + "---:|---:|" * len(others) + "---:|"]
    for op in ("-6", "-d"):
        for name, _ in scenarios:
            sel = {r["contender"][:-len(op) - 1]: r for r in rows
                   if r["scenario"] == name and r["contender"].endswith(" " + op)}
            ref = sel["libdeflate-gzip"]
            cells = [name, op]
            for k in others:
                cells += [ms_of(sel[k]), f"{ref['median_s'] / sel[k]['median_s']:.2f}x"]
            cells.append(ms_of(ref))
            lines.append("| " + " | ".join(cells) + " |")
    if problems:
        lines += ["", "**Problems:** " + "; ".join(problems)]
    C.emit(a.doc, {"small-files": C.block("small-files", lines)}, a.dry_run)
    return 1 if problems else 0

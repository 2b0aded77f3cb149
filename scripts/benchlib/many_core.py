"""scripts/bench many-core (also scripts/many-core) - scaling on a machine of many cores, in one
prepared run: flowdeflate -pN against libdeflate-gzip and pigz -p N at levels 1, 6 and 9, and
flowdeflate -d -pN against igzip -d and pigz -d -p N (and -d -pN with a seek index recorded by
flowdeflate -d --export-index, a point every 4 MiB), on the bench files, with the in-order
(serial) share of each parallel run from --stats.  Writes one table (build/bench/many-core.md,
and standard output); exits 1 when any output differs (compressed bytes from libdeflate-gzip's,
decompressed bytes from the input) or a program fails.

  default    -p1,2,4,8,12,16; the bench files cut to their first 64 MiB; 3 runs
  --bundle DIR   the programs, their libraries and the cut files in DIR, to carry to a
                 machine without the build (the lent 16-core one): DIR/run runs this there
Sized for a 16-core machine: under 8 minutes.  On fewer cores, --threads 1,2 checks that it
works (threads past the cores measure nothing but overhead).

Method: the identity pass runs every command once (and warms the page cache), then hyperfine
times each file and level's commands together, fresh processes, no further warm-up, --runs
runs, median; MB/s of input (compression) or output (decompression).  Serial share: for
compression resolve + assemble CPU over all node CPU; for decompression main_line_ns over
main_line_ns + main_line_decode_ns + workers_ns; one run each.
"""
import os
import shlex
import tempfile

from . import common as C

NAME = "many-core"
HELP = "scaling on many cores: -p1..16 against libdeflate-gzip, pigz, igzip; one table (not in the report)"
PREPARE = True


def add_arguments(p):
    C.corpus_arguments(p, 3, files="the bench files: " + C.BENCH_FILES, runs_help="measured runs per command",
                       files_default=C.BENCH_FILES)
    p.add_argument("--threads", default="1,2,4,8,12,16", help='thread counts, comma-separated (default "1,2,4,8,12,16")')
    p.add_argument("--bytes", default="64M", help="each file's first BYTES (K/M/G suffixes; 0: whole; default 64M)")
    p.add_argument("--out", default=os.path.join(C.OUT, "many-core.md"), help="the table's file "
                   "(default build/bench/many-core.md)")
    p.add_argument("--bundle", metavar="DIR", help="measure nothing: put into DIR what a bare x86-64 machine "
                   "needs to run this (the programs and the libraries they need beyond glibc and libstdc++, the "
                   "files' first BYTES, and DIR/run, which runs this subcommand from them); carry DIR there")


# Libraries a bare machine has anyway (glibc's, the compiler's runtime, zlib): not bundled.
BASE_LIBS = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libgcc_s", "libstdc++", "libpthread", "libdl",
             "librt", "libz.so")


def bundle(a, files, limit):
    """Writes the self-contained run of this subcommand to a.bundle (see --bundle)."""
    import shutil
    import stat
    d = os.path.abspath(a.bundle)
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("bin", "lib", "reflib", "corpus"):
        os.makedirs(os.path.join(d, sub))
    ref_bin, ref_libdir = C.reference_direct()
    programs = {"flowdeflate": C.FD, "libdeflate-gzip.bin": ref_bin}
    for tool in ("hyperfine", "pigz", "igzip"):
        programs[tool] = shutil.which(tool)
    for name, path in programs.items():
        shutil.copy2(path, os.path.join(d, "bin", name))
        # (The reference's libraries as its wrapper resolves them: its own libdeflate first.)
        ldd = ["env", f"LD_LIBRARY_PATH={ref_libdir}", "ldd", path] if name == "libdeflate-gzip.bin" and ref_libdir \
            else ["ldd", path]
        for line in C.out_of(ldd).splitlines():
            parts = line.split("=>")
            if len(parts) != 2 or any(b in parts[0] for b in BASE_LIBS):
                continue
            lib = parts[1].split("(")[0].strip()
            if not lib:
                continue
            # The reference's own libdeflate (a newer one than the system's) goes apart.
            into = "reflib" if name == "libdeflate-gzip.bin" and ref_libdir and lib.startswith(ref_libdir) else "lib"
            shutil.copy2(os.path.realpath(lib), os.path.join(d, into, os.path.basename(lib)))
    wrapper = os.path.join(d, "bin", "libdeflate-gzip")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nhere=$(cd "$(dirname "$0")/.." && pwd)\n'
                'LD_LIBRARY_PATH="$here/reflib" exec "$here/bin/libdeflate-gzip.bin" "$@"\n')
    for name in files:
        C.sh(f"head -c {limit} {shlex.quote(C.corpus_path(name))} > {shlex.quote(os.path.join(d, 'corpus', name))}"
             if limit else f"cp {shlex.quote(C.corpus_path(name))} {shlex.quote(os.path.join(d, 'corpus', name))}")
    run_script = os.path.join(d, "run")
    rel = os.path.relpath(os.path.join(C.ROOT, "scripts", "bench"), d)
    with open(run_script, "w") as f:
        f.write("#!/bin/sh\n# The many-core check from this bundle: run/--help for the options; its table goes to --out.\n"
                'here=$(cd "$(dirname "$0")" && pwd)\n'
                'export PATH="$here/bin:$PATH" LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'
                'export FLOWDEFLATE_BIN="$here/bin/flowdeflate" FLOWDEFLATE_REFERENCE="$here/bin/libdeflate-gzip"\n'
                f'exec python3 "$here/{rel}" many-core --no-prepare --corpus "$here/corpus" --bytes 0 '
                f'--files {",".join(files)} "$@"\n')
    for path in (run_script, wrapper):
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
    C.say(f"bundle in {d}: {size / 2**20:.1f} MiB; there: {os.path.relpath(run_script, C.ROOT)} [--threads ...] [--out FILE]")
    return 0


def size_of(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1:].upper() in units else int(text)


def run(a):
    """Compression and decompression scaling, checked and timed; see the module's text."""
    C.require("hyperfine", "pigz", "igzip", "cmp", C.FD, C.REF)
    files = C.files_option(a.files, [])
    levels = [int(x) for x in a.levels.split()]
    threads = [int(t) for t in a.threads.split(",") if t]
    limit = size_of(a.bytes)
    if a.bundle:
        return bundle(a, files, limit)
    problems, comp, decomp = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(files):
            src = os.path.join(tmp, name)
            C.sh(f"head -c {limit} {shlex.quote(C.corpus_path(name))} > {src}" if limit
                 else f"cp {shlex.quote(C.corpus_path(name))} {src}")
            size = os.path.getsize(src)
            for level in levels:
                want = os.path.join(tmp, "want.gz")
                if C.sh(f"{C.REF} -{level} -c {src} > {want}").returncode:
                    problems.append(f"{name} -{level}: libdeflate-gzip failed")
                    continue
                cmds = {"libdeflate-gzip": f"{C.REF} -{level} -c {src}"}
                for t in threads:
                    cmds[f"flowdeflate -p{t}"] = f"{C.FD} -{level} -p{t} -c {src}"
                    cmds[f"pigz -p{t}"] = f"pigz -{level} -p {t} -c {src}"
                # The identity pass (which warms the cache): ours byte for byte, pigz's round trip.
                for k, cmd in cmds.items():
                    got = os.path.join(tmp, "got.gz")
                    if C.sh(f"{cmd} > {got}").returncode:
                        problems.append(f"{name} -{level}: {k} failed")
                    elif k.startswith("flowdeflate") and C.sh(f"cmp -s {got} {want}").returncode:
                        problems.append(f"{name} -{level}: {k} differs from libdeflate-gzip")
                    elif k.startswith("pigz") and C.sh(f"gzip -dc {got} | cmp -s - {src}").returncode:
                        problems.append(f"{name} -{level}: {k} does not round-trip")
                res = C.hyperfine(cmds, a.runs, tmp, reverse=(i + level) % 2 == 1, warmup=0)
                for k in cmds:
                    share = None
                    if k.startswith("flowdeflate") and k != "flowdeflate -p1":
                        st = C.stats_of(f"{C.FD} -{level} {k.split()[1]} -c {src}", tmp)
                        share = C.serial_share(st) if "resolve_ns" in st else None
                    comp.append(dict(file=name, level=level, who=k, s=res[k]["median"], mb_s=size / 1e6 / res[k]["median"],
                                     share=share))
                C.say(f"{name} -{level}: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cmds))
            # Decompression of libdeflate-gzip -6's file.
            gz = os.path.join(tmp, "six.gz")
            C.sh(f"{C.REF} -6 -c {src} > {gz}")
            cmds = {"igzip -d": f"igzip -d -c {gz}"}
            for t in threads:
                cmds[f"flowdeflate -d -p{t}"] = f"{C.FD} -d -p{t} -c {gz}"
                cmds[f"pigz -d -p{t}"] = f"pigz -d -p {t} -c {gz}"
            for k, cmd in cmds.items():
                if C.sh(f"{cmd} | cmp -s - {src}").returncode:
                    problems.append(f"{name}: {k} does not give the input")
            res = C.hyperfine(cmds, a.runs, tmp, reverse=i % 2 == 1, warmup=0)
            for k in cmds:
                t = int(k.split("-p")[1]) if "-p" in k else 1
                share = C.decompress_share(C.stats_of(f"{C.FD} -d -p{t} -c {gz}", tmp)) \
                    if k.startswith("flowdeflate") and t > 1 else None
                decomp.append(dict(file=name, who=k, s=res[k]["median"], mb_s=size / 1e6 / res[k]["median"], share=share))
            C.say(f"{name} -d: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cmds))
            # The same file with its seek index (recorded by flowdeflate -d, a point every 4 MiB).
            idx = os.path.join(tmp, "six.gzi")
            if C.sh(f"{C.FD} -d -c --export-index {idx} {gz} > /dev/null").returncode:
                problems.append(f"{name}: flowdeflate -d --export-index failed")
                continue
            cmds = {f"flowdeflate -d -p{t} --import-index": f"{C.FD} -d -p{t} --import-index {idx} -c {gz}"
                    for t in threads}
            for k, cmd in cmds.items():
                if C.sh(f"{cmd} | cmp -s - {src}").returncode:
                    problems.append(f"{name}: {k} does not give the input")
            res = C.hyperfine(cmds, a.runs, tmp, reverse=i % 2 == 0, warmup=0)
            for k in cmds:
                decomp.append(dict(file=name, who=k, s=res[k]["median"], mb_s=size / 1e6 / res[k]["median"], share=None))
            C.say(f"{name} -d --import-index: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cmds))
    lines = [f"Generated by `{a.command}` on {C.now()} (flowdeflate {C.commit()}, {C.cpu_model()}, {C.cores()} CPUs).",
             "", f"Each file's first {a.bytes} ({'whole' if not limit else 'cut'}); hyperfine, {C.runs(a.runs)}, "
             "medians, after an identity pass; MB/s of input (compression) or output (decompression); in brackets "
             "the serial share from --stats (its inverse caps the speed-up).", ""]
    for name in files:
        lines += [f"**{name}**", "", "| level | libdeflate-gzip | " +
                  " | ".join(f"flowdeflate -p{t} | pigz -p{t}" for t in threads) + " |",
                  "|---|---:|" + "---:|---:|" * len(threads)]
        for level in levels:
            row = {r["who"]: r for r in comp if r["file"] == name and r["level"] == level}
            if not row:
                continue
            cells = [f"-{level}", f"{row['libdeflate-gzip']['mb_s']:.0f}"]
            for t in threads:
                f, p = row[f"flowdeflate -p{t}"], row[f"pigz -p{t}"]
                cells += [f"{f['mb_s']:.0f}" + (f" ({100 * f['share']:.1f}%)" if f["share"] is not None else ""),
                          f"{p['mb_s']:.0f}"]
            lines.append("| " + " | ".join(cells) + " |")
        row = {r["who"]: r for r in decomp if r["file"] == name}
        if row:
            cells = ["-d", f"igzip {row['igzip -d']['mb_s']:.0f}"]
            for t in threads:
                f, p = row[f"flowdeflate -d -p{t}"], row[f"pigz -d -p{t}"]
                cells += [f"{f['mb_s']:.0f}" + (f" ({100 * f['share']:.1f}%)" if f["share"] is not None else ""),
                          f"{p['mb_s']:.0f}"]
            lines.append("| " + " | ".join(cells) + " |")
            if all(f"flowdeflate -d -p{t} --import-index" in row for t in threads):
                cells = ["-d, index", ""]
                for t in threads:
                    cells += [f"{row[f'flowdeflate -d -p{t} --import-index']['mb_s']:.0f}", ""]
                lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if problems:
        lines += ["**Problems:** " + "; ".join(problems), ""]
    text = "\n".join(lines)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text + "\n")
    print(text)
    C.say(f"wrote {a.out}")
    return 1 if problems else 0

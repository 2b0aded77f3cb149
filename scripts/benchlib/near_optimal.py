"""scripts/bench near-optimal - levels 10-12 (section <!-- BEGIN near-optimal --> of
docs/PERFORMANCE.md): the first --prefix MiB (16) of each file, flowdeflate --sequential
and -p1..-pN against libdeflate-gzip, outputs checked, peak RSS; the optimiser's share
(--stats at -pN, the median of --runs runs) and the model's projection to 16 cores; peak
RSS of -p2 -10 on the whole modules file.

  default    every corpus file but the 1.3 GB tarball, levels 10 11 12, 5 runs
  --quick    packages.txt only, 3 runs
Method: hyperfine, fresh processes writing to /dev/null, one warm-up and --runs runs,
median (min-max), the order reversed between scenarios, warm page cache; every output
compared byte for byte with libdeflate-gzip's; peak RSS from /usr/bin/time -v.
"""
import os
import shlex
import statistics
import tempfile

from . import common as C

NAME = "near-optimal"
HELP = "levels 10-12 on 16 MiB prefixes against libdeflate-gzip; the optimiser's chain"
PREPARE = True
WRITES = [("doc", ["near-optimal"])]


def add_arguments(p):
    C.corpus_arguments(p, 5, levels="10 11 12", threads=(None, "the most threads, -p1..-pN"),
                       quick="packages.txt only, 3 runs", runs_help="measured runs per contender")
    p.add_argument("--prefix", type=int, default=16, help="MiB of each file (default 16)")


PATH_EXTENSION = 1024  # a guess's positions past its part (core/path_split.hpp: kExtension, then the next mark)


def near_optimal_model(st, n):
    """Projected time at n cores from one `--stats` run (seconds).  The chain is the
    optimiser's thread (its own searches excluded); of it, the min-cost-path passes over
    blocks long enough to split (path_ns, split or not, with the other threads' guesses
    path_guess_ns) run in parts on up to
    min(n, parts) threads, where a block of the run's mean split length L has
    min(2n, L / path_min_part) parts and each guess runs about 1024 positions past its part
    (core/path_split.hpp); the rest of the chain stays serial.  T(n) = max(chain at n,
    all CPU time / n)."""
    chain, search = st["optimiser_ns"] / 1e9, st["search_ns"] / 1e9
    path, guess = st.get("path_ns", 0) / 1e9, st.get("path_guess_ns", 0) / 1e9
    passes = st.get("path_passes", 0)
    chain_n = chain
    if passes:
        mean = st["path_positions"] / passes
        parts = max(1, min(2 * n, int(mean // st["path_min_part"])))
        chain_n = chain - path + (path + guess) * (1 + PATH_EXTENSION * parts / mean) / min(n, parts)
    return max(chain_n, (chain + guess + search) / n)


def run(a):
    """Levels 10-12 (section <!-- BEGIN near-optimal -->): on the first --prefix MiB of each
    file, flowdeflate --sequential and -p1..-p{threads} against libdeflate-gzip at the same
    level, hyperfine medians, outputs compared byte for byte, peak RSS; from `--stats`
    runs at -p{threads} (the median of --runs), the CPU time of the optimiser (the serial
    chain, with coding and CRC) and of the search, and the model's projection
    (near_optimal_model) against the reference's measured time."""
    files, levels = C.corpus_selection(a, 3)
    C.require("hyperfine", "/usr/bin/time", C.FD, C.REF)
    prefix = a.prefix << 20
    threads = list(range(1, a.threads + 1))
    rows, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(files):
            src = C.corpus_path(name)
            part = os.path.join(tmp, "in")
            C.sh(f"head -c {prefix} {shlex.quote(src)} > {part}")
            size = os.path.getsize(part)
            for L in levels:
                cs = {"libdeflate-gzip": f"{C.REF} -{L} -c {part}",
                      "flowdeflate --sequential": f"{C.FD} -{L} --sequential -c {part}"}
                cs.update({f"flowdeflate -p{t}": f"{C.FD} -{L} -p{t} -c {part}" for t in threads})
                ref_out, out = os.path.join(tmp, "ref.gz"), os.path.join(tmp, "out.gz")
                C.sh(f"{cs['libdeflate-gzip']} > {ref_out}")
                rss, checks = {}, {}
                for k, cmd in cs.items():
                    rss[k] = C.peak_rss_mib(cmd, out)
                    checks[k] = "identical" if C.sh(f"cmp -s {out} {ref_out}").returncode == 0 else "DIFFERS"
                    if checks[k] != "identical":
                        problems.append(f"{name} L{L} {k}: DIFFERS")
                res = C.hyperfine(cs, a.runs, tmp, reverse=(i + L) % 2 == 1)
                # CPU times move by +-20% between runs here: the median of as many --stats runs.
                sts = [C.stats_of(f"{C.FD} -{L} -p{a.threads} -c {part}", tmp) for _ in range(a.runs)]
                st = sorted(sts, key=lambda x: x["optimiser_ns"])[len(sts) // 2]  # the median run's counters
                chain = st["optimiser_ns"] / 1e9
                search = statistics.median(x["search_ns"] for x in sts) / 1e9
                ref = res["libdeflate-gzip"]["median"]
                model = {n: ref / near_optimal_model(st, n) for n in (2, 4, 8, 16)}
                rows.append(dict(file=name, size=size, level=L, res=res, rss=rss, checks=checks, chain=chain,
                                 search=search, model=model, path=(st.get("path_ns", 0) + st.get("path_guess_ns", 0)) / 1e9,
                                 guess=st.get("path_guess_ns", 0) / 1e9))
                C.say(f"L{L} {name}: " + ", ".join(f"{k} {res[k]['median']:.3f}s" for k in cs) +
                      f"; chain {chain:.2f}s search {search:.2f}s")
        modules = C.corpus_path("modules")
        whole_rss = C.peak_rss_mib(f"{C.FD} -10 -p2 -c {modules}", os.path.join(tmp, "out.gz")) \
            if os.path.exists(modules) and a.threads >= 2 else None
    lines = [f"Generated by `{a.command}` on {C.now()} (flowdeflate {C.commit()}, reference "
             f"{C.reference_version()}, {C.cpu_model()}, {C.cores()} CPUs).", "",
             f"Method: the first {a.prefix} MiB of each file; hyperfine, fresh processes writing to /dev/null, 1 "
             f"warm-up and {C.runs(a.runs)}, median (min-max), the order reversed between scenarios, warm page cache; "
             "`vs ref`: libdeflate-gzip's median over ours; peak RSS from `/usr/bin/time -v`; every output "
             "byte-identical to libdeflate-gzip's (`cmp`).", "",
             "| file | level | libdeflate-gzip s | --sequential s | vs ref | " +
             " | ".join(f"-p{t} s | vs ref" for t in threads) + " | peak RSS -p" + str(a.threads) + " |",
             "|---|---:|---:|---:|---:|" + "---:|---:|" * len(threads) + "---:|"]
    for r in rows:
        res = r["res"]
        ref = res["libdeflate-gzip"]["median"]
        cell = lambda k: f"{res[k]['median']:.2f} ({res[k]['min']:.2f}-{res[k]['max']:.2f})"  # noqa: E731
        lines.append(f"| {r['file']} | {r['level']} | {cell('libdeflate-gzip')} | {cell('flowdeflate --sequential')} | "
                     f"{ref / res['flowdeflate --sequential']['median']:.2f}x | " +
                     " | ".join(f"{cell(f'flowdeflate -p{t}')} | {ref / res[f'flowdeflate -p{t}']['median']:.2f}x"
                                for t in threads) + f" | {r['rss'][f'flowdeflate -p{a.threads}']:.1f} MiB |")
    lines += ["", f"The serial chain and the model (`--stats` at -p{a.threads}, the run with the median chain of {a.runs}: "
              "CPU time of the optimiser's thread, its own searches excluded (the chain), of its min-cost-path "
              "passes over blocks long enough to split, together with the other threads' guesses of parts (path; "
              "a pass is split only when a thread is idle, so with two threads most are not), and of all searches; "
              "projected time T(n) = max(chain - path + path x (1 + 1024 / part) / min(n, parts), all CPU / n), "
              "where a block of the run's mean split length L has min(2n, L / minimum part) parts (core/path_split.hpp); "
              "speedup = libdeflate-gzip's median / T(n); reading, writing, memory bandwidth and the threads' "
              "wake-up latency are not in the model, so it is an upper bound):", "",
              "| file | level | chain s | path in parts s | search s | chain share | model 2 | 4 | 8 | 16 cores |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        m = r["model"]
        lines.append(f"| {r['file']} | {r['level']} | {r['chain']:.2f} | {r['path']:.2f} | {r['search']:.2f} | "
                     f"{100 * r['chain'] / (r['chain'] + r['search']):.0f}% | {m[2]:.2f}x | {m[4]:.2f}x | "
                     f"{m[8]:.2f}x | {m[16]:.2f}x |")
    if whole_rss is not None:
        lines += ["", f"Peak RSS of `flowdeflate -10 -p2` on the whole modules file "
                  f"({os.path.getsize(C.corpus_path('modules')) / 2**20:.1f} MiB): {whole_rss:.1f} MiB."]
    if problems:
        lines += ["", "**Problems:** " + "; ".join(problems)]
    C.emit(a.doc, {"near-optimal": C.block("near-optimal", lines)}, a.dry_run)
    return 1 if problems else 0

"""scripts/perfdoc.py - what the table scripts share: the one way a generated section
replaces its old text in docs/PERFORMANCE.md (between <!-- BEGIN name --> and
<!-- END name -->, appended with a heading when absent), written atomically."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "PERFORMANCE.md")


def markers(name):
    return f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"


def replace_section(name, text, heading, path=DOC):
    """Puts `text` (which starts with the BEGIN marker and ends with the END marker and a
    newline) in place of section `name` of `path`."""
    begin, end = markers(name)
    old = open(path).read() if os.path.exists(path) else "# flowdeflate performance\n"
    if begin in old and end in old and old.index(begin) < old.index(end):
        a, b = old.index(begin), old.index(end) + len(end)
        if old[b:b + 1] == "\n":
            b += 1
        new = old[:a] + text + old[b:]
    else:
        new = old.rstrip("\n") + f"\n\n## {heading}\n\n" + text
    with open(path + ".new", "w") as f:
        f.write(new)
    os.replace(path + ".new", path)


# ---- what the whole-program scripts share ------------------------------------------------
import json  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402

FD = os.path.join(ROOT, "build", "flowdeflate")
REF = os.path.join(ROOT, "build", "reference", "libdeflate-gzip")
CORPUS = os.environ.get("FLOWDEFLATE_CORPUS", os.path.join(ROOT, "build", "corpus"))


def reference_direct():
    """The reference's binary and the library directory it needs, from the wrapper
    scripts/setup writes (REF: `LD_LIBRARY_PATH=DIR exec BINARY "$@"`), or (REF, None) when
    REF is the binary itself.  Where milliseconds count, the wrapper's own shell would be
    most of the reference's time."""
    try:
        text = open(REF).read()
    except (OSError, UnicodeDecodeError):
        return REF, None
    m = re.search(r'LD_LIBRARY_PATH="([^"]+)" exec "([^"]+)"', text)
    return (m.group(2), m.group(1)) if m else (REF, None)


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True)


def peak_rss_mib(cmd, out="/dev/null"):
    """Peak resident memory of one run of the shell command `cmd` (its stdout to `out`),
    from /usr/bin/time -v."""
    r = sh(f"/usr/bin/time -v sh -c {shlex.quote(cmd + ' > ' + shlex.quote(out))} 2>&1")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stdout + r.stderr)
    return int(m.group(1)) / 1024.0 if m else float("nan")


def identical(a_cmd, b_cmd, tmp):
    """Do the two commands write the same bytes to stdout?"""
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    if sh(f"{a_cmd} > {a}").returncode or sh(f"{b_cmd} > {b}").returncode:
        return False
    return sh(f"cmp -s {a} {b}").returncode == 0


def hyperfine(cmds, runs, tmp, reverse=False, warmup=1, env=None):
    """Times the named shell commands (a dict name -> command) with hyperfine in one run:
    fresh processes, `warmup` warm-ups, `runs` measured runs each, in the dict's order or
    reversed; `env`: variables added to the environment of all of them.  Returns name ->
    hyperfine's result (median, min, max, times...)."""
    keys = list(cmds)
    if reverse:
        keys.reverse()
    out = os.path.join(tmp, "hyperfine.json")
    hf = ["hyperfine", "-N", "-w", str(warmup), "-r", str(runs), "--export-json", out]
    for k in keys:
        hf += [f"--command-name={k}", cmds[k]]  # (a name may start with "-")
    r = subprocess.run(hf, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
    if r.returncode:
        raise RuntimeError(f"hyperfine failed: {r.stderr[-2000:]}")
    return {x["command"]: x for x in json.load(open(out))["results"]}


def stats_of(cmd, tmp):
    """The counters of one run of the flowdeflate command `cmd` (its `--stats` line)."""
    path = os.path.join(tmp, "stats.jsonl")
    if os.path.exists(path):
        os.remove(path)
    r = sh(f"{cmd} --stats {path} > /dev/null")
    if r.returncode:
        raise SystemExit(f"{cmd} failed: {r.stderr}")
    with open(path) as f:
        return json.loads(f.readline())


NODES = ("search_ns", "resolve_ns", "code_ns", "assemble_ns")  # the graph's nodes in --stats


def worker_imbalance(st):
    """Of a --stats line: the search CPU per chunk of its slowest worker over its fastest's
    (1.00: even), or None where fewer than two workers searched.  Which worker takes which
    chunk is chance, so over many chunks their mean costs agree unless the host ran one
    worker slower (the 2-core VMs here have phases with one vCPU 25-40% slower): a ratio
    well above 1 says the run's multi-thread times understate the program."""
    per = {}
    for w, us in zip(st.get("chunk_worker", []), st.get("chunk_search_us", [])):
        if w >= 0:
            n, t = per.get(w, (0, 0))
            per[w] = (n + 1, t + us)
    means = [t / n for n, t in per.values()]
    return max(means) / min(means) if len(means) >= 2 and min(means) > 0 else None


def imbalance_cell(st):
    """worker_imbalance() as a table cell."""
    r = worker_imbalance(st)
    return "-" if r is None else f"{r:.2f}"


def serial_share(st):
    """Resolve + assemble CPU over all node CPU of a --stats line (or of medians of them)."""
    return (st["resolve_ns"] + st["assemble_ns"]) / max(1, sum(st[k] for k in NODES))


def corpus_files(include_huge=False):
    return sorted(f for f in os.listdir(CORPUS)
                  if os.path.isfile(os.path.join(CORPUS, f)) and not f.startswith(("MANIFEST", "SOURCES", "."))
                  and (include_huge or f != "linux-source.tar") and not f.endswith(".partial"))

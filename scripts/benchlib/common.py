"""benchlib.common - what the subcommands of scripts/bench share: paths, running commands,
hyperfine (contender order reversed between scenarios), peak RSS (/usr/bin/time -v), output
checks, the corpus, a description of the machine and the build, markdown tables, the
generated sections (the text between <!-- BEGIN name --> and <!-- END name -->, replaced
atomically; a missing marker pair is an error, never appended), gnuplot, and the prepare
step (scripts/setup --bench, scripts/build, scripts/corpus --small)."""
import datetime
import functools
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The programs measured; a many-core bundle (scripts/many-core --bundle) points elsewhere.
FD = os.environ.get("FLOWDEFLATE_BIN", os.path.join(ROOT, "build", "flowdeflate"))
REF = os.environ.get("FLOWDEFLATE_REFERENCE", os.path.join(ROOT, "build", "reference", "libdeflate-gzip"))
DOC = os.path.join(ROOT, "docs", "PERFORMANCE.md")
README = os.path.join(ROOT, "README.md")
IMG = os.path.join(ROOT, "docs", "img")
OUT = os.path.join(ROOT, "build", "bench")  # raw results, plot data (not in git)
DEFAULT_CORPUS = os.path.join(ROOT, "build", "corpus")
CORPUS = os.environ.get("FLOWDEFLATE_CORPUS", DEFAULT_CORPUS)
PROG = "bench"  # the name messages start with ("bench SUBCOMMAND" while one runs)

# The code whose changes make a measurement "with uncommitted changes".
CODE_PATHS = ("src", "include", "perf", "CMakeLists.txt", "tests/support")


# ---- messages, commands ------------------------------------------------------------------

def say(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def die(msg, code=2):
    say(msg)
    raise SystemExit(code)


def sh(cmd, env=None, cwd=None):
    """Runs a shell command; returns the CompletedProcess (stdout and stderr as text)."""
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, **env) if env else None)


def out_of(cmd):
    """stdout of an argument list, stripped; "" when it fails or is missing."""
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return ""


def have(tool):
    return sh(f"command -v {shlex.quote(tool)}").returncode == 0


def require(*tools):
    for tool in tools:
        if not have(tool):
            die(f"{tool} is missing (scripts/setup --bench; scripts/build; scripts/corpus --small)")


def quote(paths):
    return " ".join(shlex.quote(p) for p in paths)


def prepare():
    """What a fresh Debian 12 machine lacks, each step idempotent (seconds when all is
    there): the contenders and tools, the Release build, the corpus (the files under 150 MB)."""
    for cmd in (["scripts/setup", "--bench"], ["scripts/build"], ["scripts/corpus", "--small"]):
        say(" ".join(cmd))
        if subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode:
            die(f"{' '.join(cmd)} failed", 1)


# ---- the corpus --------------------------------------------------------------------------

def set_corpus(path):
    """--corpus DIR: for us and for the benchmark programs we run (FLOWDEFLATE_CORPUS)."""
    global CORPUS
    CORPUS = os.path.abspath(path)
    os.environ["FLOWDEFLATE_CORPUS"] = CORPUS


def corpus_path(name):
    return os.path.join(CORPUS, name)


def corpus_files(include_huge=False):
    """The corpus's files by name: those of `scripts/corpus --small`, and the 1.3 GB
    linux-source.tar too with include_huge."""
    if not os.path.isdir(CORPUS):
        die(f"no corpus at {CORPUS} (scripts/corpus --small, or --corpus DIR)")
    return sorted(f for f in os.listdir(CORPUS)
                  if os.path.isfile(os.path.join(CORPUS, f)) and not f.startswith(("MANIFEST", "SOURCES", "."))
                  and (include_huge or f != "linux-source.tar") and not f.endswith(".partial"))



EVERY_BUT_HUGE = "every file but linux-source.tar"
BENCH_FILES = "packages.txt,libLLVM.so,linux-source-100M.tar,modules"


def corpus_arguments(p, runs, levels="1 6 9", files=EVERY_BUT_HUGE, threads=None, quick=None, runs_help=None,
                     files_default=""):
    """The options the subcommands over the corpus share: --runs, --levels (when @levels),
    --files (default @files_default, described as @files), --threads (when @threads is
    (default or None for the cores, what T is)) and --quick (when @quick says what it does)."""
    p.add_argument("--runs", type=int, default=runs, help=f"{runs_help or 'measured runs per command'} (default {runs})")
    if levels:
        p.add_argument("--levels", default=levels, help=f'levels (default "{levels}")')
    p.add_argument("--files", default=files_default, help=f"corpus file names, comma-separated (default: {files})")
    if threads:
        default, what = threads  # default None: the machine's cores
        shown = "the cores" if default is None else str(default)
        default = cores() if default is None else default
        p.add_argument("--threads", type=int, default=default, help=f"{what} (default: {shown})")
    if quick:
        p.add_argument("--quick", action="store_true", help=quick)

def files_option(value, default):
    """--files a,b,... (names in the corpus) or the default list; every file must exist."""
    files = [f for f in value.split(",") if f] if value else list(default)
    for f in files:
        if not os.path.isfile(corpus_path(f)):
            die(f"no corpus file {corpus_path(f)} (scripts/corpus --small, or --corpus DIR)")
    return files

def corpus_selection(a, quick_runs, quick_levels=None):
    """The files and levels a run measures: --files (default: every file but the 1.3 GB
    tar) and --levels; with --quick, packages.txt only, in @quick_runs runs, at
    @quick_levels (or --levels)."""
    levels = [int(x) for x in getattr(a, "levels", "").split()]
    files = files_option(a.files, [] if a.files else corpus_files())
    if getattr(a, "quick", False):
        files, a.runs = files_option("packages.txt", []), quick_runs
        levels = quick_levels or levels
    return files, levels



def warm(paths):
    """Reads the files once: the page cache holds them when timing starts."""
    sh(f"cat {quote(paths)} > /dev/null")


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


# ---- measuring ---------------------------------------------------------------------------

def hyperfine(cmds, runs, tmp, reverse=False, warmup=1, env=None, shell=False):
    """Times the named commands (a dict name -> command line) with hyperfine in one run:
    fresh processes, `warmup` warm-ups, `runs` measured runs each, in the dict's order or
    reversed (callers reverse it between scenarios: machines drift); `env`: variables added
    to the environment of all of them; `shell`: run through a shell (pipes, redirections)
    instead of hyperfine -N.  Returns name -> hyperfine's result (median, min, max, times)."""
    keys = list(cmds)
    if reverse:
        keys.reverse()
    out = os.path.join(tmp, "hyperfine.json")
    hf = ["hyperfine"] + ([] if shell else ["-N"]) + ["-w", str(warmup), "-r", str(runs), "--style", "none",
                                                       "--export-json", out]
    for k in keys:
        hf += [f"--command-name={k}", cmds[k]]  # (a name may start with "-")
    r = subprocess.run(hf, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
    if r.returncode:
        die(f"hyperfine failed: {r.stderr[-2000:]}", 1)
    with open(out) as f:
        return {x["command"]: x for x in json.load(f)["results"]}


def peak_rss_mib(cmd, out="/dev/null"):
    """Peak resident memory of one run of the shell command `cmd` (its stdout to `out`),
    from /usr/bin/time -v."""
    r = sh(f"/usr/bin/time -v sh -c {shlex.quote(cmd + ' > ' + shlex.quote(out))} 2>&1")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stdout + r.stderr)
    return int(m.group(1)) / 1024.0 if m else float("nan")


def output_of(cmd, env=None):
    """One run of the shell command `cmd` under /usr/bin/time -v, its stdout hashed as it
    streams (no temporary file, however large): {"sha256", "bytes", "rss_mib", "rc"}."""
    h, n = hashlib.sha256(), 0
    with tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(["/usr/bin/time", "-v", "sh", "-c", cmd], stdout=subprocess.PIPE, stderr=err,
                             env=dict(os.environ, **env) if env else None)
        while True:
            block = p.stdout.read(1 << 20)
            if not block:
                break
            h.update(block)
            n += len(block)
        rc = p.wait()
        err.seek(0)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err.read())
    return {"sha256": h.hexdigest(), "bytes": n, "rss_mib": int(m.group(1)) / 1024.0 if m else float("nan"),
            "rc": rc}


def digest_of_files(paths):
    """SHA-256 of the files' concatenation (what `cat a b` writes)."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def identical(a_cmd, b_cmd, tmp):
    """Do the two commands write the same bytes to stdout?"""
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    if sh(f"{a_cmd} > {a}").returncode or sh(f"{b_cmd} > {b}").returncode:
        return False
    return sh(f"cmp -s {a} {b}").returncode == 0


def stats_of(cmd, tmp):
    """The counters of one run of the flowdeflate command `cmd` (its `--stats` line)."""
    path = os.path.join(tmp, "stats.jsonl")
    if os.path.exists(path):
        os.remove(path)
    r = sh(f"{cmd} --stats {path} > /dev/null")
    if r.returncode:
        die(f"{cmd} failed: {r.stderr}", 1)
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


def decompress_share(st):
    """The in-order (main line) CPU over all decoding CPU of a `-d --stats` line; None when
    the decoder was not the parallel one (one thread: a file of stored blocks, say)."""
    if st.get("decoder") != "parallel":
        return None
    total = st["main_line_ns"] + st.get("main_line_decode_ns", 0) + st["workers_ns"]
    return st["main_line_ns"] / total if total else 1.0


# ---- what was measured, where, with what ---------------------------------------------------

def now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


@functools.lru_cache(maxsize=None)
def commit():
    """Our commit, and whether the code (not the docs) had uncommitted changes; taken once
    per subcommand, when it starts (the tree may change during a long run)."""
    head = out_of(["git", "rev-parse", "--short=12", "HEAD"])
    if not head:
        return "no commit yet (working tree)"
    dirty = out_of(["git", "status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS])
    return head + (" with uncommitted changes to the code" if dirty else "")


def cpu_model():
    for line in out_of(["lscpu"]).splitlines():
        k, _, v = line.partition(":")
        if k.strip() == "Model name":
            return v.strip()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cores():
    return os.cpu_count() or 1


def machine():
    """CPU model, CPUs, threads per core, hypervisor, memory, kernel."""
    info = {}
    for line in out_of(["lscpu"]).splitlines():
        k, _, v = line.partition(":")
        info[k.strip()] = v.strip()
    bits = [cpu_model(), f"{cores()} CPUs online"]
    if info.get("Thread(s) per core"):
        bits.append(f"{info['Thread(s) per core']} thread(s)/core")
    if info.get("Hypervisor vendor"):
        bits.append(f"virtual machine ({info['Hypervisor vendor']})")
    try:
        with open("/proc/meminfo") as f:
            bits.append(f"{int(f.readline().split()[1]) / 1048576:.0f} GiB RAM")
    except (OSError, ValueError, IndexError):
        pass
    bits.append(f"Linux {os.uname().release}")
    return ", ".join(bits)


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def version_of(cmd):
    r = sh(cmd)
    text = (r.stdout + r.stderr).strip().splitlines()
    return text[0] if text else "?"


def reference_version():
    """The reference's version as scripts/setup recorded it (build/reference/.done), else
    what `libdeflate-gzip -V` says."""
    done = os.path.join(os.path.dirname(REF), ".done")
    if os.path.exists(done):
        v = open(done).read().strip()
        if v:
            return f"libdeflate {v}"
    return version_of(f"{REF} -V")


def cmake_cache(build_dir=os.path.join(ROOT, "build")):
    cache = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    cache[m.group(1)] = m.group(2)
    except OSError:
        pass
    return cache


def compiler(cache=None):
    cache = cmake_cache() if cache is None else cache
    cxx = cache.get("CMAKE_CXX_COMPILER")
    if not cxx:
        return "unknown compiler (no build/CMakeCache.txt)"
    v = out_of([cxx, "--version"])
    return v.splitlines()[0] if v else cxx


def compiler_flags():
    """The compiler, build type, release flags and native option, in one phrase."""
    c = cmake_cache()
    return (f"{compiler(c)}, {c.get('CMAKE_BUILD_TYPE', '?')} ({c.get('CMAKE_CXX_FLAGS_RELEASE', '')}), "
            f"native={c.get('FLOWDEFLATE_NATIVE', 'OFF')}")


def command_line(argv):
    """The command as a reader should retype it."""
    return " ".join(["scripts/bench"] + [shlex.quote(x) for x in argv])


# ---- markdown and the generated sections ----------------------------------------------------

def table(header, rows, align=None):
    """A markdown table: header cells, rows of cells, align a string of 'l'/'r' per column
    (default: the first left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def plural(n, word):
    """"1 run", "3 runs"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def runs(n):
    return plural(n, "run")


def cell(r, scale=1.0, digits=3):
    """hyperfine's median (min-max), times `scale`."""
    return f"{r['median'] * scale:.{digits}f} ({r['min'] * scale:.{digits}f}-{r['max'] * scale:.{digits}f})"


def markers(name):
    return f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"


def block(name, lines):
    """The generated section `name`: its markers around `lines`, a blank line inside each."""
    begin, end = markers(name)
    return "\n".join([begin, ""] + list(lines) + ["", end]) + "\n"


def _span(text, name, path):
    begin, end = markers(name)
    a, b = text.find(begin), text.find(end)
    if a < 0 or b < 0 or b < a or text.count(begin) != 1 or text.count(end) != 1:
        die(f"{os.path.relpath(path, ROOT)} lacks one pair of the markers {begin} ... {end} "
            f"(in that order, once each): put them where the section goes; nothing was written")
    b += len(end)
    if text[b:b + 1] == "\n":
        b += 1
    return a, b


def check_sections(path, names):
    """Fails now, before any measuring, where a section's markers are missing."""
    if not os.path.exists(path):
        die(f"{os.path.relpath(path, ROOT)} does not exist; nothing was written")
    text = open(path).read()
    for name in names:
        _span(text, name, path)


def replace_sections(path, blocks):
    """Puts each block (name -> the text block() makes) in place of that section of `path`,
    all at once: one read, one atomic rename."""
    check_sections(path, blocks)
    text = open(path).read()
    for name, new in blocks.items():
        a, b = _span(text, name, path)
        text = text[:a] + new + text[b:]
    fd, tmp = tempfile.mkstemp(prefix=".bench-", dir=os.path.dirname(path))
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, os.stat(path).st_mode & 0o777)
    os.replace(tmp, path)


def emit(path, blocks, dry_run):
    """Prints the blocks (--dry-run) or writes them into `path`."""
    if dry_run:
        for name, text in blocks.items():
            print(f"# --dry-run: section {name} of {os.path.relpath(path, ROOT)}\n{text}")
        return
    replace_sections(path, blocks)
    say(f"wrote {', '.join(blocks)} in {os.path.relpath(path, ROOT)}")


# ---- plots -------------------------------------------------------------------------------

def slug(name):
    """A file name from a label: "whole set (4 files)" -> whole-set-4-files."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


def gnuplot(script):
    """Runs a gnuplot script; True when it worked."""
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if r.returncode:
        say(f"gnuplot failed: {r.stderr[-500:]}")
    return r.returncode == 0

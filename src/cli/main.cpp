// main.cpp - flowdeflate, the command line: a drop-in for libdeflate's gzip program.
//
// Like libdeflate's programs/gzip.c, the command line is a user of the library: it uses
// only the public API (include/flowdeflate/) and the file-descriptor helpers in src/io/
// that the library uses too.  Compression streams every file (and standard input) through
// compress_fd() (the flow graph with reader and writer I/O threads), so memory does not
// depend on the input size, and writes bytes identical to libdeflate's gzip at the same
// level.  Decompression and testing stream too (StreamDecompressor: ISA-L's inflate with
// libdeflate's gzip's framing rules), in bounded memory.
//
// Files are never damaged: output goes to a temporary file in the same directory, which
// is renamed over the final name only when complete (and removed on any error or on
// SIGINT/SIGTERM/SIGHUP); the input is deleted only after that, and never with -k/-c.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli/options.hpp"
#include "flowdeflate/compress.hpp"
#include "flowdeflate/stats.hpp"
#include "io/fd_io.hpp"
#include "io/raw_buffer.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"

namespace flowdeflate::cli {
namespace {

// Per-file results, combined as libdeflate's gzip does: any error -> exit 1; otherwise
// any warning (a file skipped) -> exit 2 (0 with -q); else 0.
enum Status { kOk = 0, kError = 1, kWarning = 2 };

// Messages begin with the program's name as it was run, as libdeflate's do; where the
// situation is one libdeflate's gzip has, the words are its words, and a file is named
// in double quotes ("standard input" and "standard output" for the streams).
Status error(const std::string& message) {
    fmt::print(stderr, "{}: {}\n", program_name(), message);
    return kError;
}

Status warning(const Options& o, const std::string& message) {
    if (!o.quiet) fmt::print(stderr, "{}: {}\n", program_name(), message);
    return kWarning;
}

std::string errno_text() { return std::strerror(errno); }

std::string in_quotes(const std::string& path) { return "\"" + path + "\""; }

Status cannot_open(const std::string& path) { return error("Can't open " + in_quotes(path) + " for reading: " + errno_text()); }

// ---- the temporary output file, removed on errors and signals ----------------------

char g_temp_path[PATH_MAX];
volatile std::sig_atomic_t g_temp_active = 0;

// SIGBUS: a gzip file decoded on several threads is mapped, and a file that another
// process truncates meanwhile faults there (libdeflate's gzip, which maps its input too,
// dies the same way).  Said in a message prepared beforehand (write() is async-signal-safe).
char g_bus_message[256];
std::size_t g_bus_message_size = 0;

extern "C" void remove_temp_and_die(int sig) {
    if (g_temp_active) ::unlink(g_temp_path);  // async-signal-safe
    if (sig == SIGBUS && g_bus_message_size > 0) {
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, g_bus_message, g_bus_message_size);
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_signal_handlers() {
    const std::string bus =
        fmt::format("{}: bus error: an input file changed size while it was being read\n", program_name());
    g_bus_message_size = std::min(bus.size(), sizeof(g_bus_message));
    std::memcpy(g_bus_message, bus.data(), g_bus_message_size);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGBUS}) std::signal(sig, remove_temp_and_die);
}

// io::FileOutput (the library's file calls use it too), with its temporary name
// published to the signal handler.  Its failures are said in libdeflate's gzip's words:
// that program opens the final name itself ("Can't open ... for writing"), after deleting
// an old file there that it is to replace ("Unable to delete ...").
class TempOutput {
public:
    /// Creates a temporary file beside @p final_path (an existing file there is to be
    /// replaced).  False: error printed.
    bool create(const std::string& final_path) {
        final_ = final_path;
        // A name that cannot be looked up (too long, below a file...) fails before any work,
        // as libdeflate's open() of it does.
        struct stat st {};
        const bool found = !final_path.empty() && ::lstat(final_path.c_str(), &st) == 0;
        replacing_ = found;
        if (!found && (final_path.empty() || errno != ENOENT)) {
            if (final_path.empty()) errno = ENOENT;
            return failed(errno_text());
        }
        try {
            file_ = std::make_unique<io::FileOutput>(final_path, 0600);
        } catch (const Error& e) {
            return failed(reason(e));
        }
        const std::string& temp = file_->temp_path();
        if (temp.size() >= sizeof(g_temp_path)) {
            file_.reset();
            error(final_path + ": name too long");
            return false;
        }
        std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
        g_temp_active = 1;
        return true;
    }
    int fd() const { return file_->fd(); }

    /// Gives the output @p st's mode, owner and times, and renames it into place.  The
    /// setuid and setgid bits are not copied: a restored program must not gain them from
    /// a .gz anyone could have written (libdeflate's gzip loses them too, as its chown
    /// after chmod clears them).  What could not be preserved is said once the output is
    /// in place, as libdeflate's gzip says it, and is no error.
    bool commit(const struct stat& st) {
        struct stat safe = st;
        safe.st_mode &= ~mode_t(S_ISUID | S_ISGID);
        const std::vector<std::string> unpreserved = file_->copy_attributes(safe);
        try {
            file_->commit();
        } catch (const Error& e) {
            if (replacing_) return failed(reason(e));
            error(e.what());
            return false;
        }
        g_temp_active = 0;
        for (const std::string& what : unpreserved) error(in_quotes(final_) + ": unable to preserve " + what);
        return true;
    }

    ~TempOutput() {
        g_temp_active = 0;  // before the file goes: the handler must not unlink a reused name
        file_.reset();
    }

private:
    // FileOutput's message without the name it begins with.
    std::string reason(const Error& e) const {
        std::string r = e.what();
        if (r.starts_with(final_ + ": ")) r.erase(0, final_.size() + 2);
        return r;
    }
    bool failed(const std::string& why) const {
        if (replacing_) error("Unable to delete " + in_quotes(final_) + ": " + why);
        else error("Can't open " + in_quotes(final_) + " for writing: " + why);
        return false;
    }

    std::unique_ptr<io::FileOutput> file_;
    std::string final_;
    bool replacing_ = false;
};

// As libdeflate's gzip: a symbolic link is followed only with -f, -c or -t (it would
// otherwise replace the link's target's contents under the link's name and delete the link).
int nofollow(const Options& o) { return o.force || o.to_stdout || o.test ? 0 : O_NOFOLLOW; }

bool has_suffix(const std::string& path, const std::string& suffix) {
    return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// As libdeflate's gzip without -f: an existing output is a warning (exit 2, silent with
// -q), unless standard input and standard error are both terminals, where the user is
// asked; anything but 'y' is an error.  kOk: go on and replace it.
Status may_replace(const Options& o, const std::string& out_path) {
    if (o.force || !exists(out_path)) return kOk;
    if (!::isatty(STDIN_FILENO) || !::isatty(STDERR_FILENO))
        return warning(o, in_quotes(out_path) + " already exists; use -f to overwrite");
    fmt::print(stderr, "{}: {} already exists; overwrite? (y/n) ", program_name(), in_quotes(out_path));
    std::fflush(stderr);
    if (std::getchar() != 'y') return error("Not overwriting.");
    return kOk;
}

// The checks libdeflate's gzip makes of an opened input: a directory or other non-regular
// file is skipped with a warning; so is a file with several hard links, unless
// @p allow_hard_links.
Status check_input(const Options& o, int fd, const std::string& path, struct stat& st, bool allow_hard_links) {
    if (::fstat(fd, &st) != 0) return error(in_quotes(path) + ": unable to stat file");
    if (!S_ISREG(st.st_mode))
        return warning(o, in_quotes(path) + " is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                              " -- skipping");
    if (st.st_nlink > 1 && !allow_hard_links)
        return warning(o, in_quotes(path) + " has multiple hard links -- skipping (use -f to process anyway)");
    return kOk;
}

// The check libdeflate's gzip makes of standard input before reading it: a closed one is
// an error.
Status check_stdin() {
    struct stat st {};
    if (::fstat(STDIN_FILENO, &st) != 0) return error("standard input: unable to stat file");
    return kOk;
}

// Deletes the input whose output is complete, unless -k.  As libdeflate's gzip, a failure
// (another user's file in a sticky directory...) is not reported: both files remain and
// the file counts as done.
void delete_input(const Options& o, const std::string& path) {
    if (!o.keep) (void)::unlink(path.c_str());
}

constexpr const char* kTerminalOutput =
    "Refusing to write compressed data to terminal. Use -f to override.\nFor help, use -h.";
constexpr const char* kTerminalInput =
    "Refusing to read compressed data from terminal.  Use -f to override.\nFor help, use -h.";

double peak_rss_mib() {
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

// ---- progress ---------------------------------------------------------------------------

class Progress {
public:
    Progress(const Options& o, std::uint64_t total) : enabled_(o.progress_bar && ::isatty(STDERR_FILENO)), total_(total) {}
    void update(std::uint64_t in, std::uint64_t out) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        const double secs = std::chrono::duration<double>(now - start_).count();
        if (total_) {
            const int width = 30;
            const int filled = int(double(in) / double(total_) * width);
            fmt::print(stderr, "\r[{:<{}}] {:3.0f}%  {:.1f} MB/s  ratio {:.1f}%", std::string(std::min(filled, width), '#'),
                       width, 100.0 * double(in) / double(total_), double(in) / 1e6 / std::max(secs, 1e-3),
                       in ? 100.0 * double(out) / double(in) : 0.0);
        } else {
            fmt::print(stderr, "\r{:.1f} MB read  {:.1f} MB/s", double(in) / 1e6, double(in) / 1e6 / std::max(secs, 1e-3));
        }
        shown_ = true;
    }
    ~Progress() {
        if (shown_) fmt::print(stderr, "\r\033[K");
    }

private:
    bool enabled_;
    std::uint64_t total_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

// ---- compression --------------------------------------------------------------------------

// The graph's counters of the last file, for -v.
GraphStats g_last_stats;

// Appends @p line to the statistics file @p path; a warning when it cannot.
void append_stats(const std::string& path, const std::string& line) {
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) {
        fmt::print(stderr, "flowdeflate: {}: cannot write statistics: {}\n", path, std::strerror(errno));
        return;
    }
    std::fputs(line.c_str(), f);
    std::fclose(f);
}

/// CPU time of the whole process so far, every thread's, user and system (getrusage()).
std::uint64_t process_cpu_ns() {
    struct rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    const auto ns = [](const timeval& t) { return std::uint64_t(t.tv_sec) * 1'000'000'000u + std::uint64_t(t.tv_usec) * 1000u; };
    return ns(u.ru_utime) + ns(u.ru_stime);
}

/// The process's CPU time for the file being compressed (set around each compress_fd()):
/// with the nodes' own times, what no node counts (I/O threads, oneTBB's scheduling, start).
std::uint64_t g_file_cpu_ns = 0;

// The start of a statistics line: the file (a JSON string), the level, the sizes and the
// process's CPU time for it.
std::string stats_head(const std::string& name, int level, const Result& r) {
    std::string quoted;
    for (const char c : name) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) quoted += c;
    }
    return fmt::format("{{\"file\":\"{}\",\"level\":{},\"in_bytes\":{},\"out_bytes\":{},\"process_cpu_ns\":{},",
                       quoted, level, r.in_bytes, r.out_bytes, g_file_cpu_ns);
}

// One JSON line with the parallel graph's counters (see scripts/parallel-table).
void write_stats(const std::string& path, const std::string& name, int level, const Result& r, const GraphStats& s) {
    const ResolverStats& rs = s.resolver;
    append_stats(path, stats_head(name, level, r) +
                           fmt::format("\"threads\":{},\"chunk\":{},\"ahead\":{},\"ring\":{},"
                                       "\"wall_ns\":{},\"search_ns\":{},\"resolve_ns\":{},"
                                       "\"code_ns\":{},\"assemble_ns\":{},\"resolver_wait_ns\":{},\"ring_full_ns\":{},"
                                       "\"chunks\":{},\"blocks\":{},\"syncs\":{},\"repairs\":{},\"repair_bytes\":{},"
                                       "\"tracks\":{},\"chunk_search_us\":[{}],\"chunk_worker\":[{}],"
                                       "\"chunk_resolve_us\":[{}]}}\n",
                                       s.threads, s.chunk_size, s.ahead, s.ring, s.wall_ns, s.search_ns, rs.resolve_ns,
                                       s.code_ns, s.assemble_ns, s.resolver_wait_ns, s.ring_full_ns, rs.chunks,
                                       rs.blocks, rs.syncs, rs.repairs, rs.repair_bytes, s.tracks_searched,
                                       fmt::join(s.chunk_search_us, ","), fmt::join(s.chunk_worker, ","),
                                       fmt::join(s.chunk_resolve_us, ",")));
}

// The same for levels 10-12's search ahead of the optimiser ("optimiser_ns" marks them).
void write_optimiser_stats(const std::string& path, const std::string& name, int level, const Result& r,
                           const OptimiserStats& s) {
    append_stats(path, stats_head(name, level, r) +
                           fmt::format("\"threads\":{},\"chunk\":{},\"ahead\":{},\"wall_ns\":{},\"search_ns\":{},"
                                       "\"optimiser_ns\":{},\"optimiser_wait_ns\":{},\"chunks\":{},"
                                       "\"searched_by_optimiser\":{},\"min_cost_path\":\"{}\",\"path_min_part\":{},"
                                       "\"path_passes\":{},\"path_positions\":{},\"path_split\":{},\"path_parts\":{},"
                                       "\"path_taken\":{},\"path_disagreed\":{},\"path_ns\":{},\"path_guess_ns\":{}}}\n",
                                       s.threads, s.chunk_size, s.ahead, s.wall_ns, s.search_ns, s.optimiser_ns,
                                       s.wait_ns, s.chunks, s.searched_by_optimiser, s.min_cost_path, s.path_min_part, s.path_passes,
                                       s.path_positions, s.path_split, s.path_parts,
                                       s.path_taken, s.path_disagreed, s.path_ns, s.path_guess_ns));
}

Status compress_fd(const Options& o, int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                   std::uint64_t size_hint, std::uint64_t& in_bytes, std::uint64_t& out_bytes) {
    flowdeflate::Options library = o;  // the library's part of the command line's options
    Progress progress(o, size_hint);
    library.progress = [&](std::uint64_t in, std::uint64_t out) { progress.update(in, out); };
    try {
        // Read and write errors name the streams as libdeflate's gzip does.
        const std::string shown_in = in_name == "(stdin)" ? "standard input" : in_quotes(in_name);
        const std::string shown_out = out_name == "(stdout)" ? "standard output" : in_quotes(out_name);
        const std::uint64_t cpu0 = process_cpu_ns();
        const Result r = flowdeflate::compress_fd(in_fd, shown_in, out_fd, shown_out, library, &g_last_stats);
        g_file_cpu_ns = process_cpu_ns() - cpu0;
        in_bytes = r.in_bytes;
        out_bytes = r.out_bytes;
        if (!o.stats_file.empty()) {
            if (g_last_stats.parallel)
                write_stats(o.stats_file, in_name, o.level, r, g_last_stats);
            else if (g_last_stats.optimiser.ran)
                write_optimiser_stats(o.stats_file, in_name, o.level, r, g_last_stats.optimiser);
            else if (g_last_stats.direct)  // one chunk, on this thread: no nodes to count
                append_stats(o.stats_file, stats_head(in_name, o.level, r) + "\"threads\":1,\"direct\":true}\n");
            else  // one compressor (--sequential, -p 1, level 0): no nodes to count
                append_stats(o.stats_file, stats_head(in_name, o.level, r) + "\"threads\":1,\"sequential\":true}\n");
        }
    } catch (const std::bad_alloc&) {
        return error(in_name + ": out of memory (try fewer --threads or a smaller --chunk)");
    } catch (const std::exception& e) {
        return error(e.what());
    }
    return kOk;
}

void report(const Options& o, const std::string& name, std::uint64_t in, std::uint64_t out, double secs,
            const std::string& what) {
    if (!o.verbose) return;
    const double ratio = in ? 100.0 * (1.0 - double(out) / double(in)) : 0.0;
    fmt::print(stderr, "{}: {:.1f}% -- {} ({} -> {} bytes, {:.1f} MB/s, peak memory {:.1f} MiB)\n", name, ratio,
               what, in, out, double(in) / 1e6 / std::max(secs, 1e-6), peak_rss_mib());
    const GraphStats& s = g_last_stats;
    if (!o.decompress && s.optimiser.ran) {
        const OptimiserStats& n = s.optimiser;
        fmt::print(stderr,
                   "  levels 10-12: {} threads, chunk {} bytes, ahead {}; chunks {} ({} searched by the optimiser)\n"
                   "  time (ms): search {:.1f}, optimiser {:.1f} ({}); optimiser waited {:.1f} ({} times); wall {:.1f}\n"
                   "  paths in parts: {} passes over blocks of 8 KiB or more ({} positions), {} split (idle threads)"
                   " into {} parts, {} guessed by other threads and taken, {} guesses disagreed; time (ms):"
                   " optimiser in those passes {:.1f}, guesses {:.1f}\n",
                   n.threads, n.chunk_size, n.ahead, n.chunks, n.searched_by_optimiser, double(n.search_ns) / 1e6,
                   double(n.optimiser_ns) / 1e6, n.min_cost_path, double(n.wait_ns) / 1e6, n.waits,
                   double(n.wall_ns) / 1e6, n.path_passes, n.path_positions, n.path_split, n.path_parts, n.path_taken,
                   n.path_disagreed, double(n.path_ns) / 1e6, double(n.path_guess_ns) / 1e6);
    }
    if (o.decompress || !s.parallel) return;
    const ResolverStats& r = s.resolver;
    const auto ms = [](std::uint64_t ns) { return double(ns) / 1e6; };
    fmt::print(stderr,
               "  parallel graph: {} threads, chunk {} bytes, ahead {}, ring {}\n"
               "  chunks {} ({}), blocks {}, syncs {} ({} onto branches)\n"
               "  repairs {}: {} bytes ({:.3f}% of the input); causes: min match length {}, chunk start {}\n"
               "  time (ms): search {:.1f}, resolve {:.1f}, code {:.1f}, assemble {:.1f}; resolver waited {:.1f};"
               " ring full {:.1f}; wall {:.1f}\n",
               s.threads, s.chunk_size, s.ahead, s.ring, r.chunks,
               s.tracks_searched == 0 ? std::string("none searched ahead: one worker, the resolver parsed alone")
                                      : fmt::format("{} searched with step masks, {} with branches",
                                                    r.masked_chunks, r.branched_chunks),
               r.blocks,
               r.syncs, r.branches, r.repairs, r.repair_bytes, in ? 100.0 * double(r.repair_bytes) / double(in) : 0.0,
               r.repairs_min_len, r.repairs_phase, ms(s.search_ns), ms(r.resolve_ns), ms(s.code_ns),
               ms(s.assemble_ns), ms(s.resolver_wait_ns), ms(s.ring_full_ns), ms(s.wall_ns));
    // Each worker's share of the searches: equal work per chunk, so a worker whose chunks
    // cost more ran on a slower core (a shared machine's neighbours).
    std::map<int, std::pair<std::uint64_t, std::size_t>> by_worker;  // slot -> (us, chunks)
    for (std::size_t i = 0; i < s.chunk_worker.size() && i < s.chunk_search_us.size(); ++i) {
        if (s.chunk_worker[i] < 0) continue;
        auto& [us, chunks] = by_worker[s.chunk_worker[i]];
        us += s.chunk_search_us[i];
        ++chunks;
    }
    if (by_worker.empty()) return;
    std::string line = "  search per worker:";
    for (const auto& [slot, w] : by_worker)
        line += fmt::format(" {:.1f} ms / {} chunks ({:.2f} ms each);", double(w.first) / 1e3, w.second,
                            double(w.first) / 1e3 / double(w.second));
    line.back() = '\n';
    fmt::print(stderr, "{}", line);
}

Status compress_one(const Options& o, const std::string& path) {
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::uint64_t in_bytes = 0, out_bytes = 0;
    if (path == "-") {
        if (const Status s = check_stdin(); s != kOk) return s;
        if (!o.force && ::isatty(STDOUT_FILENO)) return error(kTerminalOutput);
        const Status s = compress_fd(o, STDIN_FILENO, "(stdin)", STDOUT_FILENO, "(stdout)", 0, in_bytes, out_bytes);
        if (s == kOk) report(o, "(stdin)", in_bytes, out_bytes, elapsed(), "written to standard output");
        return s;
    }
    if (!o.to_stdout && !o.force && has_suffix(path, o.suffix)) {
        // libdeflate's gzip says so even with -q, and the file counts as done.
        fmt::print(stderr, "{}: {}: already has {} suffix -- skipping\n", program_name(), path, o.suffix);
        return kOk;
    }
    const int in_fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | nofollow(o));
    if (in_fd < 0) return cannot_open(path);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{in_fd};
    struct stat st {};
    if (const Status s = check_input(o, in_fd, path, st, o.force || o.keep || o.to_stdout); s != kOk) return s;
    ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) & ~O_NONBLOCK);
    if (o.to_stdout) {
        if (!o.force && ::isatty(STDOUT_FILENO)) return error(kTerminalOutput);
        const Status s =
            compress_fd(o, in_fd, path, STDOUT_FILENO, "(stdout)", std::uint64_t(st.st_size), in_bytes, out_bytes);
        if (s == kOk) report(o, path, in_bytes, out_bytes, elapsed(), "written to standard output");
        return s;
    }
    const std::string out_path = path + o.suffix;
    if (const Status s = may_replace(o, out_path); s != kOk) return s;
    TempOutput out;
    if (!out.create(out_path)) return kError;
    if (const Status s = compress_fd(o, in_fd, path, out.fd(), out_path, std::uint64_t(st.st_size), in_bytes, out_bytes);
        s != kOk)
        return s;
    if (!out.commit(st)) return kError;
    delete_input(o, path);
    report(o, path, in_bytes, out_bytes, elapsed(), "replaced with " + out_path);
    return kOk;
}

// ---- decompression and testing -----------------------------------------------------------

// libdeflate's gzip's test of a file it is asked to decompress: at least a gzip header and
// trailer, beginning with the gzip magic bytes.
constexpr std::size_t kGzipMinSize = 10 + 8;

bool starts_like_gzip(std::span<const std::uint8_t> head) {
    return head.size() >= kGzipMinSize && head[0] == 0x1f && head[1] == 0x8b;
}

// A Sink writing to @p fd whose failure says what libdeflate's gzip says, naming the
// output @p shown ("standard output", or the final name in quotes, not the temporary one).
Sink output_sink(int fd, const std::string& shown) { return io::gzip_fd_sink(fd, shown); }

class ReadError : public Error {
    using Error::Error;
};

/// Decompresses everything readable from @p in_fd into @p out_fd, or only checks it when
/// out_fd < 0, as the data arrives (memory does not grow with the input): a regular gzip
/// file on all threads (decompress_fd()), a pipe on this one.  @p name is the
/// input as messages name it.  A gzip member's output is written before the next member
/// is checked, as libdeflate's gzip does; unlike it, the output of a member that turns out
/// corrupt is partly written already: to a file, which is then removed, or to standard
/// output, as GNU gzip does.
Status decompress_stream(const Options& o, int in_fd, const std::string& name, int out_fd, const std::string& out_name,
                         std::uint64_t& in_total, std::uint64_t& out_total) {
    // One buffer for every file of the command: a fresh megabyte per file went back to the
    // system and was faulted in again each time (200 small files took 70 times libdeflate's
    // gzip; docs/PERFORMANCE.md, "Small files").
    static const io::RawBuffer read_buffer(std::size_t(1) << 20);
    const std::span<std::uint8_t> buf = read_buffer.span();
    const auto read_error = [&] { return ReadError(io::read_error_text(name)); };
    try {
        // A regular file is looked at without reading it (pread): it may go to the parallel
        // decoder whole.
        struct stat st {};
        const bool regular = ::fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode);
        const off_t at = regular ? ::lseek(in_fd, 0, SEEK_CUR) : -1;
        const std::span<std::uint8_t> peek = buf.first(kGzipMinSize);
        const ssize_t head = at >= 0 ? ::pread(in_fd, peek.data(), peek.size(), at) : io::read_full(in_fd, peek);
        if (head < 0) throw read_error();
        const std::span<const std::uint8_t> first(buf.data(), std::size_t(head));
        const bool consumed = at < 0;
        if (o.format == Format::gzip && !starts_like_gzip(first)) {
            // -f -c passes data that is not gzip through unchanged, as GNU gzip and
            // libdeflate's gzip do; libdeflate's -t is a -c that writes nothing, except
            // here, where -f -t copies the data to standard output too.
            if (!o.force || !(o.to_stdout || o.test)) return error(name + ": not in gzip format");
            const Sink out = output_sink(STDOUT_FILENO, "standard output");
            if (consumed) out(first);
            in_total = out_total = consumed ? first.size() : 0;
            if (!io::read_pieces(in_fd, buf, [&](std::span<const std::uint8_t> p) {
                    out(p);
                    in_total = out_total += p.size();
                }))
                throw read_error();
            return kOk;
        }
        const Sink sink = out_fd >= 0 ? output_sink(out_fd, out_name) : Sink([](std::span<const std::uint8_t>) {});
        if (!consumed) {
            // All cores (at most 8) unless -p N or --sequential says otherwise: faster than one
            // thread from two cores on (docs/PERFORMANCE.md, "Decompression"), same output.
            const Result r = decompress_fd(in_fd, name, sink, o.format, o.sequential ? 1 : o.threads);
            in_total = r.in_bytes;
            out_total = r.out_bytes;
            return kOk;
        }
        StreamDecompressor stream(sink, o.format);
        stream.write(first);
        if (!io::read_pieces(in_fd, buf, [&](std::span<const std::uint8_t> p) { stream.write(p); })) throw read_error();
        const Result r = stream.finish();
        in_total = r.in_bytes;
        out_total = r.out_bytes;
    } catch (const io::WriteError& e) {
        return error(e.what());
    } catch (const ReadError& e) {
        return error(e.what());
    } catch (const Error& e) {
        if (o.format == Format::gzip) return error(name + ": file corrupt or not in gzip format");
        return error(name + ": " + e.what());
    }
    return kOk;
}

// The input file a decompression reads and the output it writes, chosen from the name on
// the command line as libdeflate's gzip chooses them.
struct DecompressPaths {
    std::string in, out;  ///< out is unused with to_stdout
    bool to_stdout = false;  ///< -c, -t
};

// NAME.gz -> NAME.  A NAME without the suffix that does not exist means NAME.gz; one that
// exists is skipped (a warning), except with -c or -t, where it is read as it is.
std::optional<DecompressPaths> decompress_paths(const Options& o, const std::string& arg, Status& skipped) {
    const bool to_stdout = o.to_stdout || o.test;
    if (has_suffix(arg, o.suffix)) return DecompressPaths{arg, arg.substr(0, arg.size() - o.suffix.size()), to_stdout};
    struct stat st {};
    if (::stat(arg.c_str(), &st) != 0 && errno == ENOENT) return DecompressPaths{arg + o.suffix, arg, to_stdout};
    if (to_stdout) return DecompressPaths{arg, "", true};
    skipped = warning(o, in_quotes(arg) + " does not end with the " + o.suffix + " suffix -- skipping");
    return std::nullopt;
}

Status decompress_one(const Options& o, const std::string& arg) {
    std::uint64_t in_total = 0, out_total = 0;
    const int out_std = o.test ? -1 : STDOUT_FILENO;
    if (arg == "-") {
        if (!o.force && ::isatty(STDIN_FILENO)) return error(kTerminalInput);
        if (const Status s = check_stdin(); s != kOk) return s;
        return decompress_stream(o, STDIN_FILENO, "standard input", out_std, "standard output", in_total, out_total);
    }
    Status skipped = kOk;
    const auto chosen = decompress_paths(o, arg, skipped);
    if (!chosen) return skipped;
    const DecompressPaths& paths = *chosen;
    const std::string name = in_quotes(paths.in);  // the input as messages name it
    const int in_fd = ::open(paths.in.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | nofollow(o));
    if (in_fd < 0) return cannot_open(paths.in);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{in_fd};
    if (!o.force && ::isatty(in_fd)) return error(kTerminalInput);
    struct stat st {};
    if (const Status s = check_input(o, in_fd, paths.in, st, o.force || o.keep || paths.to_stdout); s != kOk) return s;
    ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) & ~O_NONBLOCK);
    if (paths.to_stdout) return decompress_stream(o, in_fd, name, out_std, "standard output", in_total, out_total);

    if (const Status s = may_replace(o, paths.out); s != kOk) return s;
    TempOutput out;
    if (!out.create(paths.out)) return kError;
    if (const Status s = decompress_stream(o, in_fd, name, out.fd(), in_quotes(paths.out), in_total, out_total); s != kOk)
        return s;
    if (!out.commit(st)) return kError;
    delete_input(o, paths.in);
    if (o.verbose)
        fmt::print(stderr, "{}: {} -> {} bytes -- replaced with {}\n", paths.in, in_total, out_total, paths.out);
    return kOk;
}

}  // namespace
}  // namespace flowdeflate::cli

int main(int argc, char** argv) {
    using namespace flowdeflate::cli;
    const ParseResult parsed = parse_options(argc, argv);
    if (!parsed.options) return parsed.exit_status;
    const Options& o = *parsed.options;
    install_signal_handlers();
    bool any_error = false, any_warning = false;
    for (const std::string& f : o.files) {
        const Status s = o.decompress ? decompress_one(o, f) : compress_one(o, f);
        any_error |= s == kError;
        any_warning |= s == kWarning;
    }
    if (any_error) return kError;
    if (any_warning) return o.quiet ? kOk : kWarning;
    return kOk;
}

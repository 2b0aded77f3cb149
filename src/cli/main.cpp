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
// SIGINT/SIGTERM/SIGHUP: temp_output.hpp); the input is deleted only after that, and
// never with -k/-c.  What is reported of a file (-v, --stats, --progress) is report.hpp's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "cli/messages.hpp"
#include "cli/options.hpp"
#include "cli/report.hpp"
#include "cli/temp_output.hpp"
#include "flowdeflate/compress.hpp"
#include "flowdeflate/stats.hpp"
#include "io/fd_io.hpp"
#include "io/raw_buffer.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"

namespace flowdeflate::cli {
namespace {

Status cannot_open(const std::string& path) { return error("Can't open " + in_quotes(path) + " for reading: " + errno_text()); }

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

// ---- compression --------------------------------------------------------------------------

// --export-index's file written; a file that cannot be written is a WriteError (not news
// about the data).
void write_index_file_or_say(const Index& index, const Options& o) {
    try {
        write_index_file(index, o.index_format, o.export_index);
    } catch (const IndexError&) {
        throw;
    } catch (const Error& e) {
        throw io::WriteError(e.what());
    }
}

// Compresses @p in_fd into @p out_fd (compress_fd()) and writes the --stats line; @p run
// receives the result, the graph's counters and the CPU time.
Status compress_fd(const Options& o, int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                   std::uint64_t size_hint, FileRun& run) {
    const auto start = std::chrono::steady_clock::now();
    flowdeflate::Options library = o;  // the library's part of the command line's options
    Progress progress(o, size_hint);
    library.progress = [&](std::uint64_t in, std::uint64_t out) { progress.update(in, out); };
    try {
        // Read and write errors name the streams as libdeflate's gzip does.
        const std::string shown_in = in_name == "(stdin)" ? "standard input" : in_quotes(in_name);
        const std::string shown_out = out_name == "(stdout)" ? "standard output" : in_quotes(out_name);
        Index index;
        if (!o.export_index.empty()) library.index = &index;
        const std::uint64_t cpu0 = process_cpu_ns();
        run.result = flowdeflate::compress_fd(in_fd, shown_in, out_fd, shown_out, library, &run.stats);
        run.cpu_ns = process_cpu_ns() - cpu0;
        if (!o.export_index.empty()) write_index_file_or_say(index, o);
        append_stats(o, in_name, run);
    } catch (const std::bad_alloc&) {
        return error(in_name + ": out of memory (try fewer --threads or a smaller --chunk)");
    } catch (const std::exception& e) {
        return error(e.what());
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return kOk;
}

Status compress_one(const Options& o, const std::string& path) {
    FileRun run;
    if (path == "-") {
        if (const Status s = check_stdin(); s != kOk) return s;
        if (!o.force && ::isatty(STDOUT_FILENO)) return error(kTerminalOutput);
        const Status s = compress_fd(o, STDIN_FILENO, "(stdin)", STDOUT_FILENO, "(stdout)", 0, run);
        if (s == kOk) report(o, "(stdin)", run, "written to standard output");
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
        const Status s = compress_fd(o, in_fd, path, STDOUT_FILENO, "(stdout)", std::uint64_t(st.st_size), run);
        if (s == kOk) report(o, path, run, "written to standard output");
        return s;
    }
    const std::string out_path = path + o.suffix;
    if (const Status s = may_replace(o, out_path); s != kOk) return s;
    TempOutput out;
    if (!out.create(out_path)) return kError;
    if (const Status s = compress_fd(o, in_fd, path, out.fd(), out_path, std::uint64_t(st.st_size), run); s != kOk)
        return s;
    if (!out.commit(st)) return kError;
    delete_input(o, path);
    report(o, path, run, "replaced with " + out_path);
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
bool indexed(const Options& o) { return !o.export_index.empty() || !o.import_index.empty() || o.range; }

// Where gztool looks for FILE's index: FILE.gz -> FILE.gzi, FILE.ext -> FILE.ext.gzi.
std::string index_beside(const std::string& path) {
    return has_suffix(path, ".gz") ? path + "i" : path + ".gzi";
}

// What every decompress_fd() of the command line is told: its threads, where its stats go,
// that the threads are this process's own (DecompressOptions::pin_threads) and that it
// handles SIGBUS (map_input).
DecompressOptions decompress_options(const Options& o, DecompressStats& stats) {
    DecompressOptions d;
    d.threads = o.sequential ? 1 : o.threads;
    d.stats = &stats;
    d.pin_threads = true;
    d.map_input = true;  // (install_signal_handlers() says why a SIGBUS came)
    return d;
}

// -d with --export-index, --import-index or --range (decompress_fd() with an index).
Result decompress_with_index(const Options& o, int in_fd, const std::string& path, const std::string& name,
                             const Sink& sink, DecompressStats& stats) {
    DecompressOptions d = decompress_options(o, stats);
    Index exported, imported;
    if (!o.export_index.empty()) {
        d.export_index = &exported;
        d.index_span = o.index_span;
    }
    std::string from = o.import_index;
    if (from.empty() && o.range) {
        if (path.empty()) throw IndexError("--range of standard input needs --import-index");
        from = index_beside(path);
    }
    if (!from.empty()) {
        try {
            imported = read_index_file(from, IndexWindows::packed);
        } catch (const IndexError&) {
            throw;
        } catch (const Error& e) {
            // The index file cannot be opened or read: that, not damaged data, is the news.
            throw ReadError(o.import_index.empty()
                                ? std::string(e.what()) + " (--range reads the index beside the file, or --import-index FILE)"
                                : std::string(e.what()));
        }
        d.import_index = &imported;
    }
    if (o.range) {
        d.range = true;
        d.range_offset = o.range->first;
        d.range_length = o.range->second;
    }
    Result r;
    try {
        r = decompress_fd(in_fd, name, sink, d);
    } catch (const IndexError& e) {
        if (from.empty()) throw;
        throw IndexError(from + ": " + e.what());  // (which index: a window is read as it is needed)
    }
    if (!o.export_index.empty()) write_index_file_or_say(exported, o);
    return r;
}

/// file on all threads (decompress_fd()), a pipe on this one.  @p name is the
/// input as messages name it.  A gzip member's output is written before the next member
/// is checked, as libdeflate's gzip does; unlike it, the output of a member that turns out
/// corrupt is partly written already: to a file, which is then removed, or to standard
/// output, as GNU gzip does.
Status decompress_stream(const Options& o, int in_fd, const std::string& path, const std::string& name, int out_fd,
                         const std::string& out_name, DecodedRun& run) {
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t& in_total = run.result.in_bytes;
    std::uint64_t& out_total = run.result.out_bytes;
    // One buffer for every file of the command: a fresh megabyte per file went back to the
    // system and was faulted in again each time (200 small files took 70 times libdeflate's
    // gzip; docs/notes/io-and-memory.md, "Small files and the process floor").
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
            run.stats.decoder = "copy";
            run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return kOk;
        }
        const Sink sink = out_fd >= 0 ? output_sink(out_fd, out_name) : Sink([](std::span<const std::uint8_t>) {});
        const std::uint64_t cpu0 = process_cpu_ns();
        DecompressStats& stats = run.stats;
        Result r;
        if (indexed(o)) {
            if (consumed) return error(name + ": an index is made or used for a regular file, not a pipe");
            r = decompress_with_index(o, in_fd, path, name, sink, stats);
        } else if (!consumed) {
            // All cores (at most 8) unless -p N or --sequential says otherwise: faster than one
            // thread from two cores on (docs/notes/decompression.md, "The default thread count"), same output.
            DecompressOptions d = decompress_options(o, stats);
            d.format = o.format;
            r = decompress_fd(in_fd, name, sink, d);
        } else {
            StreamDecompressor stream(sink, o.format);
            stream.write(first);
            if (!io::read_pieces(in_fd, buf, [&](std::span<const std::uint8_t> p) { stream.write(p); }))
                throw read_error();
            r = stream.finish();
            stats.main_line_bytes = r.out_bytes;
            stats.main_line_ns = process_cpu_ns() - cpu0;
        }
        in_total = r.in_bytes;
        out_total = r.out_bytes;
        append_decompress_stats(o, path.empty() ? "(stdin)" : path, r, stats, process_cpu_ns() - cpu0);
        run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } catch (const io::WriteError& e) {
        return error(e.what());
    } catch (const ReadError& e) {
        return error(e.what());
    } catch (const IndexError& e) {
        return error(name + ": " + e.what());
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
    DecodedRun run;
    const int out_std = o.test ? -1 : STDOUT_FILENO;
    const std::string to_std = o.test ? "OK" : "written to standard output";
    if (arg == "-") {
        if (!o.force && ::isatty(STDIN_FILENO)) return error(kTerminalInput);
        if (const Status s = check_stdin(); s != kOk) return s;
        const Status s = decompress_stream(o, STDIN_FILENO, "", "standard input", out_std, "standard output", run);
        if (s == kOk) report_decompress(o, "(stdin)", run, to_std);
        return s;
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
    if (paths.to_stdout) {
        const Status s = decompress_stream(o, in_fd, paths.in, name, out_std, "standard output", run);
        if (s == kOk) report_decompress(o, paths.in, run, to_std);
        return s;
    }

    if (const Status s = may_replace(o, paths.out); s != kOk) return s;
    TempOutput out;
    if (!out.create(paths.out)) return kError;
    if (const Status s =
            decompress_stream(o, in_fd, paths.in, name, out.fd(), in_quotes(paths.out), run);
        s != kOk)
        return s;
    if (!out.commit(st)) return kError;
    delete_input(o, paths.in);
    report_decompress(o, paths.in, run, "replaced with " + paths.out);
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

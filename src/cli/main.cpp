// main.cpp - the first flowdeflate command line: compresses whole files with the
// sequential core, writing FILE.gz (or standard output with -c) byte-identical to
// libdeflate's `gzip` at the same level.  The streaming graph and the full
// gzip-compatible option set come later (see the README).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "flowdeflate/flowdeflate.hpp"
#include "graph/pipeline.hpp"

namespace {

// Per-file results, combined as libdeflate's gzip does: any error -> exit 1; otherwise
// any warning (a file skipped) -> exit 2; else 0.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitWarning = 2;

struct Options {
    int level = flowdeflate::kDefaultLevel;
    bool to_stdout = false;
    bool keep = false;
    bool force = false;
    std::vector<std::string> files;
};

void usage(FILE* fp) {
    fmt::print(fp,
               "Usage: flowdeflate [-LEVEL] [-c] [-f] [-k] [-h] [-V] [FILE]...\n"
               "Compress FILEs to FILE.gz, byte for byte as libdeflate's gzip does at the same level.\n"
               "With no FILE, or FILE '-', read standard input and write standard output.\n\n"
               "  -0 .. -12  compression level (default 6; 0 stores, 10-12 are slow and strongest)\n"
               "  -c         write to standard output, keep the input\n"
               "  -f         overwrite existing output, compress files already ending in .gz or\n"
               "             having several hard links, write compressed data to a terminal\n"
               "  -k         keep (do not delete) input files\n"
               "  -h         print this help\n"
               "  -V         print version\n\n"
               "FILE.gz gets FILE's mode, owner and timestamps; FILE is removed only after FILE.gz\n"
               "is complete.  Exit status: 0 ok, 1 error, 2 a file was skipped with a warning.\n"
               "Files and pipes stream through a bounded window: memory does not grow with the input.\n"
               "Compression runs on one core for now (the parallel pipeline is not built yet).\n");
}

int compress_stream(const Options& opt, int in_fd, int out_fd, const std::string& in_name,
                    const std::string& out_name) {
    flowdeflate::graph::PipelineOptions po;
    po.level = opt.level;
    try {
        flowdeflate::graph::compress_fd(in_fd, in_name, out_fd, out_name, po);
    } catch (const std::exception& e) {
        fmt::print(stderr, "flowdeflate: {}\n", e.what());
        return kExitError;
    }
    return kExitOk;
}

int compress_file(const Options& opt, const std::string& path) {
    if (path == "-") {
        if (!opt.force && isatty(STDOUT_FILENO)) {
            fmt::print(stderr, "flowdeflate: refusing to write compressed data to a terminal (use -f)\n");
            return kExitError;
        }
        return compress_stream(opt, STDIN_FILENO, STDOUT_FILENO, "(stdin)", "(stdout)");
    }
    if (!opt.force && !opt.to_stdout && path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
        fmt::print(stderr, "flowdeflate: {}: already has .gz suffix -- skipping\n", path);
        return kExitOk;
    }
    const int in_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in_fd < 0) {
        fmt::print(stderr, "flowdeflate: {}: {}\n", path, std::strerror(errno));
        return kExitError;
    }
    struct stat st {};
    if (fstat(in_fd, &st) != 0) {
        fmt::print(stderr, "flowdeflate: {}: unable to stat file\n", path);
        close(in_fd);
        return kExitError;
    }
    if (!S_ISREG(st.st_mode)) {
        fmt::print(stderr, "flowdeflate: {} is {} -- skipping\n", path,
                   S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        close(in_fd);
        return kExitWarning;
    }
    if (st.st_nlink > 1 && !opt.force && !opt.keep && !opt.to_stdout) {
        // Deleting the input would not free it; gzip and libdeflate's gzip refuse too.
        fmt::print(stderr, "flowdeflate: {} has multiple hard links -- skipping (use -f to process anyway)\n",
                   path);
        close(in_fd);
        return kExitWarning;
    }
    if (opt.to_stdout) {
        if (!opt.force && isatty(STDOUT_FILENO)) {
            fmt::print(stderr, "flowdeflate: refusing to write compressed data to a terminal (use -f)\n");
            close(in_fd);
            return kExitError;
        }
        const int rc = compress_stream(opt, in_fd, STDOUT_FILENO, path, "(stdout)");
        close(in_fd);
        return rc;
    }
    const std::string out_path = path + ".gz";
    // Write to a temporary name and rename at the end, so no partial output is left.
    const std::string tmp_path = out_path + ".flowdeflate-tmp";
    if (!opt.force && access(out_path.c_str(), F_OK) == 0) {
        fmt::print(stderr, "flowdeflate: {}: already exists; use -f to overwrite\n", out_path);
        close(in_fd);
        return kExitError;
    }
    const int out_fd = open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
    if (out_fd < 0) {
        fmt::print(stderr, "flowdeflate: {}: {}\n", tmp_path, std::strerror(errno));
        close(in_fd);
        return kExitError;
    }
    int rc = compress_stream(opt, in_fd, out_fd, path, out_path);
    close(in_fd);
    if (rc == kExitOk) {
        // Restore the input's timestamps, owner and mode on the output (as gzip does).
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        (void)futimens(out_fd, times);
        (void)fchown(out_fd, st.st_uid, st.st_gid);
        (void)fchmod(out_fd, st.st_mode & 07777);
    }
    if (close(out_fd) != 0 && rc == kExitOk) {
        fmt::print(stderr, "flowdeflate: {}: {}\n", out_path, std::strerror(errno));
        rc = kExitError;
    }
    if (rc != kExitOk || rename(tmp_path.c_str(), out_path.c_str()) != 0) {
        if (rc == kExitOk) fmt::print(stderr, "flowdeflate: {}: {}\n", out_path, std::strerror(errno));
        unlink(tmp_path.c_str());
        return kExitError;
    }
    if (!opt.keep && unlink(path.c_str()) != 0) {
        fmt::print(stderr, "flowdeflate: {}: {}\n", path, std::strerror(errno));
        return kExitError;
    }
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (options_done || a == "-" || a.size() < 2 || a[0] != '-') {
            opt.files.emplace_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        if (a == "--help") {
            usage(stdout);
            return kExitOk;
        }
        if (a == "--version") {
            fmt::print("flowdeflate {} (output identical to libdeflate {})\n", flowdeflate::kVersion,
                       flowdeflate::kReferenceVersion);
            return kExitOk;
        }
        for (std::size_t j = 1; j < a.size(); ++j) {
            const char ch = a[j];
            if (ch >= '0' && ch <= '9') {
                int level = ch - '0';
                while (j + 1 < a.size() && a[j + 1] >= '0' && a[j + 1] <= '9') level = level * 10 + (a[++j] - '0');
                if (level > flowdeflate::kMaxLevel) {
                    fmt::print(stderr, "flowdeflate: invalid compression level: \"{}\"\n", level);
                    return kExitError;
                }
                opt.level = level;
            } else if (ch == 'c') {
                opt.to_stdout = true;
            } else if (ch == 'k') {
                opt.keep = true;
            } else if (ch == 'f') {
                opt.force = true;
            } else if (ch == 'h') {
                usage(stdout);
                return kExitOk;
            } else if (ch == 'V') {
                fmt::print("flowdeflate {} (output identical to libdeflate {})\n", flowdeflate::kVersion,
                           flowdeflate::kReferenceVersion);
                return kExitOk;
            } else {
                fmt::print(stderr, "flowdeflate: invalid option -- '{}'\n", ch);
                usage(stderr);
                return kExitError;
            }
        }
    }
    if (opt.files.empty()) opt.files.emplace_back("-");
    bool any_error = false, any_warning = false;
    for (const std::string& f : opt.files) {
        const int rc = compress_file(opt, f);
        any_error |= rc == kExitError;
        any_warning |= rc == kExitWarning;
    }
    return any_error ? kExitError : any_warning ? kExitWarning : kExitOk;
}

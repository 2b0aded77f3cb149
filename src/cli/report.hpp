// report.hpp - what the command line tells about a file it compressed: the progress bar
// (--progress), the -v report and the --stats JSON line (read by scripts/bench).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cli/options.hpp"
#include "flowdeflate/compress.hpp"
#include "flowdeflate/stats.hpp"

namespace flowdeflate::cli {

/// One file's compression, as the reports need it.
struct FileRun {
    Result result;
    GraphStats stats;             ///< the graph's counters (compress_fd())
    std::uint64_t cpu_ns = 0;     ///< the process's CPU time for the file (every thread's)
    double seconds = 0;           ///< wall time, opening to closing
};

/// The process's CPU time so far, every thread's, user and system (getrusage()).
[[nodiscard]] std::uint64_t process_cpu_ns();
/// The process's peak resident memory so far.
[[nodiscard]] double peak_rss_mib();

/// One file's decompression, as the reports need it.
struct DecodedRun {
    Result result;
    DecompressStats stats;
    double seconds = 0;  ///< wall time of the decoding
};

/// The -v line for a decompressed (or tested) file: sizes, speed of the output, the decoder
/// and its threads, peak memory.  @p what says where the output went ("OK" for -t).
void report_decompress(const Options& o, const std::string& name, const DecodedRun& run, const std::string& what);

/// -d --stats FILE: one JSON line per file with what the decompression did.
void append_decompress_stats(const Options& o, const std::string& name, const Result& result,
                             const DecompressStats& stats, std::uint64_t cpu_ns);

/// A progress bar on standard error while a file is compressed (--progress, on a
/// terminal), erased when it goes.
class Progress {
public:
    Progress(const Options& o, std::uint64_t total);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void update(std::uint64_t in, std::uint64_t out);

private:
    bool enabled_;
    std::uint64_t total_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

/// Appends @p run's JSON line to the --stats file (a warning when it cannot).
void append_stats(const Options& o, const std::string& name, const FileRun& run);

/// The -v lines for a compressed file: ratio, speed, peak memory, and the graph's
/// counters.  @p what says where the output went.
void report(const Options& o, const std::string& name, const FileRun& run, const std::string& what);

}  // namespace flowdeflate::cli

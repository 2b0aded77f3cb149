// options.hpp - the command line of flowdeflate: libdeflate gzip's options, gzip's long
// names, and ours (--threads, --sequential, --verbose, --progress).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace flowdeflate::cli {

struct Options {
    int level = 6;
    bool to_stdout = false;
    bool decompress = false;
    bool test = false;
    bool force = false;
    bool keep = false;
    bool quiet = false;
    bool verbose = false;
    bool progress = false;
    std::string stats_file;  ///< --stats FILE: the parallel graph's counters as JSON
    bool sequential = false;
    int threads = 0;  ///< 0: all cores
    std::size_t chunk = 1u << 20;  ///< --chunk: input per search task
    int ahead = 0;                 ///< --ahead: 0 = threads + 4
    int ring = 4096;               ///< --ring
    int tracks = 0;                ///< --tracks: 0 auto, 1 history, 2 all
    int search_concurrency = 0;    ///< --search-concurrency (0: threads)
    int code_concurrency = 0;      ///< --code-concurrency (0: threads)
    std::string suffix = ".gz";
    std::vector<std::string> files;  ///< "-" is standard input
};

/// What parsing decided: run with options, or exit at once with a status (after --help,
/// --version or a usage error, whose message is already printed).
struct ParseResult {
    std::optional<Options> options;
    int exit_status = 0;
};

ParseResult parse_options(int argc, char** argv);
void print_usage(bool to_stderr);

}  // namespace flowdeflate::cli

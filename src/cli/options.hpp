// options.hpp - the command line of flowdeflate: libdeflate gzip's options, gzip's long
// names, and ours (--threads, --sequential, --verbose, --progress).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flowdeflate/options.hpp"

namespace flowdeflate::cli {

/// The library's options (level, format, threads, chunk, windows...) and the command
/// line's own.
struct Options : flowdeflate::Options {
    bool to_stdout = false;
    bool decompress = false;
    bool test = false;
    bool force = false;
    bool keep = false;
    bool quiet = false;
    bool verbose = false;
    bool progress_bar = false;  ///< --progress
    std::string stats_file;  ///< --stats FILE: the parallel graph's counters as JSON
    std::string suffix;      ///< -S (default: .gz, .zz or .deflate by format)
    std::string export_index;  ///< --export-index FILE (index_span: --index-span)
    std::string import_index;  ///< --import-index FILE
    IndexFormat index_format = IndexFormat::gztool;  ///< --index-format
    std::optional<std::pair<std::uint64_t, std::uint64_t>> range;  ///< --range OFFSET:LENGTH
    std::vector<std::string> files;  ///< "-" is standard input
};

/// What parsing decided: run with options, or exit at once with a status (after --help,
/// --version or a usage error, whose message is already printed).
struct ParseResult {
    std::optional<Options> options;
    int exit_status = 0;
};

ParseResult parse_options(int argc, char** argv);
/// The help (--help), on standard output.
void print_usage();

/// The name messages begin with: the last component of argv[0], as libdeflate's gzip
/// prints it ("flowdeflate", or "gunzip" when run through that link).
const std::string& program_name();

/// Whether @p name (argv[0]'s last component) asks for decompression: "gunzip" or
/// "flowdeflate-gunzip", as libdeflate's gzip decompresses when run as "gunzip" or
/// "libdeflate-gunzip".
bool is_gunzip_name(std::string_view name);

}  // namespace flowdeflate::cli

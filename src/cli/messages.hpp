// messages.hpp - how the command line says what happened to a file: its status (combined
// into the exit code as libdeflate's gzip does) and its messages.
//
// Messages begin with the program's name as it was run, as libdeflate's do; where the
// situation is one libdeflate's gzip has, the words are its words, and a file is named
// in double quotes ("standard input" and "standard output" for the streams).
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/core.h>

#include "cli/options.hpp"

namespace flowdeflate::cli {

/// Per-file results, combined as libdeflate's gzip does: any error -> exit 1; otherwise
/// any warning (a file skipped) -> exit 2 (0 with -q); else 0.
enum Status { kOk = 0, kError = 1, kWarning = 2 };

inline Status error(const std::string& message) {
    fmt::print(stderr, "{}: {}\n", program_name(), message);
    return kError;
}

inline Status warning(const Options& o, const std::string& message) {
    if (!o.quiet) fmt::print(stderr, "{}: {}\n", program_name(), message);
    return kWarning;
}

inline std::string errno_text() { return std::strerror(errno); }

inline std::string in_quotes(const std::string& path) { return "\"" + path + "\""; }

}  // namespace flowdeflate::cli

// fd_sink.hpp - a Sink (flowdeflate/core.hpp) that writes to a file descriptor, and the
// error it throws, so that a caller can tell the output's failure from the input's.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "flowdeflate/core.hpp"
#include "io/fd_io.hpp"

namespace flowdeflate::io {

/// A write to an output failed; the message names it.  Sinks throw this type so that a
/// caller can tell the output's failure from the input's (which it names itself).
class WriteError : public Error {
public:
    using Error::Error;
};

/// A Sink that writes everything to @p fd (retrying short writes and EINTR); throws
/// WriteError naming @p name.
inline Sink fd_sink(int fd, std::string name) {
    return [fd, name = std::move(name)](std::span<const std::uint8_t> b) {
        if (!write_all(fd, b.data(), b.size())) throw WriteError(name + ": " + std::strerror(errno));
    };
}

/// fd_sink() whose WriteError says what libdeflate's gzip says ("Error writing to NAME:
/// ..."): the command line's outputs, and the library's where it writes for them.
inline Sink gzip_fd_sink(int fd, std::string name) {
    return [fd, name = std::move(name)](std::span<const std::uint8_t> b) {
        if (!write_all(fd, b.data(), b.size())) throw WriteError(write_error_text(name));
    };
}

}  // namespace flowdeflate::io

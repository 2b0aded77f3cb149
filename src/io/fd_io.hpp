// fd_io.hpp - whole reads and writes on file descriptors, retrying short counts and EINTR.
// Used by the graph's writer thread, the library's file calls and the command line.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace flowdeflate::io {

/// libdeflate gzip's words for a failed read of @p name, with @p why (errno's text by
/// default).
inline std::string read_error_text(const std::string& name, const char* why = std::strerror(errno)) {
    return "Error reading from " + name + ": " + why;
}
/// ... and for a failed write to @p name.
inline std::string write_error_text(const std::string& name, const char* why = std::strerror(errno)) {
    return "Error writing to " + name + ": " + why;
}

/// Writes all @p n bytes; false on an error (errno says which).
inline bool write_all(int fd, const std::uint8_t* p, std::size_t n) {
    while (n) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= std::size_t(w);
    }
    return true;
}

/// Reads @p fd to its end, handing each piece read (at most buf.size() bytes) to
/// @p on_piece; false on a read error (errno says which).
template <class OnPiece>
bool read_pieces(int fd, std::span<std::uint8_t> buf, OnPiece&& on_piece) {
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n == 0) return true;
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        on_piece(std::span<const std::uint8_t>(buf.data(), std::size_t(n)));
    }
}

/// Reads until @p buf is full or the input ends; returns the bytes read, or -1 on an error.
inline ssize_t read_full(int fd, std::span<std::uint8_t> buf) {
    std::size_t got = 0;
    while (got < buf.size()) {
        const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += std::size_t(n);
    }
    return ssize_t(got);
}

/// Appends everything up to end of input to @p data; false on an error.
inline bool read_all(int fd, std::vector<std::uint8_t>& data) {
    std::uint8_t buf[1 << 16];
    return read_pieces(fd, buf, [&](std::span<const std::uint8_t> p) { data.insert(data.end(), p.begin(), p.end()); });
}

}  // namespace flowdeflate::io

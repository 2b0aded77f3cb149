// fd_io.hpp - whole reads and writes on file descriptors, retrying short counts and EINTR.
// Used by the graph's writer thread, the library's file calls and the command line.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace flowdeflate::io {

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

/// Appends everything up to end of input to @p data; false on an error.
inline bool read_all(int fd, std::vector<std::uint8_t>& data) {
    std::uint8_t buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n == 0) return true;
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.insert(data.end(), buf, buf + n);
    }
}

}  // namespace flowdeflate::io

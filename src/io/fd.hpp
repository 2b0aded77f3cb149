// fd.hpp - a file descriptor that is closed when its owner goes, so that every early
// return and exception on the way through a file call closes what it opened.
#pragma once

#include <unistd.h>

namespace flowdeflate::io {

/// Owns a file descriptor (-1: none).
class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    [[nodiscard]] int get() const { return fd_; }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_;
};

}  // namespace flowdeflate::io

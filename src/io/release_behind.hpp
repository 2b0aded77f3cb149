// release_behind.hpp - a read-only file mapping's pages given back behind its reader.
//
// The decoders map a compressed file whole (a private, read-only mapping) and read it
// front to back; the pages they have passed would otherwise stay resident, so that memory
// grew with the file.  Pages of a clean private file mapping dropped with MADV_DONTNEED
// are simply read again from the file if touched.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace flowdeflate::io {

class ReleaseBehind {
public:
    /// Releases nothing when @p enabled is false (memory the caller owns, not a mapping).
    ReleaseBehind(std::span<const std::uint8_t> mapping, bool enabled) : mapping_(mapping), enabled_(enabled) {}

    /// No reader needs the bytes before @p byte any more: whole pages before it are given
    /// back, in batches of kBatch (a call costs a system call and a TLB shootdown).
    void upto(std::size_t byte) noexcept {
        if (!enabled_) return;
        static const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
        const std::size_t end = std::min(byte, mapping_.size());
        if (end < released_ + kBatch) return;
        const auto base = reinterpret_cast<std::uintptr_t>(mapping_.data());
        const std::uintptr_t first = (base + released_ + page - 1) / page * page;
        const std::uintptr_t last = (base + end) / page * page;
        if (last <= first) return;
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
        released_ = last - base;  // (a page boundary: the page holding `end` goes next time)
    }

    static constexpr std::size_t kBatch = std::size_t(4) << 20;

private:
    std::span<const std::uint8_t> mapping_;
    bool enabled_;
    std::size_t released_ = 0;
};

}  // namespace flowdeflate::io

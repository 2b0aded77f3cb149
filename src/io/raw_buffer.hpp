// raw_buffer.hpp - a fixed-size byte buffer whose bytes start uninitialised, for reads and
// decoders to fill: only the pages written are touched.  A zeroed 1 MiB std::vector faulted
// in all 256 of its pages first, ~4 ms per file on the machines here, more than the whole
// of a small file's work (docs/notes/io-and-memory.md, "Small files and the process floor").  A buffer that will be
// filled whole can instead have its pages made up front (populated()): one mmap call
// instead of a fault per page.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

namespace flowdeflate::io {

/// RawBuffer's deleter: frees a plain buffer, or unmaps a populated one (mapped: its
/// length).  (Outside the class: a nested one with a default member initializer is not yet
/// default-constructible where unique_ptr asks.)
struct RawBufferRelease {
    std::size_t mapped = 0;
    void operator()(std::uint8_t* p) const noexcept {
        if (mapped)
            ::munmap(p, mapped);
        else
            delete[] p;
    }
};

class RawBuffer {
    using Release = RawBufferRelease;
    using Bytes = std::unique_ptr<std::uint8_t[], Release>;

public:
    RawBuffer() = default;  ///< empty
    explicit RawBuffer(std::size_t size) : data_(new std::uint8_t[size]), size_(size) {}  // (not value-initialised)
    /// A buffer of @p size bytes whose pages exist already (MAP_POPULATE), for one that is
    /// about to be filled whole: one call instead of a page fault per 4 KiB read into it
    /// (docs/notes/io-and-memory.md).  Falls back to a plain buffer.
    static RawBuffer populated(std::size_t size) {
        void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) return RawBuffer(size);
        RawBuffer b;
        b.data_ = Bytes(static_cast<std::uint8_t*>(p), Release{size});
        b.size_ = size;
        return b;
    }
    RawBuffer(RawBuffer&& o) noexcept : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)) {}
    RawBuffer& operator=(RawBuffer&& o) noexcept {
        data_ = std::move(o.data_);
        size_ = std::exchange(o.size_, 0);
        return *this;
    }
    [[nodiscard]] std::span<std::uint8_t> span() const { return {data_.get(), size_}; }
    [[nodiscard]] std::uint8_t* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return size_; }

private:
    Bytes data_;
    std::size_t size_ = 0;
};

}  // namespace flowdeflate::io

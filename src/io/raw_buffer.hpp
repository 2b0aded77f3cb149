// raw_buffer.hpp - a fixed-size byte buffer whose bytes start uninitialised, for reads and
// decoders to fill: only the pages written are touched.  A zeroed 1 MiB std::vector faulted
// in all 256 of its pages first, ~4 ms per file on the machines here, more than the whole
// of a small file's work (docs/PERFORMANCE.md, "Small files").  A buffer that will be
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

class RawBuffer {
public:
    RawBuffer() = default;  ///< empty
    explicit RawBuffer(std::size_t size)
        : heap_(std::make_unique_for_overwrite<std::uint8_t[]>(size)), data_(heap_.get()), size_(size) {}
    /// A buffer of @p size bytes whose pages exist already (MAP_POPULATE), for one that is
    /// about to be filled whole: a 1 MiB file read into it cost 256 page faults, 1.2-1.5 ms
    /// of a 15-22 ms run on the VMs here.  Falls back to a plain buffer.
    static RawBuffer populated(std::size_t size) {
        void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) return RawBuffer(size);
        RawBuffer b;
        b.data_ = static_cast<std::uint8_t*>(p);
        b.size_ = size;
        b.mapped_ = true;
        return b;
    }
    RawBuffer(RawBuffer&& o) noexcept
        : heap_(std::move(o.heap_)),
          data_(std::exchange(o.data_, nullptr)),
          size_(std::exchange(o.size_, 0)),
          mapped_(std::exchange(o.mapped_, false)) {}
    RawBuffer& operator=(RawBuffer&& o) noexcept {
        if (this != &o) {
            unmap();
            heap_ = std::move(o.heap_);
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            mapped_ = std::exchange(o.mapped_, false);
        }
        return *this;
    }
    ~RawBuffer() { unmap(); }
    [[nodiscard]] std::span<std::uint8_t> span() const { return {data_, size_}; }
    [[nodiscard]] std::uint8_t* data() const { return data_; }
    [[nodiscard]] std::size_t size() const { return size_; }

private:
    void unmap() {
        if (mapped_) ::munmap(data_, size_);
        mapped_ = false;
    }
    std::unique_ptr<std::uint8_t[]> heap_;  ///< a plain buffer's bytes
    std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;  ///< populated(): data_ is a mapping of its own
};

}  // namespace flowdeflate::io

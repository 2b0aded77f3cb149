// raw_buffer.hpp - a fixed-size byte buffer whose bytes start uninitialised, for reads and
// decoders to fill: only the pages written are touched.  A zeroed 1 MiB std::vector faulted
// in all 256 of its pages first, ~4 ms per file on the machines here, more than the whole
// of a small file's work (docs/PERFORMANCE.md, "Small files").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

namespace flowdeflate::io {

class RawBuffer {
public:
    RawBuffer() = default;  ///< empty
    explicit RawBuffer(std::size_t size) : data_(std::make_unique_for_overwrite<std::uint8_t[]>(size)), size_(size) {}
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
    std::unique_ptr<std::uint8_t[]> data_;
    std::size_t size_ = 0;
};

}  // namespace flowdeflate::io

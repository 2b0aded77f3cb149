// pod_buffer.hpp - a growable array of plain data whose new room is left uninitialised.
//
// std::vector value-initialises what it grows by: an output segment recycled at 1 MiB and
// grown back to its 1.5 MiB wrote half a megabyte of zeros per segment, and a fresh one
// wrote all of it, a page fault per 4 KiB (measured: 2-4% of a level-1 or level-10 run).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

#include "io/large_array.hpp"

namespace flowdeflate::io {

/// A growable array whose new room is left uninitialised, so that only the pages actually
/// written become resident (a track may need one item per byte, and usually needs far
/// fewer; a coded block's bits and an output segment are written once).  Arrays of
/// 2 MiB and more are io::LargeArray, on transparent huge pages: a track's items written
/// into fresh 4 KiB pages took a page fault each (about 11 us here, 4% of a -1 -p2 run).
/// release_unused_pages() gives back whole pages only.
template <class T>
class PodBuffer {
public:
    PodBuffer() = default;
    /// A moved-from buffer is empty and has no room, as a moved-from vector: pools and
    /// sinks tell a live buffer from a husk by capacity().
    PodBuffer(PodBuffer&& o) noexcept
        : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}
    PodBuffer& operator=(PodBuffer&& o) noexcept {
        data_ = std::move(o.data_);
        size_ = std::exchange(o.size_, 0);
        capacity_ = std::exchange(o.capacity_, 0);
        return *this;
    }

    [[nodiscard]] T* data() { return data_.get(); }
    [[nodiscard]] const T* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] std::size_t capacity() const { return capacity_; }
    /// The pages the storage lies on (io::LargeArray::page_size()).
    [[nodiscard]] std::size_t page_size() const { return data_.page_size(); }
    T& operator[](std::size_t i) { return data_.get()[i]; }
    const T& operator[](std::size_t i) const { return data_.get()[i]; }
    T& back() { return data_.get()[size_ - 1]; }
    void clear() { size_ = 0; }
    /// Room for @p n elements; keeps the contents.
    void reserve(std::size_t n) {
        if (n <= capacity_) return;
        io::LargeArray<T> bigger(n);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_ * sizeof(T));
        data_ = std::move(bigger);
        capacity_ = n;
    }
    void push_back(T v) {
        if (size_ == capacity_) [[unlikely]]
            reserve(std::max<std::size_t>(64, capacity_ * 2));
        data_.get()[size_++] = v;
    }
    void append(const T* v, std::size_t n) {
        if (n == 0) return;  // (v may be null then)
        if (size_ + n > capacity_) [[unlikely]]
            reserve(std::max<std::size_t>({64, capacity_ * 2, size_ + n}));
        std::memcpy(data_.get() + size_, v, n * sizeof(T));
        size_ += n;
    }
    /// Gives back the pages past size() that an earlier, longer use wrote (whole pages only:
    /// a part would split a huge page into 4 KiB ones); their contents are lost.
    void release_unused_pages() noexcept { data_.release_from(size_); }
    /// After writing through data() directly.
    void set_size(std::size_t n) { size_ = n; }
    /// @p n elements whose new ones are uninitialised (to be written through data()).
    void resize_uninitialised(std::size_t n) {
        reserve(n);
        size_ = n;
    }

private:
    io::LargeArray<T> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace flowdeflate::io

// history_buffer.hpp - decoded output with the history that back-references read in front.
//
// DEFLATE's back-references reach up to 32 KiB before the current position, across block
// boundaries and, when decoding starts mid-stream, before the first decoded byte.  Putting
// that history directly in front of the output in one array makes every reference a plain
// copy inside the array, whatever it reaches: the window given by the caller (plain mode)
// or the 32 K markers that stand for the unknown window (marked mode) are just the first
// elements.  The distance check is then one comparison against the array's start.
//
// The decode loop copies matches a word at a time and may write a little past the end of
// a match, so the buffer keeps kSlack elements of room beyond its capacity.  Storage is
// uninitialised on purpose (std::make_unique_for_overwrite): every element read as output
// was written first, and zero-filling megabytes that are about to be overwritten costs a
// pass over memory; large ones sit on huge pages (io/large_array.hpp).  It grows geometrically, so a chunk's decoding allocates O(log n)
// times, never per symbol.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "io/large_array.hpp"

namespace flowdeflate::inflate {

template <class Symbol>
class HistoryBuffer {
public:
    /// Writable room the decode loop may use past size() + the requested space: the word
    /// copies' overrun (see deflate_decoder.cpp), in elements of any width.
    static constexpr std::size_t kSlack = 64;

    HistoryBuffer() = default;

    /// Empties the buffer and puts @p history in front of the output.
    void reset(std::span<const Symbol> history, std::size_t expected_output = 0) {
        history_size_ = history.size();
        size_ = 0;
        reserve_total(history.size() + std::max<std::size_t>(expected_output, kMinCapacity));
        std::copy(history.begin(), history.end(), data_.get());
        size_ = history.size();
    }

    /// Empties the buffer, history included; keeps (or still lacks) its storage.
    void clear() noexcept {
        history_size_ = 0;
        size_ = 0;
    }

    /// The history followed by the output: what back-references may reach.
    [[nodiscard]] Symbol* begin() noexcept { return data_.get(); }
    [[nodiscard]] const Symbol* begin() const noexcept { return data_.get(); }
    [[nodiscard]] Symbol* end() noexcept { return data_.get() + size_; }
    /// Elements (history included) that may be written without growing, slack excluded.
    [[nodiscard]] Symbol* capacity_end() noexcept { return data_.get() + capacity_; }
    /// Sets the end after the decode loop wrote up to @p new_end (<= capacity_end()).
    void set_end(const Symbol* new_end) noexcept { size_ = std::size_t(new_end - data_.get()); }

    /// Makes room for @p n more elements after end(), keeping the contents.
    void ensure_room(std::size_t n) {
        if (capacity_ - size_ < n) reserve_total(std::max(size_ + n, capacity_ * 2));
    }

    [[nodiscard]] std::size_t history_size() const noexcept { return history_size_; }
    [[nodiscard]] std::span<const Symbol> history() const noexcept { return {data_.get(), history_size_}; }
    [[nodiscard]] std::span<const Symbol> output() const noexcept {
        return {data_.get() + history_size_, size_ - history_size_};
    }
    [[nodiscard]] std::size_t output_size() const noexcept { return size_ - history_size_; }

    /// Gives back the pages past the contents that an earlier, longer use touched (whole
    /// huge pages of a mapped array), so that a reused buffer holds what its last use
    /// needed rather than the most any use did.
    void release_unused_pages() noexcept {
        if (data_ && data_.page_size() == io::kHugePage) data_.release_from(size_ + kSlack);
    }

private:
    static constexpr std::size_t kMinCapacity = 64 * 1024;

    void reserve_total(std::size_t total) {
        if (total <= capacity_ && data_) return;
        io::LargeArray<Symbol> grown(total + kSlack);
        if (data_) std::copy(data_.get(), data_.get() + size_, grown.get());
        data_ = std::move(grown);
        capacity_ = total;
    }

    io::LargeArray<Symbol> data_;
    std::size_t capacity_ = 0;  // elements usable before the slack
    std::size_t size_ = 0;      // history + output
    std::size_t history_size_ = 0;
};

}  // namespace flowdeflate::inflate

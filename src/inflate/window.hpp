// window.hpp - the last 32 KiB of a DEFLATE stream's output: what a back-reference may
// reach, ISA-L's dictionary when it starts again mid-stream, the history a worker's
// stretch is completed against, and the window a seek point stores.
//
// Bytes are appended as they are produced, in pieces of any size; the last 32 KiB are
// always readable as one contiguous span.  The buffer holds twice that, so appending small
// pieces moves the kept 32 KiB to the front only once per 32 KiB appended.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "inflate/markers.hpp"

namespace flowdeflate::inflate {

class Window {
public:
    /// Forgets everything (a new member or stream starts).
    void clear() noexcept {
        end_ = 0;
        held_ = 0;
    }

    void append(std::span<const std::uint8_t> bytes) noexcept {
        if (bytes.empty()) return;  // (memcpy from a null pointer, even of 0 bytes, is undefined)
        if (bytes.size() >= kWindowSize) {
            std::memcpy(buffer_.get(), bytes.data() + bytes.size() - kWindowSize, kWindowSize);
            end_ = held_ = kWindowSize;
            return;
        }
        if (end_ + bytes.size() > 2 * kWindowSize) {
            std::memmove(buffer_.get(), buffer_.get() + end_ - held_, held_);
            end_ = held_;
        }
        std::memcpy(buffer_.get() + end_, bytes.data(), bytes.size());
        end_ += bytes.size();
        held_ = std::min(kWindowSize, held_ + bytes.size());
    }

    /// The last min(32 KiB, bytes appended since clear()) bytes, oldest first.
    [[nodiscard]] std::span<const std::uint8_t> view() const noexcept { return {buffer_.get() + end_ - held_, held_}; }
    [[nodiscard]] std::size_t size() const noexcept { return held_; }

private:
    std::unique_ptr<std::uint8_t[]> buffer_ = std::make_unique_for_overwrite<std::uint8_t[]>(2 * kWindowSize);
    std::size_t end_ = 0;   // bytes of buffer_ in use; the window ends there
    std::size_t held_ = 0;  // the window's size: at most 32 KiB
};

}  // namespace flowdeflate::inflate

// seek_recorder.hpp - the rule that picks seek points, one for the compressor and the
// decompressor alike: told every block boundary in order (its bit in the file and the
// uncompressed bytes the block holds), it hands a point to the IndexSink at the first
// block and at the first block that starts index_span or more bytes after the last point,
// with the 32 KiB of data before it (kept in a ring as blocks pass).  Both sides see the
// same boundaries in the same file, so they pick the same points.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "flowdeflate/index.hpp"

namespace flowdeflate::index {

class SeekRecorder {
public:
    SeekRecorder(IndexSink& sink, std::uint64_t span) : sink_(sink), span_(std::max<std::uint64_t>(span, 1)) {}

    /// A block starts at bit @p bit of the file; it holds @p data.
    void block(std::uint64_t bit, std::span<const std::uint8_t> data) {
        if (!any_ || in_ >= last_ + span_) {
            SeekPoint p;
            p.compressed_bit = bit;
            p.uncompressed = in_;
            p.window.resize(held_);
            copy_window(p.window.data());
            sink_.point(std::move(p));
            last_ = in_;
            any_ = true;
        }
        add(data);
    }
    /// Data the next block boundary comes after, not at a block start (a block decoded in
    /// pieces): only kept for the window.
    void add(std::span<const std::uint8_t> data) {
        in_ += data.size();
        if (data.empty()) return;  // (memcpy from a null pointer, even of 0 bytes, is undefined)
        if (data.size() >= kWindowSize) data = data.last(kWindowSize);
        const std::size_t first = std::min(data.size(), kWindowSize - pos_);
        std::memcpy(ring_.data() + pos_, data.data(), first);
        std::memcpy(ring_.data(), data.data() + first, data.size() - first);
        pos_ = (pos_ + data.size()) % kWindowSize;
        held_ = std::min(kWindowSize, held_ + data.size());
    }
    /// A new gzip member starts: its blocks cannot refer to the data before it, and its
    /// first block is a point (without a window), as indexed_gzip makes one there.
    void member_start() {
        held_ = 0;
        any_ = false;
    }
    void finish(std::uint64_t compressed_size) { sink_.finish(compressed_size, in_); }

    [[nodiscard]] std::uint64_t uncompressed() const noexcept { return in_; }

private:
    void copy_window(std::uint8_t* out) const {
        if (held_ == 0) return;
        // The last held_ bytes before pos_, oldest first.
        const std::size_t start = (pos_ + kWindowSize - held_) % kWindowSize;
        const std::size_t first = std::min(held_, kWindowSize - start);
        std::memcpy(out, ring_.data() + start, first);
        std::memcpy(out + first, ring_.data(), held_ - first);
    }

    IndexSink& sink_;
    std::uint64_t span_;
    std::uint64_t in_ = 0;
    std::uint64_t last_ = 0;
    bool any_ = false;
    std::array<std::uint8_t, kWindowSize> ring_{};
    std::size_t pos_ = 0;
    std::size_t held_ = 0;
};

}  // namespace flowdeflate::index

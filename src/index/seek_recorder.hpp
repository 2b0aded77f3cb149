// seek_recorder.hpp - the rule that picks seek points, one for the compressor and the
// decompressor alike: told every block boundary in order (its bit in the file and the
// uncompressed bytes the block holds), it hands a point to the IndexSink at the first
// block and at the first block that starts index_span or more bytes after the last point,
// with the 32 KiB of data before it (kept as blocks pass).  Both sides see the
// same boundaries in the same file, so they pick the same points.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "flowdeflate/index.hpp"
#include "inflate/window.hpp"

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
            const auto window = window_.view();
            p.window.assign(window.begin(), window.end());
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
        window_.append(data);
    }
    /// A new gzip member starts: its blocks cannot refer to the data before it, and its
    /// first block is a point (without a window), as indexed_gzip makes one there.
    void member_start() {
        window_.clear();
        any_ = false;
    }
    void finish(std::uint64_t compressed_size) { sink_.finish(compressed_size, in_); }

    [[nodiscard]] std::uint64_t uncompressed() const noexcept { return in_; }

private:
    IndexSink& sink_;
    std::uint64_t span_;
    std::uint64_t in_ = 0;
    std::uint64_t last_ = 0;
    bool any_ = false;
    inflate::Window window_;  // the last 32 KiB before the next block
};

}  // namespace flowdeflate::index

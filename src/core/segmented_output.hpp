// segmented_output.hpp - compressed output in fixed-size segments.
//
// The streaming compressor never holds more than one segment being filled: once a
// segment's worth of whole bytes is written, the buffer is handed to a SegmentSink (the
// graph's writer) and a fresh one continues.  The bit writer's pending bits (less than a
// byte) simply carry over, so segment boundaries fall anywhere inside a block.
#pragma once

#include <cstring>
#include <memory>

#include "core/bit_writer.hpp"
#include "index/seek_recorder.hpp"
#include "io/pod_buffer.hpp"

namespace flowdeflate::core {

/// An output segment's bytes: uninitialised room (io::PodBuffer), so that neither a
/// fresh nor a recycled buffer is filled with zeros first.
using SegmentBuffer = io::PodBuffer<u8>;

/// @p size bytes of uninitialised room in @p b (recycled, or fresh when empty).
inline SegmentBuffer with_room(SegmentBuffer b, std::size_t size) {
    b.clear();  // (a buffer that must grow copies nothing)
    b.resize_uninitialised(size);
    return b;
}

/// Receives finished segments, in order.
class SegmentSink {
public:
    virtual ~SegmentSink() = default;
    /// Takes ownership of @p segment (its size is the number of bytes to write).
    virtual void write(SegmentBuffer&& segment) = 0;
    /// A buffer of at least @p size bytes to fill next (contents unspecified); a sink may
    /// recycle written ones.
    virtual SegmentBuffer buffer(std::size_t size) { return with_room(SegmentBuffer{}, size); }
    /// Takes back a buffer from buffer() that holds nothing to write (the one left when
    /// the output goes), for a sink that keeps buffers; the default frees it.
    virtual void recycle(SegmentBuffer&& /*unused*/) {}
};

class SegmentedOutput {
public:
    /// Room past a full segment: one block never adds more than its stored size
    /// (kMaxBlockLength + 5 bytes per 65535), plus framing and the writer's 8-byte stores.
    static constexpr std::size_t kSlack = 512 * 1024;

    SegmentedOutput(SegmentSink& sink, std::size_t segment_size) : sink_(sink), segment_size_(segment_size) {
        next_buffer();
    }
    ~SegmentedOutput() { sink_.recycle(std::move(buf_)); }
    SegmentedOutput(const SegmentedOutput&) = delete;
    SegmentedOutput& operator=(const SegmentedOutput&) = delete;

    BitWriter& writer() { return w_; }

    /// Seek points for an index (Options::index; nothing when @p sink is null), one each
    /// @p span bytes: told each block before it is placed.
    void record_seek_points(IndexSink* sink, u64 span) {
        if (sink) recorder_ = std::make_unique<index::SeekRecorder>(*sink, span);
    }
    /// A block that codes @p data starts at the writer's position: every writer of blocks
    /// calls this before it places one.
    void block(std::span<const u8> data) {
        if (recorder_) recorder_->block(bit_position(), data);
    }
    /// Bits written so far (handed over, in the segment, and pending in the writer).
    [[nodiscard]] u64 bit_position() const {
        return 8 * (handed_ + u64(w_.next - buf_.data())) + w_.bitcount;
    }

    /// Appends whole bytes (the stream must be byte-aligned: headers and trailers).
    void put_bytes(const u8* p, std::size_t n) {
        w_.flush();
        std::memcpy(w_.next, p, n);
        w_.next += n;
    }

    /// Hands the segment over once it is full.
    void maybe_hand_off() {
        if (std::size_t(w_.next - buf_.data()) >= segment_size_) hand_off();
    }

    /// Writes the final partial byte and hands over what is left.
    void finish() {
        w_.finish();
        const u64 total = handed_ + u64(w_.next - buf_.data());
        if (w_.next != buf_.data()) hand_off();
        if (recorder_) recorder_->finish(total);
    }

private:
    void next_buffer() {
        buf_ = sink_.buffer(segment_size_ + kSlack);
        const u64 bitbuf = w_.bitbuf;
        const u32 bitcount = w_.bitcount;
        w_ = BitWriter(buf_.data(), buf_.data() + buf_.size());
        w_.bitbuf = bitbuf;
        w_.bitcount = bitcount;
    }
    void hand_off() {
        buf_.set_size(std::size_t(w_.next - buf_.data()));
        handed_ += buf_.size();
        sink_.write(std::move(buf_));
        next_buffer();
    }

    SegmentSink& sink_;
    std::size_t segment_size_;
    SegmentBuffer buf_;
    BitWriter w_;
    u64 handed_ = 0;
    std::unique_ptr<index::SeekRecorder> recorder_;
};

}  // namespace flowdeflate::core

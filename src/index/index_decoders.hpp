// index_decoders.hpp - decompression that writes or uses an index (flowdeflate/index.hpp).
//
//   gunzip_recording()  decodes any gzip file (every member) with the block-level decoder
//                       (inflate::DeflateDecoder, which reports every block boundary) and
//                       records seek points by the compressor's rule (SeekRecorder);
//   SpanDecoder         decodes the span between two seek points with ISA-L started at
//                       the first (primed with its window) and stopped exactly at the
//                       next, crossing gzip member boundaries, and checks what the index
//                       claims: where the span ends, how much it holds, the next point's
//                       window; each member's CRC-32 and size are checked by the caller
//                       from the spans' pieces (crc_combine.hpp).  The parallel decoder
//                       (graph/indexed_inflate.hpp) and random access both run it;
//   SpanCursor          the same decoding stopped and gone on with: IndexedReader keeps
//                       one between reads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flowdeflate/core.hpp"
#include "flowdeflate/index.hpp"
#include "index/windows.hpp"

namespace flowdeflate::inflate {
class IsalLine;
}

namespace flowdeflate::index {

/// Decompresses the gzip file @p in to @p sink, handing seek points every @p span bytes
/// to @p index.  Throws Error as decompress() does.
Result gunzip_recording(std::span<const std::uint8_t> in, const Sink& sink, IndexSink& index, std::uint64_t span);

/// Checks that @p index can describe the gzip file @p in (sizes, points inside it);
/// throws Error naming the mismatch.
void check_index_fits(const Index& index, std::span<const std::uint8_t> in);

/// The span that holds offset @p at of the data: that of the last point at or before it
/// (the index's points are not empty and the first is at 0).
std::size_t span_at(const Index& index, std::uint64_t at);

/// A stretch of output from one gzip member: its CRC-32 and size, and, when the member
/// ends with it, the trailer's claims.
struct MemberPiece {
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
    bool ends_member = false;
    std::uint32_t trailer_crc = 0;
    std::uint32_t trailer_size = 0;
};

/// Where SpanDecoder::decode() puts a span's output as it comes out: its bytes in order,
/// and a MemberPiece where a member's part in the span ends and where the span ends.
class SpanReceiver {
public:
    /// Room for the next bytes (not empty), asked for first and whenever the last is full;
    /// decode() fills it from its start, handing each stretch to bytes().
    virtual std::span<std::uint8_t> room() = 0;
    /// @p bytes were decoded into the last room(), just after those handed before.
    virtual void bytes(std::span<const std::uint8_t> bytes) = 0;
    /// A member ends here (ends_member), or the span does with a member going on.
    virtual void piece(const MemberPiece& piece) = 0;
    /// True once the receiver wants no more bytes (a range read up to its end): decode()
    /// then stops at its next room, before the span's end and its checks.
    [[nodiscard]] virtual bool satisfied() const { return false; }

protected:
    ~SpanReceiver() = default;
};

/// Joins the pieces of consecutive spans and checks each member's trailer.
class MemberCheck {
public:
    /// The next piece of output, in order.  Throws Error when it ends a member whose CRC-32
    /// or size disagrees with its trailer.
    void add(const MemberPiece& piece);

private:
    std::uint32_t crc_ = 0;
    std::uint64_t size_ = 0;
    std::uint64_t members_ = 0;
};

class SpanCursor;

class SpanDecoder {
public:
    /// Decodes the spans of @p index in the gzip file @p in (both outlive it), from any
    /// number of threads at once.
    SpanDecoder(std::span<const std::uint8_t> in, const Index& index) : in_(in), index_(index), windows_(index) {}
    /// Decodes span @p i (from point i to point i + 1, or to the file's end after the last
    /// point) to @p out, ISA-L writing straight into its room.  What the index claims is
    /// checked as the bytes come: no byte past the span's stated size is handed over, and
    /// those that end it must be the next point's window (as far as it is decoded: a
    /// receiver satisfied before the end stops it).  Throws IndexError where the index does
    /// not fit; what @p out throws goes through as it is.
    void decode(std::size_t i, SpanReceiver& out) const;
    /// Its packed windows (SharedWindows).
    [[nodiscard]] const SharedWindows& windows() const noexcept { return windows_; }

private:
    friend class SpanCursor;
    std::span<const std::uint8_t> in_;
    const Index& index_;
    mutable SharedWindows windows_;  // (its own lock)
};

/// A span's decoding that stops and goes on: SpanDecoder::decode() is one cursor run to
/// the span's end.  run() decodes into @p out until @p out is satisfied at the end of a
/// room (false: the span goes on, and the next run(), with any receiver, goes on from the
/// next byte) or the span is done and checked (true).  Member pieces count every byte since
/// the last one, whichever run handed them over.  A cursor whose run() threw is spent (a
/// further run() is a logic_error).  Random access keeps one between reads, so that a read
/// that starts where the last one stopped does not decode from the point again.
class SpanCursor {
public:
    SpanCursor(const SpanDecoder& decoder, std::size_t i);
    ~SpanCursor();
    SpanCursor(const SpanCursor&) = delete;
    SpanCursor& operator=(const SpanCursor&) = delete;

    bool run(SpanReceiver& out);
    [[nodiscard]] std::size_t span() const noexcept { return i_; }
    /// The offset in the data of the next byte run() hands over.
    [[nodiscard]] std::uint64_t position() const noexcept { return from_.uncompressed + produced_; }
    /// The span is decoded to its end.
    [[nodiscard]] bool done() const noexcept { return done_; }

private:
    void emit(std::span<const std::uint8_t> b);
    template <class F>
    void give(F&& call) {  // a call of the receiver: its errors are its own
        receiving_ = true;
        call();
        receiving_ = false;
    }
    void decode();

    const SpanDecoder& decoder_;
    const std::size_t i_;
    const SeekPoint& from_;
    const SeekPoint* const to_;  // null after the last point
    bool sized_ = false;         // the span's size is known: expected_
    std::uint64_t expected_ = 0;
    std::optional<SharedWindows::Use> next_;  // the next point's window: the span's last bytes
    std::span<const std::uint8_t> window_;
    std::uint64_t window_size_ = 0, window_at_ = 0;  // [window_at_, expected_) of the span
    std::uint64_t produced_ = 0;
    MemberPiece piece_;
    std::unique_ptr<inflate::IsalLine> line_;
    SpanReceiver* out_ = nullptr;
    bool started_ = false, done_ = false, receiving_ = false, spent_ = false;
};

}  // namespace flowdeflate::index

// index_decoders.cpp - see index_decoders.hpp.
#include "index/index_decoders.hpp"

#include <isa-l/crc.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "core/framing.hpp"
#include "inflate/crc_combine.hpp"
#include "index/seek_recorder.hpp"
#include "inflate/deflate_decoder.hpp"
#include "inflate/gzip_header.hpp"
#include "inflate/isal_line.hpp"
#include "inflate/window.hpp"
#include "index/windows.hpp"

namespace flowdeflate::index {
namespace {

using u8 = std::uint8_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ISA-L's CRC-32 (folding with carry-less multiplies): a quarter of libdeflate's time here.
u32 crc32(u32 crc, std::span<const u8> b) { return crc32_gzip_refl(crc, b.data(), b.size()); }

// Output per decode_plain() call the recording decoder aims at: the compressed bits of
// a call follow the ratio seen so far, so that data of 1000:1 is not decoded a gigabyte
// at a time.
constexpr u64 kRecordingOutput = u64(4) << 20;
constexpr u64 kMinPieceBits = 8 * 4096, kMaxPieceBits = u64(8) << 20;

[[noreturn]] void mismatch(std::size_t point, const std::string& what) {
    throw IndexError("the index does not match the file at point " + std::to_string(point) + ": " + what);
}

}  // namespace

Result gunzip_recording(std::span<const u8> in, const Sink& sink, IndexSink& index, u64 span) {
    SeekRecorder recorder(index, span);
    inflate::DeflateDecoder decoder;
    inflate::PlainChunk chunk;
    inflate::Window window;
    u64 piece_bits = kMaxPieceBits / 8;
    u64 members = 0, out = 0;
    std::size_t pos = 0;
    while (pos < in.size() || members == 0) {
        const std::size_t body = inflate::gzip_header_end(in, pos, members);
        recorder.member_start();
        window.clear();
        u32 crc = 0;
        u64 size = 0, bit = 8 * u64(body);
        for (;;) {
            inflate::DecodeLimits limits;
            limits.stop_bit = bit + piece_bits;
            decoder.decode_plain(in, bit, window.view(), limits, chunk);
            if (!chunk.ok() || chunk.boundaries.empty()) inflate::throw_corrupt(Format::gzip, members);
            const std::span<const u8> bytes = chunk.bytes();
            for (std::size_t k = 0; k < chunk.boundaries.size(); ++k) {
                const std::size_t from = std::size_t(chunk.boundaries[k].output_offset);
                const std::size_t to =
                    k + 1 < chunk.boundaries.size() ? std::size_t(chunk.boundaries[k + 1].output_offset) : bytes.size();
                recorder.block(chunk.boundaries[k].bit_offset, bytes.subspan(from, to - from));
            }
            crc = crc32(crc, bytes);
            size += bytes.size();
            if (!bytes.empty()) sink(bytes);
            window.append(bytes);  // the next call's window
            if (!bytes.empty())
                piece_bits = std::clamp<u64>((chunk.end_bit - bit) * kRecordingOutput / bytes.size(), kMinPieceBits,
                                             kMaxPieceBits);
            bit = chunk.end_bit;
            if (chunk.final_block_ended) break;
        }
        const std::size_t end = std::size_t((bit + 7) / 8);
        if (end + core::kGzipFooterSize > in.size() || core::get_le32(in.data() + end) != crc ||
            core::get_le32(in.data() + end + 4) != u32(size))
            inflate::throw_corrupt(Format::gzip, members);
        out += size;
        pos = end + core::kGzipFooterSize;
        ++members;
    }
    recorder.finish(in.size());
    return {in.size(), out};
}

void check_index_fits(const Index& index, std::span<const u8> in) {
    if (!index.complete) throw IndexError("the index is not complete");
    if (index.compressed_size != 0 && index.compressed_size != in.size())
        throw IndexError("the index is for a compressed file of " + std::to_string(index.compressed_size) +
                    " bytes; this one has " + std::to_string(in.size()));
    if (index.points.empty()) throw IndexError("the index has no points");
    const SeekPoint& first = index.points.front();
    if (first.uncompressed != 0 || first.compressed_bit != 8 * u64(inflate::gzip_header_end(in, 0, 0)))
        mismatch(0, "the first point is not where the file's data starts");
    for (std::size_t i = 0; i < index.points.size(); ++i)
        if (index.points[i].compressed_bit >= 8 * u64(in.size())) mismatch(i, "it lies past the end of the file");
}

std::size_t span_at(const Index& index, u64 at) {
    const auto after = std::upper_bound(index.points.begin(), index.points.end(), at,
                                        [](u64 o, const SeekPoint& p) { return o < p.uncompressed; });
    return std::size_t(after - index.points.begin()) - 1;
}

void MemberCheck::add(const MemberPiece& p) {
    crc_ = inflate::crc32_combine(crc_, p.crc, p.size);
    size_ += p.size;
    if (!p.ends_member) return;
    if (crc_ != p.trailer_crc || u32(size_) != p.trailer_size) inflate::throw_corrupt(Format::gzip, members_);
    crc_ = 0;
    size_ = 0;
    ++members_;
}

void SpanDecoder::decode(std::size_t i, SpanReceiver& out) const { SpanCursor(*this, i).run(out); }

SpanCursor::SpanCursor(const SpanDecoder& decoder, std::size_t i)
    : decoder_(decoder),
      i_(i),
      from_(decoder.index_.points[i]),
      to_(i + 1 < decoder.index_.points.size() ? &decoder.index_.points[i + 1] : nullptr),
      line_(std::make_unique<inflate::IsalLine>()) {
    const Index& index = decoder.index_;
    // The span's size, when the index says it.  (No more than DEFLATE's densest coding,
    // 1032:1, can give: an index cannot make the decoder run on.)
    sized_ = to_ || (index.uncompressed_size != 0 && index.uncompressed_size >= from_.uncompressed);
    expected_ = !sized_ ? 0 : to_ ? to_->uncompressed - from_.uncompressed : index.uncompressed_size - from_.uncompressed;
    const u64 compressed = ((to_ ? to_->compressed_bit : 8 * u64(decoder.in_.size())) - from_.compressed_bit) / 8 + 1;
    if (expected_ > compressed * 1032 + kWindowSize)
        mismatch(i + 1, "its data is longer than the compressed bytes can hold");
    // The next point's window is the span's last bytes: [window_at_, expected_) of it.
    if (to_) next_.emplace(decoder.windows_, i + 1);
    window_ = next_ ? next_->bytes : std::span<const u8>();
    window_size_ = std::min<u64>(window_.size(), expected_);
    window_at_ = expected_ - window_size_;
}

SpanCursor::~SpanCursor() = default;

void SpanCursor::emit(std::span<const u8> b) {
    if (sized_ && produced_ + b.size() > expected_) mismatch(i_ + 1, "the data before it is longer than the index says");
    const u64 end = produced_ + b.size();
    if (window_size_ != 0 && end > window_at_) {
        const u64 o = std::max(produced_, window_at_);
        if (std::memcmp(b.data() + (o - produced_), window_.data() + (window_.size() - window_size_) + (o - window_at_),
                        std::size_t(end - o)) != 0)
            mismatch(i_ + 1, "its window is not the data before it");
    }
    piece_.crc = crc32(piece_.crc, b);
    piece_.size += b.size();
    produced_ = end;
    give([&] { out_->bytes(b); });
}

bool SpanCursor::run(SpanReceiver& out) {
    if (spent_) throw std::logic_error("SpanCursor::run() after an error");
    if (done_) return true;
    out_ = &out;
    receiving_ = false;
    spent_ = true;  // until this run returns
    try {
        decode();
    } catch (const Error& e) {
        if (receiving_ || dynamic_cast<const IndexError*>(&e)) throw;
        // Data that does not decode from a point the index gives: the index is for
        // another file, or the file is damaged.
        throw IndexError(std::string("cannot decode from point ") + std::to_string(i_) + " of the index (" + e.what() +
                         "): the index does not match the file, or the file is damaged");
    }
    if (!done_) {
        spent_ = false;
        return false;
    }
    if (sized_ && produced_ != expected_) {
        if (!to_)
            throw IndexError("the index says the data has " + std::to_string(decoder_.index_.uncompressed_size) +
                             " bytes; it has " + std::to_string(from_.uncompressed + produced_));
        mismatch(i_ + 1, "the data before it is " + std::to_string(from_.uncompressed + produced_) +
                             " bytes, the index says " + std::to_string(to_->uncompressed));
    }
    if (piece_.size != 0) out.piece(piece_);
    spent_ = false;
    return true;
}

// Decodes until the receiver is satisfied at a room's end, or to the span's end (done_).
void SpanCursor::decode() {
    const std::span<const u8> in = decoder_.in_;
    inflate::IsalLine& line = *line_;
    const auto emit = [this](std::span<const u8> b) { this->emit(b); };
    give([&] { line.output_into(out_->room()); });
    if (!started_) {
        const SharedWindows::Use start(decoder_.windows_, i_);
        line.start(in, from_.compressed_bit, start.bytes);  // (ISA-L keeps a copy)
        started_ = true;
    }
    for (;;) {
        if (to_) {
            if (line.run_to_boundary(to_->compressed_bit, emit)) break;
        } else {
            line.run_until(in.size(), emit);
        }
        if (line.output_full()) {
            if (out_->satisfied()) return;  // (a range: what follows is not wanted now)
            give([&] { line.output_into(out_->room()); });
            continue;
        }
        if (!line.ended()) {
            if (!to_) inflate::throw_corrupt(Format::gzip, 0);
            mismatch(i_ + 1, "no block of the file starts there");
        }
        // The member ended: its trailer, then the next member's header.
        const std::size_t end = line.end_byte();
        if (end + core::kGzipFooterSize > in.size()) inflate::throw_corrupt(Format::gzip, 0);
        piece_.ends_member = true;
        piece_.trailer_crc = core::get_le32(in.data() + end);
        piece_.trailer_size = core::get_le32(in.data() + end + 4);
        give([&] { out_->piece(piece_); });
        piece_ = {};
        const std::size_t next = end + core::kGzipFooterSize;
        if (next >= in.size()) {
            if (!to_) break;
            mismatch(i_ + 1, "it lies past the end of the data");
        }
        const std::size_t body = inflate::gzip_header_end(in, next, 1);
        if (to_ && 8 * u64(body) >= to_->compressed_bit) {
            if (8 * u64(body) == to_->compressed_bit) break;
            mismatch(i_ + 1, "no block of the file starts there");
        }
        line.start(in, 8 * u64(body), {});
    }
    done_ = true;
}

}  // namespace flowdeflate::index

// bit_reader.hpp - the DEFLATE bit stream, read LSB first, from any bit offset.
//
// DEFLATE packs its fields into bytes starting at the least significant bit (RFC 1951,
// 3.1.1), and Huffman codewords are stored bit-reversed, so a reader that keeps the next
// unread bits in the LOW end of a 64-bit word can decode with `buffer & mask` and consume
// with `buffer >>= n`.  The buffer is refilled a whole word at a time: one unaligned
// 64-bit load, shifted past the bits still held, then `bits_left` set to 56..63 without a
// loop (the trick libdeflate documents in deflate_decompress.c): with 63 as the most the
// buffer counts, the bytes added are (63 - bits_left) / 8 and the new count is simply
// `bits_left | 56`.  The bits loaded above the count are the stream's real next bits, so a
// later refill that ORs the same bytes in again changes nothing.
//
// Parallel decompression starts decoding in the middle of a stream, at a block boundary
// found by searching, so the reader can be placed at any bit offset (seek) and says where
// the next unread bit is (bit_position), exactly, whatever it has buffered.
//
// The end of the input.  Near the end a word cannot be loaded; the slow refill then adds
// bytes one at a time and, past the last byte, zero bytes that do not exist.  Those are
// only looked at, never trusted: `next_byte_` counts them too, so bit_position() goes past
// size * 8 exactly when a consumer used bits that are not there, and truncated() says so.
// Decoders check it where a result is reported (end of block, end of decoding), which
// keeps the check off the per-symbol path; a corrupt stream can never read out of bounds
// because nothing is ever loaded from beyond the span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace flowdeflate::inflate {

class BitReader {
public:
    using Word = std::uint64_t;
    /// Most bits the buffer counts: one fewer than the word, so that the refill can shift
    /// by bits_left without ever shifting by 64 (see the file comment).
    static constexpr unsigned kMaxBitsLeft = 63;
    /// Bits guaranteed to be available right after a refill: 63 - 7 (only whole bytes are
    /// added).
    static constexpr unsigned kBitsAfterRefill = kMaxBitsLeft - 7;

    BitReader() = default;
    explicit BitReader(std::span<const std::uint8_t> input, std::uint64_t bit_offset = 0) noexcept
        : data_(input.data()), size_(input.size()) {
        seek(bit_offset);
    }

    /// Places the reader so that the next bit read is bit @p bit_offset of the input (bit 0
    /// is the least significant bit of byte 0).  An offset past the end is allowed; any
    /// read there reports truncation.
    void seek(std::uint64_t bit_offset) noexcept {
        next_byte_ = bit_offset >> 3;
        buffer_ = 0;
        bits_left_ = 0;
        const unsigned skip = unsigned(bit_offset & 7);
        if (skip != 0) {
            refill();
            consume(skip);
        }
    }

    /// Bit offset of the next unread bit.  Exact: bytes loaded but not consumed are not
    /// counted.  Larger than size_bits() when bits beyond the input were consumed.
    [[nodiscard]] std::uint64_t bit_position() const noexcept { return next_byte_ * 8 - bits_left_; }
    [[nodiscard]] std::uint64_t size_bits() const noexcept { return std::uint64_t(size_) * 8; }
    /// True once a consumer used a bit that the input does not have.
    [[nodiscard]] bool truncated() const noexcept { return bit_position() > size_bits(); }
    [[nodiscard]] unsigned bits_left() const noexcept { return bits_left_; }

    /// Tops the buffer up to at least kBitsAfterRefill bits.  A word load when eight bytes
    /// remain (the common case), else byte by byte with zeros past the end.
    [[gnu::always_inline]] void refill() noexcept {
        if (size_ >= sizeof(Word) && next_byte_ <= size_ - sizeof(Word)) [[likely]]
            refill_from_word();
        else
            refill_near_end();
    }
    /// refill() for a caller that has checked can_refill_from_word() for its whole loop.
    [[gnu::always_inline]] void refill_from_word() noexcept {
        Word word;
        std::memcpy(&word, data_ + next_byte_, sizeof word);
        buffer_ |= word << bits_left_;
        next_byte_ += (kMaxBitsLeft - bits_left_) >> 3;
        bits_left_ |= kMaxBitsLeft & ~7u;
    }
    /// True while at least @p bytes_ahead bytes remain after the next word load: a loop that
    /// reads at most that many bytes per iteration may use refill_from_word() alone.
    [[nodiscard]] bool can_refill_from_word(std::size_t bytes_ahead) const noexcept {
        return next_byte_ + sizeof(Word) + bytes_ahead <= size_;
    }

    /// The next @p n bits (n <= bits_left()), not consumed.
    [[nodiscard]] Word peek(unsigned n) const noexcept { return buffer_ & ((Word(1) << n) - 1); }
    /// The whole buffer, for table lookups that mask it themselves.
    [[nodiscard]] Word buffer() const noexcept { return buffer_; }
    /// Drops @p n bits (n <= bits_left()).
    [[gnu::always_inline]] void consume(unsigned n) noexcept {
        buffer_ >>= n;
        bits_left_ -= n;
    }
    /// Reads @p n bits (n <= 32), refilling as needed.
    [[nodiscard]] std::uint32_t read(unsigned n) noexcept {
        if (bits_left_ < n) refill();
        const auto v = std::uint32_t(peek(n));
        consume(n);
        return v;
    }

    /// Skips to the next byte boundary (stored blocks) and forgets the buffer, so that the
    /// bytes after it can be read directly.
    void align_to_byte() noexcept { seek((bit_position() + 7) & ~std::uint64_t(7)); }
    /// Byte offset of the next unread bit; only meaningful right after align_to_byte().
    [[nodiscard]] std::size_t byte_position() const noexcept { return std::size_t(bit_position() >> 3); }
    /// Bytes of input from the byte position on (0 when past the end).
    [[nodiscard]] std::size_t bytes_remaining() const noexcept {
        const std::size_t at = byte_position();
        return at < size_ ? size_ - at : 0;
    }
    [[nodiscard]] const std::uint8_t* data() const noexcept { return data_; }

private:
    void refill_near_end() noexcept {
        while (bits_left_ <= kMaxBitsLeft - 8) {
            const Word byte = next_byte_ < size_ ? data_[next_byte_] : 0;
            buffer_ |= byte << bits_left_;
            ++next_byte_;
            bits_left_ += 8;
        }
    }

    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t next_byte_ = 0;  // next byte to load; counts the zero bytes past the end too
    Word buffer_ = 0;            // bits_left_ valid bits at the bottom, real stream bits above
    unsigned bits_left_ = 0;
};

}  // namespace flowdeflate::inflate

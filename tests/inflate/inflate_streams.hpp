// inflate_streams.hpp - compressed streams and helpers for the inflate tests.
//
// Streams come from three encoders so that every block shape is covered: our compressor
// (byte-identical to libdeflate, levels 0-12: stored, fixed and dynamic blocks, libdeflate's
// block splitting), and zlib (other block boundaries, fixed-only blocks with Z_FIXED, empty
// stored blocks from Z_SYNC_FLUSH / Z_FULL_FLUSH, its own stored blocks at level 0).
#pragma once

#include "inflate/deflate_decoder.hpp"
#include "support/test_data.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace flowdeflate::inflate::testing {

using Bytes = std::vector<std::uint8_t>;

/// Raw DEFLATE from our compressor (libdeflate's output) at @p level (0-12).
Bytes deflate_ours(std::span<const std::uint8_t> data, int level);

struct ZlibShape {
    int level = 6;
    int strategy = 0;             // Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED
    std::size_t flush_every = 0;  // 0: one deflate(Z_FINISH) call
    int flush = 0;                // Z_SYNC_FLUSH or Z_FULL_FLUSH between pieces
};
/// Raw DEFLATE from zlib.
Bytes deflate_zlib(std::span<const std::uint8_t> data, const ZlibShape& shape);
/// zlib's constants, so that tests need not include zlib.h.
struct Zlib {
    static const int sync_flush, full_flush, filtered, huffman_only, rle, fixed;
};

/// Plain-mode decoding of a whole stream from bit 0; the test fails unless it is ok.
PlainChunk decode_whole(std::span<const std::uint8_t> compressed, std::size_t expected_size = 0);

/// The marked chunk's output with its markers resolved against @p window.
Bytes resolve(const MarkedChunk& chunk, std::span<const std::uint8_t> window);

/// The token chunk's bytes, replayed against @p window (the test fails if it is refused).
Bytes replay(const TokenChunk& chunk, std::span<const std::uint8_t> window);

/// An LSB-first bit writer for hand-made streams.
class BitStream {
public:
    void put(std::uint32_t value, unsigned bits);
    /// A Huffman codeword (MSB-first per RFC 1951) of @p len bits.
    void put_codeword(std::uint32_t code, unsigned len);
    void align();
    void put_byte(std::uint8_t b) { put(b, 8); }
    [[nodiscard]] const Bytes& bytes() const noexcept { return bytes_; }
    [[nodiscard]] std::uint64_t bit_count() const noexcept { return bits_; }

private:
    Bytes bytes_;
    std::uint64_t bits_ = 0;
};

}  // namespace flowdeflate::inflate::testing

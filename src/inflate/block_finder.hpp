// block_finder.hpp - where in a DEFLATE stream might a block start?
//
// To decode a gzip file in parallel without an index, each worker jumps to a guessed
// offset and searches forward for a block boundary (Knespel & Brunst, "Rapidgzip", HPDC
// 2023; pugz).  Nothing marks a boundary: blocks follow each other bit to bit, so the
// finder tries every bit offset and asks "could a block start here?".  It looks for two
// kinds, both non-final (BFINAL = 0: a final block ends the stream and is never the place
// to start a chunk):
//
//   - dynamic-Huffman blocks (BTYPE = 10), which nearly all compressors write for nearly
//     all data.  Their header is rich in redundancy, and the checks run cheapest first:
//       1. the first 13 bits (BFINAL, BTYPE, HLIT <= 29, HDIST <= 29), one lookup in an
//          8 K-entry table that passes about 1 offset in 9;
//       2. the Kraft sum of the precode lengths, four lengths per lookup, which must be
//          that of a complete code or of a one-codeword code (an empty precode can only
//          produce all-zero lengths, hence no end-of-block symbol: never a real block);
//       3. the whole header read with the decoder's own rules (dynamic_header.hpp): the
//          run-length coded lengths must end exactly at the declared count, and form a
//          valid literal/length code with an end-of-block symbol and a valid distance
//          code (huffman_decode_table.hpp's rules, libdeflate's).
//     HLIT and HDIST above 29 (286+ literal/length or 31+ distance codes) are outside RFC
//     1951's ranges; zlib rejects them and no conforming compressor writes them, although
//     libdeflate would decode them.
//   - stored blocks (BTYPE = 00), which zlib's flushes and incompressible data produce:
//     three zero bits, then, at the next byte boundary, LEN and NLEN = ~LEN.  The finder
//     scans the bytes for LEN == ~NLEN first (one 32-bit compare per byte) and then asks
//     which of the header positions that align to that byte (8 of them) hold three zero
//     bits.  The padding bits between the header and the byte boundary may be anything,
//     so every such position is a candidate, and the earliest comes first: when the
//     padding is zero, as encoders write it, the header may seem to start up to 7 bits
//     before it does; decoding from there gives the same block.
//
// Fixed-Huffman blocks are not searched: their 3-bit header is all there is to check.
//
// Candidates may be false (the caller verifies by decoding, which fails fast on most);
// a true non-final dynamic or stored block start is never missed.
#pragma once

#include "inflate/dynamic_header.hpp"
#include "inflate/huffman_decode_table.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace flowdeflate::inflate {

class BlockFinder {
public:
    explicit BlockFinder(std::span<const std::uint8_t> input) noexcept : input_(input) {}

    /// The first bit offset in [@p from, @p to) where a non-final dynamic or stored block
    /// may start, or nullopt.
    [[nodiscard]] std::optional<std::uint64_t> find(std::uint64_t from, std::uint64_t to);
    /// The same, dynamic-Huffman blocks only.
    [[nodiscard]] std::optional<std::uint64_t> find_dynamic(std::uint64_t from, std::uint64_t to);
    /// The same, stored blocks only.
    [[nodiscard]] std::optional<std::uint64_t> find_stored(std::uint64_t from, std::uint64_t to) const noexcept;

    /// Whether a non-final dynamic block's header at @p bit passes every check.
    [[nodiscard]] bool is_dynamic_block_start(std::uint64_t bit);

private:
    /// At least 57 bits of input from @p bit on; zeros past the end.
    [[nodiscard]] std::uint64_t bits_at(std::uint64_t bit) const noexcept {
        return word_at_byte(std::size_t(bit >> 3)) >> (bit & 7);
    }
    [[nodiscard]] std::uint64_t word_at_byte(std::size_t byte) const noexcept {
        std::uint64_t word = 0;
        if (byte + sizeof word <= input_.size()) [[likely]]
            std::memcpy(&word, input_.data() + byte, sizeof word);
        else if (byte < input_.size())
            std::memcpy(&word, input_.data() + byte, input_.size() - byte);
        return word;
    }
    /// The cheap tests of a dynamic header at @p bit whose 13 header bits passed: its
    /// precode lengths form a complete code (or a single 1-bit codeword).
    [[nodiscard]] bool passes_precode_kraft(std::uint64_t bit) const noexcept;
    /// The expensive rest: the code lengths decode, and both codes are valid.
    [[nodiscard]] bool passes_full_header(std::uint64_t bit);

    std::span<const std::uint8_t> input_;
    PrecodeDecodeTable precode_;  // scratch for the full header check
    DynamicCodeLengths lens_;
};

}  // namespace flowdeflate::inflate

// dynamic_header.hpp - the code lengths at the start of a dynamic-Huffman block.
//
// A dynamic block (RFC 1951, 3.2.7) declares its codes compactly: HLIT, HDIST and HCLEN,
// then 3-bit lengths of a small "precode" (in a fixed permuted order), then the
// literal/length and distance code lengths as precode symbols: 0-15 a length, 16 "repeat
// the previous length 3-6 times", 17 and 18 "3-10 / 11-138 zeros".  Reading this is one
// decision, shared by the decoder (which then builds its tables from the lengths) and the
// block finder (which only asks whether they form valid codes): both must accept exactly
// what libdeflate accepts, so both take these rules from here.
#pragma once

#include "core/deflate_format.hpp"
#include "inflate/bit_reader.hpp"
#include "inflate/decode_status.hpp"
#include "inflate/huffman_decode_table.hpp"

#include <array>
#include <cstdint>
#include <span>

namespace flowdeflate::inflate {

/// The code lengths a dynamic header declares.
struct DynamicCodeLengths {
    unsigned num_litlen = 0;
    unsigned num_distance = 0;
    /// Literal/length lengths then distance lengths.
    std::array<std::uint8_t, core::kNumLitlenSyms + core::kNumOffsetSyms> lens{};

    [[nodiscard]] std::span<const std::uint8_t> litlen() const noexcept { return {lens.data(), num_litlen}; }
    [[nodiscard]] std::span<const std::uint8_t> distance() const noexcept {
        return {lens.data() + num_litlen, num_distance};
    }
};

/// Reads a dynamic header's counts, precode and code lengths from @p in, placed just after
/// BTYPE, into @p out, using @p precode as scratch.  Returns invalid_precode,
/// invalid_code_lengths, truncated, or, as soon as the lengths read so far over-subscribe
/// a code, invalid_litlen_code or invalid_distance_code; else ok.  Incomplete codes are
/// left to classify_code() (the table builder's check).
DecodeStatus read_dynamic_code_lengths(BitReader& in, PrecodeDecodeTable& precode, DynamicCodeLengths& out) noexcept;

}  // namespace flowdeflate::inflate

// block_finder.cpp - the candidate checks (the reasoning is in the header).
#include "inflate/block_finder.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace flowdeflate::inflate {

namespace {

/// Bits 0-12 of a dynamic header: BFINAL (1), BTYPE (2), HLIT (5), HDIST (5).
constexpr unsigned kHeaderBits = 13;
constexpr unsigned kMaxHlit = 29;   // 286 literal/length codes (RFC 1951, 3.2.7)
constexpr unsigned kMaxHdist = 29;  // 30 distance codes

constexpr auto kHeaderPasses = [] {
    std::array<bool, 1u << kHeaderBits> passes{};
    for (unsigned h = 0; h < passes.size(); ++h) {
        const bool non_final = (h & 1) == 0;
        const bool dynamic = ((h >> 1) & 3) == unsigned(core::BlockType::dynamic_huffman);
        passes[h] = non_final && dynamic && ((h >> 3) & 31) <= kMaxHlit && ((h >> 8) & 31) <= kMaxHdist;
    }
    return passes;
}();

/// Kraft sum, in units of 2^-7, of four 3-bit precode lengths (0 = unused).
constexpr auto kPrecodeKraft4 = [] {
    std::array<std::uint16_t, 1u << 12> sums{};
    for (unsigned bits = 0; bits < sums.size(); ++bits)
        for (unsigned k = 0; k < 4; ++k)
            if (const unsigned len = (bits >> (3 * k)) & 7; len != 0) sums[bits] += std::uint16_t(128u >> len);
    return sums;
}();
constexpr unsigned kCompleteKraft = 128;
constexpr unsigned kOneBitCodeKraft = 64;  // a single 1-bit codeword (exact check follows)

}  // namespace

bool BlockFinder::passes_precode_kraft(std::uint64_t bit) const noexcept {
    const unsigned precode_count = 4 + unsigned((bits_at(bit) >> kHeaderBits) & 15);
    const unsigned used_bits = 3 * precode_count;  // <= 57: what bits_at() guarantees
    const std::uint64_t lens = bits_at(bit + kHeaderBits + 4) & ((std::uint64_t(1) << used_bits) - 1);
    const unsigned sum = kPrecodeKraft4[lens & 0xFFF] + kPrecodeKraft4[(lens >> 12) & 0xFFF] +
                         kPrecodeKraft4[(lens >> 24) & 0xFFF] + kPrecodeKraft4[(lens >> 36) & 0xFFF] +
                         kPrecodeKraft4[(lens >> 48) & 0xFFF];
    return sum == kCompleteKraft || sum == kOneBitCodeKraft;
}

bool BlockFinder::passes_full_header(std::uint64_t bit) {
    BitReader reader(input_, bit + 3);
    if (read_dynamic_code_lengths(reader, precode_, lens_) != DecodeStatus::ok) return false;
    return lens_.litlen()[core::kEndOfBlock] != 0 &&
           is_valid_code(classify_code(lens_.litlen(), core::kMaxCodewordLen)) &&
           is_valid_code(classify_code(lens_.distance(), core::kMaxCodewordLen));
}

bool BlockFinder::is_dynamic_block_start(std::uint64_t bit) {
    return kHeaderPasses[bits_at(bit) & ((1u << kHeaderBits) - 1)] && passes_precode_kraft(bit) &&
           passes_full_header(bit);
}

/// Bit i of the result is set when a header starting at bit i of @p word passes the
/// 13-bit test (kHeaderPasses), for i < 48: the same rule, on 48 offsets at once, so that
/// the scan needs no branch per offset.  HLIT >= 30 is "its top four bits set", bits 4-7;
/// HDIST >= 30 likewise bits 9-12.
constexpr std::uint64_t header_candidates(std::uint64_t word) noexcept {
    const std::uint64_t non_final_dynamic = ~word & ~(word >> 1) & (word >> 2);
    const std::uint64_t hlit_too_big = (word >> 4) & (word >> 5) & (word >> 6) & (word >> 7);
    const std::uint64_t hdist_too_big = (word >> 9) & (word >> 10) & (word >> 11) & (word >> 12);
    return non_final_dynamic & ~hlit_too_big & ~hdist_too_big & ((std::uint64_t(1) << 48) - 1);
}
static_assert([] {
    for (std::uint64_t h = 0; h < (1u << kHeaderBits); ++h)
        if (((header_candidates(h) & 1) != 0) != kHeaderPasses[h]) return false;
    return true;
}());

std::optional<std::uint64_t> BlockFinder::find_dynamic(std::uint64_t from, std::uint64_t to) {
    to = std::min(to, std::uint64_t(input_.size()) * 8);
    // Six bytes at a time: a word loaded there holds the 13 header bits of each of its
    // first 48 offsets.
    for (std::uint64_t byte = from >> 3; byte * 8 < to; byte += 6) {
        std::uint64_t candidates = header_candidates(word_at_byte(std::size_t(byte)));
        const std::uint64_t base = byte * 8;
        if (base < from) candidates &= ~std::uint64_t(0) << (from - base);
        if (to - base < 48) candidates &= (std::uint64_t(1) << (to - base)) - 1;
        // (The 13 header bits of every candidate passed already: the Kraft test, inline,
        // then the full header for the few that pass it.)
        for (; candidates != 0; candidates &= candidates - 1) {
            const std::uint64_t bit = base + unsigned(std::countr_zero(candidates));
            if (passes_precode_kraft(bit) && passes_full_header(bit)) return bit;
        }
    }
    return std::nullopt;
}

/// Whether any of the 4 byte positions 0-3 of @p word (8 bytes) holds a 16-bit LEN
/// followed by its complement NLEN: x = word ^ (word >> 16) has its bytes k and k + 1 all
/// ones there, so y = x & (x >> 8) has byte k = 0xFF; a zero byte of ~y is found with the
/// usual (v - 0x01..) & ~v & 0x80.. test.  False positives are fine (checked exactly).
constexpr bool may_hold_stored_length(std::uint64_t word) noexcept {
    const std::uint64_t x = word ^ (word >> 16);
    const std::uint64_t v = ~(x & (x >> 8)) & 0xFFFFFFFFu;
    return ((v - 0x01010101u) & ~v & 0x80808080u) != 0;
}

std::optional<std::uint64_t> BlockFinder::find_stored(std::uint64_t from, std::uint64_t to) const noexcept {
    to = std::min(to, std::uint64_t(input_.size()) * 8);
    // A header at bit b has its LEN at byte ceil((b + 3) / 8): b in [8P - 10, 8P - 3].
    const auto in_range = [&](std::uint64_t len_byte) { return len_byte * 8 < to + 10 && len_byte + 4 <= input_.size(); };
    for (std::uint64_t len_byte = (from + 3 + 7) / 8; in_range(len_byte);) {
        // Four positions per word test while they are all in range.
        if (len_byte + 8 <= input_.size() && in_range(len_byte + 3) &&
            !may_hold_stored_length(word_at_byte(std::size_t(len_byte)))) {
            len_byte += 4;
            continue;
        }
        std::uint32_t len_nlen;
        std::memcpy(&len_nlen, input_.data() + len_byte, sizeof len_nlen);
        if (((len_nlen ^ (len_nlen >> 16)) & 0xFFFF) == 0xFFFF) {
            const std::uint64_t first = std::max<std::uint64_t>(from, len_byte * 8 >= 10 ? len_byte * 8 - 10 : 0);
            const std::uint64_t last = std::min<std::uint64_t>(to, len_byte * 8 - 2);  // exclusive
            for (std::uint64_t bit = first; bit < last; ++bit)
                if ((bits_at(bit) & 7) == 0) return bit;
        }
        ++len_byte;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> BlockFinder::find(std::uint64_t from, std::uint64_t to) {
    // Window by window, so that a stored-block scan never runs far past a dynamic block
    // found early (the stored scan is cheap per byte, but not free over megabytes).
    constexpr std::uint64_t kWindowBits = std::uint64_t(64) << 13;  // 64 KiB
    for (std::uint64_t at = from; at < to; at += kWindowBits) {
        const std::uint64_t end = std::min(to, at + kWindowBits);
        const std::optional<std::uint64_t> stored = find_stored(at, end);
        if (const auto dynamic = find_dynamic(at, stored ? *stored : end)) return dynamic;
        if (stored) return stored;
        if (at >= std::uint64_t(input_.size()) * 8) break;
    }
    return std::nullopt;
}

}  // namespace flowdeflate::inflate

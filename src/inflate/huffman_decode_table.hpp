// huffman_decode_table.hpp - canonical Huffman decode tables for DEFLATE's three codes.
//
// A DEFLATE Huffman code is given by its codeword lengths alone (RFC 1951, 3.2.2): the
// codewords are assigned in order of (length, symbol).  Codewords are stored first bit
// first, so read LSB first they appear bit-reversed, and a table indexed by the next
// kTableBits bits of the stream maps every bit pattern whose low `len` bits are a codeword
// to that codeword's symbol: a codeword of length len owns 2^(kTableBits - len) entries,
// spaced 2^len apart.  One lookup decodes a symbol.
//
// Codewords longer than kTableBits (up to 15) would need a 32 K-entry table, so the main
// table holds, for each long prefix, a pointer to a subtable indexed by the next bits.
// The sizes (11 bits for literal/length, 8 for distances, 7 for the precode, which needs
// no subtable) and the worst-case total entries ("enough", computed with zlib's `enough`
// program) are libdeflate's: 11 bits leave subtables to rare long codewords while the
// table still fits in L1, and 8 bits let the distance index be the buffer's low byte.
//
// An entry carries everything the decode loop needs, so that it never indexes a second
// table by symbol:
//
//   bits  0-7   bits to consume: codeword length, plus the extra bits of a length or
//               distance symbol (so one shift consumes both); for a subtable pointer,
//               kTableBits
//   bits  8-11  codeword length (where the extra bits start); for a subtable pointer,
//               the subtable's index bits
//   bit   13    end of block              } bit 15 marks both unusual cases, so the
//   bit   14    subtable pointer          } loop tests one bit for "neither"
//   bit   15    exceptional               }
//   bits 16-30  the value: literal byte, length base, distance base, precode symbol, or
//               the subtable's first entry
//   bit   31    literal (the sign bit: the cheapest test on most CPUs)
//
// Validity follows libdeflate's decoder (lib/deflate_decompress.c, build_decode_table),
// because we decode exactly the streams it decodes:
//   - an over-subscribed code (Kraft sum > 1) is invalid;
//   - a complete code (sum == 1) is valid;
//   - an incomplete code is valid only if it has no codeword at all, or exactly one
//     codeword of length 1; both are made complete by giving one symbol (the used one,
//     or symbol 0) both one-bit codewords.  Any other incomplete code is invalid.
// The same rules apply to all three codes.  Literal/length symbols 286-287 decode as
// length 258 and distance symbols 30-31 as distance base 24577 with 13 extra bits, as in
// libdeflate; a too-large distance is caught by the distance check.
#pragma once

#include "core/deflate_format.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace flowdeflate::inflate {

namespace entry_flag {
inline constexpr std::uint32_t kLiteral = 0x8000'0000;
inline constexpr std::uint32_t kExceptional = 0x0000'8000;
inline constexpr std::uint32_t kSubtablePointer = 0x0000'4000;
inline constexpr std::uint32_t kEndOfBlock = 0x0000'2000;
}  // namespace entry_flag

/// Field accessors for a decode table entry (layout in the file comment).
[[gnu::always_inline]] inline unsigned entry_bits(std::uint32_t entry) noexcept { return entry & 0xFF; }
[[gnu::always_inline]] inline unsigned entry_codeword_bits(std::uint32_t entry) noexcept { return (entry >> 8) & 0xF; }
[[gnu::always_inline]] inline std::uint32_t entry_value(std::uint32_t entry) noexcept { return (entry >> 16) & 0x7FFF; }
/// Length or distance of a length/distance entry: its base plus the extra bits that follow
/// the codeword in @p bits (the buffer as it was before the entry was consumed).
[[gnu::always_inline]] inline std::uint32_t entry_base_plus_extra(std::uint32_t entry, std::uint64_t bits) noexcept {
    return entry_value(entry) + std::uint32_t((bits & ((std::uint64_t(1) << entry_bits(entry)) - 1)) >>
                                              entry_codeword_bits(entry));
}

/// How a set of codeword lengths fares under the rules in the file comment.
enum class CodeShape { invalid, complete, empty, single_one_bit };

/// Classifies the code whose symbol i has codeword length lens[i] (0 = unused; every
/// length must be <= @p max_codeword_len).  The one validity rule: the table builder and
/// the block finder both use it.
CodeShape classify_code(std::span<const std::uint8_t> lens, unsigned max_codeword_len) noexcept;
[[nodiscard]] inline bool is_valid_code(CodeShape s) noexcept { return s != CodeShape::invalid; }

// ---- the three alphabets ----------------------------------------------------------------
// Each gives its table size and, in kResults, what each symbol decodes to before the
// codeword length is added in.

namespace detail {
constexpr std::uint32_t length_or_distance_result(std::uint32_t base, std::uint32_t extra_bits) {
    return (base << 16) | extra_bits;
}
constexpr auto make_litlen_results() {
    std::array<std::uint32_t, core::kNumLitlenSyms> r{};
    for (std::uint32_t lit = 0; lit < core::kNumLiterals; ++lit) r[lit] = entry_flag::kLiteral | (lit << 16);
    r[core::kEndOfBlock] = entry_flag::kExceptional | entry_flag::kEndOfBlock;
    for (unsigned slot = 0; slot < core::kNumLengthSlots; ++slot)
        r[core::kFirstLenSym + slot] = length_or_distance_result(core::kLengthSlotBase[slot], core::kExtraLengthBits[slot]);
    // 286 and 287 do not occur in valid streams; libdeflate decodes them as length 258.
    for (unsigned sym = core::kFirstLenSym + core::kNumLengthSlots; sym < core::kNumLitlenSyms; ++sym)
        r[sym] = length_or_distance_result(core::kMaxMatchLen, 0);
    return r;
}
constexpr auto make_distance_results() {
    std::array<std::uint32_t, core::kNumOffsetSyms> r{};
    for (unsigned slot = 0; slot < core::kNumOffsetSlots; ++slot)
        r[slot] = length_or_distance_result(core::kOffsetSlotBase[slot], core::kExtraOffsetBits[slot]);
    // 30 and 31 do not occur in valid streams; libdeflate decodes them as slot 29.
    for (unsigned sym = core::kNumOffsetSlots; sym < core::kNumOffsetSyms; ++sym) r[sym] = r[core::kNumOffsetSlots - 1];
    return r;
}
constexpr auto make_precode_results() {
    std::array<std::uint32_t, core::kNumPrecodeSyms> r{};
    for (std::uint32_t sym = 0; sym < core::kNumPrecodeSyms; ++sym) r[sym] = sym << 16;
    return r;
}
}  // namespace detail

struct LitlenAlphabet {
    static constexpr unsigned kSymbols = core::kNumLitlenSyms;
    static constexpr unsigned kTableBits = 11;
    static constexpr unsigned kEnough = 2342;  // enough 288 11 15
    static constexpr unsigned kMaxCodewordLen = core::kMaxCodewordLen;
    static constexpr auto kResults = detail::make_litlen_results();
};
struct DistanceAlphabet {
    static constexpr unsigned kSymbols = core::kNumOffsetSyms;
    static constexpr unsigned kTableBits = 8;
    static constexpr unsigned kEnough = 402;  // enough 32 8 15
    static constexpr unsigned kMaxCodewordLen = core::kMaxCodewordLen;
    static constexpr auto kResults = detail::make_distance_results();
};
struct PrecodeAlphabet {
    static constexpr unsigned kSymbols = core::kNumPrecodeSyms;
    static constexpr unsigned kTableBits = 7;  // = the longest precode codeword: no subtables
    static constexpr unsigned kEnough = 128;
    static constexpr unsigned kMaxCodewordLen = core::kMaxPreCodewordLen;
    static constexpr auto kResults = detail::make_precode_results();
};

/// Builds @p table (at least Alphabet::kEnough entries) for the code of @p lens (at most
/// Alphabet::kSymbols lengths, each <= kMaxCodewordLen).  Returns false, leaving the table
/// unspecified, when the lengths do not form a valid code.
bool build_decode_table(std::span<const std::uint8_t> lens, std::span<const std::uint32_t> results,
                        unsigned table_bits, unsigned max_codeword_len, std::span<std::uint32_t> table) noexcept;

/// A decode table for one alphabet, storage included (no allocation).
template <class Alphabet>
class HuffmanDecodeTable {
public:
    using Entries = std::array<std::uint32_t, Alphabet::kEnough>;
    static constexpr unsigned kTableBits = Alphabet::kTableBits;
    static constexpr std::uint64_t kMask = (std::uint64_t(1) << kTableBits) - 1;

    /// False (table unusable) when @p lens is not a valid code.
    [[nodiscard]] bool build(std::span<const std::uint8_t> lens) noexcept {
        return build_decode_table(lens, Alphabet::kResults, kTableBits, Alphabet::kMaxCodewordLen, entries_);
    }
    /// The main-table entry for the low bits of @p bits.
    [[gnu::always_inline]] std::uint32_t lookup(std::uint64_t bits) const noexcept { return entries_[bits & kMask]; }
    /// The subtable entry that @p pointer (a subtable pointer entry) selects with @p bits
    /// (the buffer after the main-table bits were consumed).
    [[gnu::always_inline]] std::uint32_t lookup_subtable(std::uint32_t pointer, std::uint64_t bits) const noexcept {
        const unsigned sub_bits = entry_codeword_bits(pointer);
        return entries_[entry_value(pointer) + (bits & ((std::uint64_t(1) << sub_bits) - 1))];
    }
    [[nodiscard]] const Entries& entries() const noexcept { return entries_; }

private:
    Entries entries_{};
};

using LitlenDecodeTable = HuffmanDecodeTable<LitlenAlphabet>;
using DistanceDecodeTable = HuffmanDecodeTable<DistanceAlphabet>;
using PrecodeDecodeTable = HuffmanDecodeTable<PrecodeAlphabet>;

}  // namespace flowdeflate::inflate

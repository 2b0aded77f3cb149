// huffman_decode_table.cpp - building the decode tables (format and rules in the header).
//
// The builder walks the codewords in canonical order, keeping the current codeword
// bit-reversed, which is the form the table is indexed by.  Incrementing a reversed
// codeword of length n means: find the highest 0 among its n bits, set it, clear the bits
// above it.  Moving on to a longer length appends zeros at the end of the (unreversed)
// codeword, which in reversed form changes nothing.  Short codewords are written with a
// stride of 2^len into the main table; long ones share a subtable per main-table prefix,
// sized so that it holds every codeword with that prefix (the code is complete, so the
// codewords of one prefix fill their subtable exactly).
#include "inflate/huffman_decode_table.hpp"

#include <algorithm>
#include <bit>

namespace flowdeflate::inflate {

namespace {

using core::kMaxCodewordLen;

/// A finished entry: the symbol's static part plus its (remaining) codeword length in both
/// length fields.
constexpr std::uint32_t make_entry(std::uint32_t result, unsigned codeword_len) {
    return result + (codeword_len << 8) + codeword_len;
}

constexpr std::uint32_t subtable_pointer(unsigned start, unsigned subtable_bits, unsigned table_bits) {
    return (std::uint32_t(start) << 16) | entry_flag::kExceptional | entry_flag::kSubtablePointer |
           (subtable_bits << 8) | table_bits;
}

using LengthCounts = std::array<unsigned, kMaxCodewordLen + 1>;

LengthCounts count_lengths(std::span<const std::uint8_t> lens) noexcept {
    LengthCounts counts{};
    for (const std::uint8_t len : lens) ++counts[len];
    return counts;
}

CodeShape classify_counts(const LengthCounts& counts, unsigned max_codeword_len) noexcept {
    // Kraft sum in units of 2^-max_codeword_len: at most 288 * 2^14, no overflow.
    std::uint32_t codespace = 0;
    unsigned codewords = 0;
    for (unsigned len = 1; len <= max_codeword_len; ++len) {
        codespace += counts[len] << (max_codeword_len - len);
        codewords += counts[len];
    }
    const std::uint32_t full = std::uint32_t(1) << max_codeword_len;
    if (codespace == full) return CodeShape::complete;
    if (codewords == 0) return CodeShape::empty;
    if (codewords == 1 && counts[1] == 1) return CodeShape::single_one_bit;
    return CodeShape::invalid;  // over-subscribed, or incomplete in a way libdeflate refuses
}

/// Next codeword of length @p len after @p reversed (bit-reversed form); see file comment.
unsigned next_reversed_codeword(unsigned reversed, unsigned len) noexcept {
    const unsigned zeros = reversed ^ ((1u << len) - 1);
    const unsigned bit = 1u << (std::bit_width(zeros) - 1);
    return (reversed & (bit - 1)) | bit;
}

}  // namespace

CodeShape classify_code(std::span<const std::uint8_t> lens, unsigned max_codeword_len) noexcept {
    return classify_counts(count_lengths(lens), max_codeword_len);
}

bool build_decode_table(std::span<const std::uint8_t> lens, std::span<const std::uint32_t> results,
                        unsigned table_bits, unsigned max_codeword_len, std::span<std::uint32_t> table) noexcept {
    const LengthCounts counts = count_lengths(lens);
    const CodeShape shape = classify_counts(counts, max_codeword_len);
    const unsigned main_size = 1u << table_bits;
    if (shape == CodeShape::invalid) return false;
    if (shape != CodeShape::complete) {
        // Empty or one 1-bit codeword: one symbol takes both 1-bit codewords.
        const auto used = std::find(lens.begin(), lens.end(), std::uint8_t(1));
        const unsigned symbol = used == lens.end() ? 0 : unsigned(used - lens.begin());
        std::fill_n(table.begin(), main_size, make_entry(results[symbol], 1));
        return true;
    }

    // Symbols sorted by (length, symbol): the canonical codeword order.
    std::array<std::uint16_t, core::kNumLitlenSyms> sorted;
    std::array<unsigned, kMaxCodewordLen + 2> next_slot{};
    for (unsigned len = 1; len <= max_codeword_len; ++len) next_slot[len + 1] = next_slot[len] + counts[len];
    for (unsigned sym = 0; sym < lens.size(); ++sym)
        if (lens[sym] != 0) sorted[next_slot[lens[sym]]++] = std::uint16_t(sym);

    unsigned reversed = 0;  // current codeword, bit-reversed
    unsigned index = 0;     // into sorted
    unsigned subtable_prefix = ~0u;
    unsigned subtable_start = 0;
    unsigned subtable_end = main_size;
    for (unsigned len = 1; len <= max_codeword_len; ++len) {
        for (unsigned left = counts[len]; left != 0; --left) {
            const std::uint32_t result = results[sorted[index++]];
            if (len <= table_bits) {
                const std::uint32_t entry = make_entry(result, len);
                for (unsigned i = reversed; i < main_size; i += 1u << len) table[i] = entry;
            } else {
                const unsigned prefix = reversed & (main_size - 1);
                if (prefix != subtable_prefix) {
                    // The subtable must hold every codeword that starts with this prefix:
                    // grow it until the codewords of this and longer lengths fill it.
                    unsigned sub_bits = len - table_bits;
                    unsigned space = left;
                    while (space < (1u << sub_bits)) {
                        ++sub_bits;
                        space = (space << 1) + counts[table_bits + sub_bits];
                    }
                    subtable_prefix = prefix;
                    subtable_start = subtable_end;
                    subtable_end = subtable_start + (1u << sub_bits);
                    table[prefix] = subtable_pointer(subtable_start, sub_bits, table_bits);
                }
                const unsigned sub_len = len - table_bits;
                const std::uint32_t entry = make_entry(result, sub_len);
                for (unsigned i = subtable_start + (reversed >> table_bits); i < subtable_end; i += 1u << sub_len)
                    table[i] = entry;
            }
            if (reversed == (1u << len) - 1) return true;  // the last codeword: all ones
            reversed = next_reversed_codeword(reversed, len);
        }
    }
    return true;  // not reached for a complete code
}

}  // namespace flowdeflate::inflate

// dynamic_header.cpp - reading a dynamic block's code lengths (see the header).
#include "inflate/dynamic_header.hpp"

#include <algorithm>

namespace flowdeflate::inflate {

DecodeStatus read_dynamic_code_lengths(BitReader& in, PrecodeDecodeTable& precode, DynamicCodeLengths& out) noexcept {
    in.refill();
    out.num_litlen = core::kFirstLenSym + in.read(5);
    out.num_distance = 1 + in.read(5);
    const unsigned num_precode = 4 + in.read(4);
    std::array<std::uint8_t, core::kNumPrecodeSyms> precode_lens{};
    for (unsigned i = 0; i < num_precode; ++i) precode_lens[core::kPrecodeLensPermutation[i]] = std::uint8_t(in.read(3));
    if (!precode.build(precode_lens)) return in.truncated() ? DecodeStatus::truncated : DecodeStatus::invalid_precode;

    // Kraft sums of the literal/length and distance lengths read so far, in units of
    // 2^-15: once one exceeds 1 the code is over-subscribed whatever follows, so the
    // header is rejected at once.  The verdict is the one the table builder would reach,
    // only sooner, which is what lets the block finder drop most false candidates after a
    // few symbols instead of a few hundred.
    std::array<std::uint32_t, 2> kraft{};
    constexpr std::uint32_t kFull = 1u << core::kMaxCodewordLen;
    auto& lens = out.lens;
    const unsigned total = out.num_litlen + out.num_distance;
    unsigned i = 0;
    while (i < total) {
        // A precode symbol and its repeat count: at most 7 + 7 bits.
        if (in.bits_left() < core::kMaxPreCodewordLen + 7) in.refill();
        const std::uint32_t entry = precode.lookup(in.buffer());
        in.consume(entry_bits(entry));
        const unsigned symbol = entry_value(entry);
        if (symbol < 16) {
            if (symbol != 0) kraft[i >= out.num_litlen] += kFull >> symbol;
            lens[i++] = std::uint8_t(symbol);
        } else {
            unsigned repeat;
            std::uint8_t value = 0;
            if (symbol == 16) {
                if (i == 0) return DecodeStatus::invalid_code_lengths;
                value = lens[i - 1];
                repeat = 3 + unsigned(in.peek(2));
                in.consume(2);
            } else if (symbol == 17) {
                repeat = 3 + unsigned(in.peek(3));
                in.consume(3);
            } else {
                repeat = 11 + unsigned(in.peek(7));
                in.consume(7);
            }
            if (i + repeat > total) return DecodeStatus::invalid_code_lengths;
            if (value != 0)
                for (unsigned k = i; k < i + repeat; ++k) kraft[k >= out.num_litlen] += kFull >> value;
            std::fill_n(lens.begin() + i, repeat, value);
            i += repeat;
        }
        if (kraft[0] > kFull) return DecodeStatus::invalid_litlen_code;
        if (kraft[1] > kFull) return DecodeStatus::invalid_distance_code;
    }
    return in.truncated() ? DecodeStatus::truncated : DecodeStatus::ok;
}

}  // namespace flowdeflate::inflate

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
            lens[i++] = std::uint8_t(symbol);
            continue;
        }
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
        std::fill_n(lens.begin() + i, repeat, value);
        i += repeat;
        if (i > total) return DecodeStatus::invalid_code_lengths;
    }
    return in.truncated() ? DecodeStatus::truncated : DecodeStatus::ok;
}

}  // namespace flowdeflate::inflate

// assembler.cpp - see assembler.hpp.
#include "parallel/assembler.hpp"

#include <cstring>

#include "core/framing.hpp"

namespace flowdeflate::parallel {

namespace {

// Through the writer, 48 bits at a time (where the output has no room for word stores).
void append_bits_slowly(BitWriter& w, const u8* bits, std::size_t nbits) {
    constexpr u32 kStep = 48;  // with at most 7 bits pending, 48 more fit the 64-bit buffer
    while (nbits >= kStep) {
        u64 v;
        std::memcpy(&v, bits, 8);
        w.add(v & ((u64(1) << kStep) - 1), kStep);
        w.flush();
        bits += kStep / 8;
        nbits -= kStep;
    }
    if (nbits) {
        u64 v;
        std::memcpy(&v, bits, 8);
        w.add(v & ((u64(1) << nbits) - 1), u32(nbits));
        w.flush();
    }
}

// out[i] = in[i] shifted up by @p shift (1-63), with the top bits of in[i - 1] (of
// @p carry for i = 0) below: each word from two loads, so the loop vectorises.
void shift_words(u8* __restrict out, const u8* __restrict in, std::size_t words, u32 shift, u64 carry) {
    u64 first;
    std::memcpy(&first, in, 8);
    first = (first << shift) | carry;
    std::memcpy(out, &first, 8);
    for (std::size_t i = 1; i < words; ++i) {
        u64 v, prev;
        std::memcpy(&v, in + 8 * i, 8);
        std::memcpy(&prev, in + 8 * i - 8, 8);
        const u64 word = (v << shift) | (prev >> (64 - shift));
        std::memcpy(out + 8 * i, &word, 8);
    }
}

}  // namespace

void append_bits(BitWriter& w, const u8* bits, std::size_t nbits) {
    w.flush();  // now fewer than 8 bits pending: they go below the first word
    const std::size_t words = nbits / 64;
    if (w.room() < words * 8 + 16) {
        append_bits_slowly(w, bits, nbits);
        return;
    }
    // Whole 64-bit words, each shifted up by the pending bits, the bits it pushes out
    // carried into the next (the writer's 48 bits per add/flush ran at 1.8 GB/s).
    const u32 shift = w.bitcount;
    u64 carry = w.bitbuf & ((u64(1) << shift) - 1);
    u8* out = w.next;
    if (shift == 0) {
        std::memcpy(out, bits, words * 8);
    } else if (words) {
        shift_words(out, bits, words, shift, carry);
        u64 last;
        std::memcpy(&last, bits + 8 * (words - 1), 8);
        carry = last >> (64 - shift);
    }
    w.next = out + words * 8;
    w.bitbuf = carry;
    append_bits_slowly(w, bits + words * 8, nbits % 64);
}

Assembler::Assembler(SegmentedOutput& out, Format format, int level) : out_(out), framing_(format, level) {
    u8 header[Framing::kMaxSize];
    out_.put_bytes(header, framing_.header(header));
}

void Assembler::append(const CodedBlock& block) {
    out_.block(block.data);
    BitWriter& w = out_.writer();
    // The coded bits hold the type Code chose without the offset; place_block() takes
    // them unless a stored block is cheaper here.
    place_block(w, block.costs, block.data, block.is_final, block.stored_only, false,
                [&](BlockType) { append_bits(w, block.bits.data(), block.nbits); });
    account(block.data);
}

void Assembler::account(std::span<const u8> data) {
    framing_.account(data);
    out_.maybe_hand_off();
}

void Assembler::finish() {
    out_.writer().finish();
    u8 trailer[Framing::kMaxSize];
    out_.put_bytes(trailer, framing_.trailer(trailer));
    out_.finish();
}

}  // namespace flowdeflate::parallel

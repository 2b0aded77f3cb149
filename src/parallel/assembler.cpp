// assembler.cpp - see assembler.hpp.
#include "parallel/assembler.hpp"

#include <libdeflate.h>

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

StreamAssembler::StreamAssembler(SegmentedOutput& out, Format format, int level) : out_(out), format_(format) {
    u8 header[kGzipHeaderSize];
    if (format == Format::gzip) {
        gzip_header(level, header);
        out_.put_bytes(header, kGzipHeaderSize);
    } else if (format == Format::zlib) {
        zlib_header(level, header);
        out_.put_bytes(header, kZlibHeaderSize);
    }
}

void StreamAssembler::append(const CodedBlock& block) {
    BitWriter& w = out_.writer();
    const u32 length = u32(block.data.size());
    if (block.stored_only || choose_block_type(block.costs, w.bitcount, length) == BlockType::stored)
        emit_stored(w, block.data, block.is_final);
    else
        append_bits(w, block.bits.data(), block.nbits);
    account(block.data);
}

void StreamAssembler::append(const ResolvedBlock& block, BlockEncoder& encoder) {
    BitWriter& w = out_.writer();
    const u32 length = u32(block.data.size());
    if (block.stored_only) {
        emit_stored(w, block.data, block.is_final);
    } else {
        const BlockType type = choose_block_type(encoder.prepare(block), w.bitcount, length);
        if (type == BlockType::stored)
            emit_stored(w, block.data, block.is_final);
        else
            encoder.emit(w, type, block);
    }
    account(block.data);
}

void StreamAssembler::account(std::span<const u8> data) {
    if (format_ == Format::gzip)
        crc_ = u32(libdeflate_crc32(crc_, data.data(), data.size()));
    else if (format_ == Format::zlib)
        adler_ = u32(libdeflate_adler32(adler_, data.data(), data.size()));
    size_ += data.size();
    out_.maybe_hand_off();
}

void StreamAssembler::finish() {
    out_.writer().finish();
    u8 trailer[kGzipFooterSize];
    if (format_ == Format::gzip) {
        put_le32(trailer, crc_);
        put_le32(trailer + 4, u32(size_));
        out_.put_bytes(trailer, kGzipFooterSize);
    } else if (format_ == Format::zlib) {
        put_be32(trailer, adler_);
        out_.put_bytes(trailer, kZlibFooterSize);
    }
    out_.finish();
}

}  // namespace flowdeflate::parallel

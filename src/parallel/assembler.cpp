// assembler.cpp - see assembler.hpp.
#include "parallel/assembler.hpp"

#include <libdeflate.h>

#include <cstring>

#include "core/framing.hpp"

namespace flowdeflate::parallel {

void append_bits(BitWriter& w, const u8* bits, std::size_t nbits) {
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

// inflate_streams.cpp - see inflate_streams.hpp.
#include "inflate/inflate_streams.hpp"

#include "inflate/markers.hpp"

#include <flowdeflate/flowdeflate.hpp>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace flowdeflate::inflate::testing {

const int Zlib::sync_flush = Z_SYNC_FLUSH;
const int Zlib::full_flush = Z_FULL_FLUSH;
const int Zlib::filtered = Z_FILTERED;
const int Zlib::huffman_only = Z_HUFFMAN_ONLY;
const int Zlib::rle = Z_RLE;
const int Zlib::fixed = Z_FIXED;

Bytes deflate_ours(std::span<const std::uint8_t> data, int level) {
    Options options;
    options.level = level;
    options.format = Format::deflate;
    options.sequential = true;
    return compress(data, options);
}

Bytes deflate_zlib(std::span<const std::uint8_t> data, const ZlibShape& shape) {
    z_stream z{};
    if (deflateInit2(&z, shape.level, Z_DEFLATED, -15, 8, shape.strategy) != Z_OK)
        throw std::runtime_error("deflateInit2");
    Bytes out(deflateBound(&z, uLong(data.size())) + 64 + data.size() / 100);
    z.next_out = out.data();
    std::size_t done = 0;
    const std::size_t piece = shape.flush_every ? shape.flush_every : std::max<std::size_t>(data.size(), 1);
    do {
        const std::size_t n = std::min(piece, data.size() - done);
        z.next_in = const_cast<Bytef*>(data.data() + done);
        z.avail_in = uInt(n);
        done += n;
        const int flush = done == data.size() ? Z_FINISH : shape.flush;
        for (;;) {
            if (z.total_out + 1024 > out.size()) {
                out.resize(out.size() * 2);
                z.next_out = out.data() + z.total_out;
            }
            z.avail_out = uInt(out.size() - z.total_out);
            const int rc = deflate(&z, flush);
            if (rc == Z_STREAM_END) break;
            if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("deflate");
            if (flush != Z_FINISH && z.avail_in == 0 && z.avail_out != 0) break;
        }
    } while (done < data.size());
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

PlainChunk decode_whole(std::span<const std::uint8_t> compressed, std::size_t expected_size) {
    DeflateDecoder decoder;
    DecodeLimits limits;
    limits.expected_output = expected_size;
    PlainChunk chunk = decoder.decode_plain(compressed, 0, {}, limits);
    EXPECT_TRUE(chunk.ok()) << to_string(chunk.status);
    EXPECT_TRUE(chunk.final_block_ended);
    return chunk;
}

Bytes resolve(const MarkedChunk& chunk, std::span<const std::uint8_t> window) {
    Bytes out(chunk.size());
    EXPECT_TRUE(resolve_markers(chunk.marked_symbols(), window, std::span(out).first(chunk.split_offset())));
    const auto plain = chunk.plain_bytes();
    std::copy(plain.begin(), plain.end(), out.begin() + std::ptrdiff_t(chunk.split_offset()));
    return out;
}

Bytes replay(const TokenChunk& chunk, std::span<const std::uint8_t> window) {
    Bytes buffer(window.size() + chunk.size() + kReplaySlack);
    std::copy(window.begin(), window.end(), buffer.begin());
    EXPECT_TRUE(replay_tokens(chunk, buffer.data() + window.size(), window.size()));
    return Bytes(buffer.begin() + std::ptrdiff_t(window.size()), buffer.begin() + std::ptrdiff_t(window.size() + chunk.size()));
}

void BitStream::put(std::uint32_t value, unsigned bits) {
    for (unsigned i = 0; i < bits; ++i, ++bits_) {
        if (bits_ % 8 == 0) bytes_.push_back(0);
        bytes_.back() |= std::uint8_t(((value >> i) & 1) << (bits_ % 8));
    }
}

void BitStream::put_codeword(std::uint32_t code, unsigned len) {
    for (unsigned i = len; i-- > 0;) put((code >> i) & 1, 1);
}

void BitStream::align() {
    while (bits_ % 8 != 0) put(0, 1);
}

}  // namespace flowdeflate::inflate::testing

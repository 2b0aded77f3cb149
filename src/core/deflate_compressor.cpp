// deflate_compressor.cpp - see deflate_compressor.hpp.
#include "core/deflate_compressor.hpp"

#include <libdeflate.h>

#include <cstring>

#include "core/framing.hpp"
#include "core/level_parsers.hpp"

namespace flowdeflate::core {

bool BlockAssembler::append(BlockCoder& coder, const ParsedBlock& block, HuffmanCodes& scratch_codes) {
    if (overflow_) return false;
    const HuffmanCodes* codes = block.codes;
    if (codes == nullptr) {
        BlockCoder::make_codes(*block.freqs, scratch_codes);
        codes = &scratch_codes;
    }
    const CodedCosts costs = coder.prepare(*block.freqs, *codes);
    const u32 length = u32(block.data.size());
    const BlockType type = choose_block_type(costs, out_.bitcount, length);
    const u32 cost = type == BlockType::stored           ? stored_cost(out_.bitcount, length)
                     : type == BlockType::static_huffman ? costs.static_cost
                                                         : costs.dynamic_cost;
    if ((out_.bitcount + u64(cost) + 7) / 8 > out_.room()) {
        overflow_ = true;
        return false;
    }
    if (type == BlockType::stored)
        emit_stored(out_, block.data, block.is_final);
    else
        coder.emit_coded(out_, type, *codes, block.seqs, block.data, block.is_final);
    return true;
}

std::size_t compress_stored(std::span<const u8> in, std::span<u8> out) {
    const std::size_t num_blocks = std::max<std::size_t>(1, (in.size() + kMaxStoredLen - 1) / kMaxStoredLen);
    if (out.size() < in.size() + 5 * num_blocks) return 0;
    BitWriter w(out.data(), out.data() + out.size());
    emit_stored(w, in, true);
    return std::size_t(w.next - out.data());
}

DeflateCompressor::DeflateCompressor(int level) : params_(LevelParams::for_level(level)) {
    if (level < kMinLevel || level > kMaxLevel) throw Error("compression level must be 0..12");
    if (params_.parser != ParserKind::stored)
        with_parser_type(params_.parser, [&]<class Parser>(std::type_identity<Parser>) {
            parser_ = std::make_unique<Parser>(params_);
        });
}

DeflateCompressor::~DeflateCompressor() = default;

std::size_t DeflateCompressor::deflate_bound(std::size_t in_size) {
    // Never worse than stored blocks of at least kMinBlockLength bytes (libdeflate's bound).
    const std::size_t max_blocks = std::max<std::size_t>((in_size + kMinBlockLength - 1) / kMinBlockLength, 1);
    return 5 * max_blocks + in_size;
}

std::size_t DeflateCompressor::bound(std::size_t in_size, Format format) {
    const std::size_t framing = format == Format::gzip   ? kGzipHeaderSize + kGzipFooterSize
                                : format == Format::zlib ? kZlibHeaderSize + kZlibFooterSize
                                                         : 0;
    return deflate_bound(in_size) + framing;
}

std::size_t DeflateCompressor::compress(std::span<const u8> in, std::span<u8> out, Format format) {
    switch (format) {
        case Format::deflate: return deflate(in, out);
        case Format::zlib: return zlib(in, out);
        case Format::gzip: return gzip(in, out);
    }
    return 0;
}

std::size_t DeflateCompressor::deflate(std::span<const u8> in, std::span<u8> out) {
    if (in.size() <= params_.max_passthrough_size) return compress_stored(in, out);
    BitWriter w(out.data(), out.data() + out.size());
    BlockAssembler assembler(w);
    parse(in, [&](const ParsedBlock& b) { assembler.append(coder_, b, scratch_codes_); });
    if (assembler.overflowed()) return 0;
    w.finish();
    return std::size_t(w.next - out.data());
}

template <class F>
void DeflateCompressor::with_parser(F&& f) {
    std::visit(
        [&](auto& parser) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(parser)>, std::monostate>) f(*parser);
        },
        parser_);
}

// The near-optimal parser takes its sink through a type-erased reference: it is compiled
// once (parser_near_optimal.cpp), not per sink.
template <class Sink>
void DeflateCompressor::parse(InputStream& in, Sink&& sink, MatchFeed* feed) {
    with_parser([&]<class Parser>(Parser& parser) {
        if constexpr (std::is_same_v<Parser, NearOptimalParser>)
            parser.parse(in, BlockSinkRef(sink), feed);
        else
            parser.parse(in, sink);
    });
}

template <class Sink>
void DeflateCompressor::parse(std::span<const u8> in, Sink&& sink) {
    const u8* begin = in.data();
    const u8* end = begin + in.size();
    with_parser([&]<class Parser>(Parser& parser) {
        if constexpr (std::is_same_v<Parser, NearOptimalParser>)
            parser.parse(begin, end, BlockSinkRef(sink));
        else
            parser.parse(begin, end, sink);
    });
}

std::size_t DeflateCompressor::gzip(std::span<const u8> in, std::span<u8> out) {
    if (out.size() <= kGzipHeaderSize + kGzipFooterSize) return 0;
    u8* p = out.data();
    gzip_header(params_.level, p);
    const std::size_t n = deflate(in, out.subspan(kGzipHeaderSize, out.size() - kGzipHeaderSize - kGzipFooterSize));
    if (n == 0) return 0;
    p += kGzipHeaderSize + n;
    put_le32(p, u32(libdeflate_crc32(0, in.data(), in.size())));
    put_le32(p + 4, u32(in.size()));
    return kGzipHeaderSize + n + kGzipFooterSize;
}

std::size_t DeflateCompressor::zlib(std::span<const u8> in, std::span<u8> out) {
    if (out.size() <= kZlibHeaderSize + kZlibFooterSize) return 0;
    zlib_header(params_.level, out.data());
    const std::size_t n = deflate(in, out.subspan(kZlibHeaderSize, out.size() - kZlibHeaderSize - kZlibFooterSize));
    if (n == 0) return 0;
    const u32 adler = u32(libdeflate_adler32(1, in.data(), in.size()));
    put_be32(out.data() + kZlibHeaderSize + n, adler);
    return kZlibHeaderSize + n + kZlibFooterSize;
}

std::uint64_t DeflateCompressor::compress_stream(InputStream& in, SegmentSink& sink, Format format,
                                                 std::size_t segment_size, MatchFeed* feed) {
    SegmentedOutput out(sink, segment_size);
    BitWriter& w = out.writer();
    u8 framing[kGzipHeaderSize];
    if (format == Format::gzip) {
        gzip_header(params_.level, framing);
        out.put_bytes(framing, kGzipHeaderSize);
    } else if (format == Format::zlib) {
        zlib_header(params_.level, framing);
        out.put_bytes(framing, kZlibHeaderSize);
    }
    u32 crc = 0, adler = 1;
    std::uint64_t size = 0;
    const auto consumed = [&](const u8* p, std::size_t n) {
        if (format == Format::gzip)
            crc = u32(libdeflate_crc32(crc, p, n));
        else if (format == Format::zlib)
            adler = u32(libdeflate_adler32(adler, p, n));
        size += n;
    };

    const u8* const begin = in.begin();
    // Is the whole input at most the pass-through size?  (Then ensure() returns its end.)
    const std::size_t probe = params_.level == 0 ? 0 : params_.max_passthrough_size + 1;
    const u8* end = in.ensure(begin + probe);
    if (params_.level == 0 || std::size_t(end - begin) <= params_.max_passthrough_size) {
        // Stored blocks of at most 65535 bytes, as compress_stored() writes them.
        const u8* p = begin;
        for (;;) {
            end = in.ensure(p + kMaxStoredLen + 1);
            const std::size_t len = std::min<std::size_t>(kMaxStoredLen, std::size_t(end - p));
            const bool is_final = p + len == end;  // fewer than 65536 bytes left: the end is known
            emit_stored(w, {p, len}, is_final);
            consumed(p, len);
            p += len;
            in.release_before(p);
            out.maybe_hand_off();
            if (is_final) break;
        }
    } else {
        BlockAssembler assembler(w);
        parse(
            in,
            [&](const ParsedBlock& b) {
                assembler.append(coder_, b, scratch_codes_);  // never overflows: see kSlack
                consumed(b.data.data(), b.data.size());
                out.maybe_hand_off();
            },
            feed);
    }
    w.finish();
    if (format == Format::gzip) {
        put_le32(framing, crc);
        put_le32(framing + 4, u32(size));  // ISIZE: the size modulo 2^32
        out.put_bytes(framing, kGzipFooterSize);
    } else if (format == Format::zlib) {
        put_be32(framing, adler);
        out.put_bytes(framing, kZlibFooterSize);
    }
    out.finish();
    return size;
}

}  // namespace flowdeflate::core

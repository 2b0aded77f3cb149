// deflate_compressor.cpp - see deflate_compressor.hpp.
#include "core/deflate_compressor.hpp"

#include <cstring>

#include "core/framing.hpp"
#include "core/level_parsers.hpp"

namespace flowdeflate::core {

bool BlockWriter::append(BlockCoder& coder, const ParsedBlock& block, HuffmanCodes& scratch_codes) {
    if (overflow_) return false;
    const HuffmanCodes* codes = block.codes;
    if (codes == nullptr) {
        BlockCoder::make_codes(*block.freqs, scratch_codes);
        codes = &scratch_codes;
    }
    const CodedCosts costs = coder.prepare(*block.freqs, *codes);
    const bool placed = place_block(out_, costs, block.data, block.is_final, false, true, [&](BlockType type) {
        coder.emit_coded(out_, type, *codes, block.seqs, block.data, block.is_final);
    });
    overflow_ = !placed;
    return placed;
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
    return deflate_bound(in_size) + Framing::overhead(format);
}

std::size_t DeflateCompressor::compress(std::span<const u8> in, std::span<u8> out, Format format) {
    if (format == Format::deflate) return deflate(in, out);
    // The frame around the DEFLATE stream, as libdeflate's gzip_compress()/zlib_compress().
    const std::size_t overhead = Framing::overhead(format);
    if (out.size() <= overhead) return 0;
    Framing framing(format, params_.level);
    const std::size_t head = framing.header(out.data());
    const std::size_t n = deflate(in, out.subspan(head, out.size() - overhead));
    if (n == 0) return 0;
    framing.account(in);
    return head + n + framing.trailer(out.data() + head + n);
}

std::size_t DeflateCompressor::deflate(std::span<const u8> in, std::span<u8> out) {
    if (in.size() <= params_.max_passthrough_size) return compress_stored(in, out);
    BitWriter w(out.data(), out.data() + out.size());
    BlockWriter blocks(w);
    parse(in, [&](const ParsedBlock& b) { blocks.append(coder_, b, scratch_codes_); });
    if (blocks.overflowed()) return 0;
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

std::uint64_t DeflateCompressor::compress_stream(InputStream& in, SegmentSink& sink, Format format,
                                                 std::size_t segment_size, MatchFeed* feed, IndexSink* index,
                                                 std::uint64_t index_span) {
    SegmentedOutput out(sink, segment_size);
    out.record_seek_points(index, index_span);
    BitWriter& w = out.writer();
    Framing framing(format, params_.level);
    u8 frame[Framing::kMaxSize];
    out.put_bytes(frame, framing.header(frame));

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
            out.block({p, len});
            emit_stored(w, {p, len}, is_final);
            framing.account({p, len});
            p += len;
            in.release_before(p);
            out.maybe_hand_off();
            if (is_final) break;
        }
    } else {
        BlockWriter blocks(w);
        parse(
            in,
            [&](const ParsedBlock& b) {
                out.block(b.data);
                blocks.append(coder_, b, scratch_codes_);  // never overflows: see kSlack
                framing.account(b.data);
                out.maybe_hand_off();
            },
            feed);
    }
    w.finish();
    out.put_bytes(frame, framing.trailer(frame));
    out.finish();
    return framing.size();
}

}  // namespace flowdeflate::core

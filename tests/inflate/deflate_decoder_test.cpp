// deflate_decoder_test.cpp - plain and marked decoding, stop_bit, chunk stitching.
//
// Suites:
//   InflatePlain      whole streams from bit 0 (all levels of our compressor, zlib's block
//                     shapes, sizes 0 .. several MiB) equal their input; end_bit is the
//                     stream's end.
//   InflateMarked     from every block boundary of a stream, marked decoding resolved with
//                     the true preceding 32 KiB gives exactly the true remainder; the
//                     switch to plain mode happens and its split point is right.
//   InflateTokens     the same from every boundary in token mode (LZ77 tokens replayed
//                     against the true window); a replay whose window is too short for a
//                     match is refused.
//   InflateStop       stop_bit stops before the first block at or after it; a stop request
//                     ends a chunk (and a worker's search) at the next block boundary.
//   InflateChunked    streams cut at boundaries into chunks, decoded independently (the
//                     first plain, the rest marked, into one reused MarkedChunk) and
//                     stitched, equal the input.
#include "inflate/inflate_streams.hpp"

#include "inflate/markers.hpp"
#include "inflate/speculative_chunk.hpp"
#include "support/test_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

namespace {

namespace fdt = flowdeflate::testing;
using namespace flowdeflate::inflate;
using namespace flowdeflate::inflate::testing;

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

std::string describe(std::string_view what, std::size_t size, int level) {
    return std::string(what) + " size " + std::to_string(size) + " level " + std::to_string(level);
}

void expect_round_trip(std::span<const std::uint8_t> compressed, std::span<const std::uint8_t> original,
                       const std::string& what) {
    SCOPED_TRACE(what);
    const PlainChunk chunk = decode_whole(compressed, original.size());
    ASSERT_EQ(chunk.bytes().size(), original.size());
    EXPECT_TRUE(std::equal(original.begin(), original.end(), chunk.bytes().begin()));
    // The final block ends in the stream's last byte.
    EXPECT_LE(chunk.end_bit, compressed.size() * 8);
    EXPECT_GT(chunk.end_bit + 8, compressed.size() * 8);
    ASSERT_FALSE(chunk.boundaries.empty());
    EXPECT_EQ(chunk.boundaries.front().bit_offset, 0u);
    EXPECT_TRUE(chunk.boundaries.back().is_final);
}

/// A stream and one of its block boundaries: where a worker would start marked decoding.
struct FromBoundary {
    fdt::Bytes data, compressed;
    BlockBoundary start;

    FromBoundary(fdt::Bytes d, fdt::Bytes c, std::size_t index) : data(std::move(d)), compressed(std::move(c)) {
        const PlainChunk whole = decode_whole(compressed, data.size());
        start = whole.boundaries.at(index);
    }
    /// The (up to) 32 KiB before the boundary.
    [[nodiscard]] std::span<const std::uint8_t> window() const {
        return std::span(data).first(start.output_offset).last(std::min<std::size_t>(kWindowSize, start.output_offset));
    }
    /// The data from the boundary on equals @p bytes.
    void expect_rest(const Bytes& bytes) const {
        ASSERT_EQ(bytes.size(), data.size() - start.output_offset);
        EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), data.begin() + std::ptrdiff_t(start.output_offset)));
    }
};

// ---- plain ------------------------------------------------------------------------------

TEST(InflatePlain, EveryLevelOfOurCompressor) {
    for (int level = 0; level <= 12; ++level) {
        const std::size_t big = level >= 10 ? 300 * KiB : 1200 * KiB;
        for (const auto kind : {fdt::Kind::text, fdt::Kind::mixed, fdt::Kind::random, fdt::Kind::runs}) {
            for (const std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(100), 70 * KiB, big}) {
                const fdt::Bytes data = fdt::generate(kind, size, 7 + level);
                expect_round_trip(deflate_ours(data, level), data, describe(fdt::kind_name(kind), size, level));
            }
        }
    }
}

TEST(InflatePlain, SeveralMebibytes) {
    const fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 6 * MiB, 99);
    expect_round_trip(deflate_ours(data, 6), data, "mixed 6 MiB level 6");
}

TEST(InflatePlain, ZlibBlockShapes) {
    const fdt::Bytes text = fdt::generate(fdt::Kind::text, 600 * KiB, 3);
    const fdt::Bytes mixed = fdt::generate(fdt::Kind::mixed, 600 * KiB, 4);
    const ZlibShape shapes[] = {
        {6, 0, 0, 0},
        {0, 0, 0, 0},                            // stored blocks
        {6, Zlib::fixed, 0, 0},                  // fixed-Huffman blocks only
        {6, Zlib::huffman_only, 0, 0},
        {6, Zlib::rle, 0, 0},
        {9, Zlib::filtered, 0, 0},
        {6, 0, 10000, Zlib::sync_flush},         // empty stored blocks between pieces
        {1, 0, 777, Zlib::full_flush},           // and no references across them
        {6, Zlib::fixed, 5000, Zlib::sync_flush},
    };
    for (const ZlibShape& shape : shapes)
        for (const fdt::Bytes* data : {&text, &mixed})
            expect_round_trip(deflate_zlib(*data, shape), *data,
                              "zlib level " + std::to_string(shape.level) + " strategy " +
                                  std::to_string(shape.strategy) + " flush " + std::to_string(shape.flush));
}

TEST(InflatePlain, WindowGivenForAMidStreamStart) {
    // Decoding from a boundary with the true window gives the remainder, in plain mode.
    const fdt::Bytes data = fdt::generate(fdt::Kind::text, 800 * KiB, 5);
    const fdt::Bytes compressed = deflate_ours(data, 6);
    const PlainChunk whole = decode_whole(compressed);
    ASSERT_GE(whole.boundaries.size(), 3u);
    DeflateDecoder decoder;
    for (const BlockBoundary& b : whole.boundaries) {
        const auto window = std::span(data).first(b.output_offset);
        const PlainChunk rest = decoder.decode_plain(compressed, b.bit_offset, window);
        ASSERT_TRUE(rest.ok()) << to_string(rest.status);
        ASSERT_EQ(rest.bytes().size(), data.size() - b.output_offset);
        EXPECT_TRUE(std::equal(rest.bytes().begin(), rest.bytes().end(), data.begin() + std::ptrdiff_t(b.output_offset)));
    }
}

// ---- marked -----------------------------------------------------------------------------

enum class Mode { marked, tokens };

/// From every boundary of @p compressed, marked decoding resolved with the true window, or
/// token decoding replayed against it (to the end, or over a few blocks when
/// @p blocks_per_decode is set), equals the data.
void expect_from_every_boundary(std::span<const std::uint8_t> compressed, std::span<const std::uint8_t> data,
                                std::size_t blocks_per_decode, Mode mode = Mode::marked) {
    const PlainChunk whole = decode_whole(compressed, data.size());
    const auto& bounds = whole.boundaries;
    DeflateDecoder decoder;
    MarkedChunk marked_chunk;
    TokenChunk token_chunk;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        SCOPED_TRACE("boundary " + std::to_string(i) + " at bit " + std::to_string(bounds[i].bit_offset));
        const std::size_t last = std::min(bounds.size(), i + blocks_per_decode);
        DecodeLimits limits;
        limits.stop_bit = last < bounds.size() ? bounds[last].bit_offset : kNoStopBit;
        std::atomic<std::uint64_t> first_block{kNoStopBit};
        limits.first_block_decoded = &first_block;
        const std::size_t begin = bounds[i].output_offset;
        const std::size_t end = last < bounds.size() ? bounds[last].output_offset : data.size();
        const auto window = data.subspan(begin - std::min(begin, kWindowSize), std::min(begin, kWindowSize));
        Bytes bytes;
        if (mode == Mode::marked) {
            decoder.decode_marked(compressed, bounds[i].bit_offset, limits, marked_chunk);
            ASSERT_TRUE(marked_chunk.ok()) << to_string(marked_chunk.status);
            bytes = resolve(marked_chunk, window);
        } else {
            decoder.decode_tokens(compressed, bounds[i].bit_offset, limits, token_chunk);
            ASSERT_TRUE(token_chunk.ok()) << to_string(token_chunk.status);
            bytes = replay(token_chunk, window);
        }
        const DecodeProgress& chunk =
            mode == Mode::marked ? static_cast<const DecodeProgress&>(marked_chunk) : token_chunk;
        EXPECT_EQ(first_block.load(), bounds[i].bit_offset);
        ASSERT_EQ(bytes.size(), end - begin);
        ASSERT_TRUE(std::equal(bytes.begin(), bytes.end(), data.begin() + std::ptrdiff_t(begin)));
        // The boundaries it reports are the true ones, shifted to the chunk's output.
        ASSERT_EQ(chunk.boundaries.size(), last - i);
        for (std::size_t k = 0; k < chunk.boundaries.size(); ++k) {
            EXPECT_EQ(chunk.boundaries[k].bit_offset, bounds[i + k].bit_offset);
            EXPECT_EQ(chunk.boundaries[k].output_offset, bounds[i + k].output_offset - begin);
        }
        // Plain mode takes over only where no marker remains within 32 KiB.
        if (mode == Mode::marked && marked_chunk.switched_to_plain) {
            const auto marked = marked_chunk.marked_symbols();
            ASSERT_GE(marked.size(), kWindowSize);
            EXPECT_EQ(end_of_last_marker(marked.last(kWindowSize)), 0u);
        }
    }
}

TEST(InflateMarked, EveryBoundaryOfOurStreams) {
    for (const int level : {1, 6, 9}) {
        SCOPED_TRACE(level);
        const fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 1500 * KiB, 11 + level);
        expect_from_every_boundary(deflate_ours(data, level), data, 4);
    }
}

TEST(InflateMarked, EveryBoundaryOfZlibStreams) {
    const fdt::Bytes data = fdt::generate(fdt::Kind::source, 700 * KiB, 12);
    expect_from_every_boundary(deflate_zlib(data, {6, 0, 30000, Zlib::sync_flush}), data, 5);
    expect_from_every_boundary(deflate_zlib(data, {6, Zlib::fixed, 0, 0}), data, 5);
    expect_from_every_boundary(deflate_zlib(data, {0, 0, 0, 0}), data, 5);
}

TEST(InflateTokens, EveryBoundaryOfOurStreams) {
    for (const int level : {1, 6, 9, 12}) {
        SCOPED_TRACE(level);
        for (const auto kind : {fdt::Kind::mixed, fdt::Kind::text, fdt::Kind::runs}) {
            const fdt::Bytes data = fdt::generate(kind, 1200 * KiB, 17 + level);
            expect_from_every_boundary(deflate_ours(data, level), data, 3, Mode::tokens);
        }
    }
}

TEST(InflateTokens, EveryBoundaryOfZlibStreams) {
    // Stored blocks, fixed blocks, flush points every few KiB (short windows at the start).
    const fdt::Bytes data = fdt::generate(fdt::Kind::text, 300 * KiB, 18);
    expect_from_every_boundary(deflate_zlib(data, {6, 0, 4096, Zlib::sync_flush}), data, 5, Mode::tokens);
    expect_from_every_boundary(deflate_zlib(data, {6, Zlib::fixed, 0, 0}), data, 5, Mode::tokens);
    expect_from_every_boundary(deflate_zlib(data, {0, 0, 0, 0}), data, 5, Mode::tokens);
    expect_from_every_boundary(deflate_zlib(data, {9, Zlib::rle, 20000, Zlib::full_flush}), data, 5, Mode::tokens);
}

TEST(InflateTokens, ReplayRejectsAMatchBeforeTheHistory) {
    // A chunk from the second block whose matches reach into the first: replayed with a
    // window one byte short of what they need, it is refused.
    const fdt::Bytes data = fdt::generate(fdt::Kind::text, 200 * KiB, 19);
    const fdt::Bytes compressed = deflate_zlib(data, {6, 0, 4096, Zlib::sync_flush});
    const PlainChunk whole = decode_whole(compressed, data.size());
    ASSERT_GE(whole.boundaries.size(), 2u);
    const BlockBoundary start = whole.boundaries[1];
    DeflateDecoder decoder;
    TokenChunk chunk;
    decoder.decode_tokens(compressed, start.bit_offset, {}, chunk);
    ASSERT_TRUE(chunk.ok());
    std::size_t reach = 0;  // the farthest any match reaches before the chunk
    std::uint64_t at = 0;
    for (const Sequence& s : chunk.sequences.output()) {
        at += s.literals;
        if (s.distance > at) reach = std::max<std::size_t>(reach, s.distance - at);
        at += s.length;
    }
    ASSERT_GT(reach, 0u);
    ASSERT_LE(reach, start.output_offset);
    const auto window = std::span(data).first(start.output_offset);
    EXPECT_EQ(replay(chunk, window.last(reach)).size(), chunk.size());
    std::vector<std::uint8_t> out(reach + chunk.size() + kReplaySlack);
    std::copy(window.end() - std::ptrdiff_t(reach - 1), window.end(), out.begin() + 1);
    EXPECT_FALSE(replay_tokens(chunk, out.data() + reach, reach - 1));
}

TEST(InflateMarked, SwitchesToPlainAndDecodesToTheEnd) {
    // (The synthetic text and source generators draw words from one fixed list, so their
    // markers never die out; mixed data, like most real data, loses them.)
    fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 3 * MiB, 21);
    const FromBoundary c(data, deflate_ours(data, 6), 2);
    DeflateDecoder decoder;
    const MarkedChunk chunk = decoder.decode_marked(c.compressed, c.start.bit_offset);
    ASSERT_TRUE(chunk.ok());
    EXPECT_TRUE(chunk.final_block_ended);
    ASSERT_TRUE(chunk.switched_to_plain);
    EXPECT_LT(chunk.split_offset(), chunk.size() / 2);
    // The data refers back into the window early on: the marked part does hold markers.
    EXPECT_NE(end_of_last_marker(chunk.marked_symbols()), 0u);
    // The split is at a block boundary.
    EXPECT_TRUE(std::any_of(chunk.boundaries.begin(), chunk.boundaries.end(),
                            [&](const BlockBoundary& b) { return b.output_offset == chunk.split_offset(); }));
    c.expect_rest(resolve(chunk, c.window()));
}

TEST(InflateMarked, ResolveRejectsMarkersBeforeAShortWindow) {
    const std::uint16_t marked[] = {'a', marker_for(kWindowSize - 1), marker_for(kWindowSize - 3)};
    const std::uint8_t window[] = {'x', 'y', 'z'};
    std::uint8_t out[3];
    ASSERT_TRUE(resolve_markers(marked, window, out));
    EXPECT_EQ(out[0], 'a');
    EXPECT_EQ(out[1], 'z');
    EXPECT_EQ(out[2], 'x');
    const std::uint16_t too_far[] = {marker_for(kWindowSize - 4)};
    EXPECT_FALSE(resolve_markers(too_far, window, std::span(out).first(1)));
}

TEST(InflateMarked, ResolvesInPlace) {
    // The bytes may overwrite the symbols' own storage (parallel_inflate does that).
    fdt::Bytes data = fdt::generate(fdt::Kind::text, 600 * KiB, 8);
    const FromBoundary c(data, deflate_ours(data, 6), 1);
    DeflateDecoder decoder;
    MarkedChunk chunk = decoder.decode_marked(c.compressed, c.start.bit_offset);
    ASSERT_TRUE(chunk.ok());
    const auto marked = chunk.marked_symbols();
    ASSERT_NE(end_of_last_marker(marked), 0u);
    Bytes apart(marked.size());
    ASSERT_TRUE(resolve_markers(marked, c.window(), apart));
    auto* in_place = reinterpret_cast<std::uint8_t*>(chunk.marked.begin() + chunk.marked.history_size());
    ASSERT_TRUE(resolve_markers(marked, c.window(), {in_place, marked.size()}));
    EXPECT_TRUE(std::equal(apart.begin(), apart.end(), in_place));
    c.expect_rest(apart);
}

// ---- stop_bit -------------------------------------------------------------------------------

// 900 KiB of mixed data compressed at level 6, and its blocks as one decode from the start
// finds them: what the stop tests cut at.
struct BlockedStream {
    fdt::Bytes data, compressed;
    PlainChunk whole;
};
BlockedStream blocked_stream(std::uint64_t seed) {
    BlockedStream s;
    s.data = fdt::generate(fdt::Kind::mixed, 900 * KiB, seed);
    s.compressed = deflate_ours(s.data, 6);
    s.whole = decode_whole(s.compressed);
    return s;
}

TEST(InflateStop, StopsBeforeTheFirstBlockAtOrAfterStopBit) {
    const auto& [data, compressed, whole] = blocked_stream(31);
    const auto& bounds = whole.boundaries;
    ASSERT_GE(bounds.size(), 4u);
    DeflateDecoder decoder;
    for (std::size_t k = 0; k < bounds.size(); ++k) {
        for (const std::uint64_t delta : {std::uint64_t(0), std::uint64_t(1)}) {
            DecodeLimits limits;
            limits.stop_bit = bounds[k].bit_offset + delta;
            const PlainChunk chunk = decoder.decode_plain(compressed, 0, {}, limits);
            ASSERT_TRUE(chunk.ok());
            // With delta 0 the block at the stop bit is not decoded; with 1 it is.
            const std::size_t next = k + delta;
            ASSERT_EQ(chunk.boundaries.size(), next);
            if (next < bounds.size()) {
                EXPECT_FALSE(chunk.final_block_ended);
                EXPECT_EQ(chunk.end_bit, bounds[next].bit_offset);
                EXPECT_EQ(chunk.bytes().size(), bounds[next].output_offset);
            } else {
                EXPECT_TRUE(chunk.final_block_ended);
                EXPECT_EQ(chunk.bytes().size(), data.size());
            }
        }
    }
}

TEST(InflateStop, AStopRequestEndsTheChunkAtTheNextBlockBoundary) {
    // The parallel decoder's takeover: a worker told to stop ends its chunk at the next block
    // end, after at least one block, and the chunk is as usable as one cut by stop_bit.
    const auto& [data, compressed, whole] = blocked_stream(32);
    const auto& bounds = whole.boundaries;
    ASSERT_GE(bounds.size(), 4u);
    std::atomic<bool> stop{true};
    DecodeLimits limits;
    limits.stop_requested = &stop;
    DeflateDecoder decoder;
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
        SCOPED_TRACE("from boundary " + std::to_string(k));
        const FromBoundary from(data, compressed, k);
        TokenChunk tokens;
        decoder.decode_tokens(compressed, bounds[k].bit_offset, limits, tokens);
        ASSERT_TRUE(tokens.ok());
        ASSERT_EQ(tokens.boundaries.size(), 1u);
        EXPECT_EQ(tokens.end_bit, bounds[k + 1].bit_offset);
        const Bytes bytes = replay(tokens, from.window());
        ASSERT_EQ(bytes.size(), bounds[k + 1].output_offset - bounds[k].output_offset);
        EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), data.begin() + std::ptrdiff_t(bounds[k].output_offset)));
        // A worker's search ends with the shortened chunk, starting at the boundary.
        const std::optional<std::uint64_t> start =
            speculate(decoder, compressed, bounds[k].bit_offset, compressed.size() * 8, limits, tokens);
        ASSERT_TRUE(start.has_value());
        EXPECT_EQ(*start, bounds[k].bit_offset);
        EXPECT_EQ(tokens.end_bit, bounds[k + 1].bit_offset);
    }
    // Not requested: the same limits decode to the end.
    stop = false;
    const PlainChunk all = decoder.decode_plain(compressed, 0, {}, limits);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all.boundaries.size(), bounds.size());
    EXPECT_EQ(all.bytes().size(), data.size());
}

TEST(InflateStop, AnOutputLimitEndsTheChunkAtTheNextBlockBoundary) {
    // A worker's region of very compressible data: the stretch ends at the first block end
    // at which the output holds stop_after_output symbols, after one block at least, in
    // token and in marked mode alike, and is as usable as one cut by stop_bit.
    const auto& [data, compressed, whole] = blocked_stream(33);
    const auto& bounds = whole.boundaries;
    ASSERT_GE(bounds.size(), 4u);
    DeflateDecoder decoder;
    for (std::size_t k = 0; k + 2 < bounds.size(); ++k) {
        SCOPED_TRACE("from boundary " + std::to_string(k));
        const FromBoundary from(data, compressed, k);
        for (const std::size_t blocks : {std::size_t(1), std::size_t(2)}) {
            DecodeLimits limits;
            // 1 symbol: the first block is decoded all the same; one short of two blocks'
            // output: the second block ends past it.
            limits.stop_after_output =
                blocks == 1 ? 1 : std::size_t(bounds[k + 2].output_offset - bounds[k].output_offset) - 1;
            TokenChunk tokens;
            decoder.decode_tokens(compressed, bounds[k].bit_offset, limits, tokens);
            ASSERT_TRUE(tokens.ok());
            ASSERT_EQ(tokens.boundaries.size(), blocks);
            EXPECT_EQ(tokens.end_bit, bounds[k + blocks].bit_offset);
            const Bytes bytes = replay(tokens, from.window());
            ASSERT_EQ(bytes.size(), bounds[k + blocks].output_offset - bounds[k].output_offset);
            EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), data.begin() + std::ptrdiff_t(bounds[k].output_offset)));
            MarkedChunk marked;
            decoder.decode_marked(compressed, bounds[k].bit_offset, limits, marked);
            ASSERT_TRUE(marked.ok());
            EXPECT_EQ(marked.boundaries.size(), blocks);
            EXPECT_EQ(marked.end_bit, bounds[k + blocks].bit_offset);
            EXPECT_EQ(marked.size(), bytes.size());
        }
    }
}

// ---- chunked ------------------------------------------------------------------------------

/// Cuts @p compressed at every @p stride-th boundary, decodes the pieces independently
/// (the first in plain mode, the others marked), then resolves them in order.
void expect_chunked_stitch(std::span<const std::uint8_t> compressed, std::span<const std::uint8_t> data,
                           std::size_t stride) {
    const PlainChunk whole = decode_whole(compressed, data.size());
    std::vector<std::uint64_t> starts;
    for (std::size_t i = 0; i < whole.boundaries.size(); i += stride) starts.push_back(whole.boundaries[i].bit_offset);
    DeflateDecoder decoder;
    Bytes stitched;
    MarkedChunk chunk;  // reused from chunk to chunk, as a pool would
    for (std::size_t c = 0; c < starts.size(); ++c) {
        DecodeLimits limits;
        limits.stop_bit = c + 1 < starts.size() ? starts[c + 1] : kNoStopBit;
        const std::size_t window = std::min(stitched.size(), kWindowSize);
        if (c == 0) {
            const PlainChunk first = decoder.decode_plain(compressed, starts[c], {}, limits);
            ASSERT_TRUE(first.ok());
            ASSERT_EQ(first.end_bit, limits.stop_bit == kNoStopBit ? first.end_bit : limits.stop_bit);
            stitched.insert(stitched.end(), first.bytes().begin(), first.bytes().end());
            continue;
        }
        decoder.decode_marked(compressed, starts[c], limits, chunk);
        ASSERT_TRUE(chunk.ok()) << to_string(chunk.status);
        EXPECT_EQ(chunk.final_block_ended, c + 1 == starts.size());
        EXPECT_EQ(chunk.boundaries.front().bit_offset, starts[c]);
        const Bytes bytes = resolve(chunk, std::span(stitched).last(window));
        stitched.insert(stitched.end(), bytes.begin(), bytes.end());
    }
    ASSERT_EQ(stitched.size(), data.size());
    EXPECT_TRUE(std::equal(stitched.begin(), stitched.end(), data.begin()));
}

TEST(InflateChunked, StitchedChunksEqualTheInput) {
    const fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 2 * MiB, 41);
    for (const int level : {0, 1, 6}) {
        SCOPED_TRACE(level);
        const fdt::Bytes compressed = deflate_ours(data, level);
        for (const std::size_t stride : {1, 2, 5}) expect_chunked_stitch(compressed, data, stride);
    }
    expect_chunked_stitch(deflate_zlib(data, {6, 0, 50000, Zlib::full_flush}), data, 3);
}

}  // namespace

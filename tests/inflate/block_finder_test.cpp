// block_finder_test.cpp - BlockFinder: no true block start is missed, false ones are few
// and do not survive decoding.
#include "inflate/inflate_streams.hpp"

#include "inflate/block_finder.hpp"
#include "support/test_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>

namespace {

namespace fdt = flowdeflate::testing;
using namespace flowdeflate::inflate;
using namespace flowdeflate::inflate::testing;

constexpr std::size_t KiB = 1024;

/// Every candidate in [from, to), by repeated find().
std::vector<std::uint64_t> all_candidates(BlockFinder& finder, std::uint64_t from, std::uint64_t to) {
    std::vector<std::uint64_t> found;
    for (auto at = finder.find(from, to); at; at = finder.find(*at + 1, to)) found.push_back(*at);
    return found;
}

bool is_searched_kind(const BlockBoundary& b) {
    return !b.is_final && (b.type == BlockType::dynamic_huffman || b.type == BlockType::stored);
}

/// Streams with dynamic and stored blocks of several shapes, each with its data.
struct NamedStream {
    std::string name;
    Bytes compressed;
};
const std::vector<NamedStream>& streams_with_many_blocks() {
    static const std::vector<NamedStream> streams = [] {
    const fdt::Bytes mixed = fdt::generate(fdt::Kind::mixed, 700 * KiB, 51);
    const fdt::Bytes text = fdt::generate(fdt::Kind::text, 400 * KiB, 52);
    return std::vector<NamedStream>{
        {"ours L1", deflate_ours(mixed, 1)},
        {"ours L6", deflate_ours(mixed, 6)},
        {"ours L12", deflate_ours(std::span(mixed).first(300 * KiB), 12)},
        {"ours L0", deflate_ours(mixed, 0)},
        {"zlib sync flush", deflate_zlib(mixed, {6, 0, 9000, Zlib::sync_flush})},
        {"zlib full flush", deflate_zlib(text, {1, 0, 3000, Zlib::full_flush})},
        {"zlib L0", deflate_zlib(mixed, {0, 0, 0, 0})},
        {"zlib huffman only", deflate_zlib(text, {6, Zlib::huffman_only, 0, 0})},
    };
    }();
    return streams;
}

TEST(BlockFinder, FindsEveryDynamicAndStoredBlockStart) {
    for (const NamedStream& s : streams_with_many_blocks()) {
        SCOPED_TRACE(s.name);
        const PlainChunk whole = decode_whole(s.compressed);
        BlockFinder finder(s.compressed);
        const std::uint64_t end = s.compressed.size() * 8;
        const std::vector<std::uint64_t> candidates = all_candidates(finder, 0, end);
        std::size_t searched = 0;
        for (const BlockBoundary& b : whole.boundaries) {
            if (!is_searched_kind(b)) continue;
            ++searched;
            EXPECT_TRUE(std::binary_search(candidates.begin(), candidates.end(), b.bit_offset))
                << "missed block at bit " << b.bit_offset;
            EXPECT_EQ(finder.find(b.bit_offset, end), b.bit_offset);
            if (b.type == BlockType::dynamic_huffman) {
                EXPECT_TRUE(finder.is_dynamic_block_start(b.bit_offset));
            }
        }
        EXPECT_GE(searched, 3u) << "the stream should have several searchable blocks";
    }
}

TEST(BlockFinder, RespectsTheRange) {
    const NamedStream s = streams_with_many_blocks()[1];
    const PlainChunk whole = decode_whole(s.compressed);
    BlockFinder finder(s.compressed);
    const BlockBoundary b = whole.boundaries.at(2);
    ASSERT_TRUE(is_searched_kind(b));
    EXPECT_EQ(finder.find(b.bit_offset, b.bit_offset + 1), b.bit_offset);
    EXPECT_EQ(finder.find(b.bit_offset, b.bit_offset), std::nullopt);
    const auto before = finder.find(b.bit_offset - 2000, b.bit_offset);
    EXPECT_TRUE(!before || *before < b.bit_offset);
    EXPECT_EQ(finder.find(s.compressed.size() * 8, s.compressed.size() * 8 + 100), std::nullopt);
}

TEST(BlockFinder, RejectsHeadersTheFilterExcludes) {
    const NamedStream s = streams_with_many_blocks()[1];
    const PlainChunk whole = decode_whole(s.compressed);
    const auto dynamic = std::find_if(whole.boundaries.begin() + 1, whole.boundaries.end(), [](const BlockBoundary& b) {
        return b.type == BlockType::dynamic_huffman && !b.is_final;
    });
    ASSERT_NE(dynamic, whole.boundaries.end());
    const std::uint64_t at = dynamic->bit_offset;
    auto set_bits = [&](unsigned offset, unsigned count, std::uint64_t value) {
        Bytes copy = s.compressed;
        for (unsigned i = 0; i < count; ++i) {
            const std::uint64_t bit = at + offset + i;
            copy[bit / 8] = std::uint8_t((copy[bit / 8] & ~(1u << (bit % 8))) | (((value >> i) & 1) << (bit % 8)));
        }
        return copy;
    };
    for (const auto& [what, bytes] : {std::pair{"final", set_bits(0, 1, 1)}, std::pair{"fixed", set_bits(1, 2, 1)},
                                      std::pair{"HLIT 30", set_bits(3, 5, 30)}, std::pair{"HDIST 31", set_bits(8, 5, 31)},
                                      std::pair{"all precode lengths 7", set_bits(17, 57, ~std::uint64_t(0))}}) {
        SCOPED_TRACE(what);
        BlockFinder finder(bytes);
        EXPECT_FALSE(finder.is_dynamic_block_start(at));
        EXPECT_NE(finder.find(at, at + 1), at);
    }
}

TEST(BlockFinder, RandomDataYieldsFewCandidatesThatSurviveDecoding) {
    const fdt::Bytes random = fdt::random_bytes(2 * 1024 * KiB, 61);
    BlockFinder finder(random);
    const std::vector<std::uint64_t> candidates = all_candidates(finder, 0, random.size() * 8);
    DeflateDecoder decoder;
    std::size_t survivors = 0, dynamic_survivors = 0;
    for (const std::uint64_t c : candidates) {
        DecodeLimits one_block;
        one_block.stop_bit = c + 1;
        one_block.max_output = 1 << 20;
        const MarkedChunk chunk = decoder.decode_marked(random, c, one_block);
        if (!chunk.ok()) continue;
        ++survivors;
        dynamic_survivors += chunk.boundaries.at(0).type == BlockType::dynamic_huffman;
    }
    // Stored candidates pass LEN == ~NLEN once in 65536 bytes, and a stored block of random
    // bytes decodes: about 30 in 2 MiB.  Dynamic ones almost never decode a whole block.
    std::cout << "[ random  ] " << candidates.size() << " candidates, " << survivors << " decode a block ("
              << dynamic_survivors << " dynamic)" << std::endl;
    EXPECT_LE(candidates.size(), 200u);
    EXPECT_LE(survivors, 60u);
    EXPECT_LE(dynamic_survivors, 2u);
}

TEST(BlockFinder, FalseCandidatesInRealStreamsRarelyDecodeABlock) {
    std::size_t false_candidates = 0, decoded = 0;
    for (const NamedStream& s : streams_with_many_blocks()) {
        const PlainChunk whole = decode_whole(s.compressed);
        std::vector<std::uint64_t> truth;
        for (const BlockBoundary& b : whole.boundaries) truth.push_back(b.bit_offset);
        BlockFinder finder(s.compressed);
        DeflateDecoder decoder;
        for (const std::uint64_t c : all_candidates(finder, 0, s.compressed.size() * 8)) {
            if (std::binary_search(truth.begin(), truth.end(), c)) continue;
            ++false_candidates;
            DecodeLimits one_block;
            one_block.stop_bit = c + 1;
            one_block.max_output = 1 << 20;
            const MarkedChunk chunk = decoder.decode_marked(s.compressed, c, one_block);
            // A block that decodes and ends exactly on a true boundary would fool a caller
            // that checks chunk ends against the next chunk's start.  Stored candidates a
            // few zero bits early decode the same block: not counted as false.
            if (chunk.ok() && std::binary_search(truth.begin(), truth.end(), chunk.end_bit) &&
                chunk.boundaries.at(0).type != BlockType::stored)
                ++decoded;
        }
    }
    std::cout << "[ streams ] " << false_candidates << " false candidates" << std::endl;
    EXPECT_EQ(decoded, 0u) << "of " << false_candidates << " false candidates";
}

}  // namespace

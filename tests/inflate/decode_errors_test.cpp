// decode_errors_test.cpp - every way invalid data ends decoding, in both modes.
//
// Suites:
//   InflateErrors     one hand-made stream per DecodeStatus; every prefix of real streams
//                     (truncation); limits.
//   InflateDifferential  random corruptions of real streams: we accept exactly what the
//                     reference libdeflate (1.23) accepts, with the same output.
// Run them under ASan/UBSan too (build-asan): nothing here may read or write out of bounds.
#include "inflate/inflate_streams.hpp"

#include "inflate/block_finder.hpp"
#include "support/reference.hpp"
#include "support/test_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

namespace fdt = flowdeflate::testing;
using namespace flowdeflate::inflate;
using namespace flowdeflate::inflate::testing;

constexpr std::size_t KiB = 1024;

enum : unsigned { kStored = 0, kFixed = 1, kDynamic = 2 };

DecodeStatus plain_status(std::span<const std::uint8_t> stream, std::span<const std::uint8_t> window = {},
                          const DecodeLimits& limits = {}) {
    DeflateDecoder decoder;
    return decoder.decode_plain(stream, 0, window, limits).status;
}
DecodeStatus marked_status(std::span<const std::uint8_t> stream, const DecodeLimits& limits = {}) {
    DeflateDecoder decoder;
    return decoder.decode_marked(stream, 0, limits).status;
}

/// Final block header of @p type.
BitStream block(unsigned type) {
    BitStream s;
    s.put(1, 1);
    s.put(type, 2);
    return s;
}

/// A final dynamic block header with HLIT = HDIST = 0 (257 + 1 lengths) and the precode
/// lengths @p precode (indexed by symbol; written in the format's permuted order).
BitStream dynamic_header(std::array<unsigned, 19> precode, unsigned hdist = 0) {
    static constexpr unsigned kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    BitStream s = block(kDynamic);
    s.put(0, 5);
    s.put(hdist, 5);
    s.put(19 - 4, 4);
    for (const unsigned sym : kOrder) s.put(precode[sym], 3);
    return s;
}

TEST(InflateErrors, InvalidBlockType) {
    const BitStream s = block(3);
    EXPECT_EQ(plain_status(s.bytes()), DecodeStatus::invalid_block_type);
    EXPECT_EQ(marked_status(s.bytes()), DecodeStatus::invalid_block_type);
}

TEST(InflateErrors, StoredLengthMismatchAndTruncation) {
    BitStream bad = block(kStored);
    bad.align();
    for (const std::uint8_t b : {5, 0, 0xFA, 0xFE}) bad.put_byte(b);
    EXPECT_EQ(plain_status(bad.bytes()), DecodeStatus::invalid_stored_length);

    BitStream short_data = block(kStored);
    short_data.align();
    for (const std::uint8_t b : {5, 0, 0xFA, 0xFF, 0x61, 0x62}) short_data.put_byte(b);
    EXPECT_EQ(plain_status(short_data.bytes()), DecodeStatus::truncated);
    EXPECT_EQ(marked_status(short_data.bytes()), DecodeStatus::truncated);

    BitStream short_header = block(kStored);
    short_header.align();
    short_header.put_byte(5);
    EXPECT_EQ(plain_status(short_header.bytes()), DecodeStatus::truncated);
}

TEST(InflateErrors, OversubscribedPrecode) {
    std::array<unsigned, 19> all_one{};
    all_one.fill(1);
    EXPECT_EQ(plain_status(dynamic_header(all_one).bytes()), DecodeStatus::invalid_precode);
}

TEST(InflateErrors, IncompletePrecodeWithTwoCodewords) {
    std::array<unsigned, 19> incomplete{};
    incomplete[0] = 2;
    incomplete[18] = 2;  // half the code space unused: libdeflate refuses it
    EXPECT_EQ(plain_status(dynamic_header(incomplete).bytes()), DecodeStatus::invalid_precode);
}

TEST(InflateErrors, RepeatWithNothingBefore) {
    std::array<unsigned, 19> precode{};
    precode[0] = 1;   // codeword 0
    precode[16] = 1;  // codeword 1
    BitStream s = dynamic_header(precode);
    s.put_codeword(1, 1);  // 16 first: repeat what?
    s.put(0, 2);
    EXPECT_EQ(plain_status(s.bytes()), DecodeStatus::invalid_code_lengths);
}

TEST(InflateErrors, LengthsOverrunTheDeclaredCount) {
    std::array<unsigned, 19> precode{};
    precode[0] = 1;   // 0
    precode[18] = 1;  // 1
    BitStream s = dynamic_header(precode);
    for (int i = 0; i < 2; ++i) {
        s.put_codeword(1, 1);
        s.put(127, 7);  // 138 zeros, twice: 276 > 258
    }
    EXPECT_EQ(plain_status(s.bytes()), DecodeStatus::invalid_code_lengths);
}

TEST(InflateErrors, InvalidLiteralLengthCode) {
    std::array<unsigned, 19> precode{};
    precode[1] = 1;   // 0
    precode[18] = 1;  // 1
    BitStream s = dynamic_header(precode);
    for (int i = 0; i < 3; ++i) s.put_codeword(0, 1);  // three 1-bit codewords: over-subscribed
    s.put_codeword(1, 1);
    s.put(127, 7);  // 138 zeros
    s.put_codeword(1, 1);
    s.put(106, 7);  // 117 zeros: 258 lengths
    EXPECT_EQ(plain_status(s.bytes()), DecodeStatus::invalid_litlen_code);
}

TEST(InflateErrors, InvalidDistanceCode) {
    std::array<unsigned, 19> precode{};
    precode[1] = 1;   // 0
    precode[0] = 2;   // 10
    precode[18] = 2;  // 11
    BitStream s = dynamic_header(precode, 2);
    s.put_codeword(0, 1);  // literal 0: length 1
    s.put_codeword(3, 2);
    s.put(127, 7);  // 138 zeros
    s.put_codeword(3, 2);
    s.put(106, 7);  // 117 zeros: up to symbol 255
    s.put_codeword(0, 1);  // end of block: length 1 (the literal/length code is complete)
    for (int i = 0; i < 3; ++i) s.put_codeword(0, 1);  // three 1-bit distance codewords
    EXPECT_EQ(plain_status(s.bytes()), DecodeStatus::invalid_distance_code);
}

/// A final fixed block: literal 'a' (if @p literal), then a match of length 3 at
/// @p distance (1..4, 5-bit code without extra bits), then end of block.
Bytes fixed_block_with_match(bool literal, unsigned distance) {
    BitStream s = block(kFixed);
    if (literal) s.put_codeword(0x30 + 'a', 8);
    s.put_codeword(1, 7);             // symbol 257: length 3
    s.put_codeword(distance - 1, 5);  // distance symbols 0-3: distances 1-4
    s.put_codeword(0, 7);             // end of block
    return s.bytes();
}

TEST(InflateErrors, DistanceBeyondTheHistory) {
    EXPECT_EQ(plain_status(fixed_block_with_match(false, 1)), DecodeStatus::distance_too_far);
    EXPECT_EQ(plain_status(fixed_block_with_match(true, 2)), DecodeStatus::distance_too_far);
    EXPECT_EQ(plain_status(fixed_block_with_match(true, 1)), DecodeStatus::ok);
    // A window makes the same reference valid; one byte short of it is not.
    const std::uint8_t window[] = {'x', 'y', 'z'};
    EXPECT_EQ(plain_status(fixed_block_with_match(true, 4), window), DecodeStatus::ok);
    EXPECT_EQ(plain_status(fixed_block_with_match(false, 4), window), DecodeStatus::distance_too_far);
    // In marked mode the unknown 32 KiB window is always there.
    EXPECT_EQ(marked_status(fixed_block_with_match(false, 4)), DecodeStatus::ok);
}

TEST(InflateErrors, OutputLimit) {
    const fdt::Bytes data = fdt::generate(fdt::Kind::zeros, 300 * KiB, 1);
    const Bytes compressed = deflate_ours(data, 6);
    DecodeLimits limits;
    limits.max_output = 100 * KiB;
    EXPECT_EQ(plain_status(compressed, {}, limits), DecodeStatus::output_limit);
    EXPECT_EQ(marked_status(compressed, limits), DecodeStatus::output_limit);
    limits.max_output = data.size();
    EXPECT_EQ(plain_status(compressed, {}, limits), DecodeStatus::ok);
}

TEST(InflateErrors, EveryPrefixOfAStreamIsAnError) {
    for (const int level : {0, 1, 6}) {
        const fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 40 * KiB, 71);
        const Bytes compressed = deflate_ours(data, level);
        const Bytes fixed = deflate_zlib(data, {6, Zlib::fixed, 0, 0});
        for (const Bytes* stream : {&compressed, &fixed}) {
            const std::size_t step = std::max<std::size_t>(1, stream->size() / 3000);
            for (std::size_t n = 0; n < stream->size(); n += step) {
                const auto prefix = std::span(*stream).first(n);
                ASSERT_NE(plain_status(prefix), DecodeStatus::ok) << "prefix " << n << " level " << level;
                ASSERT_NE(marked_status(prefix), DecodeStatus::ok) << "prefix " << n << " level " << level;
            }
        }
    }
}

TEST(InflateErrors, StartingAtEveryBitOfAStreamNeverMisbehaves) {
    // Garbage starts, as a false block-finder candidate gives: any status, no crash, and
    // the output stays within the limit.
    const fdt::Bytes data = fdt::generate(fdt::Kind::text, 30 * KiB, 72);
    const Bytes compressed = deflate_ours(data, 6);
    DeflateDecoder decoder;
    DecodeLimits limits;
    limits.max_output = 256 * KiB;
    TokenChunk tokens;
    for (std::uint64_t bit = 0; bit < std::min<std::uint64_t>(compressed.size() * 8, 20000); ++bit) {
        const MarkedChunk chunk = decoder.decode_marked(compressed, bit, limits);
        ASSERT_LE(chunk.size(), limits.max_output + 300);
        ASSERT_LE(chunk.end_bit, compressed.size() * 8 + 64);
        decoder.decode_tokens(compressed, bit, limits, tokens);  // what the parallel workers run
        ASSERT_LE(tokens.size(), limits.max_output + 300);
        ASSERT_LE(tokens.end_bit, compressed.size() * 8 + 64);
    }
}

// ---- against the reference ---------------------------------------------------------------

TEST(InflateDifferential, CorruptStreamsAcceptedExactlyAsLibdeflateDoes) {
    auto& reference = fdt::Reference::get();
    fdt::Rng rng(20261201);
    const fdt::Bytes data = fdt::generate(fdt::Kind::mixed, 24 * KiB, 81);
    const Bytes sources[] = {deflate_ours(data, 1), deflate_ours(data, 6), deflate_ours(data, 0),
                             deflate_zlib(data, {6, Zlib::fixed, 0, 0}),
                             deflate_zlib(data, {6, 0, 4000, Zlib::sync_flush})};
    const std::size_t cap = 4 * data.size();
    DeflateDecoder decoder;
    std::size_t accepted = 0, rejected = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        Bytes stream = sources[trial % std::size(sources)];
        // Flip 1-3 bits, mostly near the start where the headers are; sometimes truncate.
        for (int flips = 1 + int(rng.below(3)); flips > 0; --flips) {
            const std::size_t at = rng.chance(1, 2) ? rng.below(std::min<std::size_t>(stream.size(), 64))
                                                    : rng.below(stream.size());
            stream[at] ^= std::uint8_t(1u << rng.below(8));
        }
        if (rng.chance(1, 10)) stream.resize(rng.below(stream.size()));
        DecodeLimits limits;
        limits.max_output = cap;
        const PlainChunk ours = decoder.decode_plain(stream, 0, {}, limits);
        if (ours.status == DecodeStatus::output_limit) continue;
        const bool we_accept = ours.ok() && ours.final_block_ended && (ours.end_bit + 7) / 8 == stream.size();
        const auto theirs = reference.decompress(stream, cap, flowdeflate::Format::deflate);
        ASSERT_EQ(we_accept, theirs.has_value()) << "trial " << trial << ": ours " << to_string(ours.status);
        if (we_accept) {
            ++accepted;
            ASSERT_TRUE(std::equal(theirs->begin(), theirs->end(), ours.bytes().begin(), ours.bytes().end()));
        } else {
            ++rejected;
        }
    }
    EXPECT_GT(accepted, 50u);
    EXPECT_GT(rejected, 500u);
}

}  // namespace

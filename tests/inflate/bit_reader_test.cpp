// bit_reader_test.cpp - BitReader: LSB-first order, exact positions from any offset, and
// truncation past the end without reading out of bounds.
#include "inflate/bit_reader.hpp"

#include "support/test_data.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using flowdeflate::inflate::BitReader;

/// Bit @p i of @p bytes, LSB first.
unsigned bit_of(const std::vector<std::uint8_t>& bytes, std::uint64_t i) { return (bytes[i / 8] >> (i % 8)) & 1; }

TEST(InflateBitReader, ReadsLsbFirstFromAnyOffsetWithExactPositions) {
    flowdeflate::testing::Rng rng(5);
    std::vector<std::uint8_t> bytes(100);
    for (auto& b : bytes) b = std::uint8_t(rng.next());
    for (std::uint64_t start = 0; start < 70; ++start) {
        BitReader reader(bytes, start);
        std::uint64_t at = start;
        EXPECT_EQ(reader.bit_position(), at);
        while (at + 32 <= bytes.size() * 8) {
            const unsigned n = 1 + unsigned(rng.below(32));
            if (at + n > bytes.size() * 8) break;
            const std::uint32_t v = reader.read(n);
            for (unsigned k = 0; k < n; ++k) ASSERT_EQ((v >> k) & 1, bit_of(bytes, at + k)) << "start " << start;
            at += n;
            ASSERT_EQ(reader.bit_position(), at);
            ASSERT_FALSE(reader.truncated());
        }
    }
}

TEST(InflateBitReader, PastTheEndIsZerosAndTruncation) {
    const std::vector<std::uint8_t> bytes = {0xFF, 0xFF, 0xFF};
    BitReader reader(bytes, 20);
    EXPECT_EQ(reader.read(4), 0xFu);
    EXPECT_FALSE(reader.truncated());  // exactly at the end
    EXPECT_EQ(reader.read(8), 0u);     // beyond: zeros, never a read out of bounds
    EXPECT_TRUE(reader.truncated());
    EXPECT_EQ(reader.bit_position(), 32u);

    BitReader far(bytes, 1000);
    EXPECT_EQ(far.read(3), 0u);
    EXPECT_TRUE(far.truncated());
    const std::vector<std::uint8_t> none;
    BitReader empty(none);
    EXPECT_FALSE(empty.truncated());
    EXPECT_EQ(empty.read(1), 0u);
    EXPECT_TRUE(empty.truncated());
}

TEST(InflateBitReader, AlignsToTheNextByte) {
    const std::vector<std::uint8_t> bytes = {0x01, 0xAB, 0xCD};
    BitReader reader(bytes, 3);
    reader.align_to_byte();
    EXPECT_EQ(reader.bit_position(), 8u);
    EXPECT_EQ(reader.byte_position(), 1u);
    EXPECT_EQ(reader.bytes_remaining(), 2u);
    EXPECT_EQ(reader.read(8), 0xABu);
    reader.align_to_byte();  // already aligned: stays
    EXPECT_EQ(reader.bit_position(), 16u);
}

}  // namespace

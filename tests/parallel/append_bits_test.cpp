// tests/parallel/append_bits_test.cpp - Assemble's append_bits() (a coded block's bits at
// the stream's bit offset) against writing the same bits one at a time: every pending bit
// count 0-7, lengths around word boundaries, and outputs too short for its word stores.
#include "parallel/assembler.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

namespace core = flowdeflate::core;
namespace parallel = flowdeflate::parallel;
using core::u8;

// The bits of @p w's output after @p pending bits and then @p bits, one add() per bit.
std::vector<u8> bit_by_bit(core::u64 pending_bits, core::u32 pending, const std::vector<u8>& bits, std::size_t nbits) {
    std::vector<u8> out(nbits / 8 + 32);
    core::BitWriter w(out.data(), out.data() + out.size());
    w.add(pending_bits, pending);
    for (std::size_t i = 0; i < nbits; ++i) {
        w.add((bits[i / 8] >> (i % 8)) & 1, 1);
        w.flush();
    }
    w.finish();
    out.resize(std::size_t(w.next - out.data()));
    return out;
}

TEST(AppendBits, SameBitsAsOneAtATime) {
    std::mt19937_64 rng(1);
    for (const std::size_t nbits : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(63),
                                    std::size_t(64), std::size_t(65), std::size_t(111), std::size_t(112),
                                    std::size_t(127), std::size_t(128), std::size_t(129), std::size_t(1000),
                                    std::size_t(65536 * 8 + 13)}) {
        std::vector<u8> bits(nbits / 8 + 1 + 8);  // 8 readable bytes of slack
        for (u8& b : bits) b = u8(rng());
        for (core::u32 pending = 0; pending < 8; ++pending) {
            const core::u64 pending_bits = rng() & ((core::u64(1) << pending) - 1);
            const std::vector<u8> want = bit_by_bit(pending_bits, pending, bits, nbits);
            // Room to spare (word stores), and exactly the room the bits need (the
            // writer's own path).
            for (const std::size_t slack : {std::size_t(64), std::size_t(0)}) {
                std::vector<u8> out(nbits / 8 + 2 + slack);
                core::BitWriter w(out.data(), out.data() + out.size());
                w.add(pending_bits, pending);
                parallel::append_bits(w, bits.data(), nbits);
                w.finish();
                out.resize(std::size_t(w.next - out.data()));
                ASSERT_EQ(out, want) << nbits << " bits after " << pending << " pending, slack " << slack;
            }
        }
    }
}

}  // namespace

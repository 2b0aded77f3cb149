// min_cost_path_test.cpp - the vector minimum-cost paths (AVX2, AVX-512) choose exactly
// what the scalar loop (libdeflate's) chooses: the same cost and the same item at every
// position, on random match caches and cost tables made to tie often (few distinct costs,
// equal costs everywhere), with matches that run past the block's end, one match per
// position and 256 (every length), and blocks of 1 byte to the largest.  The differential
// tests prove the scalar loop against libdeflate; this proves the vector loops against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "core/min_cost_path.hpp"
#include "path_cases.hpp"

namespace flowdeflate::core {
namespace {

bool have_avx2() { return __builtin_cpu_supports("avx2"); }
bool have_avx512() { return __builtin_cpu_supports("avx512f"); }

// Every vector path the CPU has against the scalar loop.
void expect_same_path(const Case& c) {
    Nodes scalar(c.block_length);
    const LzMatch* end = c.cache.data() + c.cache.size();
    min_cost_path_scalar(c.block_length, end, c.costs, c.offset_slot, scalar.view());
    using WholeBlock = void (*)(u32, const LzMatch*, const NearOptimalCosts&, const u8*, PathNodes);
    const auto check = [&](WholeBlock path, const char* name) {
        Nodes vector(c.block_length);
        path(c.block_length, end, c.costs, c.offset_slot, vector.view());
        for (u32 i = 0; i < c.block_length; ++i) {
            ASSERT_EQ(vector.cost[i], scalar.cost[i]) << name << ", position " << i << " of " << c.block_length;
            ASSERT_EQ(vector.items[i], scalar.items[i]) << name << ", position " << i << " of " << c.block_length;
        }
    };
    if (have_avx2()) check(min_cost_path_avx2, "AVX2");
    if (have_avx512()) check(min_cost_path_avx512, "AVX-512");
}

TEST(MinCostPath, VectorEqualsScalarOnRandomCachesAndCosts) {
    if (!have_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
    std::mt19937_64 rng(20261201);
    for (int round = 0; round < 60; ++round) {
        const u32 block_length = round < 10 ? 1 + u32(rng() % 40) : 1 + u32(rng() % 20000);
        const u32 distinct = std::array<u32, 5>{1, 2, 3, 16, 1000}[rng() % 5];
        const u32 max_matches = std::array<u32, 4>{0, 1, 4, 12}[rng() % 4];
        SCOPED_TRACE(::testing::Message() << "round " << round << ", " << block_length << " bytes, " << distinct
                                          << " distinct costs, up to " << max_matches << " matches");
        expect_same_path(random_case(rng, block_length, distinct, max_matches));
    }
}

TEST(MinCostPath, EveryLengthAtEveryPositionAndTheLargestBlock) {
    if (!have_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
    std::mt19937_64 rng(7);
    // 256 matches per position: every length 3..258, each with its own offset.
    expect_same_path(random_case(rng, 3000, 2, kMaxMatchLen - kMinMatchLen + 1));
    expect_same_path(random_case(rng, 3000, 1, kMaxMatchLen - kMinMatchLen + 1));
    // The largest block the parser makes, matches running past its end.
    expect_same_path(random_case(rng, kMaxBlockLength, 3, 3));
}

// The vector paths' keys hold libdeflate's costs (at most 15 bits of codeword, 13 extra
// bits, in 1/16 bit) and take the scalar loop for a model that would not fit; the random
// cases above use both (1000 distinct costs: literal costs up to 16,000 do not fit).
TEST(MinCostPath, KeysFitLibdeflatesCostsAndNotOthers) {
    NearOptimalCosts costs{};
    for (u32& x : costs.literal) x = 15 * 16;
    for (u32& x : costs.length) x = (15 + 5) * 16;
    for (u32& x : costs.offset_slot) x = (15 + 13) * 16;
    EXPECT_TRUE(keyed_costs_fit(costs));
    EXPECT_EQ(max_literal_cost(costs), 15u * 16);
    costs.literal[200] = 16 * 1000;
    EXPECT_FALSE(keyed_costs_fit(costs));
    // Where it does not fit, the vector paths still choose what the scalar loop does.
    std::mt19937_64 rng(3);
    Case c = random_case(rng, 4000, 3, 12);
    c.costs.literal[c.cache.back().offset] = 16 * 5000;
    ASSERT_FALSE(keyed_costs_fit(c.costs));
    expect_same_path(c);
}

// Every path's part form (PathPart), the block cut at arbitrary positions and the parts
// computed from the last to the first, each from the final costs after it, against the
// scalar loop over the whole block (path_split.hpp relies on it, and only the CPU's own
// path runs there).
TEST(MinCostPath, PartsFromTheBackAreTheWholeBlock) {
    std::mt19937_64 rng(20261204);
    for (int round = 0; round < 24; ++round) {
        const Case c = random_case(rng, 1 + u32(rng() % 20000), std::array<u32, 3>{1, 3, 1000}[round % 3],
                                   std::array<u32, 3>{1, 4, 12}[round / 3 % 3]);
        Nodes whole(c.block_length);
        min_cost_path_scalar(c.block_length, c.cache.data() + c.cache.size(), c.costs, c.offset_slot, whole.view());
        std::vector<u32> cuts{0, c.block_length};
        for (int k = 0; k < 5; ++k) cuts.push_back(u32(rng() % (c.block_length + 1)));
        std::sort(cuts.begin(), cuts.end());
        const auto check = [&](PathFn path, const char* name) {
            Nodes parts(c.block_length);
            parts.cost[c.block_length] = 0;
            for (std::size_t k = cuts.size() - 1; k-- > 0;) {
                const u32 begin = cuts[k], end = cuts[k + 1];
                if (begin == end) continue;
                path(PathPart{begin, end, c.block_length, c.cache.data() + c.ends[end - 1]}, c.costs, c.offset_slot,
                     parts.view());
            }
            for (u32 i = 0; i < c.block_length; ++i) {
                ASSERT_EQ(parts.cost[i], whole.cost[i]) << name << ", position " << i << ", round " << round;
                ASSERT_EQ(parts.items[i], whole.items[i]) << name << ", position " << i << ", round " << round;
            }
        };
        check(min_cost_path_scalar, "scalar");
        if (have_avx2()) check(min_cost_path_avx2, "AVX2");
        if (have_avx512()) check(min_cost_path_avx512, "AVX-512");
    }
}

TEST(MinCostPath, TheDispatchedPathIsOneOfThem) {
    std::mt19937_64 rng(11);
    const Case c = random_case(rng, 5000, 3, 6);
    Nodes scalar(c.block_length), chosen(c.block_length);
    const LzMatch* end = c.cache.data() + c.cache.size();
    min_cost_path_scalar(c.block_length, end, c.costs, c.offset_slot, scalar.view());
    min_cost_path(c.block_length, end, c.costs, c.offset_slot, chosen.view());
    EXPECT_EQ(chosen.cost, scalar.cost);
    EXPECT_EQ(chosen.items, scalar.items);
    if (std::getenv("FLOWDEFLATE_NO_SIMD") == nullptr && std::getenv("FLOWDEFLATE_SIMD") == nullptr) {
        EXPECT_EQ(min_cost_path_isa(), have_avx512() ? PathIsa::avx512 : have_avx2() ? PathIsa::avx2 : PathIsa::scalar);
    }
}

}  // namespace
}  // namespace flowdeflate::core

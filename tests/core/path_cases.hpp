// path_cases.hpp - random match caches and cost tables for the min-cost path's tests
// (min_cost_path_test.cpp, path_split_test.cpp), made to tie often.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "core/min_cost_path.hpp"
#include "core/path_split.hpp"

namespace flowdeflate::core {

struct Case {
    u32 block_length = 0;
    std::vector<LzMatch> cache;  // per position: matches, then {count, literal}
    std::vector<PathMark> marks;  // every PathSplitter::kMarkSpacing positions, as the parser marks
    std::vector<u32> ends;        // the cache's size after each position
    NearOptimalCosts costs{};
    u8 offset_slot[kWindowSize + 1]{};
};

// @p distinct: how many different values the costs take (1: all equal); @p max_matches
// per position (256 or more: every length 3..258 at every position).
inline Case random_case(std::mt19937_64& rng, u32 block_length, u32 distinct, u32 max_matches) {
    Case c;
    c.block_length = block_length;
    const auto cost = [&] { return 16 * (1 + u32(rng() % distinct)); };
    for (u32& x : c.costs.literal) x = cost();
    for (u32 len = kMinMatchLen; len <= kMaxMatchLen; ++len) c.costs.length[len] = cost();
    for (u32& x : c.costs.offset_slot) x = cost();
    for (u32 off = 1; off <= kWindowSize; ++off) c.offset_slot[off] = u8(rng() % kNumOffsetSlots);
    for (u32 i = 0; i < block_length; ++i) {
        constexpr u32 kEveryLength = kMaxMatchLen - kMinMatchLen + 1;
        const u32 n = max_matches >= kEveryLength ? kEveryLength : u32(rng() % (max_matches + 1));
        // Strictly increasing lengths: n distinct values of 3..258, sorted.
        std::vector<u32> lens;
        if (n == kEveryLength) {
            for (u32 len = kMinMatchLen; len <= kMaxMatchLen; ++len) lens.push_back(len);
        } else {
            // Mostly short matches, sometimes long ones (the vector path).
            const u32 top = rng() % 4 == 0 ? kMaxMatchLen : kMinMatchLen + 30;
            while (lens.size() < n) {
                const u32 len = kMinMatchLen + u32(rng() % (top - kMinMatchLen + 1));
                if (std::find(lens.begin(), lens.end(), len) == lens.end()) lens.push_back(len);
            }
            std::sort(lens.begin(), lens.end());
        }
        for (const u32 len : lens) c.cache.push_back({u16(len), u16(1 + rng() % kWindowSize)});
        c.cache.push_back({u16(lens.size()), u16(rng() % 256)});
        if ((i + 1) % PathSplitter::kMarkSpacing == 0) c.marks.push_back({i + 1, u32(c.cache.size())});
        c.ends.push_back(u32(c.cache.size()));
    }
    return c;
}

struct Nodes {
    std::vector<u32> cost, items;
    explicit Nodes(u32 block_length)
        : cost(block_length + kMaxMatchLen + PathNodes::kPad + 1, 0), items(block_length + 1, 0) {
        for (u32 i = block_length + 1; i < block_length + kMaxMatchLen; ++i) cost[i] = 0x80000000;
    }
    PathNodes view() { return {cost.data(), items.data()}; }
};

}  // namespace flowdeflate::core

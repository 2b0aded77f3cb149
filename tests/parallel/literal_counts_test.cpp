// tests/parallel/literal_counts_test.cpp - what the resolver counts for libdeflate's
// min_len choices, against counting by hand:
//
//   BlockStartMinLen   min_match_len_at_block_start() (stops counting once 80 distinct
//                      values are seen) gives what counting all 4 KiB gives, wherever
//                      the 80th distinct value comes, at every depth.
//   Checkpoints        a searched track's literal checkpoints (Track::checkpoint_literals)
//                      hold its literal counts; BlockRuns::count_literals_to(), which adds
//                      them instead of walking the items, counts what walking counts, for
//                      runs that start and end anywhere and targets anywhere; a
//                      checkpoint too long for its 16-bit counts is walked.
#include "core/block_split.hpp"
#include "parallel/block_runs.hpp"
#include "parallel/searcher.hpp"
#include "support/test_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace {

namespace core = flowdeflate::core;
namespace parallel = flowdeflate::parallel;
namespace fdt = flowdeflate::testing;
using core::u32;
using core::u8;

TEST(BlockStartMinLen, StopsCountingOnlyWhereTheAnswerIsThree) {
    std::mt19937 rng(7);
    for (const u32 distinct : {1u, 8u, 45u, 79u, 80u, 81u, 120u, 256u}) {
        // The first `distinct - 1` values early, the last one at `last` (so the count
        // passes 79 only there), the rest repeats.
        for (const std::size_t last : {std::size_t(10), std::size_t(511), std::size_t(512), std::size_t(1500),
                                       std::size_t(4095), std::size_t(4096), std::size_t(6000)}) {
            std::vector<u8> data(6100);
            for (std::size_t i = 0; i < data.size(); ++i) data[i] = u8(i < distinct - 1 ? i : rng() % (distinct - 1 ? distinct - 1 : 1));
            if (last < data.size()) data[last] = u8(distinct - 1);
            for (const std::size_t len : {std::size_t(0), std::size_t(511), std::size_t(512), std::size_t(1000),
                                          std::size_t(4096), data.size()})
                for (const u32 depth : {1u, 4u, 6u, 12u, 16u, 35u, 300u})
                    ASSERT_EQ(core::min_match_len_at_block_start(data.data(), len, depth),
                              core::choose_min_match_len(core::used_literals_in(data.data(), len), depth))
                        << "distinct " << distinct << " last " << last << " len " << len << " depth " << depth;
        }
    }
}

// One chunk of @p data searched at @p level as the history track.
std::unique_ptr<parallel::ChunkTracks> search_all(const fdt::Bytes& data, int level) {
    parallel::ChunkSearcher searcher(level);
    parallel::ChunkJob job;
    job.in_begin = job.begin = data.data();
    job.end = job.stop = job.data_end = data.data() + data.size();
    job.eof = true;
    return searcher.search(job, parallel::TrackPlan{});
}

// The literals among items [first, first + count) of @p t, at most up to @p target.
std::array<u32, 256> walk(const parallel::Track& t, std::size_t first, std::size_t count, const u8* at,
                          const u8* target) {
    std::array<u32, 256> counts{};
    const u8* p = at;
    for (std::size_t j = first; j < first + count && p < target; ++j) {
        const u32 len = parallel::item_len(t.items[j]);
        if (len == 0) counts[*p]++;
        p += len ? len : 1;
    }
    return counts;
}

// Where each item of @p t begins.
std::vector<const u8*> item_positions(const parallel::Track& t) {
    std::vector<const u8*> at(t.items.size() + 1);
    const u8* p = t.begin;
    for (std::size_t j = 0; j < t.items.size(); ++j) {
        at[j] = p;
        const u32 len = parallel::item_len(t.items[j]);
        p += len ? len : 1;
    }
    at[t.items.size()] = p;
    return at;
}

TEST(Checkpoints, HoldTheTracksLiteralCounts) {
    for (const auto kind : {fdt::Kind::text, fdt::Kind::binary, fdt::Kind::switching}) {
        const fdt::Bytes data = fdt::generate(kind, 3 << 20, 11);
        for (const int level : {2, 6, 9}) {
            const auto tracks = search_all(data, level);
            const parallel::Track& t = tracks->tracks.at(0);
            ASSERT_GT(t.checkpoints(), 10u) << "the input is too short for this test";
            ASSERT_LE(t.checkpoints() * parallel::Track::kCheckpointStrides, t.strides.size());
            const auto at = item_positions(t);
            std::size_t from = 0;
            for (std::size_t k = 0; k < t.checkpoints(); ++k) {
                const std::size_t to = t.checkpoint_end(k).item_end;
                ASSERT_EQ(at[to], t.begin + t.checkpoint_end(k).offset);
                const auto want = walk(t, from, to - from, at[from], at[to]);
                for (u32 c = 0; c < 256; ++c)
                    ASSERT_EQ(t.literal_counts(k)[c], want[c]) << "level " << level << " checkpoint " << k << " byte " << c;
                from = to;
            }
        }
    }
}

TEST(Checkpoints, CountingWithThemCountsWhatWalkingCounts) {
    const fdt::Bytes data = fdt::generate(fdt::Kind::switching, 2 << 20, 5);
    const auto tracks = search_all(data, 6);
    const parallel::Track& t = tracks->tracks.at(0);
    const auto at = item_positions(t);
    const std::size_t n = t.items.size();
    // A copy of the items: runs from it are not the track's (no checkpoints: walked), as
    // a repair's or a branch's items are not.
    const std::vector<u32> copy(t.items.data(), t.items.data() + n);
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; ++round) {
        // A block of three consecutive runs: the track's, the copy's, the track's (not
        // merged: another base between), counted in four steps to growing targets.
        std::size_t first = rng() % n;
        parallel::BlockRuns runs;
        runs.begin(at[first], true);
        std::vector<std::pair<std::size_t, std::size_t>> pieces;
        for (int r = 0; r < 3 && first < n; ++r) {
            const std::size_t count = std::min<std::size_t>(n - first, 1 + rng() % 300000);
            if (r == 1)
                runs.add(copy.data(), first, count, at[first], nullptr);
            else
                runs.add(t.items.data(), first, count, at[first], nullptr, &t);
            pieces.emplace_back(first, count);
            first += count;
        }
        const u8* const end = at[first];
        const u8* target = at[pieces.front().first];
        for (int step = 0; step < 4; ++step) {
            target = step == 3 ? end : std::min(end, target + rng() % 200001);
            runs.count_literals_to(target);
            std::array<u32, 256> want{};
            for (const auto& [f, c] : pieces) {
                const auto part = walk(t, f, c, at[f], target);
                for (u32 b = 0; b < 256; ++b) want[b] += part[b];
            }
            for (u32 b = 0; b < 256; ++b)
                ASSERT_EQ(runs.litlen()[b], want[b]) << "round " << round << " step " << step << " byte " << b;
        }
    }
}

// A checkpoint of more items than 16-bit counts can hold (lazy steps that defer many
// literals) is walked, not added: here one whose stored counts are wrong on purpose.
TEST(Checkpoints, OneTooLongForItsCountsIsWalked) {
    constexpr std::size_t kStrideItems = 1100;  // 64 strides: 70,400 items > 65,535
    constexpr std::size_t kStrides = 3 * parallel::Track::kCheckpointStrides;
    const std::vector<u8> data(kStrides * kStrideItems, 'a');
    parallel::Track t;
    t.begin = data.data();
    for (std::size_t k = 0; k < kStrides; ++k) {
        for (std::size_t j = 0; j < kStrideItems; ++j) t.items.push_back(parallel::kStepEnd);  // literals
        parallel::Track::LazyStride s{};
        s.item_end = u32((k + 1) * kStrideItems);
        s.offset = s.item_end;
        t.strides.push_back(s);
    }
    t.checkpoint_literals.resize_uninitialised(3 * core::kNumLiterals);  // all wrong: 'a' should be 70,400
    std::fill_n(t.checkpoint_literals.data(), t.checkpoint_literals.size(), core::u16{0});
    ASSERT_FALSE(t.checkpoint_counted(1));
    parallel::BlockRuns runs;
    runs.begin(data.data(), true);
    runs.add(t.items.data(), 0, t.items.size(), data.data(), nullptr, &t);
    runs.count_literals_to(data.data() + data.size());
    EXPECT_EQ(runs.litlen()[std::size_t('a')], data.size());
}

}  // namespace

// match_search_test.cpp - the level 10-12 search's threads as path helpers
// (graph/match_search.hpp, ParallelMatchSearch::offer): on a real arena, every part job
// runs exactly once, main runs on the caller's thread, other threads take parts while it
// runs, and offer() returns only when every job has returned; the caller, waiting, runs
// no chunk search (the wait is isolated), and parts taken by main return at once.
// Run under ThreadSanitizer by scripts/test.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/levels.hpp"
#include "graph/arena.hpp"
#include "graph/match_search.hpp"
#include "support/test_data.hpp"
#include "support/core_streams.hpp"

namespace flowdeflate::graph {
namespace {

using core::u32;
using core::u8;

using flowdeflate::testing::WholeInput;

constexpr u32 kMaxParts = 64;

// Parts as the splitter has them: each claimed once, by a helper or by main.
struct Parts final : core::PathHelpers::Job {
    std::array<std::atomic<int>, kMaxParts> claimed{}, calls{};
    std::array<std::thread::id, kMaxParts> by{};
    std::atomic<u32> running{0}, done{0};
    bool run(u32 k) override {
        calls[k].fetch_add(1);
        if (claimed[k].exchange(1)) return false;  // main took it: return at once
        running.fetch_add(1);
        by[k] = std::this_thread::get_id();
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // a guess takes a while
        done.fetch_add(1);
        return true;
    }
};

// The optimiser: waits (bounded) until some helper has started a part, then takes every
// part nobody has claimed yet.
struct Main final : core::PathHelpers::Job {
    Parts& parts;
    u32 n;
    std::thread::id thread;
    u32 taken = 0;
    Main(Parts& p, u32 count) : parts(p), n(count) {}
    bool run(u32 /*unused*/) override {
        thread = std::this_thread::get_id();
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (parts.running.load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        for (u32 k = n; k-- > 0;)
            if (!parts.claimed[k].exchange(1)) ++taken;
        return true;
    }
};

TEST(ParallelMatchSearch, OfferRunsEveryPartOnceAndMainOnTheCaller) {
    const auto in = flowdeflate::testing::mixed(1 << 20, 7);
    WholeInput input({in.data(), in.size()});
    for (const int threads : {2, 4, 9}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads");
        AllowParallelism allow{std::size_t(threads)};  // more threads than cores, as -p9 gets
        tbb::task_arena arena(threads);
        initialize_arena(arena);
        GraphOptions options;
        options.chunk_size = 1 << 16;
        ParallelMatchSearch search(core::LevelParams::for_level(10), input, arena, threads, options);
        ASSERT_EQ(search.path_helpers(), &search);
        arena.execute([&] {
            // No chunk is being searched yet: every other thread may help.
            EXPECT_EQ(search.helpers(), unsigned(threads - 1));
            u32 total_helped = 0;
            for (const u32 n : {1u, 3u, 16u, kMaxParts}) {
                for (int round = 0; round < 20; ++round) {
                    Parts parts;
                    Main main(parts, n);
                    search.offer(n, parts, main);
                    EXPECT_EQ(main.thread, std::this_thread::get_id()) << "main ran on another thread";
                    u32 helped = 0;
                    for (u32 k = 0; k < n; ++k) {
                        EXPECT_EQ(parts.calls[k].load(), 1) << "part " << k << " ran " << parts.calls[k] << " times";
                        EXPECT_EQ(parts.claimed[k].load(), 1) << "part " << k << " nobody claimed";
                        helped += parts.by[k] != std::thread::id{};
                    }
                    // Every part done by a helper finished before offer() returned.
                    EXPECT_EQ(parts.done.load(), helped);
                    EXPECT_EQ(helped + main.taken, n);
                    total_helped += helped;
                }
            }
            EXPECT_GT(total_helped, 0u) << "no other thread ever took a part";
        });
    }
}

TEST(ParallelMatchSearch, HelpersRunPartsWhileChunksAreSearched) {
    // The parser's first next() launches the window's chunk searches on the arena; offers
    // made meanwhile, with the workers busy searching, still run every part exactly once
    // and return (the isolated wait runs no chunk search; under TSan, no race).
    const auto in = flowdeflate::testing::mixed(3 << 20, 11);
    WholeInput input({in.data(), in.size()});
    AllowParallelism allow(4);
    tbb::task_arena arena(4);
    initialize_arena(arena);
    GraphOptions options;
    options.chunk_size = 1 << 18;
    ParallelMatchSearch search(core::LevelParams::for_level(12), input, arena, 4, options);
    arena.execute([&] {
        const core::MatchRun first = search.next(in.data());
        EXPECT_NE(first.records, nullptr);
        for (int round = 0; round < 50; ++round) {
            Parts parts;
            Main main(parts, 8);
            search.offer(8, parts, main);
            for (u32 k = 0; k < 8; ++k) EXPECT_EQ(parts.calls[k].load(), 1);
        }
    });
}

}  // namespace
}  // namespace flowdeflate::graph

// long_run_test.cpp - library calls as a long-running application makes them (a server
// that compresses its responses): tens of thousands of default calls, from the main
// thread, from tbb::parallel_for inside the application's own task_arena, and from
// several threads at once, must not grow the process.  Each test warms up first (pools
// fill, the allocator settles), then fails when the memory the process holds (resident
// once the allocator's free pages are given back: support/process.hpp) grows by more than
// kMaxGrowthMiB over the calls that follow.  Outputs are checked against the reference.
//
// Speed over the run (the last calls no slower than the first) is measured, not asserted
// here: perf/per_call's drift benchmark (scripts/bench --micro).  Under sanitizers the
// calls are fewer and memory is not asserted (ASan keeps freed memory in quarantine).
#include <gtest/gtest.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "flowdeflate/flowdeflate.hpp"
#include "support/process.hpp"
#include "support/reference.hpp"
#include "support/sanitizers.hpp"
#include "support/test_data.hpp"

namespace flowdeflate {
namespace {

constexpr double kMaxGrowthMiB = 4;
constexpr int kScale = FLOWDEFLATE_SANITIZED ? 10 : 1;  // fewer calls under sanitizers

using testing::held_mib;
using testing::thread_count;

void expect_bounded(double before, double after, const char* what) {
    if (FLOWDEFLATE_SANITIZED) return;
    EXPECT_LE(after - before, kMaxGrowthMiB) << what << ": memory held grew from " << before << " to " << after
                                             << " MiB";
}

struct Slice {
    Bytes in;
    Bytes want;
    Slice(std::size_t size, int level, std::uint64_t seed)
        : in(testing::generate(testing::Kind::text, size, seed)),
          want(testing::Reference::get().compress(in, level, Format::gzip)) {}
};

TEST(LongRun, SmallCallsFromTheMainThreadDoNotGrow) {
    const Slice s(4096, kDefaultLevel, 1);
    const int calls = 20'000 / kScale;
    for (int i = 0; i < calls / 20; ++i) ASSERT_EQ(compress(s.in), s.want);
    const double before = held_mib();
    Bytes out;
    for (int i = 0; i < calls; ++i) {
        out.clear();
        compress(s.in, out);
    }
    EXPECT_EQ(out, s.want);
    expect_bounded(before, held_mib(), "20,000 calls from the main thread");
}

TEST(LongRun, SmallCallsFromAnApplicationsArenaDoNotGrow) {
    const Slice s(4096, kDefaultLevel, 2);
    tbb::task_arena app(2);
    std::atomic<int> wrong{0};
    const auto batch = [&] {
        app.execute([&] {
            tbb::parallel_for(0, 1000 / kScale, [&](int) {
                if (compress(s.in) != s.want) ++wrong;
            });
        });
    };
    batch();
    const double before = held_mib();
    const int threads_before = thread_count();
    for (int b = 1; b < 20; ++b) batch();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_LE(thread_count(), threads_before) << "calls left threads behind";
    expect_bounded(before, held_mib(), "20 batches of 1,000 calls in an application's arena");
}

TEST(LongRun, CallsFromSeveralThreadsAtOnceDoNotGrow) {
    const Slice small(4096, 1, 3), text(64 * 1024, 1, 4);
    std::atomic<int> wrong{0};
    const auto run = [&](int calls) {
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                Options o;
                o.level = 1;
                for (int i = 0; i < calls; ++i) {
                    const Slice& s = (i + t) % 8 == 0 ? text : small;
                    if (compress(s.in, o) != s.want) ++wrong;
                }
            });
        for (auto& th : threads) th.join();
    };
    run(500 / kScale);
    const double before = held_mib();
    run(5000 / kScale);
    EXPECT_EQ(wrong.load(), 0);
    expect_bounded(before, held_mib(), "4 threads x 5,000 calls");
}

TEST(LongRun, CallsOverOneChunkReuseTheirArenas) {
    // Over one chunk, so that the parallel graph runs: from the main thread in the
    // library's shared arena, and from the application's tasks in the application's own
    // arena (concurrency 3, unlike the 2 cores here, so that a call can tell where it ran).
    // An arena made per call grows the process by about 7 MiB per 1,000 calls with
    // oneTBB 2021.8, which these 4,000 calls would show.
    const Slice s(20'000, 1, 5);
    const int calls = 2000 / kScale;
    Options o;
    o.level = 1;
    o.chunk_size = 4096;  // five chunks
    tbb::task_arena app(3);
    std::atomic<int> wrong{0}, elsewhere{0};
    Options in_app = o;
    in_app.progress = [&](std::uint64_t, std::uint64_t) {
        if (tbb::this_task_arena::max_concurrency() != 3) ++elsewhere;
    };
    const auto run = [&](int n) {
        for (int i = 0; i < n; ++i)
            if (compress(s.in, o) != s.want) ++wrong;
        app.execute([&] {
            tbb::parallel_for(0, n, [&](int) {
                if (compress(s.in, in_app) != s.want) ++wrong;
            });
        });
    };
    // The graph's pools and the allocator's per-thread arenas settle first, up to what
    // the calls in flight at once need (under load, with three of them in the
    // application's arena, that took a few hundred calls).
    run(calls / 2);
    const double before = held_mib();
    const int threads_before = thread_count();
    run(calls);
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(elsewhere.load(), 0) << "a call from the application's task left its arena";
    EXPECT_LE(thread_count(), threads_before) << "calls left threads behind";
    expect_bounded(before, held_mib(), "calls over one chunk");
}

}  // namespace
}  // namespace flowdeflate

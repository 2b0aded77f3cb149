// pipeline_test.cpp - both graphs write exactly the whole-buffer output (which
// differential_test proves identical to libdeflate's):
//   - the sequential graph (Read -> Compress -> Write) and the parallel one (Read -> Search
//     -> Resolve -> Code -> Assemble -> Write), from files and from pipes, at every level,
//     with sizes that end on read-chunk, segment and window boundaries;
//   - ParallelGraph: the parallel graph at levels 1-9 with 1, 2, 3, 4 and 8 threads (more
//     than this machine's cores on purpose), chunks of 4 KiB, 64 KiB, 1 MiB and 4 MiB, the
//     smallest search window (--ahead 1) and block ring (--ring 1), and every track mode;
//   - NearOptimalGraph: levels 10-12 with the match search ahead of the optimiser, 2-8
//     threads, chunks of 4 KiB-4 MiB, chunk ends inside long matches, all-literal blocks;
//   - ParallelStress: random chunk sizes, thread counts, windows and rings, levels 1-12
//     (seeded; run under ThreadSanitizer and ASan/UBSan by scripts/test SANITIZE=...);
// and input that changes size under either graph is reported, not compressed into
// something wrong.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

#include "flowdeflate/flowdeflate.hpp"
#include "graph/input_window.hpp"
#include "graph/fd_graphs.hpp"
#include "support/sanitizers.hpp"
#include "support/test_data.hpp"
#include "support/watchdog.hpp"

namespace flowdeflate::graph {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("pipeline") {}
};

void write_file(const std::filesystem::path& p, const Bytes& data) {
    FILE* f = std::fopen(p.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    if (!data.empty()) {
        ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
    }
    std::fclose(f);
}

Bytes read_fd_all(int fd) {
    Bytes out;
    std::uint8_t buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n <= 0) return out;
        out.insert(out.end(), buf, buf + n);
    }
}

Bytes whole_buffer(const Bytes& data, int level) { return Compressor(level).compress(data, Format::gzip); }

// Compresses @p data from a file through the graph into a pipe drained by a thread.
Bytes through_file(const Bytes& data, const GraphOptions& options, const TempDir& dir) {
    const auto path = dir.path / "in";
    write_file(path, data);
    const int in = ::open(path.c_str(), O_RDONLY);
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    Bytes result;
    std::thread drain([&] { result = read_fd_all(out[0]); });
    compress_fd(in, "in", out[1], "out", options);
    ::close(out[1]);
    drain.join();
    ::close(out[0]);
    ::close(in);
    return result;
}

// The same with the input coming through a pipe (no size known).
Bytes through_pipe(const Bytes& data, const GraphOptions& options) {
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    std::thread feed([&] {
        std::size_t off = 0;
        while (off < data.size()) {
            const ssize_t n = ::write(in[1], data.data() + off, std::min<std::size_t>(data.size() - off, 100000));
            if (n <= 0) break;
            off += std::size_t(n);
        }
        ::close(in[1]);
    });
    Bytes result;
    std::thread drain([&] { result = read_fd_all(out[0]); });
    compress_fd(in[0], "(pipe)", out[1], "out", options);
    ::close(out[1]);
    feed.join();
    drain.join();
    ::close(in[0]);
    ::close(out[0]);
    return result;
}

class PipelineLevels : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(PipelineLevels, FilesAndPipesEqualWholeBuffer) {
    const int level = std::get<0>(GetParam());
    TempDir dir;
    GraphOptions options;
    options.level = level;
    options.sequential = std::get<1>(GetParam());
    options.threads = 2;
    options.chunk_size = 64 * 1024;
    // Small windows and segments, so every boundary is crossed many times.
    options.window.read_chunk = 64 * 1024;
    options.window.read_ahead = 256 * 1024;
    options.segment_size = 128 * 1024;
    const std::size_t big = level >= 10 ? 600000 : 3 * 1024 * 1024;
    std::uint64_t seed = 900 + level;
    for (std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(64 * 1024), std::size_t(64 * 1024 + 1),
                             std::size_t(128 * 1024), big}) {
        const Bytes data = testing::generate(testing::Kind::mixed, size, ++seed);
        SCOPED_TRACE(::testing::Message() << size << " bytes");
        const Bytes want = whole_buffer(data, level);
        EXPECT_TRUE(through_file(data, options, dir) == want) << "from a file";
        EXPECT_TRUE(through_pipe(data, options) == want) << "from a pipe";
    }
}

INSTANTIATE_TEST_SUITE_P(AllLevels, PipelineLevels, ::testing::Combine(::testing::Range(0, 13), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<int, bool>>& i) {
                             return "Level" + std::to_string(std::get<0>(i.param)) +
                                    (std::get<1>(i.param) ? "_Sequential" : "_Parallel");
                         });

// ---- the parallel graph ---------------------------------------------------------------

struct GraphConfig {
    int threads;
    std::size_t chunk;
    int ahead;  // 0: default (threads + 4)
    int ring;
    Tracks tracks;
};

std::string describe(const GraphConfig& c) {
    return "threads " + std::to_string(c.threads) + ", chunk " + std::to_string(c.chunk) + ", ahead " +
           std::to_string(c.ahead) + ", ring " + std::to_string(c.ring) + ", tracks " +
           std::to_string(int(c.tracks));
}

GraphOptions parallel_options(int level, const GraphConfig& c) {
    GraphOptions o;
    o.level = level;
    o.threads = c.threads;
    o.chunk_size = c.chunk;
    o.ahead = c.ahead;
    o.ring = c.ring;
    o.tracks = c.tracks;
    o.segment_size = 256 * 1024;
    return o;
}

class ParallelGraph : public ::testing::TestWithParam<int> {};

TEST_P(ParallelGraph, ThreadsChunksWindowsAndRings) {
    const int level = GetParam();
    TempDir dir;
    using Tracks = Tracks;
    const GraphConfig configs[] = {
        {1, 4 * 1024, 1, 1, Tracks::automatic},   {2, 64 * 1024, 0, 4096, Tracks::automatic},
        {3, 1 << 20, 1, 4096, Tracks::automatic}, {4, 4 << 20, 0, 2, Tracks::automatic},
        {8, 4 * 1024, 2, 1, Tracks::all},         {2, 16 * 1024, 0, 8, Tracks::history},
    };
    // Mixed data switches kind often: chunk ends fall inside matches, inside blocks and at
    // block ends.  6.5 MiB: several 1 MiB chunks, and more than one 4 MiB chunk.
    const Bytes data = testing::generate(testing::Kind::mixed, 6 * 1024 * 1024 + 512 * 1024 + 3, 77 + level);
    const Bytes want = whole_buffer(data, level);
    for (const GraphConfig& c : configs) {
        SCOPED_TRACE(describe(c));
        const GraphOptions o = parallel_options(level, c);
        EXPECT_TRUE(through_file(data, o, dir) == want) << "from a file";
        if (c.chunk <= 64 * 1024) {
            EXPECT_TRUE(through_pipe(data, o) == want) << "from a pipe";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, ParallelGraph, ::testing::Range(1, 10),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

TEST(ParallelGraph, RealFilesFromTheSystem) {
    const auto files = testing::real_files(4, 4 * 1024 * 1024);
    if (files.empty()) GTEST_SKIP() << "no real files found";
    TempDir dir;
    for (const auto& path : files) {
        const Bytes data = testing::read_file(path, 4 * 1024 * 1024);
        for (const int level : {1, 6, 9}) {
            SCOPED_TRACE(path.string() + ", level " + std::to_string(level));
            EXPECT_TRUE(through_file(data, parallel_options(level, {2, 64 * 1024, 0, 4096, Tracks::automatic}),
                                     dir) == whole_buffer(data, level));
        }
    }
}

// ---- levels 10-12: the match search ahead of the near-optimal parser ------------------

// Input that ends chunks inside long matches (the parser skips the positions a search
// recorded), switches between incompressible stretches (all-literal blocks, which change
// the next block's statistics) and compressible ones, and ends a few bytes past a chunk.
Bytes near_optimal_input(std::uint64_t seed) {
    Bytes data;
    const auto add = [&](const Bytes& part) { data.insert(data.end(), part.begin(), part.end()); };
    add(testing::generate(testing::Kind::mixed, 300000, seed));
    add(testing::zeros(70000));
    add(testing::random_bytes(90000, seed + 1));
    add(testing::text_like(160000, seed + 2));
    add(testing::runs(50000, seed + 3));
    add(testing::random_bytes(40000, seed + 4));
    add(testing::binary_records(120000, seed + 5));
    data.resize(data.size() - data.size() % 4096 + 5);  // a 5-byte tail after the last 4 KiB
    return data;
}

class NearOptimalGraph : public ::testing::TestWithParam<int> {};

TEST_P(NearOptimalGraph, ThreadsChunksAndWindows) {
    const int level = GetParam();
    TempDir dir;
    const GraphConfig configs[] = {
        {2, 4 * 1024, 1, 4096, Tracks::automatic},  {3, 64 * 1024, 0, 4096, Tracks::automatic},
        {8, 5000, 2, 4096, Tracks::automatic},      {2, 1 << 20, 0, 4096, Tracks::automatic},
        {4, 4 << 20, 0, 4096, Tracks::automatic},
    };
    const Bytes data = near_optimal_input(500 + level);
    const Bytes want = whole_buffer(data, level);
    for (const GraphConfig& c : configs) {
        SCOPED_TRACE(describe(c));
        GraphOptions o = parallel_options(level, c);
        Probe probe;
        o.probe = &probe;
        testing::Watchdog watchdog(probe, std::chrono::seconds(60), describe(c) + ", level " + std::to_string(level));
        EXPECT_TRUE(through_file(data, o, dir) == want) << "from a file";
        EXPECT_GT(probe.chunks_searched.load(), 0u) << "the search ran";
        if (c.chunk == 5000) {
            EXPECT_TRUE(through_pipe(data, o) == want) << "from a pipe";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, NearOptimalGraph, ::testing::Range(10, 13),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

// Random configurations, small inputs: many chunks, tiny windows and rings, more threads
// than cores.  The seed is printed; FLOWDEFLATE_TEST_SEED=<n> repeats a run.
TEST(ParallelStress, RandomConfigurations) {
    std::uint64_t seed = 20261130;
    if (const char* s = std::getenv("FLOWDEFLATE_TEST_SEED")) seed = std::strtoull(s, nullptr, 10);
    std::cout << "[   seed   ] FLOWDEFLATE_TEST_SEED=" << seed << std::endl;
    std::mt19937_64 rng(seed);
    TempDir dir;
    // Then levels 10-12, whose search runs ahead of the optimiser: 12 rounds, 6 in
    // sanitizer builds (their bt search is 10-20 times slower there: 70 s under TSan).
    const int rounds = 24 + (FLOWDEFLATE_SANITIZED ? 6 : 12);
    for (int round = 0; round < rounds; ++round) {
        const int level = round < 24 ? 1 + int(rng() % 9) : 10 + int(rng() % 3);
        const auto kind = testing::kAllKinds[rng() % std::size(testing::kAllKinds)];
        // Levels 1-9 up to 1.5 MB, 512 KB in sanitizer builds (the 24 rounds took 125 s of
        // TSan's 143 s at 1.5 MB; 512 KB still makes up to 128 chunks of 4-128 KiB).
        const std::size_t cap = level >= 10 ? 256 * 1024 : (FLOWDEFLATE_SANITIZED ? 512 : 1536) * 1024;
        const std::size_t size = rng() % cap;
        GraphConfig c;
        c.threads = 1 + int(rng() % 8);
        c.chunk = 4096 + (rng() % 32) * 4096 + (rng() % 2) * 777;
        c.ahead = int(rng() % 6);  // 0: default
        c.ring = 1 + int(rng() % 16);
        c.tracks = Tracks(rng() % 3);
        const Bytes data = testing::generate(kind, size, rng());
        SCOPED_TRACE(describe(c) + ", level " + std::to_string(level) + ", " +
                     std::string(testing::kind_name(kind)) + ", " + std::to_string(size) + " bytes, round " +
                     std::to_string(round));
        GraphOptions o = parallel_options(level, c);
        Probe probe;
        o.probe = &probe;
        const Bytes want = whole_buffer(data, level);
        // A stalled graph fails here with its state printed, not at ctest's timeout.
        testing::Watchdog watchdog(probe, std::chrono::seconds(60), describe(c) + ", level " + std::to_string(level));
        EXPECT_TRUE((round % 2 ? through_pipe(data, o) : through_file(data, o, dir)) == want);
        // (One thread with automatic tracks runs the sequential graph, which has no blocks
        // to assemble: Options::parallel().)
        if (o.parallel()) {
            EXPECT_GT(probe.blocks_assembled.load(), 0u);
        }
    }
}

// The watchdog itself: a run that makes no progress ends the process with the graph's
// state on stderr.
TEST(WatchdogDeathTest, AStalledRunAbortsWithTheGraphState) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            Probe probe;
            ++probe.chunks_in;
            testing::Watchdog watchdog(probe, std::chrono::milliseconds(200), "a test that waits");
            std::this_thread::sleep_for(std::chrono::seconds(5));
        },
        "no progress for 200 ms \\(a test that waits\\): chunks in 1, searched 0");
}

TEST(Pipeline, DefaultOptionsOnMegabytesOfText) {
    TempDir dir;
    const Bytes data = testing::generate(testing::Kind::text, 9 * 1024 * 1024 + 17, 4242);
    GraphOptions options;  // 1 MiB reads and segments, 8 MiB ahead
    EXPECT_TRUE(through_file(data, options, dir) == whole_buffer(data, options.level));
    EXPECT_TRUE(through_pipe(data, options) == whole_buffer(data, options.level));
}

// Changes a file while it is being compressed and returns the InputError message.  The
// output is held back (the writer's queue is full because nobody reads the output pipe
// yet), @p change runs, then the output is drained; the reader must find the change.
// The graphs SizeChange runs: the parallel one (level 1), the sequential one (level 1), and
// the sequential one with the match search ahead (level 10, three threads).
enum class Graph { parallel, sequential, near_optimal };

template <class Change>
std::string error_when_changed(const std::filesystem::path& path, std::size_t size, Change change, Graph graph) {
    write_file(path, testing::generate(testing::Kind::random, size, 7));
    const int in = ::open(path.c_str(), O_RDONLY);
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    GraphOptions options;
    options.level = graph == Graph::near_optimal ? 10 : 1;
    options.sequential = graph == Graph::sequential;
    options.threads = graph == Graph::near_optimal ? 3 : 2;
    options.window.read_ahead = 1 << 20;
    options.max_pending_segments = 1;
    std::string error;
    std::thread run([&] {
        try {
            compress_fd(in, path.filename().string(), out[1], "out", options);
        } catch (const InputError& e) {
            error = e.what();
        }
        ::close(out[1]);
    });
    // Wait until compressed bytes arrive: the window exists and the reader is under way.
    struct pollfd ready {out[0], POLLIN, 0};
    EXPECT_EQ(::poll(&ready, 1, 30000), 1);
    change();
    (void)read_fd_all(out[0]);
    run.join();
    ::close(out[0]);
    ::close(in);
    return error;
}

class SizeChange : public ::testing::TestWithParam<Graph> {};

TEST_P(SizeChange, FileThatShrinksIsAnError) {
    TempDir dir;
    const auto path = dir.path / "shrinks";
    const std::string error = error_when_changed(
        path, 24 * 1024 * 1024, [&] { ASSERT_EQ(::truncate(path.c_str(), 4 * 1024 * 1024), 0); },  // cut to 4 MiB
        GetParam());
    EXPECT_NE(error.find("shrank while being compressed"), std::string::npos) << "error: '" << error << "'";
}

TEST_P(SizeChange, FileThatGrowsIsAnError) {
    TempDir dir;
    const auto path = dir.path / "grows";
    // The parallel graph and the search ahead of levels 10-12 read up to their search
    // window ahead: give them more to read, or the reader is done before the file grows.
    const std::string error = error_when_changed(
        path, GetParam() == Graph::sequential ? 6 * 1024 * 1024 : 24 * 1024 * 1024,
        [&] {
            FILE* f = std::fopen(path.c_str(), "ab");
            ASSERT_NE(f, nullptr);
            const Bytes more(1 << 20, 'x');
            ASSERT_EQ(std::fwrite(more.data(), 1, more.size(), f), more.size());
            std::fclose(f);
        },
        GetParam());
    EXPECT_NE(error.find("grew while being compressed"), std::string::npos) << "error: '" << error << "'";
}

INSTANTIATE_TEST_SUITE_P(Graphs, SizeChange, ::testing::Values(Graph::sequential, Graph::parallel),
                         [](const ::testing::TestParamInfo<Graph>& i) {
                             return i.param == Graph::sequential ? "Sequential" : "Parallel";
                         });
// Apart, so that the ThreadSanitizer run (scripts/test) can leave it out: 40 s there.
INSTANTIATE_TEST_SUITE_P(SearchAhead, SizeChange, ::testing::Values(Graph::near_optimal),
                         [](const ::testing::TestParamInfo<Graph>&) { return "NearOptimal"; });

TEST(Pipeline, WriteErrorIsReported) {
    const Bytes data = testing::generate(testing::Kind::random, 3 * 1024 * 1024, 8);
    TempDir dir;
    const auto path = dir.path / "in";
    write_file(path, data);
    const int in = ::open(path.c_str(), O_RDONLY);
    const int full = ::open("/dev/full", O_WRONLY);
    if (full < 0) GTEST_SKIP() << "no /dev/full";
    for (const int level : {6, 10}) {  // level 10: with the match search ahead on two threads
        for (const bool sequential : {true, false}) {
            GraphOptions options;
            options.level = level;
            options.threads = 2;
            options.sequential = sequential;
            ::lseek(in, 0, SEEK_SET);
            EXPECT_THROW(compress_fd(in, "in", full, "/dev/full", options), OutputError)
                << "level " << level << ", sequential " << sequential;
        }
    }
    ::close(full);
    ::close(in);
}

// The window moves released slots' pages ahead (mremap).  Its address range must never
// have a hole while it does: another thread's mmap (malloc's) could land in the hole and
// then be replaced by the window's reservation, which corrupted the heap in about one run
// in ten with 16 threads.  A thread maps and unmaps slot-sized ranges all along; none may
// fall inside the window's range.
TEST(InputWindowTest, RecyclingSlotsNeverLeavesAHoleForOtherMappings) {
    WindowOptions o;
    o.pipe_reserve = std::size_t(1) << 30;
    InputWindow w("fed", o);
    const std::uint8_t* const lo = w.begin();
    const std::uint8_t* const hi = lo + o.pipe_reserve;
    std::atomic<bool> stop{false};
    std::atomic<int> inside{0}, mapped{0};
    std::thread other([&] {
        // Mappings above the window are kept, so that the free gaps up there fill and the
        // kernel's top-down search reaches the window's range: a hole there would be the
        // highest free gap, and taken.
        constexpr std::size_t kLen = 64 << 10;
        std::vector<void*> kept;
        while (!stop.load(std::memory_order_relaxed)) {
            void* p = mmap(nullptr, kLen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) continue;
            ++mapped;
            const auto* u = static_cast<const std::uint8_t*>(p);
            if (u + kLen > lo && u < hi) {
                ++inside;
                munmap(p, kLen);
            } else if (u >= hi && kept.size() < 50000) {
                kept.push_back(p);
            } else {
                munmap(p, kLen);
            }
        }
        for (void* p : kept) munmap(p, kLen);
    });
    const std::vector<std::uint8_t> piece(o.release_step, 0x5a);
    for (int i = 0; i < 300 && inside == 0; ++i) {
        for (std::size_t off = 0; off < piece.size();) {
            const std::size_t n = w.append(piece.data() + off, piece.size() - off, 4 * o.release_step);
            off += n;
            if (n == 0) w.release_before(w.present_end());
        }
        w.release_before(w.present_end());
    }
    stop = true;
    other.join();
    w.end_input();
    EXPECT_GT(mapped.load(), 0);
    EXPECT_EQ(inside.load(), 0) << "a mapping of another thread landed inside the window's reserved range";
}

// Recycled slots are moved as whole page tables only when the window starts on a slot
// boundary (see InputWindow::reserve()); unaligned, reading cost four times the CPU on
// the VM hosts we measure on.  Speed is for the benchmarks; the alignment is checked here.
TEST(InputWindowTest, WindowStartsOnASlotBoundary) {
    for (const std::size_t step : {std::size_t(1) << 20, std::size_t(2) << 20, std::size_t(4) << 20}) {
        WindowOptions o;
        o.release_step = step;
        o.pipe_reserve = std::size_t(1) << 30;
        InputWindow fed("fed", o);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fed.begin()) % step, 0u) << step;
        std::FILE* f = std::tmpfile();
        ASSERT_NE(f, nullptr);
        const std::vector<std::uint8_t> bytes(3 * step + 123, 0x41);
        ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
        std::fflush(f);
        std::rewind(f);
        InputWindow file(::fileno(f), "tmp", o);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(file.begin()) % step, 0u) << step;
        std::thread reader([&] { file.read_loop(); });
        const std::uint8_t* end = file.ensure(file.begin() + bytes.size());
        reader.join();
        ASSERT_EQ(std::size_t(end - file.begin()), bytes.size());
        EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), file.begin()));
        std::fclose(f);
    }
}

}  // namespace
}  // namespace flowdeflate::graph

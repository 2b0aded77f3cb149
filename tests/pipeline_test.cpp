// pipeline_test.cpp - the streaming graph (Read -> Compress -> Write) writes exactly the
// whole-buffer output, from files and from pipes, at every level; sizes that end on
// read-chunk, segment and window boundaries; and input that changes size under it is
// reported, not compressed into something wrong.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "flowdeflate/flowdeflate.hpp"
#include "graph/pipeline.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::graph {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        char tmpl[] = "/tmp/flowdeflate-pipeline-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
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
Bytes through_file(const Bytes& data, const PipelineOptions& options, const TempDir& dir) {
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
Bytes through_pipe(const Bytes& data, const PipelineOptions& options) {
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

class PipelineLevels : public ::testing::TestWithParam<int> {};

TEST_P(PipelineLevels, FilesAndPipesEqualWholeBuffer) {
    const int level = GetParam();
    TempDir dir;
    PipelineOptions options;
    options.level = level;
    // Small windows and segments, so every boundary is crossed many times.
    options.window.read_chunk = 64 * 1024;
    options.window.ahead = 256 * 1024;
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

INSTANTIATE_TEST_SUITE_P(AllLevels, PipelineLevels, ::testing::Range(0, 13),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

TEST(Pipeline, DefaultOptionsOnMegabytesOfText) {
    TempDir dir;
    const Bytes data = testing::generate(testing::Kind::text, 9 * 1024 * 1024 + 17, 4242);
    PipelineOptions options;  // 1 MiB reads and segments, 8 MiB ahead
    EXPECT_TRUE(through_file(data, options, dir) == whole_buffer(data, options.level));
    EXPECT_TRUE(through_pipe(data, options) == whole_buffer(data, options.level));
}

// Changes a file while it is being compressed and returns the InputError message.  The
// output is held back (the writer's queue is full because nobody reads the output pipe
// yet), @p change runs, then the output is drained; the reader must find the change.
template <class Change>
std::string error_when_changed(const std::filesystem::path& path, std::size_t size, Change change,
                               bool sequential) {
    write_file(path, testing::generate(testing::Kind::random, size, 7));
    const int in = ::open(path.c_str(), O_RDONLY);
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    PipelineOptions options;
    options.level = 1;
    options.sequential = sequential;
    options.threads = 2;
    options.window.ahead = 1 << 20;
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

class SizeChange : public ::testing::TestWithParam<bool> {};  // param: sequential graph

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
    // The parallel graph reads up to its search window ahead: give it more to read.
    const std::string error = error_when_changed(
        path, GetParam() ? 6 * 1024 * 1024 : 24 * 1024 * 1024,
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

INSTANTIATE_TEST_SUITE_P(Graphs, SizeChange, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Sequential" : "Parallel"; });

TEST(Pipeline, WriteErrorIsReported) {
    const Bytes data = testing::generate(testing::Kind::random, 3 * 1024 * 1024, 8);
    TempDir dir;
    const auto path = dir.path / "in";
    write_file(path, data);
    const int in = ::open(path.c_str(), O_RDONLY);
    const int full = ::open("/dev/full", O_WRONLY);
    if (full < 0) GTEST_SKIP() << "no /dev/full";
    PipelineOptions options;
    EXPECT_THROW(compress_fd(in, "in", full, "/dev/full", options), OutputError);
    ::close(full);
    ::close(in);
}

}  // namespace
}  // namespace flowdeflate::graph

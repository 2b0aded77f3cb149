// tests/cli/output_test.cpp - the command line writes libdeflate-gzip's bytes: -c, every
// level, the parallel and sequential graphs under any thread, chunk, window and ring
// options, --format zlib and deflate, level 0, standard input to standard output, and odd
// names, paths, sizes, sparse and /proc files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/cli_support.hpp"
#include "support/reference.hpp"

namespace flowdeflate::testing::cli {
namespace {

// ---- 2. -c, levels, threads and formats -----------------------------------------------

TEST_F(Cli, StdoutOptionWritesToStdoutAndKeepsInput) {
    REQUIRE_REFERENCE();
    const std::string data = text(50'000, 13);
    write("a.txt", data);
    const Result r = fd({"-c", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"a.txt"});
    EXPECT_TRUE(same_bytes(read("a.txt"), data)) << "input changed";
    EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 6))) << "-c output vs libdeflate-gzip -6 -c";
    expect_gunzips_bytes(r.out, data);
}

TEST_F(Cli, OutputEqualsReferenceAtLevels1To12) {
    REQUIRE_REFERENCE();
    const std::string data = text(200'000, 14);
    write("in.txt", data);
    for (int level = 1; level <= 12; ++level) {
        const std::string opt = level_option(level);
        const Result ours = fd({opt, "-c", "in.txt"});
        const Result theirs = ref({opt, "-c", "in.txt"});
        EXPECT_STATUS(ours, 0) << " level " << level;
        EXPECT_STATUS(theirs, 0) << " level " << level;
        EXPECT_TRUE(same_bytes(ours.out, theirs.out)) << "level " << level;
    }
    EXPECT_LISTING({"in.txt"});
}

TEST_F(Cli, ParallelOptionsKeepOutputIdentical) {
    REQUIRE_REFERENCE();
    const std::string data = text(700'000, 15);
    write("in.txt", data);
    const Result theirs = ref({"-6", "-c", "in.txt"});
    EXPECT_STATUS(theirs, 0);
    for (const std::vector<std::string>& opts :
         {std::vector<std::string>{"-p", "1"}, {"--threads=3", "--chunk", "4K", "--ahead", "1", "--ring", "1"},
          {"-p2", "--chunk=64k", "--tracks", "all"}, {"--tracks=history", "--search-concurrency", "1"},
          {"--code-concurrency=1", "--chunk", "1M"}, {"--sequential"}}) {
        std::vector<std::string> args = opts;
        args.insert(args.end(), {"-6", "-c", "in.txt"});
        const Result ours = fd(args);
        EXPECT_STATUS(ours, 0) << args.front();
        EXPECT_TRUE(same_bytes(ours.out, theirs.out)) << args.front();
    }
}

TEST_F(Cli, ThreadOptionsDoNotChangeOutput) {
    const std::string data = text(300'000, 49);
    write("a.txt", data);
    const Result plain = fd({"-c", "a.txt"});
    ASSERT_STATUS(plain, 0);
    const std::vector<std::vector<std::string>> variants = {
        {"-p", "2", "-c", "a.txt"}, {"--threads", "2", "-c", "a.txt"}, {"--sequential", "-c", "a.txt"}};
    for (const auto& args : variants) {
        const Result r = fd(args);
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, plain.out)) << r.command;
    }
    EXPECT_LISTING({"a.txt"});
}

// --format zlib / deflate: libdeflate_zlib_compress / libdeflate_deflate_compress's bytes
// (the reference program writes gzip only, so the in-process reference library judges),
// with their own default suffixes, and -d reads them back.
TEST_F(Cli, FormatOptionWritesZlibAndRawDeflate) {
    using flowdeflate::Format;
    const std::string data = text(400'000, 21);
    write("in.txt", data);
    const std::vector<std::uint8_t> bytes(data.begin(), data.end());
    auto& reference = flowdeflate::testing::Reference::get();
    for (const auto& [format, suffix] : {std::pair{Format::zlib, ".zz"}, std::pair{Format::deflate, ".deflate"}}) {
        const char* name = format == Format::zlib ? "zlib" : "deflate";
        for (const int level : {1, 6, 12}) {
            for (const char* threads : {"-p1", "-p3"}) {
                const Result r = fd({"--format", name, level_option(level), threads, "-c", "in.txt"});
                EXPECT_STATUS(r, 0);
                EXPECT_TRUE(same_bytes(r.out, to_string(reference.compress(bytes, level, format))))
                    << name << " level " << level << " " << threads;
            }
        }
        EXPECT_STATUS(fd({std::string("--format=") + name, "-k", "in.txt"}), 0);
        ASSERT_TRUE(exists(std::string("in.txt") + suffix)) << name;
        EXPECT_EQ(read(std::string("in.txt") + suffix), to_string(reference.compress(bytes, 6, format)));
        const Result back = fd({"-d", "--format", name, "-c", std::string("in.txt") + suffix});
        EXPECT_STATUS(back, 0);
        EXPECT_TRUE(same_bytes(back.out, data)) << name;
        // gzip data is not zlib data: a clear error, not garbage.
        EXPECT_STATUS(fd({"-k", "-f", "in.txt"}), 0);
        const Result wrong = fd({"-d", "--format", name, "-c", "in.txt.gz"});
        EXPECT_STATUS(wrong, 1) << name;
        EXPECT_FALSE(wrong.err.empty());
    }
    const Result bad = fd({"--format", "lz4", "in.txt"});
    EXPECT_STATUS(bad, 1);
    EXPECT_NE(bad.err.find("gzip, zlib or deflate"), std::string::npos) << bad.err;
}

TEST_F(Cli, LevelZeroWritesValidGzip) {
    const std::string data = text(150'000, 15);  // more than two stored blocks
    write("a.txt", data);
    const Result r = fd({"-0", "-c", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_GT(r.out.size(), data.size()) << "level 0 stores: output must be larger than the input";
    expect_gunzips_bytes(r.out, data);
    EXPECT_LISTING({"a.txt"});
}

// ---- 4. standard input to standard output ---------------------------------------------

TEST_F(Cli, StdinToStdoutWithoutFileArgument) {
    REQUIRE_REFERENCE();
    const std::string data = text(120'000, 26);
    RunOptions o;
    o.in = Stdin::bytes;
    o.in_bytes = data;
    {
        const Result r = fd({}, o);
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 6))) << "default level";
    }
    {
        const Result r = fd({"-3"}, o);
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 3))) << "-3";
    }
    EXPECT_LISTING({});
}

TEST_F(Cli, StdinToStdoutWithDashArgument) {
    REQUIRE_REFERENCE();
    const std::string data = text(120'000, 27);
    RunOptions o;
    o.in = Stdin::bytes;
    o.in_bytes = data;
    const Result r = fd({"-8", "-"}, o);
    EXPECT_STATUS(r, 0);
    EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 8)));
    {
        // Standard input redirected from a regular file (not a pipe).
        write("in.txt", data);
        RunOptions f;
        f.in = Stdin::file;
        f.in_file = "in.txt";
        const Result rf = fd({"-5", "-"}, f);
        EXPECT_STATUS(rf, 0);
        EXPECT_TRUE(same_bytes(rf.out, reference_compress(data, 5))) << "stdin from a file";
        EXPECT_TRUE(same_bytes(read("in.txt"), data));
        ASSERT_EQ(unlink(path("in.txt").c_str()), 0);
    }
    {
        // Empty input is valid too.
        RunOptions e;
        e.in = Stdin::bytes;
        const Result r0 = fd({"-"}, e);
        EXPECT_STATUS(r0, 0);
        EXPECT_TRUE(same_bytes(r0.out, reference_compress("", 6))) << "empty input";
    }
    EXPECT_LISTING({});
}

// ---- odd inputs ----------------------------------------------------------------------

TEST_F(Cli, OddNamesPathsAndSizesMatchTheReference) {
    REQUIRE_REFERENCE();
    // A name with spaces and a newline, compressed and decompressed in place.
    const std::string odd = "a b\nc d.txt";
    const std::string data = text(100'000, 41);
    write(odd, data);
    const Result want = ref({"-c", odd});
    ASSERT_STATUS(want, 0);
    EXPECT_STATUS(fd({"-k", odd}), 0);
    EXPECT_TRUE(same_bytes(read(odd + ".gz"), want.out));
    EXPECT_STATUS(fd({"-d", "-f", odd + ".gz"}), 0);
    EXPECT_EQ(read(odd), data);
    // An absolute path and a relative one into a subdirectory.
    write("abs.txt", data);
    EXPECT_STATUS(fd({"-k", path("abs.txt")}), 0);
    EXPECT_TRUE(same_bytes(read("abs.txt.gz"), want.out));
    ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
    write("sub/rel.txt", data);
    EXPECT_STATUS(fd({"-k", "sub/rel.txt"}), 0);
    EXPECT_TRUE(same_bytes(read("sub/rel.txt.gz"), want.out));
    // Sizes at the default chunk (1 MiB) and at a 4 KiB one, +- 1, and tiny ones.
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(4095), std::size_t(4096),
                                std::size_t(4097), std::size_t((1 << 20) - 1), std::size_t(1 << 20),
                                std::size_t((1 << 20) + 1)}) {
        write("n.txt", text(n, n + 1));
        const Result theirs = ref({"-6", "-c", "n.txt"});
        for (const char* chunk : {"1M", "4K"}) {
            const Result ours = fd({"-6", "--chunk", chunk, "-c", "n.txt"});
            EXPECT_STATUS(ours, 0);
            EXPECT_TRUE(same_bytes(ours.out, theirs.out)) << n << " bytes, chunk " << chunk;
        }
    }
}

TEST_F(Cli, SparseAndProcFilesMatchTheReference) {
    REQUIRE_REFERENCE();
    // 64 MiB, nearly all holes.
    const int f = open(path("sparse").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(f, 0);
    ASSERT_EQ(ftruncate(f, 64 << 20), 0);
    for (const off_t at : {off_t(0), off_t(5 << 20), off_t((64 << 20) - 100)})
        ASSERT_EQ(pwrite(f, "data in a sparse file", 21, at), 21);
    close(f);
    const Result theirs = ref({"-6", "-c", "sparse"});
    const Result ours = fd({"-6", "-c", "sparse"});
    EXPECT_STATUS(ours, 0);
    EXPECT_TRUE(same_bytes(ours.out, theirs.out)) << "sparse file";
    // /proc files report size 0 and still have contents.
    const Result proc_theirs = ref({"-c", "/proc/version"});
    const Result proc_ours = fd({"-c", "/proc/version"});
    EXPECT_STATUS(proc_ours, 0);
    EXPECT_GT(proc_ours.out.size(), 20u);
    EXPECT_TRUE(same_bytes(proc_ours.out, proc_theirs.out)) << "/proc/version";
}

}  // namespace
}  // namespace flowdeflate::testing::cli

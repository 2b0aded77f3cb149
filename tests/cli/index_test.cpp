// index_test.cpp - seek indexes on the command line: --export-index while compressing
// keeps the reference's .gz and writes an index that gztool (-I, -b, -r) and indexed_gzip
// (IndexedGzipFile(index_file=)) read back at random offsets; their own indexes are read
// by -d --import-index and --range; -d --export-index writes the same index as the
// compressor; an index that does not fit is an error that leaves no output behind.
// gztool and python3-indexed-gzip are Debian packages (scripts/setup installs them).
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::testing::cli {
namespace {

constexpr const char* kGztool = "/usr/bin/gztool";
constexpr const char* kPython = "/usr/bin/python3";

std::string sample(std::size_t n) {
    // Text with a stretch of binary noise: blocks of every type.
    std::string s = text(n / 2, 21);
    std::mt19937 rng(2);
    for (std::size_t i = 0; i < n / 8; ++i) s.push_back(char(rng()));
    s += text(n - s.size(), 22);
    return s;
}

std::vector<std::pair<std::size_t, std::size_t>> offsets(std::size_t size, int n) {
    std::mt19937_64 rng(7);
    std::vector<std::pair<std::size_t, std::size_t>> v;
    for (int i = 0; i < n; ++i) v.emplace_back(rng() % size, 1 + rng() % 100000);
    v.emplace_back(0, 1000);
    v.emplace_back(size - 10, 10);
    return v;
}

class CliIndex : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        ASSERT_EQ(access(kGztool, X_OK), 0) << "gztool is not installed (scripts/setup installs it)";
        data_ = sample(3 << 20);
        write("f", data_);
    }
    // indexed_gzip reads @p index of f.gz and checks @p n random ranges against f.
    Result indexed_gzip_reads(const std::string& index, int n) const {
        std::string script =
            "import indexed_gzip, sys\n"
            "data = open('f', 'rb').read()\n"
            "f = indexed_gzip.IndexedGzipFile('f.gz', index_file='" + index + "', auto_build=False)\n"
            "bad = 0\n";
        for (const auto& [off, len] : offsets(data_.size(), n))
            script += "f.seek(" + std::to_string(off) + "); bad += f.read(" + std::to_string(len) + ") != data[" +
                      std::to_string(off) + ":" + std::to_string(off + len) + "]\n";
        script += "sys.exit(1 if bad else 0)\n";
        return run_process(kPython, {"-c", script}, dir_, {});
    }
    std::string data_;
};

TEST_F(CliIndex, IndexWrittenWhileCompressingIsReadByGztoolAndIndexedGzip) {
    REQUIRE_REFERENCE();
    const std::string want = reference_compress(data_, 6);
    for (const std::string format : {"gztool", "indexed_gzip"}) {
        SCOPED_TRACE(format);
        for (const std::string threads : {"-p1", "-p3"}) {
            const Result r = fd({"-6", threads, "-k", "-f", "--index-span", "256K", "--index-format", format,
                                 "--export-index", "f.idx", "f"});
            ASSERT_STATUS(r, 0);
            EXPECT_TRUE(same_bytes(read("f.gz"), want)) << "the .gz differs from libdeflate's with " << threads;
        }
        if (format == "gztool") {
            for (const auto& [off, len] : offsets(data_.size(), 25)) {
                const Result g = run_process(kGztool, {"-W", "-I", "f.idx", "-b", std::to_string(off), "-r",
                                                       std::to_string(len), "f.gz"},
                                             dir_, {});
                ASSERT_STATUS(g, 0);
                ASSERT_TRUE(same_bytes(g.out, data_.substr(off, len))) << "gztool at " << off;
            }
        } else {
            EXPECT_STATUS(indexed_gzip_reads("f.idx", 100), 0);
        }
        // And we read it back: whole (every thread count) and in ranges.
        for (const std::string threads : {"-p1", "-p2", "-p4"}) {
            const Result d = fd({"-d", "-c", threads, "--import-index", "f.idx", "f.gz"});
            ASSERT_STATUS(d, 0);
            EXPECT_TRUE(same_bytes(d.out, data_));
        }
        const Result range = fd({"-d", "-c", "--import-index", "f.idx", "--range", "1M:100K", "f.gz"});
        ASSERT_STATUS(range, 0);
        EXPECT_TRUE(same_bytes(range.out, data_.substr(1 << 20, 100 << 10)));
    }
}

TEST_F(CliIndex, IndexesOfGztoolAndIndexedGzipAreRead) {
    ASSERT_STATUS(fd({"-k", "f"}), 0);
    // gztool's own (v1, with line numbers), beside the file: --range finds it.
    ASSERT_STATUS(run_process(kGztool, {"-s", "1", "-i", "f.gz"}, dir_, {}), 0);
    ASSERT_TRUE(exists("f.gzi"));
    Result d = fd({"-d", "-c", "-p2", "--import-index", "f.gzi", "f.gz"});
    ASSERT_STATUS(d, 0);
    EXPECT_TRUE(same_bytes(d.out, data_));
    for (const auto& [off, len] : offsets(data_.size(), 10)) {
        const Result r = fd({"-d", "-c", "--range", std::to_string(off) + ":" + std::to_string(len), "f.gz"});
        ASSERT_STATUS(r, 0);
        ASSERT_TRUE(same_bytes(r.out, data_.substr(off, len))) << "range at " << off;
    }
    // indexed_gzip's own.
    const std::string script =
        "import indexed_gzip\n"
        "f = indexed_gzip.IndexedGzipFile('f.gz', spacing=1048576)\n"
        "f.build_full_index()\n"
        "f.export_index('f.igz')\n";
    ASSERT_STATUS(run_process(kPython, {"-c", script}, dir_, {}), 0);
    d = fd({"-d", "-c", "-p3", "--import-index", "f.igz", "f.gz"});
    ASSERT_STATUS(d, 0);
    EXPECT_TRUE(same_bytes(d.out, data_));
}

TEST_F(CliIndex, DecompressingExportsTheIndexTheCompressorWrote) {
    ASSERT_STATUS(fd({"-9", "-k", "--index-span", "300K", "--export-index", "c.gzi", "f"}), 0);
    ASSERT_STATUS(fd({"-d", "-c", "--index-span", "300K", "--export-index", "d.gzi", "f.gz"}), 0);
    EXPECT_TRUE(same_bytes(read("d.gzi"), read("c.gzi")));
    // Several members: a point at each member's start.
    write("two.gz", read("f.gz") + read("f.gz"));
    const Result e = fd({"-d", "-c", "--export-index", "two.gzi", "two.gz"});
    ASSERT_STATUS(e, 0);
    EXPECT_TRUE(same_bytes(e.out, data_ + data_));
    const Result g = run_process(kGztool, {"-W", "-I", "two.gzi", "-b", std::to_string(data_.size() + 5000),
                                           "-r", "20000", "two.gz"},
                                 dir_, {});
    ASSERT_STATUS(g, 0);
    EXPECT_TRUE(same_bytes(g.out, data_.substr(5000, 20000)));
    const Result d = fd({"-d", "-c", "-p2", "--import-index", "two.gzi", "two.gz"});
    ASSERT_STATUS(d, 0);
    EXPECT_TRUE(same_bytes(d.out, data_ + data_));
}

TEST_F(CliIndex, IndexThatDoesNotFitIsAnErrorAndLeavesNothing) {
    ASSERT_STATUS(fd({"-k", "--export-index", "f.gzi", "f"}), 0);
    write("g", sample(1 << 20));
    ASSERT_STATUS(fd({"-k", "--export-index", "g.gzi", "g"}), 0);
    ::unlink(path("f").c_str());
    // Another file's index.
    Result r = fd({"-d", "-k", "--import-index", "g.gzi", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_FALSE(exists("f"));
    // A truncated index.
    const std::string idx = read("f.gzi");
    write("cut.gzi", idx.substr(0, idx.size() / 2));
    r = fd({"-d", "-k", "--import-index", "cut.gzi", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(exists("f"));
    // Not an index at all.
    r = fd({"-d", "-k", "--import-index", "g", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(exists("f"));
    // A window of the index damaged (read as decoding needs it): the message names the
    // index and the point.
    {
        ASSERT_STATUS(fd({"-d", "-c", "--export-index", "spans.gzi", "--index-span", "262144", "f.gz"}), 0);
        std::string bad = read("spans.gzi");
        // gztool's layout: 32 bytes of header, then per point u64 out, u64 in, u32 bits,
        // u32 W and W bytes; the first point (the member's start) has no window.
        ASSERT_EQ(bad.substr(8, 8), "gzipindx");
        const std::size_t second = 32 + 24;
        std::size_t w = 0;
        for (std::size_t k = 20; k < 24; ++k) w = w << 8 | std::uint8_t(bad[second + k]);
        ASSERT_GT(w, 100u);
        bad[second + 24 + w / 2] ^= 0x55;
        write("bad.gzi", bad);
        r = fd({"-d", "-k", "--import-index", "bad.gzi", "f.gz"});
        EXPECT_STATUS(r, 1);
        EXPECT_NE(r.err.find("bad.gzi: invalid index: the window of point 1"), std::string::npos) << r.err;
        EXPECT_FALSE(exists("f"));
    }
    // An index file that is not there, or cannot be written: the message names that file
    // (the data is fine).
    r = fd({"-d", "-k", "--import-index", "none.gzi", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_NE(r.err.find("none.gzi: No such file"), std::string::npos) << r.err;
    EXPECT_FALSE(exists("f"));
    r = fd({"-d", "-k", "--export-index", "no-dir/x.gzi", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_NE(r.err.find("no-dir/x.gzi"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("corrupt"), std::string::npos) << r.err;
    EXPECT_FALSE(exists("f"));
    // --range with no index beside the file.
    ::unlink(path("f.gzi").c_str());
    r = fd({"-d", "-c", "--range", "0:10", "f.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_NE(r.err.find("f.gzi: No such file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--import-index"), std::string::npos) << r.err;
    // Options that do not go together.
    EXPECT_STATUS(fd({"--export-index", "x.gzi", "f.gz", "g.gz"}), 1);
    EXPECT_STATUS(fd({"-d", "--range", "0:10", "f.gz"}), 1);
    EXPECT_STATUS(fd({"--import-index", "g.gzi", "g"}), 1);
}

TEST_F(CliIndex, DecompressionStatsSayWhoDecodedWhat) {
    ASSERT_STATUS(fd({"-k", "--index-span", "512K", "--export-index", "f.gzi", "f"}), 0);
    ASSERT_STATUS(fd({"-d", "-c", "-p2", "--stats", "p.json", "f.gz"}), 0);
    ASSERT_STATUS(fd({"-d", "-c", "-p2", "--stats", "i.json", "--import-index", "f.gzi", "f.gz"}), 0);
    ASSERT_STATUS(fd({"-d", "-c", "-p1", "--stats", "s.json", "f.gz"}), 0);
    const std::string p = read("p.json"), i = read("i.json"), one = read("s.json");
    for (const std::string* line : {&p, &i, &one}) {
        EXPECT_NE(line->find("\"decompress\":true"), std::string::npos) << *line;
        EXPECT_NE(line->find("\"out_bytes\":" + std::to_string(data_.size())), std::string::npos) << *line;
        EXPECT_EQ(line->find("\"main_line_ns\":0,"), std::string::npos) << *line;
    }
    EXPECT_NE(p.find("\"decoder\":\"parallel\""), std::string::npos) << p;
    EXPECT_NE(i.find("\"decoder\":\"indexed\""), std::string::npos) << i;
    EXPECT_NE(i.find("\"worker_bytes\":" + std::to_string(data_.size())), std::string::npos) << i;
    EXPECT_NE(one.find("\"decoder\":\"stream\""), std::string::npos) << one;
    EXPECT_NE(one.find("\"workers_ns\":0,"), std::string::npos) << one;
    // Data stored as it is (incompressible: stored blocks) goes to one thread whatever -p
    // says: workers would only copy it again.
    const std::string noise = to_string(flowdeflate::testing::random_bytes(3u << 20, 7));
    write("noise.gz", reference_compress(noise, 6));
    const Result n = fd({"-d", "-c", "-p2", "--stats", "n.json", "noise.gz"});
    ASSERT_STATUS(n, 0);
    EXPECT_TRUE(same_bytes(n.out, noise));
    EXPECT_NE(read("n.json").find("\"decoder\":\"stream\""), std::string::npos) << read("n.json");
}

}  // namespace
}  // namespace flowdeflate::testing::cli

// tests/cli/options_test.cpp - the command line's options: help, version, unknown options
// and bad values (exit 1 with a message, nothing written), combined short options, the
// long forms, -n, -q and -v.  What the options do to the output bytes is in
// output_test.cpp, to the files in files_test.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_support.hpp"

namespace flowdeflate::testing::cli {
namespace {

// ---- 13. help, version, bad options ---------------------------------------------------

TEST_F(Cli, HelpDescribesOptions) {
    for (const char* opt : {"-h", "--help"}) {
        const Result r = fd({opt});
        EXPECT_STATUS(r, 0) << " for " << opt;
        EXPECT_NE(r.out.find("-d"), std::string::npos) << opt << " does not mention -d:\n" << r.out;
        EXPECT_NE(r.out.find("--threads"), std::string::npos) << opt << " does not mention --threads:\n" << r.out;
    }
}

TEST_F(Cli, VersionPrintsSomething) {
    for (const char* opt : {"-V", "--version"}) {
        const Result r = fd({opt});
        EXPECT_STATUS(r, 0) << " for " << opt;
        EXPECT_FALSE(r.out.empty()) << opt << " printed nothing on stdout";
    }
}

TEST_F(Cli, UnknownOptionIsAnErrorWithUsage) {
    write("a.txt", "data");
    for (const char* opt : {"--bogus", "-x"}) {
        const Result r = fd({opt, "a.txt"});
        EXPECT_STATUS(r, 1) << " for " << opt;
        EXPECT_TRUE(contains_ci(r.err, "usage")) << opt << ": no usage on stderr: " << r.err;
        EXPECT_LISTING({"a.txt"});
    }
}

TEST_F(Cli, LevelThirteenIsAnError) {
    write("a.txt", "data");
    const Result r = fd({"-13", "a.txt"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a.txt"});
    EXPECT_EQ(read("a.txt"), "data");
}

TEST_F(Cli, ParallelOptionsRejectBadValues) {
    write("in.txt", text(1000, 3));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--chunk", "4095", "in.txt"}, {"--chunk", "12x", "in.txt"}, {"--ahead", "0", "in.txt"},
          {"--ring=-1", "in.txt"}, {"--ring", "2000000", "in.txt"}, {"--tracks", "some", "in.txt"},
          {"--search-concurrency", "x", "in.txt"}}) {
        const Result r = fd(args);
        EXPECT_STATUS(r, 1) << args.front();
        EXPECT_NE(r.err.find("invalid"), std::string::npos) << r.err;
    }
    EXPECT_LISTING({"in.txt"});
}

TEST_F(Cli, LevelWithTrailingCharactersIsAnInvalidLevel) {
    // libdeflate's gzip reads the rest of "-1a" as the level: its message, its status.
    REQUIRE_REFERENCE();
    write("in.txt", text(1000, 4));
    for (const std::string level : {"-1a", "-6x", "-13", "-123"}) {
        const Result r = fd({level, "-c", "in.txt"});
        const Result want = ref({level, "-c", "in.txt"});
        EXPECT_STATUS(want, 1) << level << " (reference)";
        EXPECT_STATUS(r, 1) << level;
        const std::string words = "Invalid compression level: \"" + level.substr(1) + "\"";
        EXPECT_NE(r.err.find(words), std::string::npos) << level << ": " << r.err;
        EXPECT_NE(want.err.find(words), std::string::npos) << level << " (reference): " << want.err;
        EXPECT_TRUE(r.out.empty()) << level;
    }
    EXPECT_LISTING({"in.txt"});
}

// ---- 2. combined and long options -----------------------------------------------------

TEST_F(Cli, CombinedShortOptions) {
    REQUIRE_REFERENCE();
    const std::string data = text(60'000, 16);
    write("a.txt", data);
    const Result r = fd({"-9ck", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"a.txt"});
    EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 9))) << "-9ck vs libdeflate-gzip -9 -c";
}

TEST_F(Cli, LongOptionsStdoutAndLevel) {
    REQUIRE_REFERENCE();
    const std::string data = text(60'000, 17);
    write("a.txt", data);
    const std::string want9 = reference_compress(data, 9);
    {
        const Result r = fd({"--stdout", "--level", "9", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, want9)) << "--stdout --level 9";
    }
    {
        const Result r = fd({"--level=9", "--stdout", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, want9)) << "--level=9 --stdout";
    }
    {
        const Result r = fd({"--level", "2", "-c", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(same_bytes(r.out, reference_compress(data, 2))) << "--level 2 -c";
    }
    EXPECT_LISTING({"a.txt"});
}

TEST_F(Cli, LongOptionsKeepAndForce) {
    const std::string data = text(40'000, 18);
    write("a.txt", data);
    {
        const Result r = fd({"--keep", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt", "a.txt.gz"});
    }
    write("a.txt.gz", "old contents");
    {
        const Result r = fd({"--force", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt.gz"});
        expect_gunzips("a.txt.gz", data);
    }
}

TEST_F(Cli, LongOptionsQuietAndVerbose) {
    const std::string data = text(30'000, 19);
    write("a.txt", data);
    ASSERT_EQ(mkdir(path("dir").c_str(), 0755), 0);
    {
        const Result r = fd({"--quiet", "dir"});
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(r.err.empty()) << "--quiet still printed: " << r.err;
    }
    {
        const Result r = fd({"--verbose", "--keep", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_FALSE(r.err.empty()) << "--verbose printed nothing on stderr";
        EXPECT_LISTING({"a.txt", "a.txt.gz", "dir"});
        expect_gunzips("a.txt.gz", data);
    }
}

TEST_F(Cli, LongOptionsSuffixDecompressAndTest) {
    const std::string data = text(40'000, 20);
    write("a.txt", data);
    {
        const Result r = fd({"--suffix", ".z", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt.z"});
    }
    {
        const Result r = fd({"--test", "--suffix=.z", "a.txt.z"});
        EXPECT_STATUS(r, 0);
        EXPECT_TRUE(r.out.empty());
        EXPECT_LISTING({"a.txt.z"});
    }
    {
        const Result r = fd({"--decompress", "--suffix=.z", "a.txt.z"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt"});
        if (exists("a.txt")) {
            EXPECT_TRUE(same_bytes(read("a.txt"), data));
        }
    }
    {
        const Result r = fd({"--suffix=.z", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt.z"});
    }
    {
        const Result r = fd({"--decompress", "--suffix", ".z", "a.txt.z"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt"});
        if (exists("a.txt")) {
            EXPECT_TRUE(same_bytes(read("a.txt"), data));
        }
    }
}

// ---- 14. -n, -q -----------------------------------------------------------------------

TEST_F(Cli, NoNameOptionIsAccepted) {
    const std::string data = text(40'000, 48);
    write("a.txt", data);
    const Result plain = fd({"-c", "a.txt"});
    ASSERT_STATUS(plain, 0);
    const Result n = fd({"-n", "-c", "a.txt"});
    EXPECT_STATUS(n, 0);
    EXPECT_TRUE(same_bytes(n.out, plain.out)) << "-n changed the output";
    const Result f = fd({"-n", "a.txt"});
    EXPECT_STATUS(f, 0);
    EXPECT_LISTING({"a.txt.gz"});
    if (exists("a.txt.gz")) {
        EXPECT_TRUE(same_bytes(read("a.txt.gz"), plain.out));
    }
}

TEST_F(Cli, QuietSuppressesWarnings) {
    ASSERT_EQ(mkdir(path("dir").c_str(), 0755), 0);
    const Result r = fd({"-q", "dir"});
    EXPECT_STATUS(r, 0);
    EXPECT_TRUE(r.err.empty()) << "-q still printed: " << r.err;
    EXPECT_LISTING({"dir"});
}

// ---- 17. -v ---------------------------------------------------------------------------

TEST_F(Cli, VerbosePrintsPerFileLine) {
    const std::string data = text(40'000, 51);
    write("a.txt", data);
    const Result r = fd({"-v", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_FALSE(r.err.empty()) << "-v printed nothing on stderr";
    EXPECT_LISTING({"a.txt.gz"});
    expect_gunzips("a.txt.gz", data);
}

TEST_F(Cli, VerboseReportsTheParallelGraph) {
    write("in.txt", text(300'000, 16));
    const Result r = fd({"-v", "-p2", "--chunk", "64K", "-k", "in.txt"});
    EXPECT_STATUS(r, 0);
    for (const char* word : {"parallel graph: 2 threads", "chunks", "blocks", "syncs", "repairs", "search", "resolve",
                             "code", "assemble", "resolver waited", "ring full", "search per worker"})
        EXPECT_NE(r.err.find(word), std::string::npos) << "missing '" << word << "' in: " << r.err;
}

// -v decompressing: a line per file with where the output went (OK for -t), the sizes and
// the decoder, for a file replaced, written to standard output, tested, or read from a pipe.
TEST_F(Cli, VerboseDecompressingSaysWhatItDid) {
    const std::string data = text(6'000'000, 52);  // (a .gz of more than 1 MiB: decoded on all threads)
    write("a.txt", data);
    ASSERT_EQ(fd({"-k", "a.txt"}).exit_code, 0);
    const std::string size = std::to_string(data.size());
    const Result tested = fd({"-t", "-v", "-p2", "a.txt.gz"});
    EXPECT_STATUS(tested, 0);
    for (const std::string& word : {std::string("a.txt.gz: OK ("), " -> " + size + " bytes", std::string("parallel decoder, 2 threads")})
        EXPECT_NE(tested.err.find(word), std::string::npos) << "missing '" << word << "' in: " << tested.err;
    const Result out = fd({"-d", "-c", "-v", "-p1", "a.txt.gz"});
    EXPECT_STATUS(out, 0);
    EXPECT_EQ(out.out, data);
    EXPECT_NE(out.err.find("a.txt.gz: written to standard output ("), std::string::npos) << out.err;
    EXPECT_NE(out.err.find("stream decoder, 1 thread,"), std::string::npos) << out.err;
    ASSERT_EQ(std::remove(path("a.txt").c_str()), 0);
    const Result replaced = fd({"-d", "-v", "a.txt.gz"});
    EXPECT_STATUS(replaced, 0);
    EXPECT_NE(replaced.err.find("a.txt.gz: replaced with a.txt ("), std::string::npos) << replaced.err;
    EXPECT_EQ(read("a.txt"), data);
    EXPECT_EQ(fd({"-d", "-v", "-q"}).exit_code, 1);  // (a terminal or no input: nothing to report)
}

// --stats writes a line per file whatever runs it: the graph's counters, or only the sizes
// for one compressor (it once wrote nothing there, and scripts reading the file broke).
TEST_F(Cli, StatsWriteALinePerFileOnEveryPath) {
    // Larger than a chunk at every level (a smaller file runs no graph: no node counts).
    write("in.txt", text(1'100'000, 17));
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-p2", "--chunk", "64K"}, "\"search_ns\":"},
        {{"-p2", "--chunk", "64K"}, "\"chunk_worker\":["},
        {{"-p1"}, "\"sequential\":true"},
        {{"--sequential"}, "\"sequential\":true"},
        {{"-11", "-p2"}, "\"optimiser_ns\":"},
    };
    for (const auto& [flags, word] : cases) {
        std::vector<std::string> args = flags;
        for (const char* a : {"--stats", "s.json", "-c", "in.txt"}) args.emplace_back(a);
        std::filesystem::remove(path("s.json"));
        const Result r = fd(args);
        EXPECT_STATUS(r, 0);
        const std::string json = read("s.json");
        EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1) << flags.front() << ": " << json;
        EXPECT_NE(json.find("\"in_bytes\":1100000"), std::string::npos) << flags.front() << ": " << json;
        EXPECT_NE(json.find(word), std::string::npos) << flags.front() << ": " << json;
        // The process's CPU time for the file (the scaling model's non-node part): some.
        const std::size_t cpu = json.find("\"process_cpu_ns\":");
        ASSERT_NE(cpu, std::string::npos) << json;
        EXPECT_GT(std::stoull(json.substr(cpu + 17)), 0u) << json;
    }
    // A file that fits one chunk runs no graph, whatever -p says: its line says so.
    write("small.txt", text(100'000, 18));
    std::filesystem::remove(path("s.json"));
    EXPECT_STATUS(fd({"-p2", "--stats", "s.json", "-c", "small.txt"}), 0);
    const std::string json = read("s.json");
    EXPECT_NE(json.find("\"in_bytes\":100000"), std::string::npos) << json;
    EXPECT_NE(json.find("\"direct\":true"), std::string::npos) << json;
}

// Under a cgroup CPU quota of one CPU, the default thread count is one (the sequential
// compressor), whatever the host's cores; -p2 still asks for two.  Needs a cgroup the
// test may create (root, a writable cpu controller: v2 cpu.max or v1 cpu.cfs_quota_us);
// skipped elsewhere.
TEST_F(Cli, CpuQuotaOfOneCpuSetsTheDefaultThreads) {
    namespace fs = std::filesystem;
    std::string group, quota_file, quota;
    const std::string name = "flowdeflate-test-" + std::to_string(::getpid());
    if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) {  // v2, unified
        group = "/sys/fs/cgroup/" + name, quota_file = "cpu.max", quota = "100000 100000";
    } else if (fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
        group = "/sys/fs/cgroup/cpu/" + name, quota_file = "cpu.cfs_quota_us", quota = "100000";
    } else if (fs::exists("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")) {
        group = "/sys/fs/cgroup/cpu,cpuacct/" + name, quota_file = "cpu.cfs_quota_us", quota = "100000";
    }
    std::error_code ec;
    if (group.empty() || !fs::create_directory(group, ec)) GTEST_SKIP() << "no cgroup to make here";
    struct Remove {
        std::string dir;
        ~Remove() { ::rmdir(dir.c_str()); }
    } remove{group};
    {
        std::ofstream q(group + "/" + quota_file);
        q << quota << "\n";
        q.flush();
        if (!q) GTEST_SKIP() << "cannot set a CPU quota in " << group;
    }
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: one thread either way";
    write("in.txt", text(1'100'000, 21));  // more than a chunk: the graph's decision
    for (const auto& [flags, word] : std::vector<std::pair<std::string, std::string>>{
             {"", "\"sequential\":true"}, {"-p2 ", "\"threads\":2,"}}) {
        std::filesystem::remove(path("s.json"));
        const std::string script = "echo $$ > " + group + "/cgroup.procs && exec '" + bin_ + "' " + flags +
                                   "-6 --stats s.json -c in.txt > in.txt.gz";
        const Result r = run_process("/bin/sh", {"-c", script}, dir_, {});
        EXPECT_STATUS(r, 0) << flags;
        const std::string json = read("s.json");
        EXPECT_NE(json.find(word), std::string::npos) << flags << json;
    }
}

}  // namespace
}  // namespace flowdeflate::testing::cli

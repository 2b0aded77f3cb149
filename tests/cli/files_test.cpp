// tests/cli/files_test.cpp - which files the command line creates, keeps and removes, as
// libdeflate's gzip does: FILE -> FILE.gz with its mode and mtime, -k, several files,
// existing output and -f, names already ending in the suffix, -S, and the arguments it
// skips or refuses (directories, FIFOs, hard and symbolic links, missing and unreadable
// files).  The runner and the fixture are in cli_support.hpp.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace flowdeflate::testing::cli {
namespace {

// ---- 1. FILE -> FILE.gz ---------------------------------------------------------------

TEST_F(Cli, CompressesFileToGzAndRemovesInput) {
    REQUIRE_REFERENCE();
    const std::string data = text(100'000, 11);
    write("a.txt", data);
    ASSERT_EQ(chmod(path("a.txt").c_str(), 0640), 0);
    set_old_times(path("a.txt"));
    const struct stat before = stat_of("a.txt");

    const Result r = fd({"a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_TRUE(r.out.empty()) << "wrote " << r.out.size() << " bytes to stdout";
    EXPECT_LISTING({"a.txt.gz"});
    ASSERT_TRUE(exists("a.txt.gz"));
    const struct stat after = stat_of("a.txt.gz");
    EXPECT_EQ(after.st_mode & 07777, 0640u) << std::oct << (after.st_mode & 07777);
    EXPECT_SAME_MTIME(after, before);
    // Byte-identical to libdeflate's gzip at the default level.
    EXPECT_TRUE(same_bytes(read("a.txt.gz"), reference_compress(data, 6))) << "a.txt.gz vs libdeflate-gzip -6 -c";
    expect_gunzips("a.txt.gz", data);
}

TEST_F(Cli, KeepOptionKeepsInput) {
    const std::string data = text(50'000, 12);
    write("a.txt", data);
    const Result r = fd({"-k", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"a.txt", "a.txt.gz"});
    EXPECT_TRUE(same_bytes(read("a.txt"), data)) << "input changed";
    expect_gunzips("a.txt.gz", data);
}

// ---- 3. several files -----------------------------------------------------------------

TEST_F(Cli, CompressesSeveralFiles) {
    const std::string a = text(20'000, 21), b = text(30'000, 22), c = text(1, 23);
    write("a", a);
    write("b", b);
    write("c", c);
    const Result r = fd({"a", "b", "c"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"a.gz", "b.gz", "c.gz"});
    expect_gunzips("a.gz", a);
    expect_gunzips("b.gz", b);
    expect_gunzips("c.gz", c);
}

TEST_F(Cli, MissingFileAmongSeveralStillCompressesOthers) {
    const std::string a = text(20'000, 24), b = text(30'000, 25);
    write("a", a);
    write("b", b);
    const Result r = fd({"a", "missing", "b"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a.gz", "b.gz"});
    expect_gunzips("a.gz", a);
    expect_gunzips("b.gz", b);
}

// ---- 5. existing output ---------------------------------------------------------------

// As libdeflate's gzip: a warning (exit 2) when standard input or error is not a terminal
// (gunzip_test.cpp compares with the reference, -q included).
TEST_F(Cli, ExistingOutputWithoutForceIsAWarning) {
    const std::string data = text(20'000, 28);
    write("a.txt", data);
    write("a.txt.gz", "precious");
    const Result r = fd({"a.txt"});
    EXPECT_STATUS(r, 2);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a.txt", "a.txt.gz"});
    EXPECT_TRUE(same_bytes(read("a.txt"), data)) << "input changed";
    EXPECT_EQ(read("a.txt.gz"), "precious") << "existing output changed";
}

TEST_F(Cli, ForceOverwritesExistingOutput) {
    const std::string data = text(20'000, 29);
    write("a.txt", data);
    write("a.txt.gz", "precious");
    const Result r = fd({"-f", "a.txt"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"a.txt.gz"});
    expect_gunzips("a.txt.gz", data);
}

// ---- 6. input already ending in .gz ---------------------------------------------------

TEST_F(Cli, FileWithGzSuffixIsSkipped) {
    const std::string data = text(10'000, 30);
    write("x.gz", data);
    const Result r = fd({"x.gz"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"x.gz"});
    EXPECT_TRUE(same_bytes(read("x.gz"), data));
}

TEST_F(Cli, ForceCompressesFileWithGzSuffix) {
    const std::string data = text(10'000, 31);
    write("x.gz", data);
    const Result r = fd({"-f", "x.gz"});
    EXPECT_STATUS(r, 0);
    EXPECT_LISTING({"x.gz.gz"});
    expect_gunzips("x.gz.gz", data);
}

// ---- 7. directories, FIFOs, hard and symbolic links -----------------------------------

TEST_F(Cli, DirectoryArgumentIsSkippedWithWarning) {
    ASSERT_EQ(mkdir(path("dir").c_str(), 0755), 0);
    const Result r = fd({"dir"});
    EXPECT_STATUS(r, 2);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"dir"});
}

TEST_F(Cli, FifoArgumentIsSkippedWithoutHanging) {
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0644), 0) << std::strerror(errno);
    RunOptions o;
    o.timeout_s = 5;
    const Result r = fd({"fifo"}, o);
    EXPECT_FALSE(r.timed_out) << "hung on a FIFO argument (killed after 5 s)";
    EXPECT_STATUS(r, 2);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"fifo"});
}

TEST_F(Cli, HardLinkedFileIsSkippedUnlessForceOrKeep) {
    const std::string data = text(20'000, 32);
    write("a", data);
    ASSERT_EQ(link(path("a").c_str(), path("b").c_str()), 0) << std::strerror(errno);
    {
        const Result r = fd({"a"});
        EXPECT_STATUS(r, 2);
        EXPECT_FALSE(r.err.empty());
        EXPECT_LISTING({"a", "b"});
        EXPECT_TRUE(same_bytes(read("a"), data));
    }
    {
        const Result r = fd({"-k", "a"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a", "a.gz", "b"});
        expect_gunzips("a.gz", data);
        ASSERT_EQ(unlink(path("a.gz").c_str()), 0);
    }
    {
        const Result r = fd({"-f", "a"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.gz", "b"});
        EXPECT_TRUE(same_bytes(read("b"), data)) << "the other link changed";
        expect_gunzips("a.gz", data);
    }
}

// As libdeflate's gzip: a symbolic link is refused (exit 1, nothing written) unless -f or
// -c, and then followed.
TEST_F(Cli, SymbolicLinksAreFollowedOnlyWithForceOrStdout) {
    REQUIRE_REFERENCE();
    write("real.txt", text(10'000, 42));
    ASSERT_EQ(symlink("real.txt", path("link.txt").c_str()), 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-k", "link.txt"}, {"-f", "-k", "link.txt"}, {"-c", "link.txt"}}) {
        const Result theirs = ref(args);
        const std::vector<std::string> after_theirs = listing();
        const std::string theirs_gz = exists("link.txt.gz") ? read("link.txt.gz") : "";
        unlink(path("link.txt.gz").c_str());
        const Result ours = fd(args);
        EXPECT_TRUE(ours.exited && theirs.exited && ours.exit_code == theirs.exit_code)
            << args[0] << ": ours " << ours.describe() << "; reference " << theirs.describe();
        EXPECT_EQ(listing(), after_theirs) << args[0];
        EXPECT_EQ(exists("link.txt.gz") ? read("link.txt.gz") : "", theirs_gz) << args[0];
        EXPECT_TRUE(same_bytes(ours.out, theirs.out)) << args[0];
        unlink(path("link.txt.gz").c_str());
    }
}

// ---- 8. unreadable input --------------------------------------------------------------

TEST_F(Cli, MissingInputFileIsAnError) {
    const Result r = fd({"nonexistent"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({});
}

TEST_F(Cli, UnreadableInputFileIsAnError) {
    if (geteuid() == 0) GTEST_SKIP() << "running as root: a mode-000 file is still readable";
    const std::string data = text(1000, 33);
    write("a", data);
    ASSERT_EQ(chmod(path("a").c_str(), 0), 0);
    const Result r = fd({"a"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a"});
}

// ---- 9. -S ----------------------------------------------------------------------------

TEST_F(Cli, CustomSuffixCompressesAndDecompresses) {
    const std::string data = text(30'000, 34);
    write("a.txt", data);
    {
        const Result r = fd({"-S", ".z", "a.txt"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt.z"});
    }
    {
        const Result r = fd({"-d", "-S", ".z", "a.txt.z"});
        EXPECT_STATUS(r, 0);
        EXPECT_LISTING({"a.txt"});
        if (exists("a.txt")) {
            EXPECT_TRUE(same_bytes(read("a.txt"), data));
        }
    }
}

TEST_F(Cli, EmptySuffixIsAnError) {
    const std::string data = text(1000, 35);
    write("a.txt", data);
    ASSERT_STATUS(fd({"-S", ".z", "-c", "a.txt"}), 0) << " (-S must be accepted with a non-empty suffix)";
    const Result r = fd({"-S", "", "a.txt"});
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a.txt"});
    EXPECT_TRUE(same_bytes(read("a.txt"), data));
}

}  // namespace
}  // namespace flowdeflate::testing::cli

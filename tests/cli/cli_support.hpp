// tests/cli/cli_support.hpp - what the command-line tests share: a process runner and the
// Cli fixture.  The tests run the flowdeflate command line as a separate process, as a
// drop-in for libdeflate's `gzip` program, and compare with what the reference program does.
//
// The binary under test is $FLOWDEFLATE_BINARY (ctest sets it); without it every test is
// skipped.  The reference program is libdeflate-gzip next to the reference library
// (build/reference/, see scripts/setup), or $FLOWDEFLATE_REFERENCE_GZIP.
//
// Every test runs in its own fresh temporary directory (the child's working directory, so
// file arguments are plain names) that is removed afterwards.  No test depends on the
// wording of a message: they check exit status, files present or absent, file contents,
// modes and times, and that stderr is non-empty for errors and warnings.  Every child runs
// under a timeout after which it is killed, so no test can hang.
//
// The fixture lives in a named namespace, not an anonymous one, because GoogleTest requires
// every test of a suite to use the same fixture class, and the Cli tests are spread over
// several files by concern.
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace flowdeflate::testing::cli {

namespace fs = std::filesystem;

// ---- process runner -------------------------------------------------------------------

enum class Stdin { null, file, bytes };

struct RunOptions {
    Stdin in = Stdin::null;
    std::string in_file;    // Stdin::file: path (absolute, or relative to the test's cwd)
    std::string in_bytes;   // Stdin::bytes: fed through a pipe, then the pipe is closed
    int stdout_fd = -1;     // >= 0: the child's stdout is this fd (a pty, /dev/full), not a pipe
    double timeout_s = 30;  // the child is killed with SIGKILL after this
    int signal = 0;         // sent to the child signal_after_ms after it started, if nonzero
    int signal_after_ms = 0;
    std::vector<std::string> env;  // NAME=value entries added to (or replacing) the environment
    long limit_as_mib = 0;         // > 0: RLIMIT_AS of the child (ulimit -v)
    long limit_nofile = 0;         // > 0: RLIMIT_NOFILE of the child (ulimit -n)
};

struct Result {
    bool started = false;
    bool exited = false;       // exited normally (exit_code valid)
    int exit_code = -1;
    int term_signal = 0;       // killed by this signal
    bool timed_out = false;    // we killed it at the timeout
    bool signal_sent = false;  // RunOptions::signal was delivered before the child ended
    double exit_after_signal_s = -1;  // seconds between sending the signal and the exit
    long max_rss_kib = -1;            // the child's peak resident set size (wait4's ru_maxrss)
    std::string out, err;
    std::string command;

    bool ok(int code) const { return started && exited && !timed_out && exit_code == code; }
    std::string describe() const;
};

// Runs @p program with @p args in the directory @p cwd, feeding and collecting its standard
// streams as @p o says, until it exits or its timeout kills it.
Result run_process(const std::string& program, const std::vector<std::string>& args, const std::string& cwd,
                   const RunOptions& o);

// ---- helpers --------------------------------------------------------------------------

std::string to_string(const std::vector<std::uint8_t>& v);

std::string text(std::size_t n, std::uint64_t seed = 1);

// Equality of (possibly large) byte strings without printing them.
::testing::AssertionResult same_bytes(const std::string& got, const std::string& want);

bool contains_ci(std::string_view hay, std::string_view needle);

// Standard error without the program's name at the head of each line ("gunzip: ",
// "libdeflate-gzip: "), for comparing the words of the messages.
std::string messages(const std::string& err);

// "-L".
std::string level_option(int level);

std::string reference_gzip_path();

// An old, distinctive mtime (2001-09-09 01:46:40.5 UTC) and atime.
void set_old_times(const std::string& p, time_t sec = 1000000000);

#define EXPECT_STATUS(res, code) EXPECT_TRUE((res).ok(code)) << "expected exit status " << (code) << ": " << (res).describe()
#define ASSERT_STATUS(res, code) ASSERT_TRUE((res).ok(code)) << "expected exit status " << (code) << ": " << (res).describe()

#define EXPECT_SAME_MTIME(a, b)                                                                               \
    do {                                                                                                      \
        EXPECT_EQ((a).st_mtim.tv_sec, (b).st_mtim.tv_sec) << "mtime seconds";                                 \
        EXPECT_EQ((a).st_mtim.tv_nsec, (b).st_mtim.tv_nsec) << "mtime nanoseconds";                           \
    } while (0)

// ---- the fixture ----------------------------------------------------------------------

class Cli : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // Runs flowdeflate (in the test directory).
    Result fd(const std::vector<std::string>& args, const RunOptions& o = {}) const {
        return run_process(bin_, args, dir_, o);
    }
    // Runs the reference libdeflate-gzip (in the test directory).
    Result ref(const std::vector<std::string>& args, const RunOptions& o = {}) const {
        return run_process(ref_, args, dir_, o);
    }
    bool have_reference() const;

    std::string path(const std::string& name) const { return dir_ + "/" + name; }
    void write(const std::string& name, const std::string& data) const;
    std::string read(const std::string& name) const;
    bool exists(const std::string& name) const;
    struct stat stat_of(const std::string& name) const;
    // Sorted names of the entries in the test directory.
    std::vector<std::string> listing() const;
    static std::string join(const std::vector<std::string>& v);

    // The gzip file `name` decompresses to `original` with flowdeflate -d -c and with the
    // reference's -d -c; neither removes it.
    void expect_gunzips(const std::string& name, const std::string& original) const;
    // The gzip bytes `gz` decompress to `original` (both decompressors, through stdin).
    void expect_gunzips_bytes(const std::string& gz, const std::string& original) const;
    // The reference's `-L -c` output of the bytes `data` (through stdin; libdeflate's gzip
    // writes the same bytes for a file and for stdin: MTIME is 0 either way).
    std::string reference_compress(const std::string& data, int level) const;

    std::string bin_, ref_, dir_;
};

// In a Cli test: fails it unless the reference program is there.
#define REQUIRE_REFERENCE()                                                                                   \
    ASSERT_TRUE(have_reference()) << "reference gzip program not found at " << ref_                           \
                                  << " (run scripts/setup, or set FLOWDEFLATE_REFERENCE_GZIP)"

// In a Cli test: the test directory holds exactly these names.
#define EXPECT_LISTING(...)                                                                                   \
    do {                                                                                                      \
        std::vector<std::string> want_ = __VA_ARGS__;                                                         \
        std::sort(want_.begin(), want_.end());                                                                \
        EXPECT_EQ(listing(), want_) << "directory holds " << join(listing()) << ", expected " << join(want_); \
    } while (0)

}  // namespace flowdeflate::testing::cli

// tests/cli/faults_test.cpp - the command line when the world is hostile: short and
// interrupted I/O (the LD_PRELOAD shim tests/fault/fault_inject.c), no threads, resource
// limits, a closed pipe, a full device or a terminal on stdout, SIGINT and SIGTERM midway,
// an input file truncated under the parallel decoder's mapping.
// Each ends in the reference's bytes or a clear error, never a hang, a crash or a partial
// file left behind.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "support/sanitizers.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::testing::cli {
namespace {

// ---- faults --------------------------------------------------------------------------

// Every read, pread and write may fail with EINTR or move fewer bytes (an LD_PRELOAD shim,
// tests/fault/fault_inject.c): the output is still the reference's, byte for byte, from
// files and pipes, for both graphs and for decompression.
TEST_F(Cli, ShortAndInterruptedIoStillGiveTheReferenceBytes) {
    const char* lib = std::getenv("FLOWDEFLATE_FAULT_LIB");
    if (!lib || !*lib) GTEST_SKIP() << "FLOWDEFLATE_FAULT_LIB is not set (ctest sets it; not in sanitizer builds)";
    REQUIRE_REFERENCE();
    const std::string data = text(3'000'000, 31);
    write("in.txt", data);
    const Result want6 = ref({"-6", "-c", "in.txt"}), want1 = ref({"-1", "-c", "in.txt"});
    ASSERT_STATUS(want6, 0);
    ASSERT_STATUS(want1, 0);
    std::size_t seed = 0;
    for (const char* faults : {"eintr", "short", "eintr,short"}) {
        RunOptions o;
        o.env = {std::string("LD_PRELOAD=") + lib, std::string("FLOWDEFLATE_FAULTS=") + faults,
                 "FLOWDEFLATE_FAULT_REPORT=" + path("report"), "FLOWDEFLATE_FAULT_SEED=" + std::to_string(++seed)};
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"-6", "-c", "in.txt"}, {"-6", "-p2", "--chunk", "64K", "-c", "in.txt"},
              {"-6", "-p3", "--chunk", "4K", "--ahead", "1", "--ring", "1", "-c", "in.txt"}}) {
            const Result r = fd(args, o);
            EXPECT_STATUS(r, 0) << faults;
            EXPECT_TRUE(same_bytes(r.out, want6.out)) << faults << " " << args[1];
        }
        const Result seq = fd({"--sequential", "-1", "-c", "in.txt"}, o);
        EXPECT_STATUS(seq, 0) << faults;
        EXPECT_TRUE(same_bytes(seq.out, want1.out)) << faults << " sequential";
        RunOptions piped = o;
        piped.in = Stdin::bytes;
        piped.in_bytes = data;
        const Result from_pipe = fd({"-6"}, piped);
        EXPECT_STATUS(from_pipe, 0) << faults;
        EXPECT_TRUE(same_bytes(from_pipe.out, want6.out)) << faults << " pipe";
        // To a file, and back.
        EXPECT_STATUS(fd({"-6", "-k", "-f", "in.txt"}, o), 0) << faults;
        EXPECT_TRUE(same_bytes(read("in.txt.gz"), want6.out)) << faults << " file";
        const Result back = fd({"-d", "-c", "in.txt.gz"}, o);
        EXPECT_STATUS(back, 0) << faults;
        EXPECT_TRUE(same_bytes(back.out, data)) << faults << " decompressed";
    }
    // The shim really was there and did something.
    std::size_t total = 0;
    for (std::size_t pos = 0, n; (n = read("report").find('\n', pos)) != std::string::npos; pos = n + 1)
        total += std::stoul(read("report").substr(pos, n - pos));
    EXPECT_GT(total, 20u) << "no faults were injected: is LD_PRELOAD working?";
}

// No threads can be made: a clear error and exit 1, no crash, no hang, nothing left behind.
// (The input is larger than a chunk: a smaller file makes no thread, as the next test shows.)
TEST_F(Cli, ThreadCreationFailureIsAnErrorNotACrash) {
    const char* lib = std::getenv("FLOWDEFLATE_FAULT_LIB");
    if (!lib || !*lib) GTEST_SKIP() << "FLOWDEFLATE_FAULT_LIB is not set";
    write("in.txt", text(1'500'000, 32));
    RunOptions o;
    o.env = {std::string("LD_PRELOAD=") + lib, "FLOWDEFLATE_FAULTS=nothread"};
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-6", "in.txt"}, {"--sequential", "-6", "in.txt"}, {"-12", "in.txt"}}) {
        const Result r = fd(args, o);
        EXPECT_STATUS(r, 1) << args[0];
        EXPECT_FALSE(r.err.empty());
        EXPECT_LISTING({"in.txt"});
    }
}

// A regular file that fits one chunk (1 MiB; 512 KiB at levels 10-12) is compressed on the
// main thread, with no arena and no I/O threads: where no thread can be made it still gets
// the reference's bytes, from a path, from standard input redirected from the file, and as
// several files in one command; so is a pipe that ends within a chunk.
TEST_F(Cli, SmallFilesAreCompressedWithoutThreads) {
    const char* lib = std::getenv("FLOWDEFLATE_FAULT_LIB");
    if (!lib || !*lib) GTEST_SKIP() << "FLOWDEFLATE_FAULT_LIB is not set";
    REQUIRE_REFERENCE();
    RunOptions o;
    o.env = {std::string("LD_PRELOAD=") + lib, "FLOWDEFLATE_FAULTS=nothread"};
    const std::string small = text(1u << 19, 34), chunk = text(1u << 20, 35);
    write("small.txt", small);
    write("chunk.txt", chunk);
    for (int level : {1, 6, 9, 12}) {
        const std::string want = reference_compress(small, level);
        const Result r = fd({level_option(level), "-p2", "-c", "small.txt"}, o);
        EXPECT_STATUS(r, 0) << level;
        EXPECT_TRUE(same_bytes(r.out, want)) << level;
        RunOptions redirected = o;
        redirected.in = Stdin::file;
        redirected.in_file = path("small.txt");
        const Result from_stdin = fd({level_option(level), "-c"}, redirected);
        EXPECT_STATUS(from_stdin, 0) << level;
        EXPECT_TRUE(same_bytes(from_stdin.out, want)) << level << " stdin";
    }
    // A pipe that ends within a chunk too.
    RunOptions piped = o;
    piped.in = Stdin::bytes;
    piped.in_bytes = small;
    const Result from_pipe = fd({"-6", "-c"}, piped);
    EXPECT_STATUS(from_pipe, 0);
    EXPECT_TRUE(same_bytes(from_pipe.out, reference_compress(small, 6))) << "pipe";
    const Result whole_chunk = fd({"-6", "-c", "chunk.txt"}, o);
    EXPECT_STATUS(whole_chunk, 0);
    EXPECT_TRUE(same_bytes(whole_chunk.out, reference_compress(chunk, 6)));
    EXPECT_STATUS(fd({"-6", "-k", "small.txt", "chunk.txt"}, o), 0);
    EXPECT_TRUE(same_bytes(read("small.txt.gz"), reference_compress(small, 6)));
    EXPECT_TRUE(same_bytes(read("chunk.txt.gz"), reference_compress(chunk, 6)));
    // One byte past the chunk goes to the graph, which needs its threads.
    write("more.txt", chunk + "x");
    EXPECT_STATUS(fd({"-6", "-c", "more.txt"}, o), 1);
}

// A gzip file of 1 MiB or more is decoded from a mapping, on one thread or several.  If
// another process truncates it meanwhile (the shim cuts it to half its size right after the
// mapping), reading it faults: the program dies of SIGBUS, as libdeflate's gzip (which maps
// its input too) does, but it says why and leaves no output file behind.
TEST_F(Cli, InputShrinkingUnderAMappingLeavesNoOutput) {
    const char* lib = std::getenv("FLOWDEFLATE_FAULT_LIB");
    if (!lib || !*lib) GTEST_SKIP() << "FLOWDEFLATE_FAULT_LIB is not set";
    const std::string gz = reference_compress(text(6'000'000, 33), 1);
    ASSERT_GT(gz.size(), std::size_t(1) << 20) << "too small to be mapped";
    RunOptions o;
    o.env = {std::string("LD_PRELOAD=") + lib, "FLOWDEFLATE_FAULTS=shrink"};
    for (const char* threads : {"-p1", "-p2"}) {
        write("big.gz", gz);
        const Result r = fd({"-d", threads, "big.gz"}, o);
        EXPECT_EQ(r.term_signal, SIGBUS) << threads << ": " << r.describe();
        EXPECT_NE(r.err.find("changed size while it was being read"), std::string::npos) << threads << ": " << r.err;
        EXPECT_LISTING({"big.gz"});
    }
}

// ulimit -v and ulimit -n: whatever the limit, either the right output or a clear error
// (exit 1) with nothing left behind; never a signal or a hang.
TEST_F(Cli, ResourceLimitsGiveAnErrorOrTheRightOutput) {
    REQUIRE_REFERENCE();
    const std::string data = text(2'000'000, 33);
    write("in.txt", data);
    const Result want = ref({"-6", "-c", "in.txt"});
    const auto check = [&](const RunOptions& o, const std::string& what) {
        const Result r = fd({"-6", "-k", "-f", "in.txt"}, o);
        ASSERT_TRUE(r.started && !r.timed_out && r.exited) << what << ": " << r.describe();
        if (r.exit_code == 0) {
            EXPECT_TRUE(same_bytes(read("in.txt.gz"), want.out)) << what;
            ASSERT_EQ(unlink(path("in.txt.gz").c_str()), 0);
        } else {
            EXPECT_EQ(r.exit_code, 1) << what << ": " << r.describe();
            EXPECT_FALSE(r.err.empty()) << what;
        }
        EXPECT_LISTING({"in.txt"});
        EXPECT_EQ(read("in.txt"), data) << what << ": input untouched";
    };
#if !FLOWDEFLATE_SANITIZED  // (their shadow memory needs terabytes)
    for (const long mib : {16L, 24L, 32L, 40L, 48L, 64L, 256L}) {
        RunOptions o;
        o.limit_as_mib = mib;
        check(o, "ulimit -v " + std::to_string(mib) + " MiB");
    }
#endif
    // (Below 5 the dynamic loader itself cannot start the program.)
    for (const long files : {5L, 6L, 7L, 8L, 12L}) {
        RunOptions o;
        o.limit_nofile = files;
        check(o, "ulimit -n " + std::to_string(files));
    }
}

// flowdeflate -c big | head -c 10: the reader goes away.  We end at once (SIGPIPE, as gzip,
// or exit 1 on EPIPE), leave no file behind, and never hang.
TEST_F(Cli, ClosedPipeOnStdoutEndsPromptly) {
    write("big.txt", text(20'000'000, 34));
    for (const char* graph : {"-p2", "--sequential"}) {
        int p[2];
        ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
        close(p[0]);  // nobody will ever read
        RunOptions o;
        o.stdout_fd = p[1];
        o.timeout_s = 60;
        const Result r = fd({graph, "-6", "-c", "big.txt"}, o);
        close(p[1]);
        ASSERT_TRUE(r.started && !r.timed_out) << graph << ": " << r.describe();
        EXPECT_TRUE(r.term_signal == SIGPIPE || (r.exited && r.exit_code == 1)) << graph << ": " << r.describe();
        EXPECT_LISTING({"big.txt"});
    }
}

// ---- 15. write errors -----------------------------------------------------------------

TEST_F(Cli, WriteErrorOnStdoutIsAnError) {
    const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0) GTEST_SKIP() << "no /dev/full";
    const std::string data = text(200'000, 50);
    write("a.txt", data);
    RunOptions o;
    o.stdout_fd = full;
    const Result r = fd({"-c", "a.txt"}, o);
    EXPECT_STATUS(r, 1);
    EXPECT_FALSE(r.err.empty());
    EXPECT_LISTING({"a.txt"});
    EXPECT_TRUE(same_bytes(read("a.txt"), data));
    // In libdeflate gzip's words ("Error writing to standard output: No space left on
    // device"), from a file and from standard input, both graphs.
    if (have_reference()) {
        RunOptions piped = o;
        piped.in = Stdin::file;
        piped.in_file = "a.txt";
        // (A file within a chunk is compressed on the main thread; --chunk 64K sends it
        // through the parallel graph and the sequential one.)
        for (const std::vector<std::string>& extra :
             {std::vector<std::string>{}, {"--chunk", "64K"}, {"--sequential", "--chunk", "64K"}}) {
            std::vector<std::string> args = extra, stdin_args = extra;
            args.insert(args.end(), {"-c", "a.txt"});
            stdin_args.push_back("-c");
            EXPECT_EQ(messages(fd(args, o).err), messages(ref({"-c", "a.txt"}, o).err)) << join(args);
            EXPECT_EQ(messages(fd(stdin_args, piped).err), messages(ref({"-c"}, piped).err)) << join(stdin_args);
        }
    }
    close(full);
}

// ---- 12. terminals --------------------------------------------------------------------

struct Pty {
    int master = -1, slave = -1;
    ~Pty() {
        if (slave >= 0) close(slave);
        if (master >= 0) close(master);
    }
    bool open_pair() {
        master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return false;
        const char* name = ptsname(master);
        if (name == nullptr) return false;
        slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0) return false;
        termios t{};
        if (tcgetattr(slave, &t) == 0) {
            cfmakeraw(&t);
            tcsetattr(slave, TCSANOW, &t);
        }
        fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
        return true;
    }
    // What has been written to the terminal so far (the slave stays open here, so the
    // data stays readable after the child has gone).
    std::string drain() const {
        std::string s;
        char buf[4096];
        ssize_t got;
        while ((got = read(master, buf, sizeof buf)) > 0) s.append(buf, std::size_t(got));
        return s;
    }
};

TEST_F(Cli, RefusesToWriteCompressedDataToTerminal) {
    Pty pty;
    if (!pty.open_pair()) GTEST_SKIP() << "cannot create a pseudo-terminal: " << std::strerror(errno);
    const std::string data = text(5'000, 47);
    write("a.txt", data);
    RunOptions o;
    o.stdout_fd = pty.slave;
    o.timeout_s = 10;
    {
        const Result r = fd({"-c", "a.txt"}, o);
        EXPECT_STATUS(r, 1);
        EXPECT_FALSE(r.err.empty());
        EXPECT_TRUE(pty.drain().empty()) << "-c FILE wrote to the terminal";
        EXPECT_LISTING({"a.txt"});
        EXPECT_TRUE(same_bytes(read("a.txt"), data));
    }
    {
        RunOptions s = o;
        s.in = Stdin::bytes;
        s.in_bytes = data;
        const Result r = fd({}, s);
        EXPECT_STATUS(r, 1);
        EXPECT_FALSE(r.err.empty());
        EXPECT_TRUE(pty.drain().empty()) << "stdin -> terminal wrote to the terminal";
    }
    {
        // -f allows it.
        RunOptions s = o;
        s.in = Stdin::bytes;
        s.in_bytes = "hello\n";
        const Result r = fd({"-f"}, s);
        EXPECT_STATUS(r, 0);
        EXPECT_FALSE(pty.drain().empty()) << "-f wrote nothing to the terminal";
    }
    EXPECT_LISTING({"a.txt"});
}

// ---- 16. signals leave no partial output ----------------------------------------------

constexpr std::size_t kBlock = 1 << 20;
constexpr std::size_t kBlocks = 200;  // 200 MiB

// Block i of the big input: one random 1 MiB block with i in its first 8 bytes.
void big_block(const std::string& base, std::size_t i, std::string& out) {
    out = base;
    std::memcpy(out.data(), &i, sizeof i);
}

void signal_test(const std::string& dir, const std::string& bin, int sig) {
    const std::string file = dir + "/big";
    const std::string base = to_string(flowdeflate::testing::random_bytes(kBlock, 99));
    {
        const int f = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ASSERT_GE(f, 0);
        std::string blk;
        for (std::size_t i = 0; i < kBlocks; ++i) {
            big_block(base, i, blk);
            ASSERT_EQ(::write(f, blk.data(), blk.size()), ssize_t(blk.size())) << std::strerror(errno);
        }
        ASSERT_EQ(close(f), 0);
    }
    RunOptions o;
    o.signal = sig;
    o.signal_after_ms = 300;
    o.timeout_s = 0.3 + 15;
    const Result r = run_process(bin, {"-9", "big"}, dir, o);
    if (!r.signal_sent && r.ok(0))
        GTEST_SKIP() << "compressed 200 MiB in under 300 ms: cannot interrupt it";
    ASSERT_TRUE(r.signal_sent) << r.describe();
    EXPECT_FALSE(r.timed_out) << "did not exit within 15 s of " << strsignal(sig) << ": " << r.describe();
    EXPECT_TRUE(r.term_signal != 0 || (r.exited && r.exit_code != 0))
        << "expected death by signal or a non-zero exit: " << r.describe();
    EXPECT_GE(r.exit_after_signal_s, 0.0);
    EXPECT_LE(r.exit_after_signal_s, 5.0) << "took " << r.exit_after_signal_s << " s to exit after the signal";

    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    for (const auto& n : names) EXPECT_EQ(n, "big") << "left behind after " << strsignal(sig);

    // The input is untouched: same size, same bytes.
    struct stat st {};
    ASSERT_EQ(stat(file.c_str(), &st), 0) << "input removed after " << strsignal(sig);
    EXPECT_EQ(std::size_t(st.st_size), kBlock * kBlocks);
    const int f = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(f, 0);
    std::string blk, got(kBlock, '\0');
    bool same = true;
    for (std::size_t i = 0; i < kBlocks && same; ++i) {
        big_block(base, i, blk);
        std::size_t off = 0;
        while (off < kBlock) {
            const ssize_t n = ::read(f, got.data() + off, kBlock - off);
            if (n <= 0) break;
            off += std::size_t(n);
        }
        same = off == kBlock && got == blk;
        EXPECT_TRUE(same) << "input differs in MiB " << i;
    }
    close(f);
}

TEST_F(Cli, InterruptLeavesNoPartialOutput) { signal_test(dir_, bin_, SIGINT); }

TEST_F(Cli, TerminateLeavesNoPartialOutput) { signal_test(dir_, bin_, SIGTERM); }

}  // namespace
}  // namespace flowdeflate::testing::cli

// tests/cli/gunzip_test.cpp - flowdeflate as libdeflate's gzip and gunzip, side by side
// with the reference program: run as `gunzip` or `flowdeflate-gunzip` it decompresses; a
// NAME that does not exist means NAME.gz; an existing output without -f is a warning
// (exit 2, silent with -q); setuid and setgid are not restored; -f -c passes data that is
// not gzip through; and the messages are libdeflate's, word for word, after the program
// name.
//
// The reference runs as `libdeflate-gzip -d` where ours runs as `gunzip`: libdeflate's
// gunzip is its gzip with -d, and the name only changes the messages' first word, which
// the comparisons leave out.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <tuple>
#include <utility>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace flowdeflate::testing::cli {
namespace {

enum class Mode { compress, decompress };

// Cli, with links named gunzip and flowdeflate-gunzip to the binary under test in a
// directory of their own (the test directory holds only the files a test makes).
class CliGunzip : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        links_ = dir_ + ".links";
        ASSERT_EQ(mkdir(links_.c_str(), 0700), 0) << links_ << ": " << std::strerror(errno);
        for (const char* name : {"gunzip", "flowdeflate-gunzip"})
            ASSERT_EQ(symlink(bin_.c_str(), (links_ + "/" + name).c_str()), 0) << name << ": " << std::strerror(errno);
    }
    void TearDown() override {
        if (!links_.empty()) {
            std::error_code ec;
            fs::remove_all(links_, ec);
        }
        Cli::TearDown();
    }

    // Runs the binary under test through the link @p name.
    Result as(const std::string& name, const std::vector<std::string>& args, const RunOptions& o = {}) const {
        return run_process(links_ + "/" + name, args, dir_, o);
    }
    Result gunzip(const std::vector<std::string>& args, const RunOptions& o = {}) const { return as("gunzip", args, o); }
    // The reference's gunzip: its gzip with -d first.
    Result ref_gunzip(std::vector<std::string> args, const RunOptions& o = {}) const {
        args.insert(args.begin(), "-d");
        return ref(args, o);
    }

    // Runs @p args once with the reference and once with ours (as gunzip for
    // Mode::decompress), each in the state @p prepare makes in an emptied test directory,
    // and expects the same exit status, files, standard output and messages.  @p kept
    // names a file whose contents must be the same afterwards too.
    void expect_same_outcome(const std::function<void()>& prepare, Mode mode, const std::vector<std::string>& args,
                             const std::string& kept = "") const {
        struct Outcome {
            Result result;
            std::vector<std::string> files;
            std::string kept;
        };
        auto run = [&](bool reference) {
            clear();
            prepare();
            Outcome o;
            o.result = invoke(reference, mode, args);
            o.files = listing();
            if (!kept.empty() && exists(kept)) o.kept = read(kept);
            return o;
        };
        const Outcome theirs = run(true);
        const Outcome ours = run(false);
        const std::string what = (mode == Mode::decompress ? "gunzip " : "gzip ") + join(args);
        EXPECT_TRUE(ours.result.exited && theirs.result.exited) << what;
        EXPECT_EQ(ours.result.exit_code, theirs.result.exit_code)
            << what << "\nours: " << ours.result.describe() << "\ntheirs: " << theirs.result.describe();
        EXPECT_EQ(join(ours.files), join(theirs.files)) << what;
        EXPECT_TRUE(same_bytes(ours.result.out, theirs.result.out)) << what;
        EXPECT_EQ(messages(ours.result.err), messages(theirs.result.err)) << what;
        EXPECT_EQ(ours.kept, theirs.kept) << what << ": " << kept << " afterwards";
    }

    // Runs the reference (its gzip, with -d for Mode::decompress) or ours (flowdeflate, or
    // gunzip for Mode::decompress) with @p args, as run_as_ says when it is set.
    Result invoke(bool reference, Mode mode, std::vector<std::string> args) const {
        if (reference && mode == Mode::decompress) args.insert(args.begin(), "-d");
        const std::string program = reference ? ref_ : mode == Mode::decompress ? links_ + "/gunzip" : bin_;
        if (run_as_.empty()) return run_process(program, args, dir_, {});
        std::vector<std::string> full(run_as_.begin() + 1, run_as_.end());
        full.push_back(program);
        full.insert(full.end(), args.begin(), args.end());
        return run_process(run_as_[0], full, dir_, {});
    }

    // Empties the test directory.
    void clear() const {
        for (const auto& f : listing()) fs::remove_all(path(f));
    }

    // The gzip file `name` holding `data`, as the reference writes it.
    void write_gz(const std::string& name, const std::string& data) const { write(name, reference_compress(data, 6)); }

    std::string links_;
    std::vector<std::string> run_as_;  ///< a command that runs the programs (setpriv ...)
};

// ---- the name -------------------------------------------------------------------------

TEST_F(CliGunzip, RunAsGunzipDecompresses) {
    REQUIRE_REFERENCE();
    const std::string data = text(50'000, 61);
    for (const char* name : {"gunzip", "flowdeflate-gunzip"}) {
        write_gz("a.txt.gz", data);
        const Result r = as(name, {"a.txt.gz"});
        EXPECT_STATUS(r, 0) << name;
        EXPECT_TRUE(r.err.empty()) << name << ": " << r.err;
        EXPECT_LISTING({"a.txt"});
        if (exists("a.txt")) {
            EXPECT_TRUE(same_bytes(read("a.txt"), data)) << name;
        }
        clear();
    }
}

TEST_F(CliGunzip, RunAsFlowdeflateCompresses) {
    // Only the two gunzip names decompress: flowdeflate itself still compresses.
    const std::string data = text(5'000, 62);
    write("a.txt", data);
    EXPECT_STATUS(fd({"a.txt"}), 0);
    EXPECT_LISTING({"a.txt.gz"});
}

// ---- NAME means NAME.gz when NAME does not exist --------------------------------------

TEST_F(CliGunzip, MissingNameTriesSuffixLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(30'000, 63);
    const std::vector<std::vector<std::string>> cases = {{"a"}, {"-c", "a"}, {"-t", "a"}, {"-k", "a"}, {"nothere"}};
    for (const auto& args : cases) expect_same_outcome([&] { write_gz("a.gz", data); }, Mode::decompress, args);
    // And what the two did is what gunzip should do: a.gz became a.
    clear();
    write_gz("a.gz", data);
    EXPECT_STATUS(gunzip({"a"}), 0);
    EXPECT_LISTING({"a"});
    EXPECT_TRUE(same_bytes(read("a"), data));
}

// ---- an existing output ----------------------------------------------------------------

TEST_F(CliGunzip, ExistingOutputIsAWarningLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(20'000, 64);
    const std::vector<std::vector<std::string>> cases = {{"a.gz"}, {"-q", "a.gz"}, {"-k", "a.gz"}, {"-f", "a.gz"}};
    auto prepare = [&] {
        write_gz("a.gz", data);
        write("a", "precious");
    };
    for (const auto& args : cases) expect_same_outcome(prepare, Mode::decompress, args, "a");
    // Without -f: exit 2, both files as they were; -q: exit 0 and nothing said.
    clear();
    write_gz("a.gz", data);
    write("a", "precious");
    const Result warned = gunzip({"a.gz"});
    EXPECT_STATUS(warned, 2);
    EXPECT_FALSE(warned.err.empty());
    EXPECT_EQ(read("a"), "precious");
    const Result quiet = gunzip({"-q", "a.gz"});
    EXPECT_STATUS(quiet, 0);
    EXPECT_TRUE(quiet.err.empty()) << quiet.err;
    EXPECT_EQ(read("a"), "precious");
}

TEST_F(CliGunzip, ExistingCompressedOutputIsAWarningLikeReference) {
    REQUIRE_REFERENCE();
    auto prepare = [&] {
        write("a", text(10'000, 65));
        write("a.gz", "precious");
    };
    expect_same_outcome(prepare, Mode::compress, {"a"}, "a.gz");
    expect_same_outcome(prepare, Mode::compress, {"-q", "a"}, "a.gz");
    prepare();
    EXPECT_STATUS(fd({"a"}), 2);
    EXPECT_EQ(read("a.gz"), "precious");
}

// Runs @p program with @p args in @p cwd with standard input and standard error on a new
// terminal (a pty) and standard output on /dev/null, @p answer already typed on the
// terminal.  Returns the exit status (-1: did not exit within 30 s, then killed) and
// what was shown on the terminal.
std::pair<int, std::string> run_on_terminal(const std::string& program, const std::vector<std::string>& args,
                                            const std::string& cwd, const std::string& answer) {
    const int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return {-1, "no pty"};
    const std::string slave = ptsname(master);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        setsid();
        const int tty = open(slave.c_str(), O_RDWR);
        const int null = open("/dev/null", O_WRONLY);
        if (tty < 0 || null < 0 || chdir(cwd.c_str()) != 0) _exit(127);
        dup2(tty, STDIN_FILENO);
        dup2(tty, STDERR_FILENO);
        dup2(null, STDOUT_FILENO);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    // The answer waits in the terminal's input until the program reads it.
    (void)!::write(master, answer.data(), answer.size());
    std::string shown;
    int status = 0;
    for (int waited_ms = 0;; waited_ms += 50) {
        struct pollfd p = {master, POLLIN, 0};
        while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
            char buf[4096];
            const ssize_t n = read(master, buf, sizeof buf);
            if (n <= 0) break;
            shown.append(buf, std::size_t(n));
        }
        if (waitpid(pid, &status, WNOHANG) == pid) break;
        if (waited_ms > 30'000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(master);
            return {-1, shown};
        }
        poll(nullptr, 0, 50);
    }
    close(master);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, shown};
}

// With standard input and standard error on a terminal, libdeflate's gzip asks before it
// replaces an output: 'y' replaces it, anything else keeps it and is an error.
TEST_F(CliGunzip, ExistingOutputOnTerminalAsksLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(9'000, 71);
    for (const std::string answer : {"y\n", "n\n", "\n"}) {
        auto run = [&](bool reference) {
            clear();
            write_gz("a.gz", data);
            write("a", "precious");
            auto r = reference ? run_on_terminal(ref_, {"-d", "a.gz"}, dir_, answer)
                               : run_on_terminal(links_ + "/gunzip", {"a.gz"}, dir_, answer);
            return std::tuple(r.first, r.second, listing(), exists("a") ? read("a") : "");
        };
        const auto [their_status, their_terminal, their_files, their_a] = run(true);
        const auto [status, terminal, files, a] = run(false);
        const bool yes = answer[0] == 'y';
        EXPECT_EQ(status, their_status) << terminal << "\n---\n" << their_terminal;
        EXPECT_EQ(status, yes ? 0 : 1) << terminal;
        EXPECT_EQ(join(files), join(their_files));
        EXPECT_EQ(a, their_a);
        EXPECT_EQ(a, yes ? data : "precious");
        EXPECT_NE(terminal.find("gunzip: \"a\" already exists; overwrite? (y/n) "), std::string::npos) << terminal;
        EXPECT_EQ(terminal.find("Not overwriting.") != std::string::npos, !yes) << terminal;
    }
}

// ---- modes ------------------------------------------------------------------------------

TEST_F(CliGunzip, SetuidAndSetgidAreNotRestoredLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(8'000, 66);
    auto mode_after = [&](bool reference) {
        clear();
        write_gz("a.gz", data);
        EXPECT_EQ(chmod(path("a.gz").c_str(), 07755), 0) << std::strerror(errno);
        const Result r = reference ? ref_gunzip({"a.gz"}) : gunzip({"a.gz"});
        EXPECT_STATUS(r, 0);
        return exists("a") ? stat_of("a").st_mode & 07777 : 0u;
    };
    const unsigned theirs = mode_after(true);
    const unsigned ours = mode_after(false);
    EXPECT_EQ(ours & unsigned(S_ISUID | S_ISGID), 0u) << std::oct << ours;
    EXPECT_EQ(ours & 0777u, 0755u) << std::oct << ours;
    EXPECT_EQ(ours, theirs) << std::oct << "ours " << ours << ", libdeflate's " << theirs;
}

// ---- data that is not gzip ----------------------------------------------------------------

// (Not compared: `-f NAME.gz` that fails while NAME exists.  libdeflate's gzip deletes NAME
// before it decompresses, so a failure loses it; ours replaces NAME only when its output
// is complete, and keeps it.)
TEST_F(CliGunzip, ForceToStdoutPassesNonGzipThroughLikeReference) {
    REQUIRE_REFERENCE();
    const std::string plain = text(3'000, 67);
    const std::vector<std::vector<std::string>> cases = {
        {"-f", "-c", "p"}, {"-c", "p"}, {"-f", "-t", "p"}, {"-t", "p"}, {"p"}, {"-f", "-c", "short"}, {"-f", "tiny.gz"}};
    auto prepare = [&] {
        write("p", plain);
        write("short", "x");
        write("tiny.gz", "x");
    };
    for (const auto& args : cases) expect_same_outcome(prepare, Mode::decompress, args);
    write("p", plain);
    const Result r = gunzip({"-f", "-c", "p"});
    EXPECT_STATUS(r, 0);
    EXPECT_TRUE(same_bytes(r.out, plain));
    RunOptions in;
    in.in = Stdin::bytes;
    in.in_bytes = plain;
    const Result piped = gunzip({"-f", "-c"}, in);
    EXPECT_STATUS(piped, 0);
    EXPECT_TRUE(same_bytes(piped.out, plain));
}

// ---- messages ---------------------------------------------------------------------------

TEST_F(CliGunzip, MessagesMatchReference) {
    REQUIRE_REFERENCE();
    const std::string gz = reference_compress(text(4'000, 68), 6);
    std::string corrupt = gz;
    corrupt[corrupt.size() / 2] = char(corrupt[corrupt.size() / 2] ^ 0x55);
    struct Case {
        Mode mode;
        std::vector<std::string> args;
    };
    constexpr Mode d = Mode::decompress, c = Mode::compress;
    const std::vector<Case> cases = {
        {d, {"corrupt.gz"}}, {d, {"notgz.gz"}},   {d, {"plain"}},        {d, {"dir.gz"}},
        {d, {"linked.gz"}},  {d, {"missing.gz"}}, {d, {"-c", "plain"}},  {d, {"-t", "corrupt.gz"}},
        {c, {"-13", "plain"}}, {c, {"-123", "plain"}}, {c, {"a.gz"}},  {c, {"-q", "a.gz"}},
        {c, {"dir.gz"}},     {c, {"linked.gz"}},  {c, {"missing"}},      {c, {"-S", "", "plain"}},
    };
    auto prepare = [&] {
        write("corrupt.gz", corrupt);
        write("notgz.gz", text(100, 69));
        write("plain", "plain text");
        write("a.gz", gz);
        write("linked.gz", gz);
        EXPECT_EQ(link(path("linked.gz").c_str(), path("linked2.gz").c_str()), 0);
        EXPECT_EQ(mkdir(path("dir.gz").c_str(), 0755), 0);
    };
    for (const Case& c : cases) expect_same_outcome(prepare, c.mode, c.args);
}

// The first line only: the usage that follows is each program's own.
TEST_F(CliGunzip, MissingOptionArgumentSaysSoLikeReference) {
    REQUIRE_REFERENCE();
    for (const char* option : {"-S", "-dS"}) {
        const Result ours = gunzip({option}), theirs = ref({option});
        EXPECT_STATUS(ours, 1);
        EXPECT_EQ(ours.exit_code, theirs.exit_code);
        const std::string first = messages(ours.err), their_first = messages(theirs.err);
        EXPECT_EQ(first.substr(0, first.find('\n')), their_first.substr(0, their_first.find('\n'))) << option;
    }
}

TEST_F(CliGunzip, WriteErrorSaysSoLikeReference) {
    REQUIRE_REFERENCE();
    write_gz("a.gz", text(20'000, 72));
    write("a", "not gzip, passed through");
    RunOptions full;
    full.stdout_fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    ASSERT_GE(full.stdout_fd, 0) << std::strerror(errno);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"-c", "a.gz"}, {"-f", "-c", "a"}}) {
        const Result ours = gunzip(args, full), theirs = ref_gunzip(args, full);
        EXPECT_STATUS(ours, 1);
        EXPECT_EQ(ours.exit_code, theirs.exit_code) << join(args);
        EXPECT_EQ(messages(ours.err), messages(theirs.err)) << join(args);
    }
    close(full.stdout_fd);
}

// -t reads a file as -c does, so it follows a symbolic link as -c and -f do; without them
// a link is refused.
TEST_F(CliGunzip, TestFollowsSymbolicLinksLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(6'000, 73);
    auto prepare = [&] {
        write_gz("a.gz", data);
        EXPECT_EQ(symlink("a.gz", path("l.gz").c_str()), 0) << std::strerror(errno);
    };
    const std::vector<std::vector<std::string>> cases = {
        {"-t", "l.gz"}, {"-t", "l"}, {"-c", "l.gz"}, {"l.gz"}, {"-k", "l.gz"}};
    for (const auto& args : cases) expect_same_outcome(prepare, Mode::decompress, args);
    clear();
    prepare();
    EXPECT_STATUS(gunzip({"-t", "l.gz"}), 0);
}

// An output that cannot be created, or an old one that cannot be replaced, is said in
// libdeflate's words ("Can't open ... for writing", "Unable to delete ..."), and nothing
// changes.
TEST_F(CliGunzip, OutputThatCannotBeCreatedSaysSoLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(5'000, 74);
    const std::string too_long(253, 'n');  // and ".gz": one byte past NAME_MAX
    auto prepare = [&] {
        write("a", data);
        write(too_long, data);
        write("c", data);
        EXPECT_EQ(mkdir(path("c.gz").c_str(), 0755), 0);
        write_gz("d.gz", data);
        EXPECT_EQ(mkdir(path("d").c_str(), 0755), 0);
        write_gz(".gz", data);
    };
    constexpr Mode c = Mode::compress, d = Mode::decompress;
    const std::vector<std::pair<Mode, std::vector<std::string>>> cases = {
        {c, {"-S", "/x", "a"}}, {c, {too_long}}, {c, {"-f", "c"}}, {d, {"-f", "d.gz"}}, {d, {""}}};
    for (const auto& [mode, args] : cases) expect_same_outcome(prepare, mode, args);
}

// Names up to NAME_MAX bytes, with the suffix, are compressed and decompressed.
TEST_F(CliGunzip, LongNamesLikeReference) {
    REQUIRE_REFERENCE();
    const std::string data = text(5'000, 75);
    for (const std::size_t n : {std::size_t(240), std::size_t(252)}) {
        const std::string name(n, 'n');
        expect_same_outcome([&] { write(name, data); }, Mode::compress, {name});
        expect_same_outcome([&] { write_gz(name + ".gz", data); }, Mode::decompress, {name + ".gz"});
        EXPECT_LISTING({name});
    }
}

// Standard input closed: libdeflate's gzip says it cannot stat it.
TEST_F(CliGunzip, ClosedStandardInputLikeReference) {
    REQUIRE_REFERENCE();
    auto closed_stdin = [&](const std::string& program, std::vector<std::string> args) {
        args.insert(args.begin(), {"-c", "exec \"$0\" \"$@\" <&-", program});
        return run_process("/bin/sh", args, dir_, {});
    };
    for (const std::vector<std::string>& args : {std::vector<std::string>{}, {"-"}}) {
        const Result ours = closed_stdin(bin_, args), theirs = closed_stdin(ref_, args);
        EXPECT_STATUS(ours, 1) << join(args);
        EXPECT_EQ(ours.exit_code, theirs.exit_code) << join(args);
        EXPECT_EQ(messages(ours.err), messages(theirs.err)) << join(args);
        std::vector<std::string> d_args = args;
        d_args.insert(d_args.begin(), "-d");
        const Result ours_d = closed_stdin(links_ + "/gunzip", args), theirs_d = closed_stdin(ref_, d_args);
        EXPECT_STATUS(ours_d, 1) << join(d_args);
        EXPECT_EQ(ours_d.exit_code, theirs_d.exit_code) << join(d_args);
        EXPECT_EQ(messages(ours_d.err), messages(theirs_d.err)) << join(d_args);
    }
}

// Run by a user who cannot give the output its input's owner (another user's file), delete
// the input (another user's file in a sticky directory), replace an old output, or write
// in the directory: the same messages, exit status and files as libdeflate's gzip.  (The
// owner is not preserved: said, no error; the input is not deleted: not said, no error.)
TEST_F(CliGunzip, AnotherUsersFilesLikeReference) {
    REQUIRE_REFERENCE();
    if (geteuid() != 0) GTEST_SKIP() << "needs root, to make another user's files";
    run_as_ = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    ASSERT_EQ(chmod(links_.c_str(), 0755), 0) << std::strerror(errno);
    for (const std::string& program : {bin_, ref_}) {
        std::vector<std::string> args(run_as_.begin() + 1, run_as_.end());
        args.insert(args.end(), {program, "-V"});
        if (!run_process(run_as_[0], args, dir_, {}).ok(0)) GTEST_SKIP() << "cannot run " << program << " as nobody";
    }
    const std::string data = text(7'000, 76);
    const std::string gz = reference_compress(data, 6);
    auto prepare = [&](mode_t dir_mode) {
        return [&, dir_mode] {
            write("a", data);  // another user's
            write("b.gz", gz);  // another user's
            write("c", data);  // nobody's, whose old c.gz is another user's
            write("c.gz", "old");
            for (const char* name : {"a", "b.gz", "c.gz"}) EXPECT_EQ(chown(path(name).c_str(), 1234, 1234), 0);
            EXPECT_EQ(chown(path("c").c_str(), 65534, 65534), 0);
            EXPECT_EQ(chmod(dir_.c_str(), dir_mode), 0) << std::strerror(errno);
        };
    };
    constexpr Mode c = Mode::compress, d = Mode::decompress;
    for (const mode_t dir_mode : {mode_t(0777), mode_t(01777), mode_t(0555)}) {
        for (const auto& [mode, args] : std::vector<std::pair<Mode, std::vector<std::string>>>{
                 {c, {"a"}}, {d, {"b.gz"}}, {c, {"-f", "c"}}})
            expect_same_outcome(prepare(dir_mode), mode, args, "c.gz");
    }
    EXPECT_EQ(chmod(dir_.c_str(), 0700), 0);
}

TEST_F(CliGunzip, MessagesBeginWithTheNameRunAs) {
    const Result r = gunzip({"missing.gz"});
    EXPECT_STATUS(r, 1);
    EXPECT_EQ(r.err.rfind("gunzip: ", 0), 0u) << r.err;
    const Result f = fd({"-d", "missing.gz"});
    EXPECT_EQ(f.err.rfind("flowdeflate: ", 0), 0u) << f.err;
}

TEST_F(CliGunzip, VersionCreditsLibdeflate) {
    const Result r = fd({"-V"});
    EXPECT_STATUS(r, 0);
    EXPECT_NE(r.out.find("Copyright 2016 Eric Biggers"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("MIT license"), std::string::npos) << r.out;
}

TEST_F(CliGunzip, LevelZeroIsStillAccepted) {
    const std::string data = text(5'000, 70);
    write("a", data);
    EXPECT_STATUS(fd({"-0", "a"}), 0);
    expect_gunzips("a.gz", data);
}

}  // namespace
}  // namespace flowdeflate::testing::cli

// tests/cli/cli_support.cpp - the process runner and the Cli fixture; see cli_support.hpp.
#include "cli/cli_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "support/test_data.hpp"

namespace flowdeflate::testing::cli {
namespace {

using Clock = std::chrono::steady_clock;

void ignore_sigpipe_once() {
    static const bool done = [] {
        signal(SIGPIPE, SIG_IGN);  // writes to a child's closed stdin give EPIPE, not death
        return true;
    }();
    (void)done;
}

}  // namespace

// ---- process runner -------------------------------------------------------------------

std::string Result::describe() const {
    std::string s = "`" + command + "`: ";
    if (!started) s += "could not be started";
    else if (timed_out) s += "TIMED OUT (killed)";
    else if (exited) s += "exit status " + std::to_string(exit_code);
    else s += "killed by signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + ")";
    s += "; stdout " + std::to_string(out.size()) + " bytes; stderr: ";
    s += err.empty() ? std::string("(empty)") : "\"" + err.substr(0, 1500) + "\"";
    return s;
}

Result run_process(const std::string& program, const std::vector<std::string>& args, const std::string& cwd,
                   const RunOptions& o) {
    ignore_sigpipe_once();
    Result r;
    r.command = program;
    for (const auto& a : args) r.command += " '" + a + "'";

    // Everything the child needs is prepared before fork(): after it, only
    // async-signal-safe calls.
    std::vector<std::string> argv_s;
    argv_s.push_back(program);
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (std::none_of(o.env.begin(), o.env.end(), [&](const std::string& x) { return x.rfind(name + "=", 0) == 0; }))
            env_s.push_back(entry);
    }
    env_s.insert(env_s.end(), o.env.begin(), o.env.end());
    std::vector<char*> envp;
    for (auto& s : env_s) envp.push_back(s.data());
    envp.push_back(nullptr);

    int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, in_p[2] = {-1, -1};
    int in_fd = -1;
    auto close_fd = [](int& fd) {
        if (fd >= 0) close(fd);
        fd = -1;
    };
    if (o.in == Stdin::bytes) {
        if (pipe2(in_p, O_CLOEXEC) != 0) return r;
    } else {
        std::string path = o.in == Stdin::file ? o.in_file : "/dev/null";
        if (!path.empty() && path[0] != '/' && !cwd.empty()) path = cwd + "/" + path;
        in_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (in_fd < 0) return r;
    }
    if ((o.stdout_fd < 0 && pipe2(out_p, O_CLOEXEC) != 0) || pipe2(err_p, O_CLOEXEC) != 0) {
        close_fd(in_fd), close_fd(in_p[0]), close_fd(in_p[1]), close_fd(out_p[0]), close_fd(out_p[1]);
        return r;
    }
    const int child_in = o.in == Stdin::bytes ? in_p[0] : in_fd;
    const int child_out = o.stdout_fd >= 0 ? o.stdout_fd : out_p[1];
    const int child_err = err_p[1];

    const Clock::time_point start = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD}) sigaction(s, &dfl, nullptr);
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
        if (o.limit_as_mib > 0) {
            const struct rlimit lim = {rlim_t(o.limit_as_mib) << 20, rlim_t(o.limit_as_mib) << 20};
            if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(126);
        }
        if (o.limit_nofile > 0) {
            const struct rlimit lim = {rlim_t(o.limit_nofile), rlim_t(o.limit_nofile)};
            if (setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(126);
        }
        if (dup2(child_in, 0) < 0 || dup2(child_out, 1) < 0 || dup2(child_err, 2) < 0) _exit(127);
        execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    close_fd(in_fd), close_fd(in_p[0]), close_fd(out_p[1]), close_fd(err_p[1]);
    if (pid < 0) {
        close_fd(in_p[1]), close_fd(out_p[0]), close_fd(err_p[0]);
        return r;
    }
    r.started = true;

    int in_w = in_p[1];
    int out_r = out_p[0];
    int err_r = err_p[0];
    std::size_t in_off = 0;
    if (in_w >= 0) {
        fcntl(in_w, F_SETFL, fcntl(in_w, F_GETFL) | O_NONBLOCK);
        if (o.in_bytes.empty()) close_fd(in_w);
    }
    const Clock::time_point deadline = start + std::chrono::microseconds(std::int64_t(o.timeout_s * 1e6));
    const Clock::time_point signal_at = start + std::chrono::milliseconds(o.signal_after_ms);
    Clock::time_point signal_time{};
    bool reaped = false;
    int status = 0;
    struct rusage usage {};
    char buf[65536];

    while (true) {
        if (!reaped && wait4(pid, &status, WNOHANG, &usage) == pid) {
            reaped = true;
            if (r.signal_sent)
                r.exit_after_signal_s = std::chrono::duration<double>(Clock::now() - signal_time).count();
        }
        if (reaped && out_r < 0 && err_r < 0) break;
        const Clock::time_point now = Clock::now();
        if (!reaped && o.signal != 0 && !r.signal_sent && now >= signal_at) {
            kill(pid, o.signal);
            r.signal_sent = true;
            signal_time = now;
        }
        if (now >= deadline) {
            if (!reaped) {
                kill(pid, SIGKILL);
                r.timed_out = true;
                wait4(pid, &status, 0, &usage);
                reaped = true;
            }
            break;  // a grandchild may hold the pipes: stop reading
        }
        pollfd fds[3];
        int n = 0;
        if (out_r >= 0) fds[n++] = {out_r, POLLIN, 0};
        if (err_r >= 0) fds[n++] = {err_r, POLLIN, 0};
        if (in_w >= 0) fds[n++] = {in_w, POLLOUT, 0};
        // Short waits so that the child's exit, the signal time and the deadline are all
        // noticed promptly even while its pipes stay open.
        int wait_ms = 20;
        if (n == 0) {
            usleep(2000);
            continue;
        }
        const int pr = poll(fds, nfds_t(n), wait_ms);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        for (int i = 0; i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == in_w) {
                const ssize_t w = write(in_w, o.in_bytes.data() + in_off, o.in_bytes.size() - in_off);
                if (w > 0) in_off += std::size_t(w);
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off == o.in_bytes.size()) close_fd(in_w);
            } else {
                const ssize_t got = read(fds[i].fd, buf, sizeof buf);
                if (got > 0) {
                    (fds[i].fd == out_r ? r.out : r.err).append(buf, std::size_t(got));
                } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                    if (fds[i].fd == out_r) close_fd(out_r);
                    else close_fd(err_r);
                }
            }
        }
    }
    close_fd(in_w), close_fd(out_r), close_fd(err_r);
    r.max_rss_kib = usage.ru_maxrss;
    if (WIFEXITED(status)) {
        r.exited = !r.timed_out;
        r.exit_code = WEXITSTATUS(status);
        if (r.exit_code == 127 && r.err.empty()) r.err = "(exit 127: exec failed?)";
    } else if (WIFSIGNALED(status)) {
        r.term_signal = WTERMSIG(status);
    }
    return r;
}

// ---- helpers --------------------------------------------------------------------------

std::string to_string(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }

std::string text(std::size_t n, std::uint64_t seed) {
    return to_string(flowdeflate::testing::text_like(n, seed));
}

::testing::AssertionResult same_bytes(const std::string& got, const std::string& want) {
    if (got == want) return ::testing::AssertionSuccess();
    std::size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    return ::testing::AssertionFailure() << "bytes differ: got " << got.size() << " bytes, expected "
                                         << want.size() << ", first difference at offset " << i;
}

bool contains_ci(std::string_view hay, std::string_view needle) {
    auto lower = [](std::string_view s) {
        std::string t(s);
        for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
        return t;
    };
    return lower(hay).find(lower(needle)) != std::string::npos;
}

// "-L".  (Built with append: `"-" + std::to_string(L)` trips GCC 12's -Wrestrict false positive.)
std::string level_option(int level) {
    std::string s = "-";
    s.append(std::to_string(level));
    return s;
}

std::string reference_gzip_path() {
    if (const char* e = std::getenv("FLOWDEFLATE_REFERENCE_GZIP"); e && *e) return e;
#ifdef FLOWDEFLATE_REFERENCE_LIB
    const fs::path lib = FLOWDEFLATE_REFERENCE_LIB;
    return (lib.parent_path() / "libdeflate-gzip").string();
#elif defined(FLOWDEFLATE_SOURCE_DIR)
    return std::string(FLOWDEFLATE_SOURCE_DIR) + "/build/reference/libdeflate-gzip";
#else
    return "build/reference/libdeflate-gzip";
#endif
}

void set_old_times(const std::string& p, time_t sec) {
    struct timespec ts[2];
    ts[0].tv_sec = sec - 1000;  // atime
    ts[0].tv_nsec = 250000000;
    ts[1].tv_sec = sec;  // mtime
    ts[1].tv_nsec = 500000000;
    ASSERT_EQ(utimensat(AT_FDCWD, p.c_str(), ts, 0), 0) << p << ": " << std::strerror(errno);
}

// ---- the fixture ----------------------------------------------------------------------

void Cli::SetUp() {
    const char* b = std::getenv("FLOWDEFLATE_BINARY");
    if (b == nullptr || *b == '\0') GTEST_SKIP() << "FLOWDEFLATE_BINARY is not set";
    std::error_code ec;
    bin_ = fs::absolute(b, ec).string();
    ASSERT_TRUE(fs::is_regular_file(bin_)) << "FLOWDEFLATE_BINARY=" << b << " is not a file";
    ref_ = fs::absolute(reference_gzip_path(), ec).string();
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/flowdeflate-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << "mkdtemp: " << std::strerror(errno);
    dir_ = tmpl;
}

void Cli::TearDown() {
    if (dir_.empty()) return;
    std::error_code ec;
    // Undo chmod 000 and the like so that everything can be removed.
    for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_symlink()) chmod(it->path().c_str(), it->is_directory() ? 0700 : 0600);
    }
    fs::remove_all(dir_, ec);
}

bool Cli::have_reference() const { return access(ref_.c_str(), X_OK) == 0; }

void Cli::write(const std::string& name, const std::string& data) const {
    const int f = open(path(name).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(f, 0) << name << ": " << std::strerror(errno);
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t w = ::write(f, data.data() + off, data.size() - off);
        ASSERT_GT(w, 0) << name << ": " << std::strerror(errno);
        off += std::size_t(w);
    }
    ASSERT_EQ(close(f), 0);
}

std::string Cli::read(const std::string& name) const {
    std::string s;
    const int f = open(path(name).c_str(), O_RDONLY | O_CLOEXEC);
    if (f < 0) {
        ADD_FAILURE() << "cannot open " << name << ": " << std::strerror(errno);
        return s;
    }
    char buf[65536];
    ssize_t got;
    while ((got = ::read(f, buf, sizeof buf)) > 0) s.append(buf, std::size_t(got));
    close(f);
    return s;
}

bool Cli::exists(const std::string& name) const {
    struct stat st;
    return lstat(path(name).c_str(), &st) == 0;
}

struct stat Cli::stat_of(const std::string& name) const {
    struct stat st {};
    EXPECT_EQ(::stat(path(name).c_str(), &st), 0) << name << ": " << std::strerror(errno);
    return st;
}

std::vector<std::string> Cli::listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string Cli::join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return "{" + s + "}";
}

void Cli::expect_gunzips(const std::string& name, const std::string& original) const {
    const Result ours = fd({"-d", "-c", name});
    EXPECT_STATUS(ours, 0);
    EXPECT_TRUE(same_bytes(ours.out, original)) << "flowdeflate -d -c " << name;
    if (have_reference()) {
        const Result theirs = ref({"-d", "-c", name});
        EXPECT_STATUS(theirs, 0);
        EXPECT_TRUE(same_bytes(theirs.out, original)) << "libdeflate-gzip -d -c " << name;
    } else {
        ADD_FAILURE() << "reference gzip program not found at " << ref_;
    }
    EXPECT_TRUE(exists(name)) << "-d -c removed " << name;
}

void Cli::expect_gunzips_bytes(const std::string& gz, const std::string& original) const {
    RunOptions o;
    o.in = Stdin::bytes;
    o.in_bytes = gz;
    const Result ours = fd({"-d", "-c"}, o);
    EXPECT_STATUS(ours, 0);
    EXPECT_TRUE(same_bytes(ours.out, original)) << "flowdeflate -d -c < data";
    if (have_reference()) {
        const Result theirs = ref({"-d", "-c"}, o);
        EXPECT_STATUS(theirs, 0);
        EXPECT_TRUE(same_bytes(theirs.out, original)) << "libdeflate-gzip -d -c < data";
    } else {
        ADD_FAILURE() << "reference gzip program not found at " << ref_;
    }
}

std::string Cli::reference_compress(const std::string& data, int level) const {
    RunOptions o;
    o.in = Stdin::bytes;
    o.in_bytes = data;
    const Result r = ref({level_option(level), "-c"}, o);
    EXPECT_STATUS(r, 0);
    return r.out;
}

std::string messages(const std::string& err) {
    std::string out;
    std::size_t pos = 0;
    while (pos < err.size()) {
        std::size_t end = err.find('\n', pos);
        if (end == std::string::npos) end = err.size();
        std::string line = err.substr(pos, end - pos);
        if (const auto colon = line.find(": "); colon != std::string::npos && line.find(' ') > colon)
            line.erase(0, colon + 2);
        out += line + "\n";
        pos = end + 1;
    }
    return out;
}

}  // namespace flowdeflate::testing::cli

// temp_output.cpp - see temp_output.hpp.
#include "cli/temp_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstring>
#include <vector>

#include "cli/messages.hpp"

namespace flowdeflate::cli {
namespace {

// What the signal handler may read: a handler can use nothing else.
char g_temp_path[PATH_MAX];
volatile std::sig_atomic_t g_temp_active = 0;
// The SIGBUS message, prepared beforehand (write() is async-signal-safe).
char g_bus_message[256];
std::size_t g_bus_message_size = 0;

extern "C" void remove_temp_and_die(int sig) {
    if (g_temp_active) ::unlink(g_temp_path);  // async-signal-safe
    if (sig == SIGBUS && g_bus_message_size > 0) {
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, g_bus_message, g_bus_message_size);
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

void install_signal_handlers() {
    // SIGBUS: a gzip file of 1 MiB or more is decoded from a mapping, and a file that
    // another process truncates meanwhile faults there (libdeflate's gzip, which maps its
    // input too, dies the same way).
    const std::string bus =
        fmt::format("{}: bus error: an input file changed size while it was being read\n", program_name());
    g_bus_message_size = std::min(bus.size(), sizeof(g_bus_message));
    std::memcpy(g_bus_message, bus.data(), g_bus_message_size);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGBUS}) std::signal(sig, remove_temp_and_die);
}

bool TempOutput::create(const std::string& final_path) {
    final_ = final_path;
    // A name that cannot be looked up (too long, below a file...) fails before any work,
    // as libdeflate's open() of it does.
    struct stat st {};
    const bool found = !final_path.empty() && ::lstat(final_path.c_str(), &st) == 0;
    replacing_ = found;
    if (!found && (final_path.empty() || errno != ENOENT)) {
        if (final_path.empty()) errno = ENOENT;
        return failed(errno_text());
    }
    try {
        file_ = std::make_unique<io::FileOutput>(final_path, 0600);
    } catch (const Error& e) {
        return failed(reason(e));
    }
    const std::string& temp = file_->temp_path();
    if (temp.size() >= sizeof(g_temp_path)) {
        file_.reset();
        error(final_path + ": name too long");
        return false;
    }
    std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
    g_temp_active = 1;
    return true;
}

bool TempOutput::commit(const struct stat& st) {
    struct stat safe = st;
    safe.st_mode &= ~mode_t(S_ISUID | S_ISGID);
    const std::vector<std::string> unpreserved = file_->copy_attributes(safe);
    try {
        file_->commit();
    } catch (const Error& e) {
        if (replacing_) return failed(reason(e));
        error(e.what());
        return false;
    }
    g_temp_active = 0;
    for (const std::string& what : unpreserved) error(in_quotes(final_) + ": unable to preserve " + what);
    return true;
}

TempOutput::~TempOutput() {
    g_temp_active = 0;  // before the file goes: the handler must not unlink a reused name
    file_.reset();
}

std::string TempOutput::reason(const Error& e) const {
    std::string r = e.what();
    if (r.starts_with(final_ + ": ")) r.erase(0, final_.size() + 2);
    return r;
}

bool TempOutput::failed(const std::string& why) const {
    if (replacing_)
        error("Unable to delete " + in_quotes(final_) + ": " + why);
    else
        error("Can't open " + in_quotes(final_) + " for writing: " + why);
    return false;
}

}  // namespace flowdeflate::cli

// temp_output.hpp - the command line's output file: written under a temporary name beside
// the final one and renamed into place only when complete, removed on any error and on
// SIGINT, SIGTERM, SIGHUP (and SIGBUS, said in words: a mapped input that another process
// truncates faults there).
#pragma once

#include <sys/stat.h>

#include <memory>
#include <string>

#include "io/file_output.hpp"

namespace flowdeflate::cli {

/// Installs the handlers that remove the temporary output and die.
void install_signal_handlers();

/// io::FileOutput (the library's file calls use it too), with its temporary name
/// published to the signal handler.  Its failures are said in libdeflate's gzip's words:
/// that program opens the final name itself ("Can't open ... for writing"), after deleting
/// an old file there that it is to replace ("Unable to delete ...").
class TempOutput {
public:
    TempOutput() = default;
    ~TempOutput();
    TempOutput(const TempOutput&) = delete;
    TempOutput& operator=(const TempOutput&) = delete;

    /// Creates a temporary file beside @p final_path (an existing file there is to be
    /// replaced).  False: error printed.
    bool create(const std::string& final_path);
    [[nodiscard]] int fd() const { return file_->fd(); }

    /// Gives the output @p st's mode, owner and times, and renames it into place.  The
    /// setuid and setgid bits are not copied: a restored program must not gain them from
    /// a .gz anyone could have written (libdeflate's gzip loses them too, as its chown
    /// after chmod clears them).  What could not be preserved is said once the output is
    /// in place, as libdeflate's gzip says it, and is no error.
    bool commit(const struct stat& st);

private:
    // FileOutput's message without the name it begins with.
    [[nodiscard]] std::string reason(const Error& e) const;
    bool failed(const std::string& why) const;

    std::unique_ptr<io::FileOutput> file_;
    std::string final_;
    bool replacing_ = false;
};

}  // namespace flowdeflate::cli

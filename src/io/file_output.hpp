// file_output.hpp - an output file that appears only when complete: written to a
// temporary file beside its final name and renamed over it by commit().  Until then (an
// error, a cancellation, an exception) the destructor removes the temporary file, so no
// partial output is ever left under the final name.  Shared by the library's file calls
// and the command line.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "flowdeflate/core.hpp"
#include "io/fd.hpp"

namespace flowdeflate::io {

class FileOutput {
public:
    /// Creates the temporary file beside @p final_path with permissions @p mode.
    /// Throws flowdeflate::Error naming @p final_path.
    FileOutput(const std::filesystem::path& final_path, mode_t mode) : final_(final_path) {
        // ".NAME.flowdeflate-XXXXXX", NAME shortened so that a final name of NAME_MAX
        // bytes still has a temporary one.
        constexpr std::string_view kTail = ".flowdeflate-XXXXXX";
        std::string name = ".";
        name += final_.filename().string().substr(0, NAME_MAX - 1 - kTail.size());
        name += kTail;
        std::string tmpl = (final_.parent_path() / name).string();
        const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
        if (fd < 0) throw Error(final_.string() + ": " + std::strerror(errno));
        fd_.reset(fd);
        temp_ = tmpl;
        (void)::fchmod(fd, mode & 07777);
    }
    ~FileOutput() {
        fd_.reset();
        if (!temp_.empty()) ::unlink(temp_.c_str());
    }
    FileOutput(const FileOutput&) = delete;
    FileOutput& operator=(const FileOutput&) = delete;

    [[nodiscard]] int fd() const { return fd_.get(); }
    /// The temporary name ("" once committed).
    [[nodiscard]] const std::string& temp_path() const { return temp_; }

    /// Gives the file @p st's mode, owner and group, and times, in that order (as
    /// libdeflate's gzip does: a chown after the chmod may clear setuid and setgid bits).
    /// Returns what could not be given, one entry each ("mode: <reason>", "owner and group:
    /// <reason>", "timestamps: <reason>"); none of it is an error here.
    std::vector<std::string> copy_attributes(const struct stat& st) {
        std::vector<std::string> failed;
        const auto attempt = [&](int rc, const char* what) {
            if (rc != 0) failed.push_back(std::string(what) + ": " + std::strerror(errno));
        };
        attempt(::fchmod(fd_.get(), st.st_mode & 07777), "mode");
        attempt(::fchown(fd_.get(), st.st_uid, st.st_gid), "owner and group");
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        attempt(::futimens(fd_.get(), times), "timestamps");
        return failed;
    }

    /// Closes the file and renames it into place.  Throws flowdeflate::Error.
    void commit() {
        if (::close(fd_.release()) != 0) throw Error(final_.string() + ": " + std::strerror(errno));
        if (::rename(temp_.c_str(), final_.c_str()) != 0) throw Error(final_.string() + ": " + std::strerror(errno));
        temp_.clear();
    }

private:
    std::filesystem::path final_;
    std::string temp_;
    Fd fd_;
};

}  // namespace flowdeflate::io

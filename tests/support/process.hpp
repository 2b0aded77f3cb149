// process.hpp - what the process itself looks like from /proc: its threads and its
// resident memory (for tests that a call leaves no thread behind and does not grow).
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdio>

namespace flowdeflate::testing {

/// Threads of this process now.
inline int thread_count() {
    int n = 0;
    if (DIR* d = opendir("/proc/self/task")) {
        while (const dirent* e = readdir(d))
            if (e->d_name[0] != '.') ++n;
        closedir(d);
    }
    return n;
}

/// Resident memory of this process now, in MiB (0 when /proc cannot be read).
inline double resident_mib() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

}  // namespace flowdeflate::testing

// process.hpp - what the process itself looks like from /proc: its threads and its
// resident memory (for tests that a call leaves no thread behind and does not grow).
#pragma once

#include <dirent.h>
#include <malloc.h>
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

/// Resident memory the process holds, in MiB: resident_mib() once the allocator has given
/// its free pages back (malloc_trim).  glibc keeps freed memory in its heaps, and how much
/// of it stays resident depends on the order in which threads happened to free (10-20 MiB
/// either way over thousands of calls on two cores); memory that is still allocated, which
/// a leak or a per-call arena is, stays counted.
inline double held_mib() {
    malloc_trim(0);
    return resident_mib();
}

}  // namespace flowdeflate::testing

// clock.hpp - the two clocks the counters use.
//
// now_ns():        wall time (steady), for waits, stalls and whole runs;
// thread_cpu_ns(): CPU time of the calling thread, for the cost of a node's work.  A
//                  node body runs on one thread from start to end, so the difference of
//                  two readings is what that body cost, even when more threads than
//                  cores share the machine (the scaling model measures runs with -p16 on
//                  two cores; wall time would count the time other threads ran).
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace flowdeflate::core {

inline std::uint64_t now_ns() {
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

inline std::uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

}  // namespace flowdeflate::core

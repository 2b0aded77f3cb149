// tests/support/watchdog.hpp - fails a test whose graph stops moving: a thread watches a
// graph::Probe and, when its counters have not changed for the given time, prints them
// (where the graph stands: chunks in / searched / resolved, blocks coded / assembled,
// segments out) with what the test was doing, and aborts the process.  A deadlock thus
// fails with the graph's state on stderr instead of hanging until ctest's timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "graph/graph_options.hpp"

namespace flowdeflate::testing {

class Watchdog {
public:
    Watchdog(const graph::Probe& probe, std::chrono::milliseconds limit, std::string what)
        : probe_(probe), limit_(limit), what_(std::move(what)), thread_([this] { watch(); }) {}
    ~Watchdog() {
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

private:
    void watch() {
        using Clock = std::chrono::steady_clock;
        std::uint64_t last = probe_.progress();
        Clock::time_point since = Clock::now();
        std::unique_lock lock(mutex_);
        while (!cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; })) {
            const std::uint64_t now = probe_.progress();
            if (now != last) {
                last = now;
                since = Clock::now();
            } else if (Clock::now() - since > limit_) {
                std::fprintf(stderr, "[watchdog] no progress for %lld ms (%s): %s\n",
                             static_cast<long long>(limit_.count()), what_.c_str(), probe_.dump().c_str());
                std::fflush(stderr);
                std::abort();
            }
        }
    }

    const graph::Probe& probe_;
    std::chrono::milliseconds limit_;
    std::string what_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace flowdeflate::testing

// arena.hpp - the threads a run uses: the arena its graph runs on (the caller's, or one
// of Options::threads, allowed past the core count when asked for), and the I/O threads
// of the command line's graphs, started before the graph so that a failure to create one
// is a clean error (flowdeflate::Error) and not an exception inside a running graph.
#pragma once

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include "flowdeflate/options.hpp"

namespace flowdeflate::graph {

class ArenaUse {
public:
    explicit ArenaUse(const Options& o) {
        if (o.arena) {
            arena_ = o.arena;
            arena_->initialize();
            return;
        }
        const int threads = o.threads > 0 ? o.threads : tbb::info::default_concurrency();
        // TBB caps its workers at the number of cores unless told otherwise.
        if (threads > tbb::info::default_concurrency())
            allow_more_.emplace(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
        own_.emplace(threads);
        arena_ = &*own_;
    }
    [[nodiscard]] tbb::task_arena& get() { return *arena_; }
    /// The arena's concurrency: the graph's default thread count.
    [[nodiscard]] int threads() const { return arena_->max_concurrency(); }

private:
    std::optional<tbb::global_control> allow_more_;
    std::optional<tbb::task_arena> own_;
    tbb::task_arena* arena_ = nullptr;
};

/// An I/O thread that is stopped and joined whatever happens: if it is still running when
/// this goes (an exception on the way out), `stop` runs first, then the join.
class IoThread {
public:
    IoThread() = default;
    /// Starts @p body; throws flowdeflate::Error naming @p what when no thread can be made.
    template <class Body>
    void start(const char* what, std::function<void()> stop, Body&& body) {
        stop_ = std::move(stop);
        try {
            thread_ = std::thread(std::forward<Body>(body));
        } catch (const std::system_error& e) {
            throw Error(std::string("cannot start the ") + what + " thread: " + e.what());
        }
    }
    void join() {
        if (thread_.joinable()) thread_.join();
    }
    ~IoThread() {
        if (thread_.joinable()) {
            if (stop_) stop_();
            thread_.join();
        }
    }
    IoThread(const IoThread&) = delete;
    IoThread& operator=(const IoThread&) = delete;

private:
    std::function<void()> stop_;
    std::thread thread_;
};

}  // namespace flowdeflate::graph

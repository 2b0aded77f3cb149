// arena.hpp - the arena a run's graph runs on: the caller's, or one of thread_count()
// threads (threads.hpp), allowed past the core count when asked for.
#pragma once

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "flowdeflate/options.hpp"
#include "graph/threads.hpp"

namespace flowdeflate::graph {

/// oneTBB 2021.8 (Debian 12) reads its max_allowed_parallelism controls without its own
/// lock when it starts an arena (market::global_market()), while a global_control's
/// constructor and destructor change them under that lock: ThreadSanitizer caught one
/// call's control racing with another call's arena (Concurrency.
/// IndependentCallsFromSeveralThreads).  Our calls make and drop their controls, and
/// initialise their arenas, under this one mutex.
inline std::mutex& tbb_setup_mutex() {
    static std::mutex mutex;
    return mutex;
}

/// Initialises @p arena (if it is not yet) under tbb_setup_mutex().
inline void initialize_arena(tbb::task_arena& arena) {
    std::lock_guard lock(tbb_setup_mutex());
    arena.initialize();
}

/// Lets TBB run @p threads workers past the number of cores while it lives: a
/// max_allowed_parallelism control, made and dropped under tbb_setup_mutex().
class AllowParallelism {
public:
    explicit AllowParallelism(std::size_t threads) {
        std::lock_guard lock(tbb_setup_mutex());
        control_.emplace(tbb::global_control::max_allowed_parallelism, threads);
    }
    ~AllowParallelism() {
        std::lock_guard lock(tbb_setup_mutex());
        control_.reset();
    }
    AllowParallelism(const AllowParallelism&) = delete;
    AllowParallelism& operator=(const AllowParallelism&) = delete;

private:
    std::optional<tbb::global_control> control_;
};

class ArenaUse {
public:
    /// How a call may get its arena when Options::arena is not set.
    enum class Reuse {
        /// Its own arena of thread_count() threads (a stream, the command line: made once for a
        /// long run, so the arena's cost does not matter).
        own,
        /// A one-shot call: the caller's arena when it is a task there and asks for no
        /// thread count, else a process-wide arena per thread count made once.  A
        /// task_arena per call costs more than a small call (and oneTBB 2021.8 keeps
        /// memory for every arena ever made: 4 -> 30 MiB over 4,000 arenas).
        shared,
    };

    explicit ArenaUse(const Options& o, Reuse reuse = Reuse::own) {
        {
            // This thread's first use of TBB starts it there (governor::init_external_thread(),
            // which reads the controls): here, under the lock, not later in execute().
            std::lock_guard lock(tbb_setup_mutex());
            tbb::this_task_arena::isolate([] {});
        }
        if (o.arena) {
            arena_ = o.arena;
            initialize_arena(*arena_);
            threads_ = arena_->max_concurrency();
            return;
        }
        threads_ = thread_count(o);
        if (reuse == Reuse::shared) {
            if (o.threads == 0 && tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized &&
                tbb::this_task_arena::max_concurrency() == threads_) {
                attached_.emplace(tbb::task_arena::attach());
                arena_ = &*attached_;
                return;
            }
            if (threads_ <= tbb::info::default_concurrency()) {
                arena_ = shared_arena(threads_);
                if (arena_) return;
            }
        }
        // TBB caps its workers at the number of cores unless told otherwise.
        if (threads_ > tbb::info::default_concurrency()) allow_more_.emplace(std::size_t(threads_));
        own_.emplace(threads_);
        initialize_arena(*own_);
        arena_ = &*own_;
    }
    [[nodiscard]] tbb::task_arena& get() { return *arena_; }
    /// The threads the call runs on (thread_count(), or the given arena's concurrency).
    [[nodiscard]] int threads() const { return threads_; }

    /// Runs @p f in the arena, isolated: while it waits for its graph, the thread takes
    /// only its graph's tasks, never another task of the arena (in the caller's arena, a
    /// waiting call would otherwise start the application's next task, maybe another
    /// call, and nest them without bound).  For a call whose graph lives inside @p f.
    template <class F>
    void run_isolated(F&& f) {
        arena_->execute([&] { tbb::this_task_arena::isolate(f); });
    }

private:
    // The process-wide arena of @p threads (at most kMaxSharedArenas thread counts; null
    // past that).  Never destroyed: a call may still run at exit.
    static tbb::task_arena* shared_arena(int threads) {
        static constexpr std::size_t kMaxSharedArenas = 16;
        static auto* arenas = new std::vector<std::pair<int, tbb::task_arena*>>;
        std::lock_guard lock(tbb_setup_mutex());
        for (const auto& [n, arena] : *arenas)
            if (n == threads) return arena;
        if (arenas->size() == kMaxSharedArenas) return nullptr;
        auto* arena = new tbb::task_arena(threads);
        arena->initialize();
        arenas->emplace_back(threads, arena);
        return arena;
    }

    std::optional<AllowParallelism> allow_more_;
    std::optional<tbb::task_arena> own_;
    std::optional<tbb::task_arena> attached_;
    tbb::task_arena* arena_ = nullptr;
    int threads_ = 1;
};

}  // namespace flowdeflate::graph

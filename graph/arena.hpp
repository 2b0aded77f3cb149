// arena.hpp - the arena a library call runs its graph on: the caller's (no thread of
// ours), or one of Options::threads, allowed past the core count when asked for.
#pragma once

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <optional>

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

}  // namespace flowdeflate::graph

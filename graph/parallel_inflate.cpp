// parallel_inflate.cpp - see parallel_inflate.hpp.
#include "graph/parallel_inflate.hpp"

#include <tbb/flow_graph.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <functional>
#include <optional>

#include "graph/arena.hpp"
#include "graph/pinning.hpp"

namespace flowdeflate::graph {
namespace {

using Task = std::function<void()>;

class FlowRunner final : public inflate::RegionRunner {
public:
    FlowRunner(int workers, bool pin_threads)
        : arena_(workers + 1, 1) {  // a slot kept for the main line: try_put never waits for one
        initialize_arena(arena_);   // under the lock that our TBB controls are made under
        pinned_.emplace(arena_, pin_threads);
        // A graph runs its tasks in the arena it is made in.
        arena_.execute([&] {
            graph_.emplace();
            regions_.emplace(*graph_, std::size_t(workers), [this](const Task& t) {
                pinned_->here();
                t();
            });
            completions_.emplace(*graph_, tbb::flow::unlimited, [this](const Task& t) {
                pinned_->here();
                t();
            });
        });
    }
    ~FlowRunner() override { wait(); }

    void decode(Task task) override {
        arena_.execute([&] { regions_->try_put(std::move(task)); });
    }
    void complete(Task task) override {
        arena_.execute([&] { completions_->try_put(std::move(task)); });
    }
    void wait() override {
        arena_.execute([&] { graph_->wait_for_all(); });
    }

private:
    tbb::task_arena arena_;
    std::optional<PinnedThreads> pinned_;
    std::optional<tbb::flow::graph> graph_;
    std::optional<tbb::flow::function_node<Task>> regions_;
    std::optional<tbb::flow::function_node<Task>> completions_;
};

}  // namespace

Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats, bool pin_threads) {
    // TBB caps its workers at the number of cores unless told otherwise.
    std::optional<AllowParallelism> allow_more;
    if (options.threads > tbb::info::default_concurrency()) allow_more.emplace(std::size_t(options.threads));
    FlowRunner runner(std::max(1, options.threads - 1), pin_threads);
    return inflate::parallel_gunzip(input, sink, options, runner, stats);
}

}  // namespace flowdeflate::graph

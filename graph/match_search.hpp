// match_search.hpp - Search for levels 10-12: the binary-tree match search over chunks of
// the input, on a task arena, ahead of the near-optimal parser that takes its records
// (core/match_feed.hpp says why that gives the same matches).
//
//   chunk k:  [k * chunk_size, (k + 1) * chunk_size), the last one to the end of input
//             (a chunk never starts within kTail bytes of the end)
//
// At most `ahead` chunks are searched or waiting at once, each in a slot of its own; when
// the parser moves into chunk k, the slot of chunk k - 1 takes chunk k - 1 + ahead.  A
// task searches a chunk that nobody has claimed yet; when the parser reaches a chunk that
// no task has started, it searches it itself (so it never waits for a thread that may not
// come); reaching one a task is searching now, it searches the later chunks no task has
// started, and only then waits.
//
// A chunk's records fill pages of kPageEntries (2 MiB with the parser's read slack) taken
// from a shared pool, each page the records of whole positions; the parser takes them page
// by page and gives each back when it moves on, so memory is the records in flight (2.5-4
// entries of 4 bytes per input byte, measured on binaries and text), not a worst case per
// chunk.  Pages are io::LargeArray, on transparent huge pages: pages from the heap cost a
// page fault per 4 KiB on their first touch (docs/notes/levels-10-12.md has the numbers).
#pragma once

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "core/input_stream.hpp"
#include "core/match_feed.hpp"
#include "core/path_split.hpp"
#include "flowdeflate/stats.hpp"
#include "core/deflate_compressor.hpp"
#include "graph/graph_options.hpp"
#include "io/large_array.hpp"
#include "parallel/idle_pool.hpp"

namespace flowdeflate::graph {

class ParallelMatchSearch final : public core::MatchFeed, public core::PathHelpers {
public:
    /// Searches @p in for the near-optimal parser of @p params on @p threads threads of
    /// @p arena, in chunks of options.chunk(), options.ahead of them (0: threads + 4)
    /// in flight; counts chunks launched and searched in options.probe (if set).
    ParallelMatchSearch(const core::LevelParams& params, core::InputStream& in, tbb::task_arena& arena, int threads,
                        const GraphOptions& options);
    /// Stops the searches that have not started and waits for the running ones.
    ~ParallelMatchSearch() noexcept override;
    ParallelMatchSearch(const ParallelMatchSearch&) = delete;
    ParallelMatchSearch& operator=(const ParallelMatchSearch&) = delete;

    core::MatchRun next(const core::u8* pos) override;
    /// The search's threads also guess parts of the optimiser's paths (path_split.hpp):
    /// idle ones take them, in an isolated task group on the arena.
    core::PathHelpers* path_helpers() override { return threads_ > 1 ? this : nullptr; }
    /// The threads besides the optimiser's that are not searching a chunk now (with every
    /// thread searching, no pass is split and no task spawned).  A chunk not yet started
    /// does not count: its task is older than the parts', so a thread that comes free
    /// takes it first anyway, and counting it kept chain-bound runs from splitting at all.
    [[nodiscard]] unsigned helpers() const override;
    void offer(core::u32 n, Job& job, Job& main) override;
    /// The counters so far, given the CPU time of the parser's thread over the run
    /// (search_ns: the chunks whose search has finished).
    [[nodiscard]] OptimiserStats stats(std::uint64_t parser_thread_ns) const;

    /// A chunk ends at the end of input when that is this close past its nominal end.
    static constexpr std::size_t kTail = 1024;
    static constexpr std::size_t kPageEntries = io::kHugePage / sizeof(core::LzMatch) - core::MatchFeed::kReadSlack;

private:
    enum State : int { kPending, kRunning, kDone };
    using Buffer = io::LargeArray<core::LzMatch>;
    struct Page {
        Buffer records;
        const core::u8* end = nullptr;  ///< the positions up to here
    };
    struct Slot {
        std::atomic<int> state{kDone};
        std::size_t index = 0;
        std::vector<Page> pages;
        std::exception_ptr error;
    };
    void launch(std::size_t k);
    static bool claim(Slot& slot);
    void search(Slot& slot);
    /// On the parser's thread: searches @p slot if no task has started it.
    bool search_here(Slot& slot);
    void recycle(Slot& slot);

    const core::LevelParams params_;
    core::InputStream& in_;
    tbb::task_arena& arena_;
    const int threads_;
    const std::size_t chunk_size_;
    Probe* const probe_;
    std::vector<Slot> slots_;
    std::atomic<bool> stop_{false};
    // The parser's place: the slot and page it reads.
    Slot* slot_ = nullptr;
    std::size_t page_ = 0;
    // Idle finders and pages, kept for the next chunk (all of them: at most one finder
    // per thread, and the pages of the records in flight).
    parallel::IdlePool<std::unique_ptr<core::BtMatchFinder>> finders_;
    parallel::IdlePool<Buffer> pages_;
    OptimiserStats stats_;                    // the parser's counters
    std::atomic<std::uint64_t> search_ns_{0};  // CPU time of all searches
    std::atomic<std::uint64_t> parser_search_ns_{0};  // of those, on the parser's thread
    tbb::task_group group_;
};

/// The sequential core over @p in into @p out (segments of options.segment_size), with the
/// match search ahead on @p threads threads of @p arena when the options search ahead
/// (searches_ahead()) and @p threads > 1; the one place a compressor and its search are
/// set up, for every graph that runs the core.  Call it inside @p arena.  On a failure,
/// @p on_failure runs before the search is stopped (it must wake a search task that
/// waits in @p in); @p stats, when given, receives the optimiser's counters.  Returns the
/// input size.
std::uint64_t compress_with_search(core::DeflateCompressor& compressor, core::InputStream& in, core::SegmentSink& out,
                                   const GraphOptions& options, tbb::task_arena& arena, int threads,
                                   const std::function<void()>& on_failure = {}, OptimiserStats* stats = nullptr);

}  // namespace flowdeflate::graph

// path_split.hpp - one pass of the min-cost path (min_cost_path.hpp) over a block on
// several threads, with exactly the whole-block result.
//
// The path is computed backwards: the cost from position i to the block's end reads the
// costs of the kMaxMatchLen positions after i.  It reads them only through their
// differences: were all of them off by the same d, i would choose the same item and its
// cost would be off by d as well (every candidate is a fixed cost plus one of them, and
// the vector paths key on differences too).  And paths from nearby positions merge, so a
// guess of the costs after a part of the block soon stops mattering.  So:
//
//   - the block is cut into parts (at positions where the parser marked the match cache's
//     index, PathMark); the optimiser's thread computes the last part, then the one before
//     it, each from the final costs after it, as the whole-block loop would;
//   - other threads (PathHelpers), front parts first, compute a part k as if the block
//     ended kExtension or more positions past the part's end (a guess of the costs after
//     it), into their own arrays;
//   - reaching a guessed part, the optimiser compares the guess at the kMaxMatchLen
//     positions after the part's end with the final costs there: if they differ by one
//     constant d everywhere, every choice of the part is the final one and its costs are
//     the guess's + d (taken); otherwise the optimiser computes the part itself, as it does
//     the parts no helper took.  A part a helper is still guessing, it waits for: the
//     helper started it earlier, so the guess ends sooner than its own pass would.
//
// The result is the whole-block path in every case; the guesses only save time.  Measured
// with a temporary harness over 256 KiB of each corpus file (levels 10 and 12, the costs of
// a third pass): with 512 positions past the part, every guess of 8-16 KiB parts agreed
// (31 of 31 per file and level; 30 of 31 on 256 KiB of zeros);
// with 258, 1-3 of 15 agreed and the others differed only within 33-168 positions of the
// part's end.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/min_cost_path.hpp"

namespace flowdeflate::core {

/// A position of the block (from its start) and the match cache's index there (the entries
/// of the positions before it come first).
struct PathMark {
    u32 pos;
    u32 cache_index;
};

/// Threads that may compute parts of a path beside the optimiser's (the graph's arena).
class PathHelpers {
public:
    /// A job of offer(): true if it did its work (it was not taken already).
    class Job {
    public:
        virtual bool run(u32 k) = 0;

    protected:
        ~Job() = default;
    };

    /// The splitter's counters: passes over blocks long enough to split (split or not:
    /// with every thread searching, none is) and their positions; the passes split and
    /// their parts;
    /// parts a helper guessed and the optimiser took; guesses that did not agree (computed
    /// again).
    struct Counters {
        std::atomic<std::uint64_t> passes{0}, positions{0}, split{0}, parts{0}, taken{0}, disagreed{0};
        std::atomic<std::uint64_t> guess_ns{0};  ///< CPU time of the helpers' guesses
        std::atomic<std::uint64_t> path_ns{0};   ///< the optimiser's time in those passes (path_split.cpp)
    };

    virtual ~PathHelpers() = default;
    /// Threads besides the caller's that may take jobs.
    [[nodiscard]] virtual unsigned helpers() const = 0;
    /// Offers job.run(0) .. job.run(n - 1) to other threads, front first, calls main()
    /// here, and returns when main has returned and every job has run (a job no other
    /// thread took by then runs here, and must return at once when its part is taken).
    virtual void offer(u32 n, Job& job, Job& main) = 0;

    Counters counters;
};

class PathSplitter {
public:
    /// The parser marks the cache every this many positions (or the first position after).
    static constexpr u32 kMarkSpacing = 512;
    /// A guess runs at least this far past its part's end (see above).
    static constexpr u32 kExtension = 512;
    /// No part is shorter.
    static constexpr u32 kMinPart = 4096;

    /// One pass over the block [0, block_length) whose cache starts at @p cache and ends
    /// at @p cache_end, as min_cost_path() over the whole block; @p marks ascending.
    /// Sets nodes.cost_to_end[block_length] to 0 (the entries after it as PathNodes).
    void run(u32 block_length, const LzMatch* cache, const LzMatch* cache_end, std::span<const PathMark> marks,
             const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes, PathHelpers& helpers);

private:
    enum State : int { kFree, kGuessing, kGuessed, kOwn };
    struct Part {
        u32 begin = 0, end = 0, guess_end = 0;  // the guess covers [begin, guess_end)
        const LzMatch* cache_end = nullptr;
        const LzMatch* guess_cache_end = nullptr;
        std::atomic<int> state{kFree};
        std::vector<u32> cost, items;  // the guess, from begin
    };
    u32 plan(u32 block_length, const LzMatch* cache, const LzMatch* cache_end, std::span<const PathMark> marks,
             unsigned helpers);
    bool guess(Part& part, const NearOptimalCosts& costs, const u8* offset_slot);
    static bool take(const Part& part, u32 block_length, PathNodes nodes);
    static int wait_while_guessing(Part& part);

    std::vector<std::unique_ptr<Part>> parts_;
    std::atomic<std::uint64_t> guess_ns_{0};  // this pass's guesses
};

}  // namespace flowdeflate::core

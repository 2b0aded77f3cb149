// resolver.hpp - Resolve: the serial stage.  It replays libdeflate's block logic in input
// order (block ends, the min_len choice and its recalculation, the sequence store's
// limits) over the steps of the searched tracks, and hands out each block once its end is
// known (resolved_block.hpp).  Made of:
//   follower.hpp    taking tracks' and branches' steps, whole strides at a time;
//   sequence_follower.hpp  level 1: tracks as sequences, followed and collected;
//   repairer.hpp    parsing where no track has the true step;
//   block_runs.hpp  collecting the block's items, counting literals;
//   planner.hpp     the feedback policy: what the next chunks' search should record;
// composed in resolver.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "flowdeflate/stats.hpp"
#include "parallel/resolved_block.hpp"
#include "parallel/track.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

/// The resolver's counters (public: -v and --stats print them).
using ResolverStats = ::flowdeflate::ResolverStats;

/// The serial resolver.  Feed it every chunk's tracks in order.
class Resolver {
public:
    using Emit = std::function<void(std::unique_ptr<ResolvedBlock>)>;
    /// @p workers: the threads that search (the automatic track choice weighs the
    /// resolver's load against them).
    Resolver(int level, Tracks mode, int workers);
    ~Resolver();
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    /// Resolves up to the end of @p tracks' chunk (the first step at or past it), passing
    /// each finished block to @p emit.  The resolver keeps @p tracks as long as it needs.
    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit);
    /// The plan for chunks searched from now on (the resolver's feedback).
    [[nodiscard]] TrackPlan plan() const;
    /// Plans with @p load as the resolver's load instead of measuring it
    /// (TrackPlanner::fix_resolver_load()).
    void fix_resolver_load(double load);
    [[nodiscard]] const ResolverStats& stats() const;

    /// The resolver of one parser type (resolver.cpp).
    class Base;

private:
    std::unique_ptr<Base> impl_;
};

}  // namespace flowdeflate::parallel

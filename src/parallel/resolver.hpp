// resolver.hpp - Resolve: the serial stage.  It replays libdeflate's block logic in input
// order (block ends, the min_len choice and its recalculation, the sequence store's
// limits) over the steps of the searched tracks, and hands out each block once its end is
// known (resolved_block.hpp).  Made of:
//   follower.hpp    taking tracks' and branches' steps, whole strides at a time;
//   repairer.hpp    parsing where no track has the true step (and everything, alone);
//   block_runs.hpp  collecting the block's items or sequences, counting literals;
//   planner.hpp     the feedback policy: what the next chunks' search should record;
// composed in resolver.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "parallel/resolved_block.hpp"
#include "parallel/track.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

struct ResolverStats {
    std::uint64_t chunks = 0;
    std::uint64_t blocks = 0;
    std::uint64_t steps_followed = 0;
    std::uint64_t syncs = 0;          ///< times the resolver (re)joined a track
    std::uint64_t branches = 0;       ///< ... of them onto a branch (Track::Branch)
    std::uint64_t repairs = 0;        ///< stretches the resolver parsed itself
    std::uint64_t repair_bytes = 0;
    std::uint64_t repairs_min_len = 0;  ///< repairs where a track stood at the position, with another min_len
    std::uint64_t repairs_phase = 0;    ///< repairs where no track had a step at the position
    std::uint64_t branched_chunks = 0;  ///< chunks searched with branches (TrackPlan::branch_min_lens)
    std::uint64_t masked_chunks = 0;  ///< chunks searched with step masks (TrackPlan::step_masks)
    std::uint64_t resolve_ns = 0;  ///< the resolver's own CPU time, emitting excluded
};

/// The serial resolver.  Feed it every chunk's tracks in order.
class Resolver {
public:
    using Emit = std::function<void(std::unique_ptr<ResolvedBlock>)>;
    /// @p workers: the threads that search (the automatic track choice weighs the
    /// resolver's load against them).  @p one_worker: nothing runs beside the resolver, so
    /// with automatic tracks it parses every step itself and asks for no search (the
    /// caller decides this once, for the resolver and for Code).
    Resolver(int level, TrackMode mode, int workers, bool one_worker);
    ~Resolver();
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    /// Resolves up to the end of @p tracks' chunk (the first step at or past it), passing
    /// each finished block to @p emit.  The resolver keeps @p tracks as long as it needs.
    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit);
    /// The plan for chunks searched from now on (the resolver's feedback).
    [[nodiscard]] TrackPlan plan() const;
    [[nodiscard]] const ResolverStats& stats() const;

    /// The resolver of one parser type (resolver.cpp).
    class Base;

private:
    std::unique_ptr<Base> impl_;
};

}  // namespace flowdeflate::parallel

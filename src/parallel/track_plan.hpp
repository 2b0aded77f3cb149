// track_plan.hpp - what a chunk's search parses: the resolver's planner (planner.hpp)
// writes it, the search (searcher.hpp) reads it.
#pragma once

#include <vector>

#include "flowdeflate/core.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

struct TrackPlan {
    /// Levels 2-9: each step records every min match length it is valid for (its mask),
    /// not just its own, so that the resolver can take it under another min_len.  Costs
    /// the search 0.6% (binaries) to 3% (text); the planner asks for it where min_len
    /// repairs are frequent (see planner.hpp).
    bool step_masks = false;
    /// With step_masks, for the history track: the min match lengths whose parse is
    /// followed where it branches off the track (Track::branches), until it meets it again.
    std::vector<u32> branch_min_lens;
    /// With branch_min_lens: a min_len branches off only where a literal count within this
    /// margin of the history track's own count chooses it (BranchParses::arm()): fewer
    /// branches, fewer searches, a few more repairs.  kAnyMargin: at every step whose mask
    /// leaves it out (fewest repairs).
    static constexpr u32 kAnyMargin = ~0u;
    u32 arm_margin = kAnyMargin;
};

}  // namespace flowdeflate::parallel

// planner.hpp - the resolver's feedback to the search: which tracks, masks and branches
// the chunks searched from now on get (TrackPlan).  Policy only: the resolver reports
// what happened (min_len choices, repairs, branches taken, its own time per chunk) and
// asks for the plan; nothing here touches items or match finders.
//
// What it weighs (docs/DESIGN.md, "The resolver's plan"; measurements in
// docs/notes/parallel-levels-1-9.md):
//   - step masks cost the search 0.6-3% and save the repairs of min_len flips: at each
//     true block start whose min_len differs from the history track's there, ~10 KB
//     parsed again, serially;
//   - branches cost the search 18-35% at level 6 and save the remaining min_len repairs;
//     they pay only where the serial resolver bounds the run (many workers).
// (With one worker and automatic tracks the caller runs the sequential compressor instead
// of the stages: nothing could run beside the resolver; see Options::parallel().)
#pragma once

#include <cstdint>
#include <vector>

#include "parallel/track.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

class TrackPlanner {
public:
    /// @p workers: the threads that search; @p min_len_choices: the level's steps depend on
    /// min_len (levels 2-9), so masks and branches mean something.
    TrackPlanner(Tracks mode, int workers, bool min_len_choices);

    /// The plan for chunks searched from now on.
    [[nodiscard]] TrackPlan plan() const;

    // What the resolver reports, in input order.
    void chunk_begins() { chunk_missed_ = false; }
    /// A block started with, or recalculated, min_len @p m.
    void min_len_chosen(u32 m);
    /// A repair began where a track stood with another min_len.
    void min_len_repair() {
        chunk_min_len_repairs_++;
        chunk_missed_ = true;
    }
    /// @p bytes more of such a repair.
    void min_len_repair_bytes(std::uint64_t bytes) { chunk_min_len_repair_bytes_ += bytes; }
    /// The resolver took a branch: a miss the branch caught (keep branching).
    void branch_taken() {
        chunk_branches_++;
        chunk_missed_ = true;
    }
    /// The chunk of @p tracks is resolved, in @p resolve_ns of the resolver's own time.
    void chunk_resolved(const ChunkTracks& tracks, std::uint64_t resolve_ns);
    /// Weighs @p load (resolver time over search time per track) from now on instead of
    /// the measured one: the threadless stages (compress_chunked) in tests, whose plans
    /// must not depend on the host's speed.
    void fix_resolver_load(double load) {
        resolver_load_ = load;
        load_fixed_ = true;
    }

    // The constants, each measured (docs/notes/parallel-levels-1-9.md).
    /// automatic: branches only after a min-length miss, until this many clean chunks.
    static constexpr u32 kCleanChunksForHistoryOnly = 8;
    /// The min_lens branches follow: the most recent true ones.
    static constexpr std::size_t kRecentMinLens = 2;
    /// Where the resolver bounds the run by less than kAnyBranchBound-fold, branches are
    /// armed only within kArmMargin literals of a min_len threshold: the search saves more
    /// than the few repairs they leave cost.
    static constexpr u32 kArmMargin = 8;
    static constexpr double kAnyBranchBound = 1.5;
    /// Masks for the next kMaskedChunks chunks when a chunk's min_len repairs reach
    /// kMaskPressure / workers of its bytes (with masks on, a repair left counts as
    /// kBytesPerMaskedRepair bytes: a measured 50-125).
    static constexpr double kMaskPressure = 0.04;
    static constexpr double kBytesPerMaskedRepair = 64;
    static constexpr int kMaskedChunks = 8;

private:
    void weigh_step_masks(const ChunkTracks& tracks);

    const Tracks mode_;
    const int workers_;
    const bool min_len_choices_;
    // All fields below belong to the resolver's thread (the serial Resolve node); the
    // graph copies plan() out under its own lock.
    std::uint64_t chunk_min_len_repairs_ = 0, chunk_min_len_repair_bytes_ = 0;  ///< this chunk's
    std::uint64_t chunk_branches_ = 0;  ///< branches the resolver took in this chunk
    int masked_chunks_left_ = 0;
    std::vector<u32> recent_min_lens_;  ///< newest first
    double resolver_load_ = 0;  ///< resolver time / search time per track, per chunk, smoothed
    bool load_fixed_ = false;   ///< fix_resolver_load() was called
    u32 clean_chunks_ = 0;      ///< chunks in a row without a min_len miss
    bool chunk_missed_ = false;
};

}  // namespace flowdeflate::parallel

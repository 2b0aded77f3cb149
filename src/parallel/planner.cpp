// planner.cpp - see planner.hpp.
#include "parallel/planner.hpp"

#include <algorithm>

namespace flowdeflate::parallel {

TrackPlanner::TrackPlanner(Tracks mode, int workers, bool min_len_choices)
    : mode_(mode), workers_(std::max(1, workers)), min_len_choices_(min_len_choices) {}

// automatic: branches only after a min-length miss (until kCleanChunksForHistoryOnly
// clean chunks; a branch taken is a miss it caught), and only while the serial resolver,
// repairs included, is the bottleneck: while it needs more time per chunk than the
// workers need to search one (search time / workers).  With few workers the search is
// the bottleneck, and a repair costs less than the branches every chunk would (most are
// never taken, because the true min_len is the history track's there); with many,
// repairs would hold everybody up.  all: always branches, at every step whose mask
// leaves a min_len out (fewest repairs).
TrackPlan TrackPlanner::plan() const {
    TrackPlan plan;
    if (!min_len_choices_) return plan;
    const bool missing = clean_chunks_ < kCleanChunksForHistoryOnly;
    const double bound = resolver_load_ * workers_;  // > 1: the resolver bounds the run
    const bool branches = mode_ == Tracks::all || (mode_ == Tracks::automatic && missing && bound > 1.0);
    // With more than two workers the serial repairs bound the run, and the masks stay on:
    // switched by the repairs they leave, they came and went with a lag of threads + 4
    // chunks (the plans made before a chunk resolves), and every true block start in an
    // unmasked chunk cost a ~10 KB repair.
    plan.step_masks = branches || masked_chunks_left_ > 0 || workers_ > 2;
    if (branches) {
        plan.branch_min_lens = recent_min_lens_;
        if (mode_ == Tracks::automatic && bound < kAnyBranchBound) plan.arm_margin = kArmMargin;
    }
    return plan;
}

void TrackPlanner::min_len_chosen(u32 m) {
    auto it = std::find(recent_min_lens_.begin(), recent_min_lens_.end(), m);
    if (it == recent_min_lens_.begin() && it != recent_min_lens_.end()) return;
    if (it != recent_min_lens_.end()) recent_min_lens_.erase(it);
    recent_min_lens_.insert(recent_min_lens_.begin(), m);
    if (recent_min_lens_.size() > kRecentMinLens) recent_min_lens_.pop_back();
}

void TrackPlanner::chunk_resolved(const ChunkTracks& tracks, std::uint64_t resolve_ns) {
    clean_chunks_ = chunk_missed_ ? 0 : clean_chunks_ + 1;
    weigh_step_masks(tracks);
    // Load of the resolver against the search, per track, smoothed over ~8 chunks.
    if (!tracks.tracks.empty() && !load_fixed_) {
        const double search_per_track = double(tracks.search_ns) / double(tracks.tracks.size());
        resolver_load_ += (double(resolve_ns) / std::max(1.0, search_per_track) - resolver_load_) / 8;
    }
}

// The pressure of min_len repairs on the chunk: without masks their bytes, with masks
// their count times kBytesPerMaskedRepair (a branch taken counts as the repair it saved,
// so that masks stay on under branches).  A repaired byte costs about twice a searched
// one (priming), so on 2 cores masks pay from ~2.5% repairs; with more workers the search
// is spread and the serial repairs hold everybody up, so sooner.
void TrackPlanner::weigh_step_masks(const ChunkTracks& tracks) {
    const double pressure = tracks.step_masks
                                ? double(chunk_min_len_repairs_ + chunk_branches_) * kBytesPerMaskedRepair
                                : double(chunk_min_len_repair_bytes_);
    const double bytes = double(tracks.job.end - tracks.job.begin) / workers_;
    if (pressure > kMaskPressure * bytes)
        masked_chunks_left_ = kMaskedChunks;
    else if (masked_chunks_left_ > 0)
        masked_chunks_left_--;
    chunk_min_len_repairs_ = chunk_min_len_repair_bytes_ = chunk_branches_ = 0;
}

}  // namespace flowdeflate::parallel

// searcher.hpp - Search: a chunk's speculative parse, on any worker.
//
// The match finder is primed from the 32 KiB before the chunk, then the *history track*
// is parsed from the chunk's start to a little past its end (ChunkJob::stop) as if a block
// began at the chunk's start, with libdeflate's own block logic (min_len changes).  What a
// step chooses depends only on its position and min_len, never on where the block began,
// because every position enters the match finder; so the resolver can take the track's
// steps wherever the true parse stands at a step start with the same min_len.  With step
// masks each step records every min_len it is valid for (only the step's first search
// reads min_len), and with branches the parses of other min_lens are followed where they
// leave the track (branches.hpp).  Level 1's steps do not even depend on min_len.
#pragma once

#include <memory>

#include "parallel/chunker.hpp"
#include "parallel/track.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

/// Searches chunks; one per worker thread (it holds the match finders).
class ChunkSearcher {
public:
    explicit ChunkSearcher(int level);
    ~ChunkSearcher();
    ChunkSearcher(const ChunkSearcher&) = delete;
    ChunkSearcher& operator=(const ChunkSearcher&) = delete;

    /// The tracks of @p job as @p plan asks.
    [[nodiscard]] std::unique_ptr<ChunkTracks> search(const ChunkJob& job, const TrackPlan& plan);

    /// The searcher of one parser type (searcher.cpp).
    class Base;

private:
    std::unique_ptr<Base> impl_;
};

}  // namespace flowdeflate::parallel

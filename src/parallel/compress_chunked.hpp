// compress_chunked.hpp - the four stages one after another on the calling thread: the
// parallel graph's exact output without threads (the exactness tests use it, and it is
// the reference the graph must match).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "flowdeflate/core.hpp"
#include "parallel/resolver.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

struct ChunkedOptions {
    std::size_t chunk_size = 1u << 20;
    Tracks tracks = Tracks::automatic;
    int workers = 1;  ///< the worker count the automatic track choice assumes
    std::optional<u32> arm_margin = std::nullopt;  ///< overrides the plans' TrackPlan::arm_margin (tests)
    /// The resolver's load (resolver time over search time per track) the automatic plan
    /// weighs; unset: measured, so that the plans, though never the bytes, vary with the
    /// host's timing.
    std::optional<double> resolver_load = std::nullopt;
};

/// Runs Search, Resolve, Code and Assemble one after another over @p in, chunk by chunk.
/// Returns the compressed stream; @p stats gets the resolver's counters.
std::vector<u8> compress_chunked(std::span<const u8> in, int level, Format format, const ChunkedOptions& options,
                                 ResolverStats* stats = nullptr);

}  // namespace flowdeflate::parallel

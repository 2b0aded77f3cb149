// call_graphs.hpp - the graphs a library call drives from the caller's own thread, for
// input that is in memory already (a buffer) or arrives by write() (a stream):
//
//   - a buffer: levels 1-9 put every chunk job into a ChunkGraph at once (the limiters
//     keep them within the search window and the ring); levels 0 and 10-12 run the core
//     on the calling thread, with the match search ahead on the arena's other threads
//     (compress_with_search(), match_search.hpp);
//   - a stream: write() copies into a fed InputWindow.  Levels 1-9 keep a ChunkGraph for
//     the stream's life and put in every chunk job whose bytes are present; when the
//     window is full, the caller's thread waits for the graph inside the arena (helping
//     it) until the graph is idle, which frees everything but the last block's history:
//     no thread is created and no worker ever blocks, whatever the arena's concurrency.
//     Levels 0 and 10-12 run the core as one arena task that waits for write().
//
// Output goes to the caller's Sink in segments, with progress and cancellation checked
// once per segment.  (File descriptors have graphs of their own: fd_graphs.hpp.)
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "flowdeflate/core.hpp"
#include "graph/graph_options.hpp"

namespace flowdeflate::graph {

/// Compresses @p in (validated options) to @p sink through the graph its level takes.
Result compress_buffer(std::span<const std::uint8_t> in, const Sink& sink, const GraphOptions& options);

/// A stream's graph: write() any number of times, then finish().  Not thread-safe.
class StreamGraph {
public:
    /// The graph @p options (validated) choose; output goes to @p sink.
    static std::unique_ptr<StreamGraph> make(const GraphOptions& options, Sink sink);
    virtual ~StreamGraph() = default;
    StreamGraph(const StreamGraph&) = delete;
    StreamGraph& operator=(const StreamGraph&) = delete;

    /// Takes all of @p data, waiting for room in the window as the graph needs.
    virtual void write(std::span<const std::uint8_t> data) = 0;
    /// Ends the input and delivers the rest of the output; returns the totals.
    virtual Result finish() = 0;
    /// Input taken by write() and output delivered so far.
    [[nodiscard]] virtual std::uint64_t in_bytes() const noexcept = 0;
    [[nodiscard]] virtual std::uint64_t out_bytes() const noexcept = 0;

protected:
    StreamGraph() = default;
};

}  // namespace flowdeflate::graph

// chunk_graph.hpp - the compute part of the parallel graph, shared by every way input
// comes in and output goes out (a file through I/O threads, a caller's buffer, a caller's
// writes to a stream object):
//
//   input() ─► queue ─► limiter(ahead) ─► Search ─► sequencer ─► Resolve ─► queue ─► limiter(ring) ─► Code
//                          ▲             (workers)   (chunk #)    (serial)                 ▲           (workers)
//                          └────── a chunk is resolved ──────────────┘                      │              │
//                                                                                            │          sequencer
//                                                                                            │          (block #)
//                                                                                            │              ▼
//                                                         segments ◄── Assemble ─────────────┴── a block is assembled
//                                                                     (serial)
//
// The caller puts parallel::ChunkJobs (made by parallel::Chunker) into input(), in any order, and
// waits for the graph.  Assemble writes segments to the caller's SegmentedOutput and says,
// through the hooks, how far the input is done with, so the caller can free it.
#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>

#include <functional>
#include <memory>

#include "core/input_stream.hpp"
#include "core/segmented_output.hpp"
#include "flowdeflate/stats.hpp"
#include "graph/failure.hpp"
#include "graph/graph_options.hpp"
#include "parallel/chunker.hpp"
#include "parallel/resolver.hpp"

namespace flowdeflate::graph {

class ChunkGraph {
public:
    struct Hooks {
        std::function<void()> resolved;                   ///< a chunk was resolved
        std::function<void(std::size_t done)> assembled;  ///< input [0, done) is assembled
    };

    /// Builds the nodes in @p g (made inside the arena that will run it); output goes to
    /// @p out.  The input's first byte comes with the jobs (ChunkJob::in_begin).
    ChunkGraph(tbb::flow::graph& g, const GraphOptions& options, const ParallelShape& shape,
               core::SegmentedOutput& out, Failure& failure, Hooks hooks);
    ~ChunkGraph();
    ChunkGraph(const ChunkGraph&) = delete;
    ChunkGraph& operator=(const ChunkGraph&) = delete;

    /// Where chunk jobs go in.
    tbb::flow::receiver<parallel::ChunkJob>& input();
    /// Input bytes assembled so far (once the last block is assembled: the input size).
    [[nodiscard]] std::uint64_t in_bytes() const;
    /// The final block was assembled and the stream finished.
    [[nodiscard]] bool finished() const;
    /// Counters for -v / --stats (call after the graph is idle).
    void collect(GraphStats& stats) const;

private:
    struct Nodes;
    std::unique_ptr<Nodes> nodes_;
};

}  // namespace flowdeflate::graph

// pipeline.hpp - compression from one file descriptor to another through a flow graph
// whose reads and writes run on I/O threads of their own, so that a blocked read or write
// never holds a worker.  compress_fd() chooses one of two graphs:
//
//   sequential (pipeline.cpp):         Read ──► Compress ──► (sequencer) ──► Write
//   parallel (parallel_pipeline.cpp):  Read ──► Search ──► Resolve ──► Code ──► Assemble ──► Write
//
// In the sequential graph Read and Write are async_nodes whose work runs on the input
// window's reader and the output writer; Compress is one serial node that runs the
// sequential core (core::DeflateCompressor::compress_stream) over the input window.  It
// serves levels 0 and 10-12 and Options::sequential.  The parallel graph (levels 1-9) puts
// the ChunkGraph (chunk_graph.hpp) between the same reader and writer.
// Memory is bounded by the window (what lies between the compressor's history and the
// reader, `ahead` past the compressor) and the writer's queue of segments, not by the
// size of the input.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "flowdeflate/options.hpp"
#include "flowdeflate/stats.hpp"
#include "graph/input_window.hpp"
#include "graph/output_writer.hpp"

namespace flowdeflate::graph {

/// Progress of a run, for watchdogs (tests fail a run that stops moving, and print this).
/// Every counter only grows; all are updated with relaxed atomics.
struct Probe {
    std::atomic<std::uint64_t> chunks_in{0};         ///< chunk jobs handed to Search
    std::atomic<std::uint64_t> chunks_searched{0};
    std::atomic<std::uint64_t> chunks_resolved{0};
    std::atomic<std::uint64_t> blocks_coded{0};
    std::atomic<std::uint64_t> blocks_assembled{0};
    std::atomic<std::uint64_t> segments_out{0};      ///< output segments handed to the writer
    /// The sum of the counters: it changes while the run makes progress.
    [[nodiscard]] std::uint64_t progress() const;
    /// One line with every counter (and where the graph stands between them).
    [[nodiscard]] std::string dump() const;
};

/// The library's options, and what only the graph's own callers tune.
struct PipelineOptions : Options {
    Probe* probe = nullptr;                ///< counters for a watchdog (not owned)
    WindowOptions window{};
    std::size_t segment_size = 1u << 20;   ///< output segment size
    std::size_t max_pending_segments = 4;  ///< segments that may wait for the writer
};

struct PipelineResult {
    std::uint64_t in_bytes = 0;
    std::uint64_t out_bytes = 0;
    GraphStats stats{};  ///< filled by the parallel graph
};

/// Compresses everything readable from @p in_fd into @p out_fd through the graph: the
/// parallel one for levels 1-9 unless options.sequential, else the sequential one.
/// Throws InputError / OutputError (messages name @p in_name / @p out_name).
PipelineResult compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                           const PipelineOptions& options);

/// The sequential graph (Read -> Compress -> Write), whatever the options say.
PipelineResult compress_fd_sequential(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                      const PipelineOptions& options);
/// The parallel graph (parallel_pipeline.cpp); levels 1-9.
PipelineResult compress_fd_parallel(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                    const PipelineOptions& options);

}  // namespace flowdeflate::graph

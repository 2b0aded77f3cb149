// pipeline.hpp - the streaming compression graph (picture 2 of the case study):
//
//     Read ──► Compress ──► (sequencer) ──► Write
//
// Read and Write are async_nodes whose work runs on two dedicated I/O threads (the input
// window's reader and the output writer); Compress is one serial node that runs the
// sequential core (core::DeflateCompressor::compress_stream) over the input window.
// Memory is bounded by the window (what lies between the compressor's history and the
// reader, `ahead` past the compressor) and the writer's queue of segments, not by the
// size of the input.  The parallel pipeline (Search/Resolve/Code/Assemble) replaces the
// single Compress node later; this graph stays as `--sequential`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "flowdeflate/flowdeflate.hpp"
#include "graph/input_window.hpp"
#include "graph/output_writer.hpp"

namespace flowdeflate::graph {

struct PipelineOptions {
    int level = kDefaultLevel;
    Format format = Format::gzip;
    WindowOptions window{};
    std::size_t segment_size = 1u << 20;   ///< output segment size
    std::size_t max_pending_segments = 4;  ///< segments that may wait for the writer
    /// Called on the compressing thread after each output segment with the input bytes
    /// read so far and the output bytes produced so far (for progress displays).
    std::function<void(std::uint64_t in, std::uint64_t out)> progress;
};

struct PipelineResult {
    std::uint64_t in_bytes = 0;
    std::uint64_t out_bytes = 0;
};

/// Compresses everything readable from @p in_fd into @p out_fd through the graph.
/// Throws InputError / OutputError (messages name @p in_name / @p out_name).
PipelineResult compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                           const PipelineOptions& options);

}  // namespace flowdeflate::graph

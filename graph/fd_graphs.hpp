// fd_graphs.hpp - compression from one file descriptor to another through a flow graph
// whose reads and writes run on I/O threads of their own, so that a blocked read or write
// never holds a worker.  compress_fd() chooses one of two graphs:
//
//   sequential (sequential_graph.cpp):  Read ──► Compress ──► (sequencer) ──► Write
//   parallel (parallel_fd_graph.cpp):   Read ──► Search ──► Resolve ──► Code ──► Assemble ──► Write
//
// In the sequential graph Read and Write are async_nodes whose work runs on the input
// window's reader and the output writer; Compress is one serial node that runs the
// sequential core over the input window (compress_with_search(), match_search.hpp).  It
// serves levels 0 and 10-12 and Options::sequential.  The parallel graph (levels 1-9) puts
// the ChunkGraph (chunk_graph.hpp) between the same reader and writer.
// Memory is bounded by the window (what lies between the compressor's history and the
// reader, WindowOptions::read_ahead past the compressor) and the writer's queue of segments,
// not by the size of the input.
#pragma once

#include <string>

#include "graph/graph_options.hpp"
#include "graph/output_writer.hpp"  // OutputError

namespace flowdeflate::graph {

/// Compresses everything readable from @p in_fd into @p out_fd through the graph: the
/// parallel one for levels 1-9 unless options.sequential, else the sequential one.
/// Throws InputError / OutputError (messages name @p in_name / @p out_name).
GraphResult compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                        const GraphOptions& options);

/// The sequential graph (Read -> Compress -> Write), whatever the options say.
GraphResult compress_fd_sequential(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                   const GraphOptions& options);
/// The parallel graph (parallel_fd_graph.cpp); levels 1-9.
GraphResult compress_fd_parallel(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                 const GraphOptions& options);

}  // namespace flowdeflate::graph

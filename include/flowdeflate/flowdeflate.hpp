// flowdeflate/flowdeflate.hpp - the public API for calls: everything but the flow-graph
// node, whose header pulls all of <tbb/flow_graph.h> (seconds of compile time in every
// source file that includes it).  An application's own graph includes
// <flowdeflate/flow.hpp> where it builds the node.
//
//   core.hpp      formats, levels, flowdeflate::Error, the one-thread Compressor, versions
//   options.hpp   flowdeflate::Options (level, format, threads or arena, chunk, windows...)
//   compress.hpp  one-shot, file, file-descriptor and streaming compression; decompression
//   stats.hpp     what a run of the parallel graph did (compress_fd() fills it)
//   index.hpp     seek indexes: recorded while compressing or decompressing, read and
//                 written in gztool's and indexed_gzip's formats, IndexedReader
//   flow.hpp      flowdeflate::flow::compress_node, for an application's own flow graph
//                 (not included here)
//
// The algorithm and every decision in it are libdeflate's (Eric Biggers, MIT licence);
// the output is libdeflate's, byte for byte.
#pragma once

#include "flowdeflate/compress.hpp"
#include "flowdeflate/core.hpp"
#include "flowdeflate/index.hpp"
#include "flowdeflate/options.hpp"
#include "flowdeflate/stats.hpp"

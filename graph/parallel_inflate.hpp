// parallel_inflate.hpp - decompression of any gzip file on several cores.
//
// The method is rapidgzip's (Knespel & Brunst, HPDC 2023): workers jump into the
// compressed stream, find a block start (BlockFinder) and decode from there without the
// 32 KiB window, writing markers where a back-reference reaches into it (DeflateDecoder's
// marked mode).  What differs is who joins the pieces.  Here one *main line* decodes the
// stream in order with ISA-L, the fastest decoder available, and whenever it reaches a
// stretch a worker has finished, it stops at that stretch's first block boundary (exactly:
// IsalLine checks it), resolves the worker's markers with the window it has, writes the
// stretch and starts again after it.  A stretch not finished in time is simply decoded by
// the main line.  So the main line never waits, the output is the in-order decoding of
// the true stream, and the workers only ever remove work from it: on 2 cores the main line
// plus one worker beat one core by the share of the stream the worker takes (its marked
// decoding is about a third of ISA-L's speed).
//
// Workers are a flow graph's function_node (concurrency threads - 1) on their own arena;
// the main line runs on the calling thread, which also writes (the sink) and checks each
// member's CRC-32 and ISIZE.  Bounds: at most `threads - 1` regions in decoding and a few
// decoded regions waiting, each at most kMaxRegionOutput symbols, and the input's pages
// are released behind the main line, so memory does not grow with the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "flowdeflate/compress.hpp"

namespace flowdeflate::graph {

struct ParallelInflateStats {
    std::uint64_t regions = 0;        ///< regions of the compressed stream
    std::uint64_t speculated = 0;     ///< regions given to a worker
    std::uint64_t used = 0;           ///< worker stretches written
    std::uint64_t failed_stops = 0;   ///< stretches the main line could not stop at (not used)
    std::uint64_t worker_output = 0;  ///< bytes written from workers' stretches
    std::uint64_t main_resolved = 0;  ///< stretches the main line resolved itself (no worker free)
};

struct ParallelInflateOptions {
    int threads = 2;  ///< the main line and threads - 1 workers (at least one)
    /// Compressed bytes per region (a worker's share): large enough that finding a block
    /// start and decoding the first marked 32 KiB are a small part of a worker's time,
    /// small enough that a 2-core run of a 10 MB file still has regions to share.
    std::size_t region_bytes = std::size_t(512) << 10;
    /// Pages of the input (a private file mapping) are released behind the main line.
    bool release_input = false;
    /// The main line waits for a worker's region instead of decoding it itself (tests:
    /// every region a worker decodes is then used, whatever the machine's load).
    bool wait_for_workers = false;
};

/// Decompresses the gzip stream @p input (every member), handing the output to @p sink in
/// order.  Throws Error as decompress().
Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats = nullptr);

}  // namespace flowdeflate::graph
